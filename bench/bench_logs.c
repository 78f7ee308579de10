/* bench_logs.c: the log pager's line store with a 1 000 000-line Velero log (logrus text, as the
 * sim writes it): gunzip + load into logbuf (as the stored log arrives), the first screen (38
 * rows: view lookup, level, terminal-safe text), a search for a string near the end, a level
 * filter (errors only) and a search in the filtered view. */
#include <zlib.h>

#include "benchutil.h"
#include "kubeclient/gunzip.h"
#include "logbuf.h"
#include "logparse.h"
#include "sanitize.h"
#include "simlog.h"

#define ROWS 38 /* body rows of the pager on a 40-row terminal */

static const char *resources[] = {"pods",
                                  "persistentvolumeclaims",
                                  "configmaps",
                                  "secrets",
                                  "services",
                                  "apps/deployments",
                                  "apps/replicasets",
                                  "serviceaccounts",
                                  "batch/jobs",
                                  "events"};

/* The log as text: mostly info lines "Processing item" / "Backed up N items ...", with warnings
 * every 997 lines and errors every 9973; the line at `needle_at` names a unique pod. */
static char *make_log(size_t n, size_t needle_at, size_t *len)
{
    kc_buf b = {0};
    double t = 1764000000.0;
    char name[64], count[160];
    for (size_t i = 0; i < n; i++) {
        const char *res = resources[i % 10];
        snprintf(name, sizeof name, i == needle_at ? "checkout-7f9c-zz%zu" : "web-%zu", i % 5000);
        simlog_field f[6] = {{"backup", "velero/nightly-20261130"},
                             {"logSource", "pkg/backup/backup.go:444"},
                             {"name", name},
                             {"namespace", "shop"},
                             {"progress", ""},
                             {"resource", res}};
        const char *level = "info", *msg = "Processing item";
        if (i % 9973 == 9972) {
            level = "error";
            msg = "Error backing up item";
            f[1].val = "pkg/backup/item_backupper.go:351";
            f[4] = (simlog_field){"error.message", "timed out waiting for the snapshot"};
        } else if (i % 997 == 996) {
            level = "warning";
            msg = "Skipping item because it's being deleted";
            f[1].val = "pkg/backup/item_backupper.go:187";
        } else if (i % 2 == 1) {
            snprintf(count, sizeof count,
                     "Backed up %zu items out of an estimated total of %zu (estimate will change "
                     "throughout the backup)",
                     i / 2 + 1, n / 2);
            msg = count;
            f[1].val = "pkg/backup/backup.go:499";
        }
        char *line = simlog_line(t + (double)i * 0.003, level, msg, f, 6);
        kc_buf_append(&b, line, strlen(line));
        kc_buf_append(&b, "\n", 1);
        free(line);
    }
    *len = b.len;
    return b.data;
}

static unsigned char *gzip_of(const char *data, size_t n, size_t *out_len)
{
    z_stream z = {0};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, n);
    unsigned char *out = xmalloc(cap);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

static void to_logbuf(void *arg, const char *data, size_t n)
{
    logbuf_append(arg, data, n);
}

/* The first screen from view row top: what the pager does per visible row. Returns bytes. */
static size_t screen(logbuf *lb, size_t top, kc_buf *sb)
{
    size_t nv = logbuf_view_count(lb), out = 0;
    for (size_t vi = top; vi < nv && vi < top + ROWS; vi++) {
        size_t li = logbuf_view_line(lb, vi), len;
        (void)logbuf_level(lb, li);
        const char *line = logbuf_line(lb, li, &len);
        sb->len = 0;
        san_append(sb, line, len);
        out += sb->len;
    }
    return out;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
    if (n < 100) n = 100;
    size_t needle_at = n - n / 100; /* 99% of the way down */
    char needle[64];
    snprintf(needle, sizeof needle, "checkout-7f9c-zz%zu", needle_at % 5000);
    size_t text_len, gz_len;
    char *text = make_log(n, needle_at, &text_len);
    unsigned char *gz = gzip_of(text, text_len, &gz_len);

    /* load: gunzip in 64 KiB chunks, as the download arrives, into the line store */
    double t0 = bench_now();
    logbuf *lb = logbuf_new(0);
    kc_gunzip *g = kc_gunzip_new(0, to_logbuf, lb);
    kc_err err;
    kc_err_clear(&err);
    for (size_t off = 0; off < gz_len; off += 65536) {
        size_t k = gz_len - off < 65536 ? gz_len - off : 65536;
        if (kc_gunzip_feed(g, gz + off, k, &err)) break;
    }
    kc_gunzip_finish(g, &err);
    logbuf_flush(lb);
    double t_load = bench_now();
    kc_buf sb = {0};
    size_t shown = screen(lb, 0, &sb);
    double t_first = bench_now();

    /* the same text without gzip, for scale */
    logbuf *lb2 = logbuf_new(0);
    double t2 = bench_now();
    for (size_t off = 0; off < text_len; off += 65536)
        logbuf_append(lb2, text + off, text_len - off < 65536 ? text_len - off : 65536);
    logbuf_flush(lb2);
    double load_plain = bench_now() - t2;
    logbuf_free(lb2);

    double s0 = bench_now();
    long hit = logbuf_search(lb, needle, 0, 1, 0);
    double t_search = bench_now() - s0;
    s0 = bench_now();
    long miss = logbuf_search(lb, "no-such-string-anywhere", 0, 1, 0);
    double t_miss = bench_now() - s0;

    s0 = bench_now();
    logbuf_set_filter(lb, LP_ERROR);
    size_t nerr = logbuf_view_count(lb);
    screen(lb, 0, &sb);
    double t_filter = bench_now() - s0;
    s0 = bench_now();
    long hit_err = logbuf_search(lb, "timed out waiting", nerr ? nerr - 1 : 0, -1, 1);
    double t_search_err = bench_now() - s0;
    s0 = bench_now();
    logbuf_set_filter(lb, LP_UNKNOWN);
    double t_unfilter = bench_now() - s0;

    int ok_lines = logbuf_count(lb) == n && err.msg[0] == 0;
    int ok_hit = hit >= 0 && (size_t)hit == needle_at;
    printf("log %zu lines (%.0f MB, %.0f MB gzip): load + first screen %.3f s (target <= 1) %s%s\n",
           logbuf_count(lb), text_len / 1e6, gz_len / 1e6, t_first - t0,
           bench_verdict(ok_lines && t_first - t0 <= 1), ok_lines ? "" : " [WRONG LINE COUNT]");
    printf("log %zu lines: gunzip+index %.3f s, first screen %.2f ms (%zu bytes), plain index "
           "%.3f s\n",
           n, t_load - t0, (t_first - t_load) * 1000, shown, load_plain);
    printf("log %zu lines: search near the end %.3f s (target <= 0.5) %s%s\n", n, t_search,
           bench_verdict(ok_hit && t_search <= 0.5), ok_hit ? "" : " [WRONG ROW]");
    printf("log %zu lines: search without a match %.3f s (target <= 0.5) %s\n", n, t_miss,
           bench_verdict(miss == -1 && t_miss <= 0.5));
    printf("log %zu lines: level filter (error: %zu lines) + screen %.3f s, search in it %.4f s "
           "(%s), filter off %.3f s\n",
           n, nerr, t_filter, t_search_err, hit_err >= 0 ? "found" : "not found", t_unfilter);
    kc_buf_free(&sb);
    kc_gunzip_free(g);
    logbuf_free(lb);
    free(gz);
    free(text);
    return ok_lines && ok_hit ? 0 : 1;
}
