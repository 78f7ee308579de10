/* fuzz_results.c: a results artifact (BackupResults / RestoreResults JSON) to the results
 * screen's lines. */
#include "fuzz.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_doc d = {0};
    kc_err err;
    rs_parse(&d, (const char *)data, size, &err);
    rs_doc_free(&d);
    return 0;
}
