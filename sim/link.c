/* link.c: gzip as kube-apiserver, and an emulated slow link (see link.h). */
#include "link.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "kubeclient/util.h"

struct simlink {
    simlink_opts o;
    atomic_uint_fast64_t body_bytes, gzipped, connections;
    atomic_int stopping;
};

typedef struct link_conn {
    simlink *l;
    unsigned long answers; /* answers started on this connection */
} link_conn;

simlink *simlink_new(const simlink_opts *o)
{
    simlink *l = xcalloc(1, sizeof *l);
    l->o = *o;
    if (l->o.latency_ms < 0) l->o.latency_ms = 0;
    if (l->o.bandwidth < 0) l->o.bandwidth = 0;
    return l;
}

void simlink_free(simlink *l)
{
    free(l);
}

simlink_stats simlink_get_stats(const simlink *l)
{
    simlink_stats s = {.body_bytes = atomic_load(&l->body_bytes),
                       .gzipped = atomic_load(&l->gzipped),
                       .connections = atomic_load(&l->connections)};
    return s;
}

void simlink_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                               enum MHD_ConnectionNotificationCode toe)
{
    (void)c;
    simlink *l = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        link_conn *lc = xcalloc(1, sizeof *lc);
        lc->l = l;
        *socket_context = lc;
        atomic_fetch_add(&l->connections, 1);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        free(*socket_context);
        *socket_context = NULL;
    }
}

static link_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* ---- time ---- */

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until the monotonic time t (seconds), in slices, so that a stopping server does not
 * wait out a long emulated latency. */
static void sleep_until(const simlink *l, double t)
{
    for (;;) {
        double now = mono_now();
        if (now >= t || atomic_load(&l->stopping)) return;
        double until = t - now > 0.05 ? now + 0.05 : t;
        struct timespec ts = {.tv_sec = (time_t)until,
                              .tv_nsec = (long)((until - (double)(time_t)until) * 1e9)};
        if (ts.tv_nsec < 0) ts.tv_nsec = 0;
        if (ts.tv_nsec > 999999999L) ts.tv_nsec = 999999999L;
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc != 0 && rc != EINTR) return;
    }
}

void simlink_stop(simlink *l)
{
    if (l) atomic_store(&l->stopping, 1);
}

void simlink_before_answer(struct MHD_Connection *c)
{
    link_conn *lc = conn_of(c);
    if (!lc || !lc->l->o.latency_ms) return;
    /* the request's way here and the answer's way back; before a connection's first answer the
     * TCP handshake (and TLS's) took round trips of their own */
    int trips = 1;
    if (lc->answers++ == 0) trips += lc->l->o.tls ? 2 : 1;
    sleep_until(lc->l, mono_now() + trips * 2 * lc->l->o.latency_ms / 1000.0);
}

/* ---- pacing ---- */

typedef struct paced {
    simlink *l;
    char *data; /* a buffered body, or NULL: the inner reader's stream */
    size_t len;
    MHD_ContentReaderCallback fn;
    void *cls;
    MHD_ContentReaderFreeCallback fr;
    double free_at; /* when the link has sent everything handed to it so far */
} paced;

/* At most 20 ms of the link's time per read, so the pacing is smooth. */
static size_t pace_block(const simlink *l)
{
    size_t b = (size_t)(l->o.bandwidth / 50);
    if (b < 1024) b = 1024;
    if (b > 65536) b = 65536;
    return b;
}

/* n bytes go on the wire after what is already there; they arrive once sent. */
static void pace(paced *p, size_t n)
{
    double now = mono_now();
    double start = p->free_at > now ? p->free_at : now;
    p->free_at = start + (double)n / (double)p->l->o.bandwidth;
    sleep_until(p->l, p->free_at);
    atomic_fetch_add(&p->l->body_bytes, n);
}

static ssize_t paced_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    paced *p = cls;
    size_t block = pace_block(p->l);
    if (max > block) max = block;
    ssize_t n;
    if (p->data) {
        if (pos >= p->len) return MHD_CONTENT_READER_END_OF_STREAM;
        n = (ssize_t)(p->len - pos < max ? p->len - pos : max);
        memcpy(buf, p->data + pos, (size_t)n);
    } else {
        n = p->fn(p->cls, pos, buf, max);
    }
    if (n > 0) pace(p, (size_t)n);
    return n;
}

