/* fuzz_artifact.c: a resource-list artifact (BackupResourceList / RestoreResourceList JSON):
 * whole, through the scanner in slices the first byte chooses (as logderive feeds it), and with
 * a restore's filter; the rows must agree however it is sliced. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "logprogress.h"
#include "reslist.h"

static size_t rows_sliced(const uint8_t *data, size_t size, size_t slice, const lprog_filter *f,
                          int *ok)
{
    reslist *l = reslist_new(f);
    kc_err err;
    *ok = 1;
    for (size_t off = 0; off < size && *ok; off += slice)
        *ok = !reslist_feed(l, (const char *)data + off, size - off < slice ? size - off : slice,
                            &err);
    if (*ok) *ok = !reslist_finish(l, &err);
    size_t n = 0;
    if (*ok) {
        vl_res_progress *r;
        unsigned char *est;
        reslist_rows(l, f, NULL, NULL, &r, &n, &est);
        lprog_res_free(r, n);
        free(est);
    }
    reslist_free(l);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vl_res_progress *r = NULL;
    size_t n = 0;
    kc_err err;
    int whole = lprog_from_resource_list((const char *)data, size, &r, &n, &err) == 0;
    if (whole) lprog_res_free(r, n);
    size_t slice = size ? (size_t)data[0] % 17 + 1 : 1, n2;
    int ok;
    n2 = rows_sliced(data, size, slice, NULL, &ok);
    if (ok != whole || (ok && n2 != n)) abort(); /* slicing changed the answer */
    char *inc_ns[] = {"shop", "we*"}, *exc_res[] = {"secrets"};
    lprog_filter f = {
        .inc_ns = inc_ns, .n_inc_ns = 2, .exc_res = exc_res, .n_exc_res = 1, .include_cluster = -1};
    rows_sliced(data, size, slice, &f, &ok);
    return 0;
}
