/* fuzz_logparse.c: Velero log lines (logfmt and JSON) through the parser, the per-resource
 * derivation of a backup and a restore, and the pager's line store and search. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "logbuf.h"
#include "logparse.h"
#include "logprogress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    lp_line l;
    memset(&l, 0, sizeof l);
    lprog *pb = lprog_new(0, "velero/b"), *pr = lprog_new(1, "velero/r");
    logbuf *lb = logbuf_new(64);
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(s + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (s + i)) : size - i;
        if (lp_parse(&l, s + i, n) == 0) {
            (void)lp_get(&l, "backup");
            (void)lp_level_name(l.level);
        }
        (void)lp_level_of(s + i, n);
        lprog_feed_raw(pb, s + i, n);
        lprog_feed_raw(pr, s + i, n);
        i += n + 1;
    }
    const vl_res_progress *r;
    const unsigned char *flags;
    size_t n = lprog_resources(pb, &r, &flags);
    lprog_set_totals(pr, r, n, flags);
    (void)lprog_resources(pr, &r, &flags);
    logbuf_append(lb, s, size);
    logbuf_flush(lb);
    logbuf_set_filter(lb, LP_WARNING);
    (void)logbuf_search(lb, "Error", 0, 1, 0);
    (void)logbuf_next_level(lb, 0, LP_ERROR);
    logbuf_free(lb);
    lprog_free(pb);
    lprog_free(pr);
    lp_line_free(&l);
    return 0;
}
