/* fuzz_artifact.c: a resource-list artifact (BackupResourceList / RestoreResourceList JSON). */
#include <stdlib.h>

#include "fuzz.h"
#include "logprogress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vl_res_progress *r = NULL;
    size_t n = 0;
    kc_err err;
    if (lprog_from_resource_list((const char *)data, size, &r, &n, &err) == 0) lprog_res_free(r, n);
    return 0;
}
