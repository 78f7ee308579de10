/* server_watch.c: watch streams of veltop-sim's API server (server_int.h): one JSON event a line
 * from the store's history (simstore.h), as objects or as Table rows, BOOKMARKs when asked for,
 * 410 Expired for a resourceVersion the history no longer holds, the end at timeoutSeconds, and
 * the faults that close, expire or corrupt a watch. The streamed response and the check for a
 * closed peer serve pods/log and the slow downloads too. */
#include "server_int.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kubeclient/util.h"
#include "link.h"

/* ---- watch streaming ---- */

typedef struct watch_ctx {
    simserver *s;
    struct MHD_Connection *conn;
    simstore_watch *w;
    const sim_resource *res;
    int table, first, bookmarks, done;
    int malformed; /* write one malformed line first */
    int sent_bm;   /* a bookmark went out (bookmark-close) */
    int64_t deadline_ms, next_bookmark_ms;
    cJSON *gone; /* a Status to send as the only ERROR event */
    kc_buf out;
    size_t off;
} watch_ctx;

int srv_peer_closed(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci) return 0;
    char b;
    ssize_t r = recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static void emit_event(watch_ctx *wc, const char *type, cJSON *obj /* taken */)
{
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "type", type);
    if (wc->table && strcmp(type, "ERROR") && strcmp(type, "BOOKMARK")) {
        cJSON *one = cJSON_CreateArray();
        cJSON_AddItemToArray(one, obj);
        const cJSON *rvs = srv_path(obj, "metadata", "resourceVersion", NULL);
        uint64_t rv = cJSON_IsString(rvs) ? strtoull(rvs->valuestring, NULL, 10) : 0;
        cJSON_AddItemToObject(
            ev, "object", srv_make_table(wc->res, one, rv, NULL, 0, wc->first, server_now(wc->s)));
        cJSON_Delete(one);
        wc->first = 0;
    } else {
        cJSON_AddItemToObject(ev, "object", obj);
    }
    char *line = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    kc_buf_append(&wc->out, line, strlen(line));
    kc_buf_append(&wc->out, "\n", 1);
    free(line);
}

static cJSON *bookmark_obj(const sim_resource *r, uint64_t rv)
{
    cJSON *o = cJSON_CreateObject();
    char apiv[64];
    snprintf(apiv, sizeof apiv, "%s%s%s", r->group, r->group[0] ? "/" : "", r->version);
    cJSON_AddStringToObject(o, "kind", r->kind);
    cJSON_AddStringToObject(o, "apiVersion", apiv);
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
    cJSON_AddStringToObject(md, "resourceVersion", buf);
    return o;
}

/* Fills wc->out with at least one line, or sets done. Blocks (in slices) until then. */
static void watch_fill(watch_ctx *wc)
{
    simserver *s = wc->s;
    if (wc->gone) {
        emit_event(wc, "ERROR", wc->gone);
        wc->gone = NULL;
        wc->done = 1;
        return;
    }
    if (wc->malformed) {
        wc->malformed = 0;
        atomic_fetch_add(&s->fired[F_MALFORMED], 1);
        const char *bad = "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Backup\",\"metadata\":\n";
        kc_buf_append(&wc->out, bad, strlen(bad));
        return;
    }
    for (;;) {
        if (atomic_load(&s->stopping)) {
            wc->done = 1;
            return;
        }
        int64_t now = kc_now_ms();
        if (now >= wc->deadline_ms && !(wc->bookmarks && FA(s)->bookmark_close && !wc->sent_bm)) {
            wc->done = 1;
            return;
        }
        if (wc->bookmarks && now >= wc->next_bookmark_ms) {
            wc->sent_bm = 1;
            emit_event(wc, "BOOKMARK", bookmark_obj(wc->res, simstore_watch_pos(wc->w)));
            wc->next_bookmark_ms = now + (s->o.bookmark_ms ? s->o.bookmark_ms : 60000);
            return;
        }
        int64_t until = wc->deadline_ms;
        if (wc->bookmarks && wc->next_bookmark_ms < until) until = wc->next_bookmark_ms;
        int64_t slice = until - now;
        if (slice > 250) slice = 250;
        const char *type = NULL;
        uint64_t rv = 0;
        cJSON *obj = simstore_watch_next(wc->w, (int)slice, &type, &rv);
        if (obj) {
            int err = !strcmp(type, "ERROR");
            emit_event(wc, type, obj);
            if (err) wc->done = 1;
            return;
        }
        if (srv_peer_closed(wc->conn)) {
            wc->done = 1;
            return;
        }
    }
}

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    watch_ctx *wc = cls;
    while (wc->off >= wc->out.len) {
        wc->out.len = 0;
        wc->off = 0;
        if (wc->done) return MHD_CONTENT_READER_END_OF_STREAM;
        watch_fill(wc);
    }
    size_t n = wc->out.len - wc->off;
    if (n > max) n = max;
    memcpy(buf, wc->out.data + wc->off, n);
    wc->off += n;
    return (ssize_t)n;
}

