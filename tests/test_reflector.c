/* test_reflector.c: the reflector against a fake API server on loopback: paged list, watch with
 * client-go's parameters, events and bookmarks, re-list on 410, malformed lines, backoff while the
 * server is away and recovery when it returns. */
#include <check.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubeclient/caps.h"
#include "kubeclient/reflector.h"
#include "kubeclient/util.h"
#include "testutil.h"

/* ---- fake API server: one resource (backups in velero), pages of 2, one live watch ---- */

#define MAXOBJ 32
#define MAXLOG 64

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct MHD_Daemon *d;
    int port;
    char *names[MAXOBJ];
    int values[MAXOBJ];
    int nobj;
    long rv;
    char *log[MAXLOG]; /* every request URI with its query, in order */
    int nlog;
    kc_buf pending;          /* bytes for the newest watch */
    int watch_gen;           /* watches started */
    int close_upto;          /* watches up to this generation end (after their pending bytes) */
    int list_410;            /* answer this many lists with HTTP 410 */
    int cont_410;            /* answer this many continued lists with HTTP 410 (token expired)... */
    char *del_on_410;        /* ... deleting this object first (it changed meanwhile) */
    int watch_status;        /* answer the next watch with this status instead (0: stream) */
    int endless_pages;       /* every list page carries a continue token */
    int endless_items;       /* a list answer that streams items and never ends */
    int lists;               /* list requests answered */
    int then_status;         /* and the one after it with this one (-410: an ERROR event) */
    const char *retry_after; /* the Retry-After of a 429 ("1" when NULL) */
    int watch_mode;          /* every watch: 0 streams, WM_EXPIRE 410 at once, WM_BOOKMARK one
                                bookmark then the end */
    int nreq;                /* every request, counted (log keeps only the first MAXLOG) */
    int list_429, watch_429; /* answer this many lists / watches 429 + Retry-After */
    int list_forbidden;      /* answer every list 403, as RBAC does */
    int shutdown;
} fake;

static fake F;

enum { WM_EXPIRE = 1, WM_BOOKMARK = 2 };

static void fake_lock(void)
{
    pthread_mutex_lock(&F.mu);
}

static void fake_unlock(void)
{
    pthread_cond_broadcast(&F.cv);
    pthread_mutex_unlock(&F.mu);
}

static void fake_set(const char *name, int value) /* under the lock */
{
    for (int i = 0; i < F.nobj; i++)
        if (strcmp(F.names[i], name) == 0) {
            F.values[i] = value;
            return;
        }
    F.names[F.nobj] = xstrdup(name);
    F.values[F.nobj++] = value;
}

static void fake_del(const char *name) /* under the lock */
{
    for (int i = 0; i < F.nobj; i++)
        if (strcmp(F.names[i], name) == 0) {
            free(F.names[i]);
            F.names[i] = F.names[--F.nobj];
            F.values[i] = F.values[F.nobj];
            return;
        }
}

/* Queues one raw line for the current watch. */
static void fake_push(const char *line)
{
    fake_lock();
    kc_buf_append(&F.pending, line, strlen(line));
    kc_buf_append(&F.pending, "\n", 1);
    fake_unlock();
}

static void *log_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
    (void)cls;
    (void)con;
    fake_lock();
    F.nreq++;
    if (F.nlog < MAXLOG) F.log[F.nlog++] = xstrdup(uri);
    fake_unlock();
    return NULL;
}

static const char *logged(int i)
{
    fake_lock();
    const char *s = i < F.nlog ? F.log[i] : "(none)";
    fake_unlock();
    return s;
}

typedef struct {
    int gen;
} watch_ctx;