static void paced_free(void *cls)
{
    paced *p = cls;
    if (p->fr) p->fr(p->cls);
    free(p->data);
    free(p);
}

/* ---- gzip ---- */

int simlink_accepts_gzip(const char *ae)
{
    while (ae && *ae) {
        size_t n = strcspn(ae, ",");
        const char *a = ae, *b = ae + n;
        while (a < b && (*a == ' ' || *a == '\t')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        if (b - a == 4 && strncmp(a, "gzip", 4) == 0) return 1;
        ae += n + (ae[n] == ',');
    }
    return 0;
}

/* A body gzip'd as it is sent (level 1, as kube-apiserver, which compresses through its
 * response writer as the encoder writes): the first bytes leave before the last are compressed. */
typedef struct gz_body {
    simlink *l;
    z_stream z;
    char *data;            /* a buffered body, or NULL: src's */
    simlink_source_fn src; /* a body made as it is read, SIMLINK_SOURCE_BLOCK at a time */
    void *src_cls;
    void (*src_free)(void *);
    int src_end; /* src said it has no more */
    int count;   /* count the bytes here (no pacing wrapper does) */
    int end;
} gz_body;

static ssize_t gz_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    gz_body *g = cls;
    if (g->end) return MHD_CONTENT_READER_END_OF_STREAM;
    g->z.next_out = (Bytef *)buf;
    g->z.avail_out = (uInt)(max < (1u << 30) ? max : (1u << 30));
    int rc;
    for (;;) {
        if (g->src && !g->z.avail_in && !g->src_end) {
            size_t n = g->src(g->src_cls, g->data, SIMLINK_SOURCE_BLOCK);
            g->z.next_in = (Bytef *)g->data;
            g->z.avail_in = (uInt)n;
            if (!n) g->src_end = 1;
        }
        rc = deflate(&g->z, !g->src || g->src_end ? Z_FINISH : Z_NO_FLUSH);
        /* more input to take while the output has room: not yet a block to send */
        if (g->src && !g->src_end && !g->z.avail_in && g->z.avail_out && rc != Z_STREAM_END &&
            (rc == Z_OK || rc == Z_BUF_ERROR))
            continue;
        break;
    }
    if (rc == Z_STREAM_END)
        g->end = 1;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = (size_t)((char *)g->z.next_out - buf);
    if (n == 0) return g->end ? MHD_CONTENT_READER_END_OF_STREAM : 0;
    if (g->count) atomic_fetch_add(&g->l->body_bytes, n);
    return (ssize_t)n;
}

static void gz_free(void *cls)
{
    gz_body *g = cls;
    if (g->src_free) g->src_free(g->src_cls);
    deflateEnd(&g->z);
    free(g->data);
    free(g);
}

static gz_body *gz_new(simlink *l, char *body, size_t len)
{
    gz_body *g = xcalloc(1, sizeof *g);
    if (deflateInit2(&g->z, 1, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return NULL;
    }
    g->l = l;
    g->data = body;
    g->z.next_in = (Bytef *)body;
    g->z.avail_in = (uInt)len;
    return g;
}

/* The answer's Date on the server's clock (RFC 9110 IMF-fixdate, whole seconds, truncated as
 * Go's net/http does); libmicrohttpd then adds none of its own. */
static struct MHD_Response *link_date(const simlink *l, struct MHD_Response *r)
{
    if (!l || !r) return r;
    time_t t = (time_t)floor(kc_wall_now() + l->o.clock_skew);
    struct tm tm;
    char buf[64];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    MHD_add_response_header(r, "Date", buf);
    return r;
}

/* A gzip'd answer read from gz (owned by the response from here): paced on an emulated link. */
static struct MHD_Response *gz_response(simlink *l, gz_body *gz)
{
    struct MHD_Response *r;
    atomic_fetch_add(&l->gzipped, 1);
    if (l->o.bandwidth) {
        paced *p = xcalloc(1, sizeof *p);
        p->l = l;
        p->fn = gz_reader;
        p->cls = gz;
        p->fr = gz_free;
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, pace_block(l), paced_reader, p,
                                              paced_free);
    } else {
        gz->count = 1;
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, gz_reader, gz, gz_free);
    }
    MHD_add_response_header(r, "Content-Encoding", "gzip");
    MHD_add_response_header(r, "Vary", "Accept-Encoding");
    return r;
}

