/* logbuf.c: the pager's line store: one text buffer, an offset index, levels, view and search. */
#include "logbuf.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "kubeclient/util.h"

struct logbuf {
    size_t max_lines;
    char *data; /* every held line followed by '\n' */
    size_t len, cap;
    size_t *off; /* off[i] = start of line i; off[count] = len */
    uint8_t *lvl;
    size_t count, icap;
    size_t dropped;
    size_t cut; /* lines cut at KC_CAP_LOG_LINE_BYTES */
    kc_buf partial;
    lp_level filter;
    uint32_t *view;
    size_t nview, vcap;
};

logbuf *logbuf_new(size_t max_lines)
{
    logbuf *b = xcalloc(1, sizeof *b);
    b->max_lines = max_lines ? max_lines : KC_CAP_LOG_LINES;
    b->icap = 1024;
    b->off = xmalloc((b->icap + 1) * sizeof *b->off);
    b->lvl = xmalloc(b->icap);
    b->off[0] = 0;
    return b;
}

void logbuf_free(logbuf *b)
{
    if (!b) return;
    free(b->data);
    free(b->off);
    free(b->lvl);
    free(b->view);
    kc_buf_free(&b->partial);
    free(b);
}

void logbuf_clear(logbuf *b)
{
    b->len = b->count = b->nview = b->dropped = b->cut = 0;
    b->off[0] = 0;
    b->partial.len = 0;
}

static int logbuf_passes(const logbuf *b, lp_level l)
{
    return b->filter == LP_UNKNOWN || (l != LP_UNKNOWN && l >= b->filter);
}

static void logbuf_view_push(logbuf *b, size_t li)
{
    if (b->nview == b->vcap) {
        b->vcap = b->vcap ? b->vcap * 2 : 4096;
        b->view = xrealloc(b->view, b->vcap * sizeof *b->view);
    }
    b->view[b->nview++] = (uint32_t)li;
}

static void logbuf_rebuild_view(logbuf *b)
{
    b->nview = 0;
    for (size_t i = 0; i < b->count; i++)
        if (logbuf_passes(b, (lp_level)b->lvl[i])) logbuf_view_push(b, i);
}

/* Drops the oldest lines, an eighth of the limit at a time so the moves are amortised. */
static void logbuf_drop(logbuf *b)
{
    size_t k = b->max_lines / 8 ? b->max_lines / 8 : 1;
    if (k > b->count) k = b->count;
    size_t cut = b->off[k];
    memmove(b->data, b->data + cut, b->len - cut);
    b->len -= cut;
    for (size_t i = k; i <= b->count; i++) b->off[i - k] = b->off[i] - cut;
    memmove(b->lvl, b->lvl + k, b->count - k);
    b->count -= k;
    b->dropped += k;
    logbuf_rebuild_view(b);
}

void logbuf_append_line(logbuf *b, const char *line, size_t n)
{
    if (n > KC_CAP_LOG_LINE_BYTES) { /* caps.h: a line of gigabytes is not held (nor drawn) whole */
        n = KC_CAP_LOG_LINE_BYTES;
        b->cut++;
    }
    while (n && line[n - 1] == '\r') n--;
    if (b->count >= b->max_lines) logbuf_drop(b);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1) cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (b->count + 1 >= b->icap) {
        b->icap *= 2;
        b->off = xrealloc(b->off, (b->icap + 1) * sizeof *b->off);
        b->lvl = xrealloc(b->lvl, b->icap);
    }
    memcpy(b->data + b->len, line, n);
    b->len += n;
    b->data[b->len++] = '\n';
    lp_level l = lp_level_of(line, n);
    b->lvl[b->count] = (uint8_t)l;
    b->count++;
    b->off[b->count] = b->len;
    if (logbuf_passes(b, l)) logbuf_view_push(b, b->count - 1);
}

/* Adds to the partial line, holding at most KC_CAP_LOG_LINE_BYTES of it (one byte more marks it
 * as cut when it is indexed). */
static void logbuf_partial_add(logbuf *b, const char *data, size_t n)
{
    size_t room = KC_CAP_LOG_LINE_BYTES + 1 - b->partial.len;
    kc_buf_append(&b->partial, data, n < room ? n : room);
}

void logbuf_append(logbuf *b, const char *data, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        if (!nl) {
            logbuf_partial_add(b, data, n);
            return;
        }
        size_t part = (size_t)(nl - data);
        if (b->partial.len) {
            logbuf_partial_add(b, data, part);
            logbuf_append_line(b, b->partial.data, b->partial.len);
            b->partial.len = 0;
        } else {
            logbuf_append_line(b, data, part);
        }
        data += part + 1;
        n -= part + 1;
    }
}

void logbuf_flush(logbuf *b)
{
    if (b->partial.len) logbuf_append_line(b, b->partial.data, b->partial.len);
    b->partial.len = 0;
}

size_t logbuf_cut(const logbuf *b)
{
    return b->cut;
}

size_t logbuf_count(const logbuf *b)
{
    return b->count;
}

size_t logbuf_dropped(const logbuf *b)
{
    return b->dropped;
}

size_t logbuf_bytes(const logbuf *b)
{
    return b->len;
}

const char *logbuf_line(const logbuf *b, size_t i, size_t *len)
{
    if (i >= b->count) {
        *len = 0;
        return "";
    }
    *len = b->off[i + 1] - b->off[i] - 1;
    return b->data + b->off[i];
}

lp_level logbuf_level(const logbuf *b, size_t i)
{
    return i < b->count ? (lp_level)b->lvl[i] : LP_UNKNOWN;
}