static ssize_t watch_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    watch_ctx *w = cls;
    fake_lock();
    for (;;) {
        if (F.shutdown) {
            pthread_mutex_unlock(&F.mu);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        if (w->gen == F.watch_gen && F.pending.len) {
            size_t n = F.pending.len < max ? F.pending.len : max;
            memcpy(buf, F.pending.data, n);
            memmove(F.pending.data, F.pending.data + n, F.pending.len - n);
            F.pending.len -= n;
            pthread_mutex_unlock(&F.mu);
            return (ssize_t)n;
        }
        if (w->gen <= F.close_upto || w->gen != F.watch_gen) {
            pthread_mutex_unlock(&F.mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&F.cv, &F.mu, &ts);
    }
}

static enum MHD_Result answer(struct MHD_Connection *con, unsigned status, char *body)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(con, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static char *status_body(int code, const char *reason, const char *msg)
{
    return xasprintf("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                     "\"Failure\",\"message\":\"%s\",\"reason\":\"%s\",\"code\":%d}",
                     msg, reason, code);
}

/* An endless list answer: the head, then one more Backup each call, never the end. */
static ssize_t endless_list(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    if (max < 256) return 0;
    if (pos == 0) return snprintf(buf, max, "{\"kind\":\"BackupList\",\"metadata\":{},\"items\":[");
    static unsigned long k;
    k++;
    return snprintf(buf, max,
                    "{\"kind\":\"Backup\",\"metadata\":{\"namespace\":\"velero\",\"name\":"
                    "\"b%lu\",\"resourceVersion\":\"1\"}},",
                    k);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *con, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)method;
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)con_cls;
    if (strcmp(url, "/apis/velero.io/v1/namespaces/velero/backups") != 0)
        return answer(
            con, 404,
            status_body(404, "NotFound", "the server could not find the requested resource"));
    const char *watch = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "watch");
    fake_lock();
    int throttle = watch && strcmp(watch, "true") == 0 ? F.watch_429 : F.list_429;
    if (throttle) {
        if (watch && strcmp(watch, "true") == 0)
            F.watch_429--;
        else
            F.list_429--;
    }
    const char *tra = F.retry_after ? F.retry_after : "1";
    int forbidden = F.list_forbidden && !(watch && strcmp(watch, "true") == 0);
    fake_unlock();
    if (forbidden)
        return answer(con, 403,
                      status_body(403, "Forbidden",
                                  "backups.velero.io is forbidden: User \\\"tester\\\" cannot list "
                                  "resource \\\"backups\\\" in API group \\\"velero.io\\\" in the "
                                  "namespace \\\"velero\\\""));
    if (throttle) {
        char *b = status_body(429, "TooManyRequests", "too many requests, please try again later");
        struct MHD_Response *resp =
            MHD_create_response_from_buffer(strlen(b), b, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(resp, "Retry-After", tra);
        enum MHD_Result ret = MHD_queue_response(con, 429, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    if (watch && strcmp(watch, "true") == 0) {
        fake_lock();
        int st = F.watch_status, mode = F.watch_mode;
        const char *ra = F.retry_after ? F.retry_after : "1";
        F.watch_status = F.then_status;
        F.then_status = 0;
        if (st == -410) mode = WM_EXPIRE, st = 0; /* 200, then an ERROR 410 event */
        if (mode) {
            fake_unlock();
            return answer(con, 200,
                          xstrdup(mode == WM_EXPIRE
                                      ? "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
                                        "\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                                        "\"Failure\",\"message\":\"too old resource version: 1 "
                                        "(2)\",\"reason\":\"Expired\",\"code\":410}}\n"
                                      : "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{"
                                        "\"resourceVersion\":\"10\"}}}\n"));
        }
        watch_ctx *w = NULL;
        if (!st) {
            w = xcalloc(1, sizeof *w);
            w->gen = ++F.watch_gen;
            F.pending.len = 0;
        }
        fake_unlock();
        if (st == 429) {
            struct MHD_Response *resp =
                MHD_create_response_from_buffer(2, (void *)"{}", MHD_RESPMEM_PERSISTENT);
            MHD_add_response_header(resp, "Retry-After", ra);
            enum MHD_Result ret = MHD_queue_response(con, 429, resp);
            MHD_destroy_response(resp);
            return ret;
        }
        if (st == 504)
            return answer(
                con, 504,
                status_body(504, "Timeout", "Too large resource version: 60, current: 40"));
        if (st)
            return answer(con, (unsigned)st,
                          status_body(st, "Expired", "too old resource version"));
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, watch_reader, w, free);
        MHD_add_response_header(resp, "Content-Type", "application/json");
        enum MHD_Result ret = MHD_queue_response(con, 200, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    fake_lock();
    if (F.list_410) {
        F.list_410--;
        fake_unlock();
        return answer(con, 410, status_body(410, "Expired", "too old resource version"));
    }
    F.lists++;
    const char *cont = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "continue");
    if (cont && F.cont_410) {
        F.cont_410--;
        if (F.del_on_410) fake_del(F.del_on_410);
        F.rv += 10;
        fake_unlock();
        return answer(con, 410,
                      status_body(410, "Expired",
                                  "The provided continue parameter is too old to display a "
                                  "consistent list result."));
    }
    int from = cont ? atoi(cont) : 0;
    if (F.endless_items) {
        fake_unlock();
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, endless_list, NULL, NULL);
        enum MHD_Result ret = MHD_queue_response(con, 200, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    if (F.endless_pages) {
        fake_unlock();
        return answer(con, 200,
                      xasprintf("{\"kind\":\"BackupList\",\"metadata\":{\"continue\":\"%d\"},"
                                "\"items\":[]}",
                                from + 1));
    }
    kc_buf b = {0};
    kc_buf_printf(&b, "{\"kind\":\"BackupList\",\"apiVersion\":\"velero.io/v1\",\"metadata\":{");
    /* pages of 2 when a limit is asked for (a server that honours it), else everything */
    int paged = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "limit") != NULL;
    int to = paged && from + 2 < F.nobj ? from + 2 : F.nobj;
    if (to < F.nobj) kc_buf_printf(&b, "\"continue\":\"%d\",", to);
    kc_buf_printf(&b, "\"resourceVersion\":\"%ld\"", F.rv);
    kc_buf_printf(&b, "},\"items\":[");
    for (int i = from; i < to; i++)
        kc_buf_printf(
            &b,
            "%s{\"kind\":\"Backup\",\"metadata\":{\"namespace\":\"velero\",\"name\":\"%s\","
            "\"resourceVersion\":\"%ld\"},\"spec\":{\"value\":%d}}",
            i > from ? "," : "", F.names[i], F.rv, F.values[i]);
    kc_buf_printf(&b, "]}");
    fake_unlock();
    return answer(con, 200, kc_buf_cstr(&b));
}

static void fake_listen(int port)
{
    F.shutdown = 0;
    F.d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
                           (uint16_t)port, NULL, NULL, handler, NULL, MHD_OPTION_URI_LOG_CALLBACK,
                           log_uri, NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(F.d);
    F.port = MHD_get_daemon_info(F.d, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void fake_stop(void)
{
    fake_lock();
    F.shutdown = 1;
    fake_unlock();
    MHD_stop_daemon(F.d);
    F.d = NULL;
}

static void setup(void)
{
    memset(&F, 0, sizeof F);
    pthread_mutex_init(&F.mu, NULL);
    pthread_cond_init(&F.cv, NULL);
    F.rv = 10;
    fake_set("a", 1);
    fake_set("b", 2);
    fake_set("c", 3);
    fake_listen(0);
}

static void teardown(void)
{
    if (F.d) fake_stop();
    for (int i = 0; i < F.nobj; i++) free(F.names[i]);
    for (int i = 0; i < F.nlog; i++) free(F.log[i]);
    kc_buf_free(&F.pending);
    pthread_mutex_destroy(&F.mu);
    pthread_cond_destroy(&F.cv);
}

/* ---- the reflector under test, with a store of name -> value ---- */

typedef struct {
    char *name;
    int value;
} thing;

static void *thing_decode(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "spec"), "value");
    thing *t = xcalloc(1, sizeof *t);
    t->name = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name")));
    t->value = cJSON_IsNumber(v) ? v->valueint : 0;
    return t;
}

static void thing_release(void *p)
{
    thing *t = p;
    free(t->name);
    free(t);
}

typedef struct {
    kc_loop *loop;
    kc_client *client;
    kc_store *store;
    kc_reflector *refl;
    kc_buf changes;
    int retry_delays[16]; /* ms until the next try, per attempt, as announced */
    int max_attempt;
    int wait_watch;                     /* for conditions */
    int failed_once, current_too_early; /* stale_since_ms seen 0 after a failure, before a list */
    int throttled_seen;                 /* a status said throttled */
    char wait_rv[64];
} rig;

static void on_change(void *arg, kc_event_type type, const char *key, void *obj)
{
    rig *g = arg;
    static const char *names[] = {"ADDED", "MODIFIED", "DELETED"};
    kc_buf_printf(&g->changes, "%s %s=%d;", names[type], key, ((thing *)obj)->value);
}

static void on_status(void *arg, const kc_refl_status *st)
{
    rig *g = arg;
    if (st->state == KC_REFL_RETRYING) g->failed_once = 1;
    if (st->throttled) g->throttled_seen = 1;
    if (g->failed_once && !st->relists && !st->stale_since_ms) g->current_too_early = 1;
    if (st->state == KC_REFL_RETRYING && st->attempt > g->max_attempt && st->attempt < 16) {
        g->max_attempt = st->attempt;
        g->retry_delays[st->attempt] = (int)(st->next_try_ms - kc_now_ms());
    }
}

static size_t rig_max_line;           /* 0: the default */
static int rig_max_pages;             /* 0: the default */
static long rig_max_items;            /* 0: the default */
static int64_t rig_backoff_max = 200; /* ms */
static int64_t rig_backoff_base = 20; /* ms */

static void rig_start(rig *g, int port)
{
    memset(g, 0, sizeof *g);
    g->loop = kc_loop_new();
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", port);
    kc_rest_config cfg = {.server = server, .user = "tester"};
    kc_err err;
    g->client = kc_client_new(g->loop, &cfg, &err);
    ck_assert_ptr_nonnull(g->client);
    g->store = kc_store_new(thing_decode, thing_release);
    kc_store_on_change(g->store, on_change, g);
    kc_reflector_opts o = {.api_path = "/apis/velero.io/v1",
                           .resource = "backups",
                           .ns = "velero",
                           .backoff_base_ms = rig_backoff_base,
                           .backoff_max_ms = rig_backoff_max,
                           .max_line = rig_max_line,
                           .max_pages = rig_max_pages,
                           .max_items = rig_max_items};
    g->refl = kc_reflector_new(g->client, &o, g->store);
    kc_reflector_on_status(g->refl, on_status, g);
    kc_reflector_start(g->refl);
}

static void rig_stop(rig *g)
{
    kc_reflector_free(g->refl);
    kc_client_free(g->client);
    kc_store_free(g->store);
    kc_loop_free(g->loop);
    kc_buf_free(&g->changes);
}

static int watch_open(void *arg)
{
    rig *g = arg;
    fake_lock();
    int ok = F.watch_gen >= g->wait_watch;
    fake_unlock();
    return ok && kc_reflector_status(g->refl)->state == KC_REFL_LIVE;
}

/* Waits until the fake server has seen watch number n and the reflector says live. */
static void await_watch(rig *g, int n)
{
    g->wait_watch = n;
    ck_assert_msg(kc_loop_run_until(g->loop, watch_open, g, 10000), "watch %d not open", n);
}

static int rv_is(void *arg)
{
    rig *g = arg;
    return strcmp(kc_reflector_status(g->refl)->resource_version, g->wait_rv) == 0;
}

static void await_rv(rig *g, const char *rv)
{
    snprintf(g->wait_rv, sizeof g->wait_rv, "%s", rv);
    ck_assert_msg(kc_loop_run_until(g->loop, rv_is, g, 10000), "rv %s never reached (at %s)", rv,
                  kc_reflector_status(g->refl)->resource_version);
}

static int value_of(rig *g, const char *name)
{
    thing *t = kc_store_get(g->store, "velero", name);
    return t ? t->value : -1;
}

/* The logged watch URI, with its random timeoutSeconds checked and replaced by "T". */
static char *watch_uri(int i)
{
    const char *u = logged(i);
    const char *t = strstr(u, "timeoutSeconds=");
    ck_assert_msg(t != NULL, "no timeoutSeconds in %s", u);
    long secs = strtol(t + 15, NULL, 10);
    ck_assert_int_ge(secs, 300);
    ck_assert_int_le(secs, 600);
    const char *rest = strchr(t, '&');
    return xasprintf("%.*sT%s", (int)(t + 15 - u), u, rest ? rest : "");
}

#define BASE "/apis/velero.io/v1/namespaces/velero/backups"

/* A fleet holds 13 reflectors a context (3 900 for 300), and most never fail: the status carries
 * no 512-byte error buffer (648 bytes before, 144 now), its last_error is the reflector's own text,
 * "" (never NULL) before anything failed. */
START_TEST(status_carries_no_error_buffer)
{
    ck_assert_uint_le(sizeof(kc_refl_status), 144);
    kc_loop *loop = kc_loop_new();
    kc_rest_config cfg = {.server = "http://127.0.0.1:9"};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    kc_store *store = kc_store_new(NULL, NULL);
    kc_reflector_opts o = {.api_path = "/apis/velero.io/v1", .resource = "backups"};
    kc_reflector *r = kc_reflector_new(c, &o, store);
    ck_assert_ptr_nonnull(kc_reflector_status(r)->last_error);
    ck_assert_str_eq(kc_reflector_status(r)->last_error, "");
    kc_reflector_free(r);
    kc_store_free(store);
    kc_client_free(c);
    kc_loop_free(loop);
}
END_TEST

START_TEST(first_list_whole_then_watch_with_client_go_parameters)
{
    rig g;
    rig_start(&g, F.port);
    ck_assert_int_eq(kc_reflector_status(g.refl)->state, KC_REFL_SYNCING);
    await_watch(&g, 1);
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_int_eq(st->synced, 1);
    ck_assert_str_eq(st->resource_version, "10");
    ck_assert_uint_eq(kc_store_len(g.store), 3);
    ck_assert_int_eq(value_of(&g, "a"), 1);
    ck_assert_int_eq(value_of(&g, "c"), 3);
    /* the first list: everything at once from the cache (the fake would page a limit by 2) */
    ck_assert_str_eq(logged(0), BASE "?resourceVersion=0");
    char *w = watch_uri(1);
    ck_assert_str_eq(w, BASE
                     "?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=T&watch=true");
    free(w);
    rig_stop(&g);
}
END_TEST

START_TEST(events_bookmarks_and_a_malformed_line)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    kc_buf_free(&g.changes);
    fake_push("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"namespace\":\"velero\",\"name\":"
              "\"d\",\"resourceVersion\":\"11\"},\"spec\":{\"value\":4}}}");
    fake_push("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"namespace\":\"velero\",\"name\":"
              "\"a\",\"resourceVersion\":\"12\"},\"spec\":{\"value\":100}}}");
    fake_push("this is {not json");
    fake_push("{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"namespace\":\"velero\",\"name\":"
              "\"b\",\"resourceVersion\":\"13\"},\"spec\":{\"value\":2}}}");
    await_rv(&g, "13");
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Backup\",\"metadata\":{"
              "\"resourceVersion\":\"20\"}}}");
    await_rv(&g, "20");
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_uint_eq(st->events, 4);
    ck_assert_uint_eq(st->malformed, 1);
    ck_assert_int_eq(st->state, KC_REFL_LIVE);
    ck_assert_str_eq(kc_buf_cstr(&g.changes),
                     "ADDED velero/d=4;MODIFIED velero/a=100;DELETED velero/b=2;");
    ck_assert_uint_eq(kc_store_len(g.store), 3);
    ck_assert_int_eq(value_of(&g, "b"), -1);
    /* a normal close re-watches from the bookmark's resourceVersion, without a list */
    fake_lock();
    F.close_upto = F.watch_gen;
    fake_unlock();
    await_watch(&g, 2);
    char *w = watch_uri(2);
    ck_assert_str_eq(w, BASE
                     "?allowWatchBookmarks=true&resourceVersion=20&timeoutSeconds=T&watch=true");
    free(w);
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 0);
    ck_assert_int_eq(kc_reflector_status(g.refl)->attempt, 0);
    rig_stop(&g);
}
END_TEST

