/* bench_logbuf.c: a 1 000 000-line Velero log through gunzip into the pager's line store: time to
 * the first screen, to the whole log, and of searches (targets: first screen <= 1 s, search <= 0.5
 * s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kubeclient/gunzip.h"
#include "kubeclient/util.h"
#include "logbuf.h"

#define N 1000000

static logbuf *lb;
static double t_first = -1, t0;

static void out(void *arg, const char *d, size_t n)
{
    (void)arg;
    logbuf_append(lb, d, n);
    if (t_first < 0 && logbuf_count(lb) >= 50) t_first = kc_now_ms() - t0;
}

int main(void)
{
    kc_buf text = {0};
    for (int i = 0; i < N; i++)
        kc_buf_printf(&text,
                      "time=\"2024-06-03T01:%02d:%02dZ\" level=%s msg=\"Processing item\" "
                      "backup=velero/big logSource=\"pkg/backup/backup.go:354\" name=item-%d "
                      "namespace=ns-%d progress= resource=pods\n",
                      (i / 60) % 60, i % 60, i % 1000 == 0 ? "error" : "info", i, i % 50);
    uLongf zn = compressBound(text.len) + 64;
    unsigned char *z = malloc(zn);
    z_stream s = {0};
    deflateInit2(&s, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    s.next_in = (unsigned char *)text.data;
    s.avail_in = (uInt)text.len;
    s.next_out = z;
    s.avail_out = (uInt)zn;
    deflate(&s, Z_FINISH);
    zn = s.total_out;
    deflateEnd(&s);
    printf("log: %d lines, %zu bytes, %lu gzipped\n", N, text.len, (unsigned long)zn);

    lb = logbuf_new(0);
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, out, NULL);
    t0 = kc_now_ms();
    for (size_t off = 0; off < zn; off += 16384) /* arrives in network-sized chunks */
        kc_gunzip_feed(g, z + off, zn - off < 16384 ? zn - off : 16384, &err);
    kc_gunzip_finish(g, &err);
    double t_all = kc_now_ms() - t0;
    printf("first screen (50 lines): %.1f ms; whole log indexed: %.1f ms; %zu lines\n", t_first,
           t_all, logbuf_count(lb));

    const char *needles[] = {"name=item-999999 ", "NAME=ITEM-999999", "item-999999 namespace",
                             "no such text anywhere"};
    for (size_t i = 0; i < 4; i++) {
        double t = kc_now_ms();
        long r = logbuf_search(lb, needles[i], 0, 1, 0);
        printf("search %-24s -> row %ld in %.1f ms\n", needles[i], r, kc_now_ms() - t);
    }
    double t = kc_now_ms();
    long r = logbuf_search(lb, "item-0 ", 500000, -1, 1);
    printf("backward search item-0 from the middle -> row %ld in %.1f ms\n", r, kc_now_ms() - t);
    t = kc_now_ms();
    logbuf_set_filter(lb, LP_ERROR);
    printf("level filter error: %zu rows in %.1f ms\n", logbuf_view_count(lb), kc_now_ms() - t);
    kc_gunzip_free(g);
    logbuf_free(lb);
    free(z);
    kc_buf_free(&text);
    return 0;
}