static void watch_free(void *cls)
{
    watch_ctx *wc = cls;
    simstore_watch_close(wc->w);
    cJSON_Delete(wc->gone);
    kc_buf_free(&wc->out);
    free(wc);
}

enum MHD_Result srv_stream(struct MHD_Connection *c, const char *ctype,
                           MHD_ContentReaderCallback fn, void *cls,
                           MHD_ContentReaderFreeCallback fr)
{
    struct MHD_Response *r = simlink_stream_response(c, 4096, fn, cls, fr);
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

void srv_maybe_expire(simserver *s)
{
    if (!FA(s)->expire_every_s) return;
    pthread_mutex_lock(&s->mu);
    int64_t now = kc_now_ms();
    if (now - s->last_expire_ms >= (int64_t)FA(s)->expire_every_s * 1000) {
        s->last_expire_ms = now;
        simstore_expire_history(s->o.store);
        atomic_fetch_add(&s->fired[F_EXPIRE], 1);
    }
    pthread_mutex_unlock(&s->mu);
}

enum MHD_Result srv_do_watch(simserver *s, struct MHD_Connection *c, const target *t)
{
    const char *rvs = srv_arg(c, "resourceVersion");
    uint64_t since = rvs && *rvs ? strtoull(rvs, NULL, 10) : 0;
    const char *ls = srv_arg(c, "labelSelector"), *fs = srv_arg(c, "fieldSelector");
    char *err = NULL;
    if (fs && *fs && sim_field_selector_match(fs, NULL, &err) < 0) {
        enum MHD_Result r = srv_send_status(c, 400, err, NULL);
        free(err);
        return r;
    }
    if (ls && *ls && sim_label_selector_match(ls, NULL, &err) < 0) {
        char *m = xasprintf("unable to parse labelSelector: %s", err);
        enum MHD_Result r = srv_send_status(c, 400, m, NULL);
        free(m);
        free(err);
        return r;
    }
    const char *name_sel = NULL;
    char *fsel = NULL;
    if (t->name) { /* a watch on one object: as a metadata.name field selector */
        fsel = xasprintf("metadata.name=%s%s%s", t->name, fs && *fs ? "," : "", fs ? fs : "");
        name_sel = fsel;
    }
    if (since && FA(s)->expire_once && !atomic_exchange(&s->expire_done, 1)) {
        simstore_expire_history(s->o.store);
        atomic_fetch_add(&s->fired[F_EXPIRE], 1);
    }
    atomic_fetch_add(&s->watches, 1);
    watch_ctx *wc = xcalloc(1, sizeof *wc);
    wc->s = s;
    wc->conn = c;
    wc->res = t->res;
    wc->table = srv_wants_table(c);
    wc->first = 1;
    wc->bookmarks = srv_arg_true(c, "allowWatchBookmarks");
    int gone = 0;
    wc->w = simstore_watch_open(s->o.store, t->res->plural, t->ns, ls, name_sel ? name_sel : fs,
                                since, &gone);
    free(fsel);
    if (since && FA(s)->expire_always && !gone) {
        gone = 1;
        atomic_fetch_add(&s->fired[F_EXPIRE_ALWAYS], 1);
    }
    if (gone) {
        char *m = xasprintf("too old resource version: %llu (%llu)", (unsigned long long)since,
                            (unsigned long long)simstore_floor(s->o.store));
        wc->gone = srv_status_obj(410, "Expired", m, NULL);
        free(m);
    }
    int64_t now = kc_now_ms();
    const char *ts = srv_arg(c, "timeoutSeconds");
    double secs = ts && *ts ? atof(ts) : 1800 + (rand() % 1800);
    if (FA(s)->close_watch_s && FA(s)->close_watch_s < secs) {
        secs = FA(s)->close_watch_s;
        atomic_fetch_add(&s->fired[F_CLOSE_WATCH], 1);
    }
    wc->deadline_ms = now + (int64_t)(secs * 1000);
    wc->next_bookmark_ms = now + (s->o.bookmark_ms ? s->o.bookmark_ms : 60000);
    if (FA(s)->bookmark_close) {
        /* one bookmark (when allowed) at once, then the end */
        atomic_fetch_add(&s->fired[F_BOOKMARK_CLOSE], 1);
        wc->next_bookmark_ms = now;
        wc->deadline_ms = now + 1;
    }
    if (FA(s)->malformed && !atomic_exchange(&s->malformed_done, 1)) wc->malformed = 1;
    return srv_stream(c, "application/json", watch_reader, wc, watch_free);
}