static int relisted(void *arg)
{
    rig *g = arg;
    return kc_reflector_status(g->refl)->relists >= 1 && watch_open(g);
}

START_TEST(error_410_relists_and_removes_objects_deleted_meanwhile)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"15\"}}}");
    await_rv(&g, "15");
    /* while we are not looking: b goes away, c changes, e appears; the watch expires; the list
     * at the last resourceVersion is refused too, so the reflector lists from scratch */
    fake_lock();
    fake_del("b");
    fake_set("c", 33);
    fake_set("e", 5);
    F.rv = 40;
    F.list_410 = 1;
    kc_buf_printf(&F.pending,
                  "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                  "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource "
                  "version: 15 (30)\",\"reason\":\"Expired\",\"code\":410}}\n");
    F.close_upto = F.watch_gen;
    fake_unlock();
    kc_buf_free(&g.changes);
    g.wait_watch = 2;
    ck_assert(kc_loop_run_until(g.loop, relisted, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_uint_eq(st->relists, 1);
    ck_assert_str_eq(st->resource_version, "40");
    ck_assert_str_eq(logged(2), BASE "?limit=500&resourceVersion=15");
    ck_assert_str_eq(logged(3), BASE "?limit=500");
    ck_assert_str_eq(logged(4), BASE "?continue=2&limit=500");
    char *w = watch_uri(5);
    ck_assert_str_eq(w, BASE
                     "?allowWatchBookmarks=true&resourceVersion=40&timeoutSeconds=T&watch=true");
    free(w);
    ck_assert_uint_eq(kc_store_len(g.store), 3);
    ck_assert_int_eq(value_of(&g, "b"), -1);
    ck_assert_int_eq(value_of(&g, "c"), 33);
    ck_assert_int_eq(value_of(&g, "e"), 5);
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&g.changes), "DELETED velero/b=2;"));
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&g.changes), "MODIFIED velero/c=33;"));
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&g.changes), "ADDED velero/e=5;"));

    /* an HTTP 410 on the watch itself re-lists too */
    fake_lock();
    F.watch_status = 410;
    F.close_upto = F.watch_gen;
    fake_del("a");
    fake_unlock();
    g.wait_watch = 3;
    ck_assert(kc_loop_run_until(g.loop, watch_open, &g, 10000));
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 2);
    ck_assert_int_eq(value_of(&g, "a"), -1);
    ck_assert_uint_eq(kc_store_len(g.store), 2);
    rig_stop(&g);
}
END_TEST

