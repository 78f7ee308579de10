/* fuzz_ndjson.c: the watch stream framer, fed in chunks whose sizes the input chooses. */
#include <stdlib.h>

#include "fuzz.h"
#include "kubeclient/jsonarena.h"
#include "kubeclient/ndjson.h"

static int on_line(void *arg, const char *line, size_t n)
{
    (void)arg;
    kc_json_arena *a = NULL;
    kc_json_parse(line, n, &a);
    kc_json_arena_free(a);
    return n > 0 && line[0] == 'S'; /* "stop" sometimes, as a handler may */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t step = (size_t)data[0] % 64 + 1;
    kc_ndjson *f = kc_ndjson_new(4096, on_line, NULL);
    for (size_t i = 1; i < size; i += step) {
        size_t k = size - i < step ? size - i : step;
        if (kc_ndjson_feed(f, (const char *)data + i, k)) break;
    }
    (void)kc_ndjson_pending(f);
    kc_ndjson_free(f);
    return 0;
}