struct MHD_Response *simlink_buffer_response(struct MHD_Connection *c, char *body, size_t len,
                                             int may_gzip)
{
    link_conn *lc = conn_of(c);
    simlink *l = lc ? lc->l : NULL;
    gz_body *gz = NULL;
    if (l && may_gzip && !l->o.no_gzip && len > SIMLINK_GZIP_THRESHOLD && len <= UINT32_MAX &&
        simlink_accepts_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding")))
        gz = gz_new(l, body, len);
    struct MHD_Response *r;
    if (gz) {
        r = gz_response(l, gz);
    } else if (l && l->o.bandwidth && body) {
        paced *p = xcalloc(1, sizeof *p);
        p->l = l;
        p->data = body;
        p->len = len;
        r = MHD_create_response_from_callback(len, pace_block(l), paced_reader, p, paced_free);
    } else {
        if (l) atomic_fetch_add(&l->body_bytes, len);
        r = MHD_create_response_from_buffer(len, body,
                                            body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    }
    return link_date(l, r);
}

/* A source's body as a content reader (neither gzip'd nor paced: the wrappers above do that). */
typedef struct src_body {
    simlink *l;
    simlink_source_fn fn;
    void *cls;
    void (*fr)(void *);
    int count; /* count the bytes here (no pacing wrapper does) */
} src_body;

static ssize_t src_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    src_body *b = cls;
    size_t n = b->fn(b->cls, buf, max);
    if (!n) return MHD_CONTENT_READER_END_OF_STREAM;
    if (b->count && b->l) atomic_fetch_add(&b->l->body_bytes, n);
    return (ssize_t)n;
}

static void src_free(void *cls)
{
    src_body *b = cls;
    if (b->fr) b->fr(b->cls);
    free(b);
}

struct MHD_Response *simlink_source_response(struct MHD_Connection *c, size_t len,
                                             simlink_source_fn fn, void *cls, void (*fr)(void *),
                                             int may_gzip)
{
    link_conn *lc = conn_of(c);
    simlink *l = lc ? lc->l : NULL;
    gz_body *gz = NULL;
    if (l && may_gzip && !l->o.no_gzip && len > SIMLINK_GZIP_THRESHOLD &&
        simlink_accepts_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding")))
        gz = gz_new(l, NULL, 0);
    struct MHD_Response *r;
    if (gz) {
        gz->data = xmalloc(SIMLINK_SOURCE_BLOCK);
        gz->src = fn;
        gz->src_cls = cls;
        gz->src_free = fr;
        r = gz_response(l, gz);
        return link_date(l, r);
    }
    src_body *b = xcalloc(1, sizeof *b);
    b->l = l;
    b->fn = fn;
    b->cls = cls;
    b->fr = fr;
    if (l && l->o.bandwidth) {
        paced *p = xcalloc(1, sizeof *p);
        p->l = l;
        p->fn = src_reader;
        p->cls = b;
        p->fr = src_free;
        r = MHD_create_response_from_callback(len, pace_block(l), paced_reader, p, paced_free);
    } else {
        b->count = 1;
        r = MHD_create_response_from_callback(len, 64 * 1024, src_reader, b, src_free);
    }
    return link_date(l, r);
}

struct MHD_Response *simlink_stream_response(struct MHD_Connection *c, size_t block,
                                             MHD_ContentReaderCallback fn, void *cls,
                                             MHD_ContentReaderFreeCallback fr)
{
    link_conn *lc = conn_of(c);
    if (!lc || !lc->l->o.bandwidth)
        return link_date(lc ? lc->l : NULL,
                         MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block, fn, cls, fr));
    paced *p = xcalloc(1, sizeof *p);
    p->l = lc->l;
    p->fn = fn;
    p->cls = cls;
    p->fr = fr;
    return link_date(lc->l, MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, pace_block(lc->l),
                                                              paced_reader, p, paced_free));
}