START_TEST(relist_after_410_mid_list_yields_exactly_the_servers_state)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"15\"}}}");
    await_rv(&g, "15");
    /* the watch expires; the relist's first page brings a and b, then its continue token has
     * expired (410) and a was deleted meanwhile: the list from scratch must not keep a */
    fake_lock();
    F.cont_410 = 1;
    F.del_on_410 = "a";
    kc_buf_printf(&F.pending,
                  "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                  "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource "
                  "version: 15 (30)\",\"reason\":\"Expired\",\"code\":410}}\n");
    F.close_upto = F.watch_gen;
    fake_unlock();
    kc_buf_free(&g.changes);
    g.wait_watch = 2;
    ck_assert(kc_loop_run_until(g.loop, relisted, &g, 10000));
    ck_assert_str_eq(logged(2), BASE "?limit=500&resourceVersion=15");
    ck_assert_str_eq(logged(3), BASE "?continue=2&limit=500");
    ck_assert_str_eq(logged(4), BASE "?limit=500"); /* b and c: one page */
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_str_eq(st->resource_version, "20");
    /* exactly the server's state: b and c */
    ck_assert_uint_eq(kc_store_len(g.store), 2);
    ck_assert_int_eq(value_of(&g, "a"), -1);
    ck_assert_int_eq(value_of(&g, "b"), 2);
    ck_assert_int_eq(value_of(&g, "c"), 3);
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&g.changes), "DELETED velero/a=1;"));
    rig_stop(&g);
}
END_TEST

