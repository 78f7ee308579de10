/* ndjson.c: newline-delimited JSON framer: splits a byte stream into lines, bounded buffer. */
#include "kubeclient/ndjson.h"
#include "kubeclient/util.h"

#include <stdlib.h>
#include <string.h>

/* Written by hand: the framing is a memchr loop; no library offers it with a bounded buffer.
 * Complete lines inside a chunk are handed out in place (no copy); only the incomplete tail of a
 * chunk is kept, so each byte is scanned for '\n' once and copied at most once. */
struct kc_ndjson {
    size_t max_line;
    kc_ndjson_line_fn fn;
    void *arg;
    char *buf; /* the incomplete tail */
    size_t len, cap;
    int skipping; /* dropping an oversize line until its newline */
    int stopped;  /* the callback asked to stop: further input is ignored */
};

kc_ndjson *kc_ndjson_new(size_t max_line, kc_ndjson_line_fn fn, void *arg)
{
    kc_ndjson *f = xcalloc(1, sizeof *f);
    f->max_line = max_line ? max_line : 16u << 20;
    f->fn = fn;
    f->arg = arg;
    return f;
}

void kc_ndjson_free(kc_ndjson *f)
{
    if (!f) return;
    free(f->buf);
    free(f);
}

size_t kc_ndjson_pending(const kc_ndjson *f)
{
    return f->len;
}

/* Hands one line (without '\n' and a trailing '\r') to the callback; empty lines are skipped. */
static void emit(kc_ndjson *f, const char *line, size_t n)
{
    if (n && line[n - 1] == '\r') n--;
    if (!n) return;
    if (f->fn(f->arg, line, n)) f->stopped = 1;
}

static void keep(kc_ndjson *f, const char *data, size_t n)
{
    if (f->len + n > f->cap) {
        size_t cap = f->cap ? f->cap : 4096;
        while (cap < f->len + n) cap *= 2;
        f->buf = xrealloc(f->buf, cap);
        f->cap = cap;
    }
    memcpy(f->buf + f->len, data, n);
    f->len += n;
}

int kc_ndjson_feed(kc_ndjson *f, const char *data, size_t n)
{
    int rc = 0;
    const char *p = data, *end = data + n;
    while (p < end && !f->stopped) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (f->skipping) {
            if (!nl) return rc;
            f->skipping = 0;
            p = nl + 1;
            continue;
        }
        if (!nl) {
            if (f->len + (size_t)(end - p) > f->max_line) {
                f->len = 0;
                f->skipping = 1;
                return -1;
            }
            keep(f, p, (size_t)(end - p));
            return rc;
        }
        size_t part = (size_t)(nl - p);
        if (f->len + part > f->max_line) {
            f->len = 0; /* drop the oversize line, resync after its newline */
            rc = -1;
        } else if (f->len) {
            keep(f, p, part);
            size_t total = f->len;
            f->len = 0;
            emit(f, f->buf, total);
        } else {
            emit(f, p, part);
        }
        p = nl + 1;
    }
    return rc;
}
