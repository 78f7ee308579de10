/* fuzz_velero.c: the Velero decoders over any JSON object, then the model, its sums and --once's
 * JSON and table (numbers at and past the int64 range, times that are no date). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "fuzz.h"
#include "kubeclient/jsonarena.h"
#include "kubeclient/velero.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_json_arena *a = NULL;
    cJSON *doc = kc_json_parse((const char *)data, size, &a);
    if (!doc) {
        kc_json_arena_free(a);
        return 0;
    }
    vl_run *b = vl_decode_backup(doc), *r = vl_decode_restore(doc);
    vl_volume *v[4] = {vl_decode_pvb(doc), vl_decode_pvr(doc), vl_decode_du(doc),
                       vl_decode_dd(doc)};
    vl_release_download_request(vl_decode_download_request(doc));
    vl_release_schedule(vl_decode_schedule(doc));
    vl_release_bsl(vl_decode_bsl(doc));
    model *m = model_new();
    if (b) model_upsert_run(m, b, 100.0, 1.8e9);
    if (r) model_upsert_run(m, r, 100.0, 1.8e9);
    for (int i = 0; i < 4; i++)
        if (v[i]) model_upsert_volume(m, v[i], 100.0);
    if (b) model_upsert_run(m, b, 101.0, 1.8e9 + 1);
    model_refresh_volumes(m);
    for (size_t i = 0; i < m->n_runs; i++) {
        (void)model_run_rate(m->runs[i], 101.0);
        (void)model_run_eta(m->runs[i], 101.0);
        (void)model_run_duration(m->runs[i], 1.8e9 + 1);
    }
    ans_ctx c = {.m = m, .now = 101.0, .wall = 1.8e9 + 1};
    free(snapshot_json(&c, "c", "s", "velero"));
    free(snapshot_table(&c, NULL));
    model_free(m);
    vl_release_run(b);
    vl_release_run(r);
    for (int i = 0; i < 4; i++) vl_release_volume(v[i]);
    kc_json_arena_free(a);
    return 0;
}