static int retried_thrice(void *arg)
{
    rig *g = arg;
    return kc_reflector_status(g->refl)->attempt >= 3;
}

static int back_live(void *arg)
{
    rig *g = arg;
    const kc_refl_status *st = kc_reflector_status(g->refl);
    return st->state == KC_REFL_LIVE && st->attempt == 0;
}

START_TEST(server_away_is_retried_with_backoff_then_recovers)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"17\"}}}");
    await_rv(&g, "17");
    int port = F.port;
    fake_stop();
    ck_assert(kc_loop_run_until(g.loop, retried_thrice, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_int_eq(st->state, KC_REFL_RETRYING);
    ck_assert_int_ge(st->attempt, 3);
    char want[96];
    snprintf(want, sizeof want, "cannot connect to http://127.0.0.1:%d: ", port);
    ck_assert_msg(strncmp(st->last_error, want, strlen(want)) == 0, "last error: %s",
                  st->last_error);
    /* 20 ms doubling, jitter adds up to as much again, capped at 200 ms */
    ck_assert_int_ge(g.retry_delays[1], 20 - 5);
    ck_assert_int_le(g.retry_delays[1], 40);
    ck_assert_int_ge(g.retry_delays[2], 40 - 5);
    ck_assert_int_le(g.retry_delays[2], 80);
    ck_assert_int_ge(g.retry_delays[3], 80 - 5);
    ck_assert_int_le(g.retry_delays[3], 160);
    /* the objects are kept while the server is away */
    ck_assert_uint_eq(kc_store_len(g.store), 3);

    /* the server comes back where its bookmark said it was (not behind: see
     * server_back_in_time_after_a_reconnect_is_listed_again) */
    fake_lock();
    F.rv = 17;
    fake_unlock();
    fake_listen(port);
    ck_assert(kc_loop_run_until(g.loop, back_live, &g, 10000));
    ck_assert_str_eq(st->last_error, "");
    /* it resumed the watch from where it was */
    fake_lock();
    char *last = xstrdup(F.log[F.nlog - 1]);
    fake_unlock();
    ck_assert_ptr_nonnull(strstr(last, "resourceVersion=17&"));
    free(last);
    fake_push("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"namespace\":\"velero\",\"name\":"
              "\"c\",\"resourceVersion\":\"18\"},\"spec\":{\"value\":9}}}");
    await_rv(&g, "18");
    ck_assert_int_eq(value_of(&g, "c"), 9);
    rig_stop(&g);
}
END_TEST

static int is_retrying(void *arg)
{
    rig *g = arg;
    return kc_reflector_status(g->refl)->state == KC_REFL_RETRYING;
}

/* A list refused (403, RBAC) is named so, "forbidden: <the server's message>", not taken for an
 * outage: it is retried on the one backoff policy (backoff.h) up to its max interval (200 ms
 * here), and the liveness probe's "the server answers again" (kc_reflector_retry_now) does not
 * cut its pause short. Once allowed, it lists and watches. It used to keep the bare message. */
static int retried_six(void *arg)
{
    rig *g = arg;
    return kc_reflector_status(g->refl)->attempt >= 6;
}

START_TEST(forbidden_list_is_named_and_backs_off_to_the_max)
{
    fake_lock();
    F.list_forbidden = 1;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    ck_assert(kc_loop_run_until(g.loop, retried_six, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_int_eq(st->state, KC_REFL_RETRYING);
    ck_assert_int_eq(st->last_status, 403);
    ck_assert_str_eq(st->last_error,
                     "forbidden: backups.velero.io is forbidden: User \"tester\" cannot list "
                     "resource \"backups\" in API group \"velero.io\" in the namespace \"velero\"");
    ck_assert_int_eq(st->synced, 0);
    /* 20 ms doubling with jitter, then the max: 200 ms (a few ms spent announcing it) */
    ck_assert_int_le(g.retry_delays[1], 40);
    ck_assert_int_ge(g.retry_delays[5], 200 - 5);
    ck_assert_int_le(g.retry_delays[5], 200);
    ck_assert_int_ge(g.retry_delays[6], 200 - 5);
    /* not an outage: the probe's answer does not make it try at once */
    int64_t next = st->next_try_ms;
    kc_reflector_retry_now(g.refl);
    ck_assert_int_eq(st->next_try_ms, next);
    fake_lock();
    F.list_forbidden = 0;
    fake_unlock();
    await_watch(&g, 1);
    ck_assert_str_eq(st->last_error, "");
    ck_assert_int_eq(st->attempt, 0);
    rig_stop(&g);
}
END_TEST

START_TEST(too_many_requests_waits_for_retry_after)
{
    rig g;
    rig_backoff_max = 2000; /* Retry-After: 1 is within the cap */
    rig_start(&g, F.port);
    rig_backoff_max = 200;
    await_watch(&g, 1);
    /* an event first, so that the close below is a normal one */
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}");
    await_rv(&g, "12");
    fake_lock();
    F.watch_status = 429;
    F.close_upto = F.watch_gen;
    fake_unlock();
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_msg(st->last_status == 429, "%d %s", st->last_status, st->last_error);
    ck_assert_int_eq(st->attempt, 1);
    /* Retry-After: 1 beats the 20 ms backoff */
    ck_assert_msg(g.retry_delays[1] >= 1000 - 50, "%d %s", g.retry_delays[1], st->last_error);
    ck_assert_int_le(g.retry_delays[1], 1000);
    await_watch(&g, 2);
    ck_assert_int_eq(st->attempt, 0);
    rig_stop(&g);
}
END_TEST

/* client-go's reflector: a watch answered 429 with Retry-After waits and watches again from the
 * same resourceVersion; nothing is listed (not even the one-item check of a reconnect). It used
 * to relist every time. Each wait is the Retry-After, capped by the backoff (200 ms here). */
START_TEST(watch_429_rewatches_without_listing)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}");
    await_rv(&g, "12");
    fake_lock();
    int lists = F.lists, nlog = F.nlog;
    F.watch_429 = 3;
    F.close_upto = F.watch_gen;
    fake_unlock();
    await_watch(&g, 2);
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert(g.throttled_seen);
    ck_assert_int_eq(g.max_attempt, 3);
    ck_assert_int_eq(st->attempt, 0);
    ck_assert_int_eq(st->throttled, 0);
    ck_assert_uint_eq(st->relists, 0);
    for (int i = 1; i <= 3; i++)
        ck_assert_msg(g.retry_delays[i] >= 150 && g.retry_delays[i] <= 200, "%d: %d", i,
                      g.retry_delays[i]);
    fake_lock();
    ck_assert_int_eq(F.lists, lists); /* no list, no check */
    int n = F.nlog;
    fake_unlock();
    ck_assert_int_eq(n, nlog + 4); /* three 429s, then the watch that opened */
    for (int i = nlog; i < n; i++) {
        char *u = watch_uri(i);
        ck_assert_str_eq(u, "/apis/velero.io/v1/namespaces/velero/backups?allowWatchBookmarks=true&"
                            "resourceVersion=12&timeoutSeconds=T&watch=true");
        free(u);
    }
    rig_stop(&g);
}
END_TEST