void logbuf_set_filter(logbuf *b, lp_level min_level)
{
    if (b->filter == min_level) return;
    b->filter = min_level;
    logbuf_rebuild_view(b);
}

lp_level logbuf_filter(const logbuf *b)
{
    return b->filter;
}

size_t logbuf_view_count(const logbuf *b)
{
    return b->nview;
}

size_t logbuf_view_line(const logbuf *b, size_t vi)
{
    return vi < b->nview ? b->view[vi] : b->count;
}

size_t logbuf_view_find(const logbuf *b, size_t li)
{
    size_t lo = 0, hi = b->nview;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->view[mid] < li)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The line holding byte offset o. */
static size_t logbuf_line_at(const logbuf *b, size_t o)
{
    size_t lo = 0, hi = b->count; /* last i with off[i] <= o */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->off[mid] <= o)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Finds needle in hay; icase: needle is lower-case and hay is compared folded. memchr on both
 * cases of the first letter keeps the case-insensitive scan close to memmem's speed. */
static const char *logbuf_find(const char *hay, size_t n, const char *needle, size_t nl, int icase)
{
    if (nl == 0 || nl > n) return NULL;
    if (!icase) return memmem(hay, n, needle, nl);
    unsigned char c0 = (unsigned char)needle[0];
    unsigned char c1 = (unsigned char)toupper(c0);
    const char *end = hay + n - nl + 1, *p = hay;
    const char *plo = NULL, *pup = NULL;
    while (p < end) {
        if (!plo || plo < p) {
            plo = memchr(p, c0, (size_t)(end - p));
            if (!plo) plo = end;
        }
        if (c1 == c0) {
            pup = plo;
        } else if (!pup || pup < p) {
            pup = memchr(p, c1, (size_t)(end - p));
            if (!pup) pup = end;
        }
        const char *c = plo < pup ? plo : pup;
        if (c >= end) return NULL;
        size_t i = 1;
        while (i < nl && tolower((unsigned char)c[i]) == (unsigned char)needle[i]) i++;
        if (i == nl) return c;
        p = c + 1;
    }
    return NULL;
}

/* Forward search over lines [from_line, to_line): the first matching line in the view, or -1. */
static long logbuf_search_fwd(const logbuf *b, const char *nd, size_t nl, int icase,
                              size_t from_line, size_t to_line)
{
    size_t o = b->off[from_line], stop = b->off[to_line];
    while (o < stop) {
        const char *m = logbuf_find(b->data + o, stop - o, nd, nl, icase);
        if (!m) return -1;
        size_t li = logbuf_line_at(b, (size_t)(m - b->data));
        if (logbuf_passes(b, (lp_level)b->lvl[li])) return (long)logbuf_view_find(b, li);
        o = b->off[li + 1];
    }
    return -1;
}

long logbuf_search(const logbuf *b, const char *needle, size_t from, int dir, int skip_current)
{
    size_t nl = strlen(needle);
    if (!nl || !b->nview) return -1;
    if (from >= b->nview) from = b->nview - 1;
    int icase = 1;
    for (size_t i = 0; i < nl; i++)
        if (isupper((unsigned char)needle[i])) icase = 0;
    char *nd = xstrdup(needle);
    long r = -1;
    if (dir >= 0) {
        size_t start = b->view[from] + (skip_current ? 1 : 0);
        if (start > b->count) start = b->count;
        r = logbuf_search_fwd(b, nd, nl, icase, start, b->count);
        if (r < 0) r = logbuf_search_fwd(b, nd, nl, icase, 0, start);
    } else {
        size_t n = b->nview, s0 = skip_current ? 1 : 0;
        for (size_t k = s0; k < n + s0 && r < 0; k++) {
            size_t vi = (from + n - k % n) % n;
            size_t li = b->view[vi], len = b->off[li + 1] - b->off[li] - 1;
            if (logbuf_find(b->data + b->off[li], len, nd, nl, icase)) r = (long)vi;
        }
    }
    free(nd);
    return r;
}

size_t logbuf_count_matches(const logbuf *b, const char *needle, size_t from, size_t to)
{
    size_t nl = strlen(needle), n = 0;
    if (!nl) return 0;
    if (to > b->nview) to = b->nview;
    int icase = 1;
    for (size_t i = 0; i < nl; i++)
        if (isupper((unsigned char)needle[i])) icase = 0;
    for (size_t vi = from; vi < to; vi++) {
        size_t li = b->view[vi], len = b->off[li + 1] - b->off[li] - 1;
        n += logbuf_find(b->data + b->off[li], len, needle, nl, icase) != NULL;
    }
    return n;
}

long logbuf_next_level(const logbuf *b, size_t from, lp_level at_least)
{
    size_t n = b->nview;
    for (size_t k = 1; k <= n; k++) {
        size_t vi = (from + k) % n;
        lp_level l = (lp_level)b->lvl[b->view[vi]];
        if (l != LP_UNKNOWN && l >= at_least) return (long)vi;
    }
    return -1;
}

int logbuf_write(const logbuf *b, const char *path, size_t *lines)
{
    *lines = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(path);
        errno = e;
        return -1;
    }
    int bad = 0;
    for (size_t vi = 0; vi < b->nview && !bad; vi++) {
        size_t li = b->view[vi], len = b->off[li + 1] - b->off[li];
        bad = fwrite(b->data + b->off[li], 1, len, f) != len;
    }
    int e = errno;
    if (fclose(f) != 0 || bad) {
        errno = bad ? e : errno;
        return -1;
    }
    *lines = b->nview;
    return 0;
}
