/* gunzip.c: streaming gzip decoding with zlib's inflate, with a pass-through for plain text. */
#include "kubeclient/gunzip.h"
#include "kubeclient/caps.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct kc_gunzip {
    kc_gunzip_out_fn out;
    void *arg;
    size_t max_out, in_bytes, out_bytes;
    int mode;        /* -1 unknown, 0 plain, 1 gzip */
    int failed;      /* an error was reported */
    int member_done; /* the last gzip member ended (Z_STREAM_END) */
    int z_init;
    unsigned char head[2];
    size_t nhead;
    z_stream z;
};

kc_gunzip *kc_gunzip_new(size_t max_out, kc_gunzip_out_fn out, void *arg)
{
    kc_gunzip *g = xcalloc(1, sizeof *g);
    g->out = out;
    g->arg = arg;
    g->max_out = max_out ? max_out : (size_t)1 << 30;
    g->mode = -1;
    return g;
}

void kc_gunzip_free(kc_gunzip *g)
{
    if (!g) return;
    if (g->z_init) inflateEnd(&g->z);
    free(g);
}

/* Delivers n bytes; past max_out, delivers what fits and fails with KC_ERR_CAPPED (so a reader
 * can show a truncated text), and the decoder stops there (no inflating of a bomb on). */
static int kc_gunzip_emit(kc_gunzip *g, const char *d, size_t n, kc_err *err)
{
    if (n > g->max_out - g->out_bytes) {
        size_t fit = g->max_out - g->out_bytes;
        if (fit && g->out) g->out(g->arg, d, fit);
        g->out_bytes += fit;
        if (g->max_out % ((size_t)1 << 20) == 0)
            kc_err_set(err, "download is larger than %zu MiB once decompressed", g->max_out >> 20);
        else
            kc_err_set(err, "download is larger than %zu bytes once decompressed", g->max_out);
        err->code = KC_ERR_CAPPED;
        g->failed = 1;
        return -1;
    }
    g->out_bytes += n;
    if (n && g->out) g->out(g->arg, d, n);
    return 0;
}

static int kc_gunzip_inflate(kc_gunzip *g, const unsigned char *d, size_t n, kc_err *err)
{
    unsigned char buf[65536];
    while (n > 0) {
        if (g->member_done) {
            /* another member may follow (concatenated gzip); anything else is garbage */
            if (d[0] != 0x1f) {
                kc_err_set(err, "corrupt gzip data: unexpected bytes after the end of the stream");
                g->failed = 1;
                return -1;
            }
            inflateReset(&g->z);
            g->member_done = 0;
        }
        g->z.next_in = (unsigned char *)d;
        g->z.avail_in = (uInt)(n > (1u << 30) ? (1u << 30) : n);
        size_t given = g->z.avail_in;
        int rc;
        do {
            g->z.next_out = buf;
            g->z.avail_out = sizeof buf;
            rc = inflate(&g->z, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
                kc_err_set(err, "corrupt gzip data: %s", g->z.msg ? g->z.msg : "inflate failed");
                g->failed = 1;
                return -1;
            }
            if (kc_gunzip_emit(g, (const char *)buf, sizeof buf - g->z.avail_out, err)) return -1;
        } while (rc == Z_OK && g->z.avail_out == 0);
        size_t used = given - g->z.avail_in;
        d += used;
        n -= used;
        if (rc == Z_STREAM_END) {
            g->member_done = 1;
        } else if (used == 0 && rc == Z_BUF_ERROR && n > 0) {
            kc_err_set(err, "corrupt gzip data: inflate made no progress");
            g->failed = 1;
            return -1;
        }
    }
    return 0;
}

static int kc_gunzip_start(kc_gunzip *g, kc_err *err)
{
    g->mode = g->nhead == 2 && g->head[0] == 0x1f && g->head[1] == 0x8b;
    if (g->mode == 1) {
        memset(&g->z, 0, sizeof g->z);
        if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
            kc_err_set(err, "cannot start the gzip decoder");
            g->failed = 1;
            return -1;
        }
        g->z_init = 1;
        return kc_gunzip_inflate(g, g->head, g->nhead, err);
    }
    return kc_gunzip_emit(g, (const char *)g->head, g->nhead, err);
}

int kc_gunzip_feed(kc_gunzip *g, const void *data, size_t n, kc_err *err)
{
    const unsigned char *d = data;
    if (g->failed) {
        kc_err_set(err, "gzip decoder already failed");
        return -1;
    }
    g->in_bytes += n;
    if (g->mode < 0) {
        while (n > 0 && g->nhead < 2) {
            g->head[g->nhead++] = *d++;
            n--;
        }
        if (g->nhead < 2) return 0;
        if (kc_gunzip_start(g, err)) return -1;
    }
    if (n == 0) return 0;
    if (g->mode == 1) return kc_gunzip_inflate(g, d, n, err);
    return kc_gunzip_emit(g, (const char *)d, n, err);
}

int kc_gunzip_finish(kc_gunzip *g, kc_err *err)
{
    if (g->failed) {
        kc_err_set(err, "gzip decoder already failed");
        return -1;
    }
    if (g->mode < 0) {
        /* zero or one byte: plain text */
        g->mode = 0;
        return kc_gunzip_emit(g, (const char *)g->head, g->nhead, err);
    }
    if (g->mode == 1 && !g->member_done) {
        kc_err_set(err, "corrupt gzip data: the stream is truncated");
        g->failed = 1;
        return -1;
    }
    return 0;
}

int kc_gunzip_is_gzip(const kc_gunzip *g)
{
    return g->mode;
}

size_t kc_gunzip_in_bytes(const kc_gunzip *g)
{
    return g->in_bytes;
}

size_t kc_gunzip_out_bytes(const kc_gunzip *g)
{
    return g->out_bytes;
}