/* A list answered 429 with Retry-After four times, then 200: the same list is tried again (up to
 * 10 times, as client-go's rest client) and the reflector syncs, shown as retrying meanwhile with
 * the server's message. It used to count as a failure at once (--once gave up). */
START_TEST(list_429_is_tried_again_until_it_answers)
{
    fake_lock();
    F.list_429 = 4;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert(st->synced);
    ck_assert(g.throttled_seen);
    ck_assert_int_eq(g.max_attempt, 4);
    ck_assert_int_eq(st->throttled, 0);
    ck_assert_int_eq(value_of(&g, "a"), 1);
    fake_lock();
    ck_assert_int_eq(F.list_429, 0);
    fake_unlock();
    ck_assert_str_eq(logged(0), logged(4)); /* the same list, four times again */
    rig_stop(&g);
}
END_TEST

START_TEST(oversize_event_is_an_error_and_relists)
{
    rig g;
    rig_max_line = 300;
    rig_start(&g, F.port);
    rig_max_line = 0;
    await_watch(&g, 1);
    char big[600];
    snprintf(big, sizeof big,
             "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"namespace\":\"velero\",\"name\":"
             "\"a\",\"resourceVersion\":\"11\",\"annotations\":{\"x\":\"%0400d\"}}}}",
             0);
    fake_lock();
    fake_set("a", 77);
    F.rv = 11;
    fake_unlock();
    fake_push(big);
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_str_eq(st->last_error, "a watch event larger than 300 bytes was refused");
    ck_assert_int_eq(st->attempt, 1);
    /* the dropped change comes back through a list */
    ck_assert(kc_loop_run_until(g.loop, relisted, &g, 10000));
    ck_assert_int_eq(value_of(&g, "a"), 77);
    ck_assert_str_eq(logged(2), BASE "?limit=500&resourceVersion=10");
    rig_stop(&g);
}
END_TEST

static int has_failed(void *arg)
{
    rig *g = arg;
    return kc_reflector_status(g->refl)->state == KC_REFL_FAILED;
}

START_TEST(missing_resource_fails_without_retrying)
{
    rig g;
    memset(&g, 0, sizeof g);
    g.loop = kc_loop_new();
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", F.port);
    kc_rest_config cfg = {.server = server};
    kc_err err;
    g.client = kc_client_new(g.loop, &cfg, &err);
    g.store = kc_store_new(NULL, NULL);
    kc_reflector_opts o = {.api_path = "/apis/velero.io/v2alpha1", .resource = "datauploads"};
    g.refl = kc_reflector_new(g.client, &o, g.store);
    kc_reflector_start(g.refl);
    ck_assert(kc_loop_run_until(g.loop, has_failed, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_int_eq(st->last_status, 404);
    ck_assert_str_eq(
        st->last_error,
        "Velero's resources are not installed in this cluster (no velero.io API group)");
    ck_assert_str_eq(logged(0), "/apis/velero.io/v2alpha1/datauploads?resourceVersion=0");
    ck_assert_int_eq(st->attempt, 0);
    fake_lock();
    ck_assert_int_eq(F.nlog, 1);
    fake_unlock();
    rig_stop(&g);
}
END_TEST

/* A server that hands out continue tokens forever: the list stops after max_pages pages
 * (KC_CAP_LIST_PAGES by default) with a message (then the usual retry), instead of paging on for
 * good. */
START_TEST(endless_continue_tokens_are_capped)
{
    rig_max_pages = 7;
    fake_lock();
    F.endless_pages = 1;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_str_eq(st->last_error, "the list of backups did not end after 7 pages (continue "
                                     "tokens): the server is misbehaving");
    ck_assert_int_eq(st->last_status, KC_ERR_CAPPED);
    fake_lock();
    ck_assert_int_eq(F.lists, 7);
    fake_unlock();
    rig_stop(&g);
    rig_max_pages = 0;
}
END_TEST

/* A resourceVersion=0 list is one streamed answer, decoded item by item: one that never ends is
 * stopped after max_items objects (KC_CAP_LIST_ITEMS by default) with a message, then the usual
 * retry, instead of filling the store for good. */
START_TEST(endless_list_answer_is_capped)
{
    rig_max_items = 50;
    fake_lock();
    F.endless_items = 1;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_str_eq(st->last_error,
                     "the list of backups did not end after 50 objects: the server is misbehaving");
    ck_assert_int_eq(st->last_status, KC_ERR_CAPPED);
    ck_assert_uint_le(kc_store_len(g.store), 50);
    rig_stop(&g);
    rig_max_items = 0;
}
END_TEST

static int nreq(void)
{
    fake_lock();
    int n = F.nreq;
    fake_unlock();
    return n;
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

/* A server that answers every watch with 410 Expired at once: list, watch, 410, list... used to
 * run without a pause (14 711 requests in 5 s). Each re-list now waits its backoff (20 ms doubling
 * to 200 ms here): over 2 s at most 2 + 2000/20 + ... cycles of 3 requests; well under 60. */
START_TEST(watch_expired_at_once_relists_with_backoff_not_a_flood)
{
    fake_lock();
    F.watch_mode = WM_EXPIRE;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    kc_loop_run_until(g.loop, never, NULL, 2000);
    int n = nreq();
    const kc_refl_status *st = kc_reflector_status(g.refl);
    /* delays 20-40, 40-80, 80-160, then 160-200 and 200: about 13 re-lists in 2 s */
    ck_assert_msg(n >= 12 && n <= 60, "%d requests in 2 s", n);
    ck_assert_uint_ge(st->relists, 4);
    ck_assert_uint_le(st->relists, 20);
    /* the data came from a list just now: what is shown is the server's state */
    ck_assert_uint_eq(kc_store_len(g.store), 3);
    rig_stop(&g);
}
END_TEST

/* A server that sends one BOOKMARK on every watch and ends it: the bookmark is an event, so this
 * is no failure, but the watch used to be re-opened at once (7 205 requests). */
START_TEST(watch_ending_after_a_bookmark_is_reopened_after_backoff)
{
    fake_lock();
    F.watch_mode = WM_BOOKMARK;
    fake_unlock();
    rig g;
    rig_start(&g, F.port);
    kc_loop_run_until(g.loop, never, NULL, 2000);
    int n = nreq();
    ck_assert_msg(n >= 6 && n <= 30, "%d requests in 2 s", n);
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_uint_eq(st->relists, 0);
    ck_assert_str_eq(st->resource_version, "10");
    ck_assert_str_eq(st->last_error, "");
    rig_stop(&g);
}
END_TEST

/* Retry-After: 999999999999 used to be obeyed ("next in 999999999993s"): it is capped at the
 * backoff's maximum. */
START_TEST(huge_retry_after_is_capped)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}");
    await_rv(&g, "12");
    fake_lock();
    F.watch_status = 429;
    F.retry_after = "999999999999";
    F.close_upto = F.watch_gen;
    fake_unlock();
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    const kc_refl_status *st = kc_reflector_status(g.refl);
    ck_assert_int_eq(st->last_status, 429);
    ck_assert_msg(g.retry_delays[1] >= 150 && g.retry_delays[1] <= 200, "%d", g.retry_delays[1]);
    await_watch(&g, 2);
    rig_stop(&g);
}
END_TEST

/* A server restarted with older state (or an etcd restore): its resourceVersions are below ours.
 * The reflector used to resume its watch from a resourceVersion the server had not reached: rows
 * frozen, new objects never shown. After the reconnect it now sees the server's list
 * resourceVersion is below its own and lists everything again. */
START_TEST(server_back_in_time_after_a_reconnect_is_listed_again)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"50\"}}}");
    await_rv(&g, "50");
    int port = F.port;
    fake_stop();
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    fake_lock();
    F.rv = 7; /* restored: older state, b gone, x new */
    fake_del("b");
    fake_set("x", 9);
    int before = F.nlog;
    fake_unlock();
    fake_listen(port);
    await_rv(&g, "7");
    ck_assert(kc_loop_run_until(g.loop, back_live, &g, 10000));
    ck_assert_int_eq(value_of(&g, "x"), 9);
    ck_assert_int_eq(value_of(&g, "b"), -1);
    ck_assert_uint_eq(kc_store_len(g.store), 3);
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 1);
    /* the check is one small consistent list, then the whole list from scratch, then a watch */
    fake_lock();
    int i = before;
    while (i < F.nlog && strstr(F.log[i], "limit=1") == NULL) i++;
    fake_unlock();
    ck_assert_str_eq(logged(i), BASE "?limit=1");
    ck_assert_str_eq(logged(i + 1), BASE "?limit=500");
    char *w = watch_uri(i + 3);
    ck_assert_str_eq(w, BASE
                     "?allowWatchBookmarks=true&resourceVersion=7&timeoutSeconds=T&watch=true");
    free(w);
    rig_stop(&g);
}
END_TEST

/* The same server, same state: the check finds it at or after our resourceVersion and the watch
 * resumes from where it was, without a list. */
START_TEST(same_server_after_a_reconnect_resumes_the_watch)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"10\"}}}");
    await_rv(&g, "10");
    int port = F.port;
    fake_stop();
    ck_assert(kc_loop_run_until(g.loop, is_retrying, &g, 10000));
    fake_lock();
    F.rv = 12;
    fake_unlock();
    fake_listen(port);
    ck_assert(kc_loop_run_until(g.loop, back_live, &g, 10000));
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 0);
    fake_lock();
    char *last = xstrdup(F.log[F.nlog - 1]), *prev = xstrdup(F.log[F.nlog - 2]);
    fake_unlock();
    ck_assert_str_eq(prev, BASE "?limit=1");
    ck_assert_ptr_nonnull(strstr(last, "resourceVersion=10&"));
    free(last);
    free(prev);
    rig_stop(&g);
}
END_TEST

/* A real apiserver asked to watch from a resourceVersion it has not reached answers 504 "Too
 * large resource version": the reflector lists from scratch. */
START_TEST(too_large_resource_version_lists_from_scratch)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"60\"}}}");
    await_rv(&g, "60");
    fake_lock();
    F.watch_status = 504;
    F.close_upto = F.watch_gen;
    F.rv = 40;
    fake_unlock();
    await_rv(&g, "40");
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 1);
    fake_lock();
    int i = 0;
    while (i < F.nlog && strcmp(F.log[i], BASE "?limit=500") != 0) i++;
    fake_unlock();
    ck_assert_str_eq(logged(i), BASE "?limit=500");
    rig_stop(&g);
}
END_TEST

static int relisted_and_live(void *arg)
{
    rig *g = arg;
    const kc_refl_status *st = kc_reflector_status(g->refl);
    return st->relists >= 1 && st->state == KC_REFL_LIVE && st->attempt == 0;
}

/* Under faults the data stayed stale for two 30 s pauses in a row (a restore shown InProgress
 * ~100 s after the server had it Completed): a failure's backoff, then the resumed watch found the
 * history expired meanwhile (410) and the re-list waited its own backoff again. Right after a
 * pause, a 410 now re-lists at once: one pause (1 s here), not two. */
START_TEST(expired_right_after_a_failure_pause_relists_without_a_second_pause)
{
    rig g;
    rig_backoff_base = rig_backoff_max = 1000;
    rig_start(&g, F.port);
    rig_backoff_base = 20;
    rig_backoff_max = 200;
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}");
    await_rv(&g, "12");
    kc_loop_run_until(g.loop, never, NULL, 1100); /* a watch that ran its course */
    fake_lock();
    F.rv = 12;
    F.watch_status = 500; /* the re-watch fails: a 1 s pause */
    F.then_status = 410;  /* the watch after the pause: the history expired meanwhile */
    F.close_upto = F.watch_gen;
    fake_unlock();
    int64_t t0 = kc_now_ms();
    ck_assert(kc_loop_run_until(g.loop, relisted_and_live, &g, 10000));
    int64_t took = kc_now_ms() - t0;
    ck_assert_msg(took >= 950 && took < 1700, "took %lld ms", (long long)took);
    ck_assert_uint_eq(kc_reflector_status(g.refl)->relists, 1);
    ck_assert_int_eq(kc_reflector_status(g.refl)->stale_since_ms, 0);
    rig_stop(&g);
}
END_TEST

/* Headers are not data: a watch that opens after a failure and then says 410 (its resourceVersion
 * expired meanwhile) used to mark the store current for a moment, so the header counted the data's
 * age from then, not from the failure ("data stale for 29s" while 59 s behind). It stays stale
 * from the failure until the re-list has arrived. */
START_TEST(a_watch_that_opens_then_expires_does_not_make_the_data_current)
{
    rig g;
    rig_start(&g, F.port);
    await_watch(&g, 1);
    fake_push("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}");
    await_rv(&g, "12");
    kc_loop_run_until(g.loop, never, NULL, 1100);
    fake_lock();
    F.rv = 12;
    F.watch_status = 500;
    F.then_status = -410;
    F.close_upto = F.watch_gen;
    fake_unlock();
    ck_assert(kc_loop_run_until(g.loop, relisted_and_live, &g, 10000));
    ck_assert_int_eq(g.failed_once, 1);
    ck_assert_int_eq(g.current_too_early, 0);
    /* and once the list is in, it is current */
    ck_assert_int_eq(kc_reflector_status(g.refl)->stale_since_ms, 0);
    rig_stop(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reflector");
    TCase *tc = tcase_create("reflector");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, status_carries_no_error_buffer);
    tcase_add_test(tc, first_list_whole_then_watch_with_client_go_parameters);
    tcase_add_test(tc, events_bookmarks_and_a_malformed_line);
    tcase_add_test(tc, error_410_relists_and_removes_objects_deleted_meanwhile);
    tcase_add_test(tc, relist_after_410_mid_list_yields_exactly_the_servers_state);
    tcase_add_test(tc, server_away_is_retried_with_backoff_then_recovers);
    tcase_add_test(tc, missing_resource_fails_without_retrying);
    tcase_add_test(tc, forbidden_list_is_named_and_backs_off_to_the_max);
    tcase_add_test(tc, too_many_requests_waits_for_retry_after);
    tcase_add_test(tc, watch_429_rewatches_without_listing);
    tcase_add_test(tc, list_429_is_tried_again_until_it_answers);
    tcase_add_test(tc, oversize_event_is_an_error_and_relists);
    tcase_add_test(tc, endless_continue_tokens_are_capped);
    tcase_add_test(tc, endless_list_answer_is_capped);
    tcase_add_test(tc, watch_expired_at_once_relists_with_backoff_not_a_flood);
    tcase_add_test(tc, watch_ending_after_a_bookmark_is_reopened_after_backoff);
    tcase_add_test(tc, huge_retry_after_is_capped);
    tcase_add_test(tc, server_back_in_time_after_a_reconnect_is_listed_again);
    tcase_add_test(tc, same_server_after_a_reconnect_resumes_the_watch);
    tcase_add_test(tc, too_large_resource_version_lists_from_scratch);
    tcase_add_test(tc, expired_right_after_a_failure_pause_relists_without_a_second_pause);
    tcase_add_test(tc, a_watch_that_opens_then_expires_does_not_make_the_data_current);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
