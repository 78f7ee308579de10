/* reflector.c: keeps a store in sync with one resource by LIST then WATCH, as client-go's. */
#include "kubeclient/reflector.h"
#include "kubeclient/backoff.h"
#include "kubeclient/caps.h"
#include "kubeclient/jsonarena.h"
#include "kubeclient/listsplit.h"
#include "kubeclient/ndjson.h"
#include "kubeclient/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NEXT_CHECK: before resuming a watch after a failure, make sure the server has not gone back in
 * time (a restarted or restored API server): see start_check. */
typedef enum { NEXT_LIST, NEXT_WATCH, NEXT_CHECK } next_step;

struct kc_reflector {
    kc_client *c;
    kc_loop *loop;
    kc_store *store;
    char *base;              /* api_path[/namespaces/ns]/resource */
    char *label_q, *field_q; /* escaped selectors, NULL when none */
    int page_size;
    size_t max_line;
    kc_backoff backoff; /* every pause before talking to the server again (backoff.h) */

    kc_refl_status st;
    void (*status_fn)(void *arg, const kc_refl_status *st);
    void *status_arg;

    kc_request *req;
    uint64_t timer;
    next_step next;
    uint64_t rng;

    /* listing */
    char list_rv[64];      /* resourceVersion the list asks for ("" = consistent read) */
    char *cont;            /* continue token of the next page */
    int pages, max_pages;  /* pages of this list so far; the cap (caps.h) */
    long items, max_items; /* objects of this list so far (pages together); the cap (caps.h) */
    int replacing;
    int additive;         /* kc_reflector_opts.additive */
    int held;             /* kc_reflector_opts.held, until kc_reflector_release */
    int64_t list_sent_ms; /* when the first list request went out (first_headers_ms) */
    kc_listsplit *split;  /* the page's items as they arrive (listsplit.h) */
    /* watching */
    kc_ndjson *framer;
    int watching; /* r->req is a watch */
    int64_t watch_started;
    unsigned long watch_events;
    int stop;       /* what the line handler asked for: 0, STOP_RELIST, STOP_ERROR */
    char *stop_msg; /* why the watch stops (malloc'd when it does) */
    char *error;    /* st.last_error's text when it is not "" (malloc'd) */
    int stop_code;

    int started;
    /* the current step began when a backoff pause ended, and nothing was listed since: a 410
     * now is about the time we spent waiting, not a server that expires every watch */
    int after_pause;
    int paused;       /* the timer set is a backoff pause */
    int kickable;     /* the pause is our own backoff after a connection failure or a 5xx (not a
                         Retry-After, not a refusal): kc_reflector_retry_now may cut it short */
    uint64_t confirm; /* a watch that stands for a second makes the store current */
};

enum { STOP_RELIST = 1, STOP_ERROR = 2 };

static void start_list(kc_reflector *r);
static void start_watch(kc_reflector *r);
static void start_check(kc_reflector *r);
static void mark_current(kc_reflector *r);

/* Bounded string copy (snprintf "%s" trips -Wformat-truncation on long sources). */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n) k = n - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

/* st.last_error = msg, cut as copy_str to KC_REFL_ERROR_MAX; NULL or "" clears it. */
static void set_error(kc_reflector *r, const char *msg)
{
    char *e = NULL; /* made before the old one goes: msg may be it */
    if (msg && *msg) {
        size_t k = strnlen(msg, KC_REFL_ERROR_MAX - 1);
        e = xmalloc(k + 1);
        memcpy(e, msg, k);
        e[k] = 0;
    }
    free(r->error);
    r->error = e;
    r->st.last_error = e ? e : "";
}

static void notify(kc_reflector *r)
{
    if (r->status_fn) r->status_fn(r->status_arg, &r->st);
}

static void set_state(kc_reflector *r, kc_refl_state s)
{
    if (r->st.state == s) return;
    r->st.state = s;
    notify(r);
}

static uint64_t rnd(kc_reflector *r)
{
    /* xorshift64*: jitter and watch timeouts only, no need for a good generator */
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return r->rng * 2685821657736338717ull;
}

kc_reflector *kc_reflector_new(kc_client *c, const kc_reflector_opts *o, kc_store *store)
{
    kc_reflector *r = xcalloc(1, sizeof *r);
    r->c = c;
    r->loop = kc_client_loop(c);
    r->store = store;
    if (o->ns && *o->ns)
        r->base = xasprintf("%s/namespaces/%s/%s", o->api_path, o->ns, o->resource);
    else
        r->base = xasprintf("%s/%s", o->api_path, o->resource);
    if (o->label_selector && *o->label_selector) r->label_q = kc_url_escape(o->label_selector);
    if (o->field_selector && *o->field_selector) r->field_q = kc_url_escape(o->field_selector);
    r->page_size = o->page_size > 0 ? o->page_size : 500;
    r->max_line = o->max_line ? o->max_line : 16u << 20;
    r->max_pages = o->max_pages > 0 ? o->max_pages : KC_CAP_LIST_PAGES;
    r->max_items = o->max_items > 0 ? o->max_items : KC_CAP_LIST_ITEMS;
    r->additive = o->additive;
    r->held = o->held;
    kc_backoff_init(&r->backoff, o->backoff_base_ms, o->backoff_max_ms, o->backoff_reset_ms);
    r->rng = (uint64_t)kc_now_ms() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)r;
    if (!r->rng) r->rng = 1;
    r->st.state = KC_REFL_SYNCING;
    r->st.last_error = "";
    r->st.first_headers_ms = -1;
    /* the first list may come from the server's cache, as client-go's (resourceVersion=0) */
    snprintf(r->list_rv, sizeof r->list_rv, "0");
    return r;
}

void kc_reflector_free(kc_reflector *r)
{
    if (!r) return;
    kc_request_cancel(r->req);
    if (r->timer) kc_loop_cancel(r->loop, r->timer);
    if (r->confirm) kc_loop_cancel(r->loop, r->confirm);
    kc_ndjson_free(r->framer);
    kc_listsplit_free(r->split);
    free(r->base);
    free(r->label_q);
    free(r->field_q);
    free(r->cont);
    free(r->stop_msg);
    free(r->error);
    free(r);
}

const kc_refl_status *kc_reflector_status(const kc_reflector *r)
{
    return &r->st;
}

void kc_reflector_on_status(kc_reflector *r, void (*fn)(void *arg, const kc_refl_status *st),
                            void *arg)
{
    r->status_fn = fn;
    r->status_arg = arg;
}

void kc_reflector_release(kc_reflector *r)
{
    if (!r || !r->held) return;
    r->held = 0;
    if (r->req && !r->watching) kc_request_release(r->req);
}

void kc_reflector_withdraw(kc_reflector *r)
{
    /* a list that failed (not held) and waits to try again is left to its retry */
    if (!r || !r->held || !r->started || r->watching || !r->req) return;
    kc_request_cancel(r->req);
    r->req = NULL;
    r->started = 0;
    r->st.first_headers_ms = -1;
}

void kc_reflector_start(kc_reflector *r)
{
    if (r->started) return;
    r->started = 1;
    start_list(r);
}

/* ---- retries ---- */

static void on_timer(void *arg)
{
    kc_reflector *r = arg;
    r->timer = 0;
    r->after_pause = r->paused;
    r->paused = 0;
    if (r->next == NEXT_LIST)
        start_list(r);
    else if (r->next == NEXT_CHECK)
        start_check(r);
    else
        start_watch(r);
}

/* Runs the next step from the loop (not from inside a transfer's callback). */
static void schedule(kc_reflector *r, next_step next, int64_t delay_ms)
{
    r->next = next;
    r->paused = delay_ms > 0;
    if (r->timer) kc_loop_cancel(r->loop, r->timer);
    r->timer = kc_loop_timer(r->loop, delay_ms, on_timer, r);
}

/* A failure: back off (backoff.h), then try `next` again. */
static void fail(kc_reflector *r, next_step next, const char *msg, int status, long retry_after)
{
    int64_t now = kc_now_ms();
    int64_t d = kc_backoff_next(&r->backoff, now, retry_after);
    /* whatever broke the watch, the server that answers next may not be the one we watched;
     * but a 429 is the same server asking for time: client-go's reflector backs off and
     * watches again (tools/cache/reflector.go isWatchErrorRetriable), so does this */
    if (next == NEXT_WATCH && status != 429 && r->st.synced && r->st.resource_version[0])
        next = NEXT_CHECK;
    r->st.throttled = 0;
    r->st.attempt++;
    r->st.next_try_ms = now + d;
    r->kickable = retry_after < 0 && (status == 0 || status >= 500);
    /* a refusal is named as one ("forbidden: <the server's message>"; a 401 says
     * "unauthorized: ..." already), never mistaken for an outage: it waits out the same backoff
     * (to its max), and the liveness probe's answer does not cut its pause short (kickable) */
    if (status == 403 && strncmp(msg, "forbidden", 9)) {
        char named[KC_REFL_ERROR_MAX];
        snprintf(named, sizeof named, "forbidden: %.*s", (int)(sizeof named - 12), msg);
        set_error(r, named);
    } else {
        set_error(r, msg);
    }
    r->st.last_status = status;
    if (!r->st.stale_since_ms) r->st.stale_since_ms = now;
    r->st.state = KC_REFL_RETRYING;
    notify(r);
    schedule(r, next, d);
}

void kc_reflector_retry_now(kc_reflector *r)
{
    if (!r || r->st.state != KC_REFL_RETRYING || !r->timer || !r->paused || !r->kickable) return;
    r->kickable = 0;
    r->st.next_try_ms = kc_now_ms();
    schedule(r, r->next, 0);
}

/* The server asked to wait (429 or 5xx with Retry-After): the client tries the same request
 * again after the wait (client.h), so a list goes on from its page and a watch from its
 * resourceVersion, nothing listed again, as client-go's reflector. Shown as retrying. */
static int64_t on_retry(void *arg, const kc_err *err, long retry_after_s, int attempt)
{
    (void)attempt;
    kc_reflector *r = arg;
    int64_t now = kc_now_ms(), d = kc_backoff_retry_after(&r->backoff, retry_after_s);
    /* a watch tried again starts after the wait: "ended at once" is measured from then */
    if (r->watching) r->watch_started = now + d;
    r->st.attempt++;
    r->st.next_try_ms = now + d;
    set_error(r, err->msg);
    r->st.last_status = err->code;
    r->st.throttled = 1;
    if (!r->st.stale_since_ms) r->st.stale_since_ms = now;
    r->st.state = KC_REFL_RETRYING;
    notify(r);
    return d;
}

/* The resource does not exist (404): nothing to retry. */
static void give_up(kc_reflector *r, const char *msg, int status)
{
    set_error(r, msg);
    r->st.last_status = status;
    r->st.state = KC_REFL_FAILED;
    notify(r);
}

/* An expired resourceVersion: list again, first at the last one we saw. As client-go's
 * ListAndWatch, a re-list waits its backoff first: a server that expires every watch at once
 * gets a few requests a minute, not thousands a second. */
static void relist(kc_reflector *r)
{
    int64_t now = kc_now_ms();
    /* Right after a pause (a failure's backoff) the history may well have expired while we
     * waited: list at once rather than wait a second time (stale for two 30 s pauses in a row
     * under faults). A server that expires every watch still gets one pause per cycle: the
     * watch after a list is not after a pause. */
    int fresh = r->after_pause && now - r->watch_started < 1000;
    int64_t d = fresh ? 0 : kc_backoff_next(&r->backoff, now, -1);
    r->st.relists++;
    copy_str(r->list_rv, sizeof r->list_rv, r->st.resource_version);
    r->st.next_try_ms = now + d;
    if (!r->st.stale_since_ms) r->st.stale_since_ms = now;
    r->st.state = KC_REFL_SYNCING;
    notify(r);
    schedule(r, NEXT_LIST, d);
}

/* ---- list ---- */

/* A page that is not a List: try the whole list again after a backoff. */
static void list_invalid(kc_reflector *r)
{
    free(r->cont);
    r->cont = NULL;
    fail(r, NEXT_LIST, "the server's list answer is not a valid list", 0, -1);
}

/* One item of the page, as it arrives: into the store at once (nothing else of the page is kept:
 * a list of any size costs one item's memory, and rows show while the rest is on its way). */
static int list_item(void *arg, const cJSON *item, const char *text, size_t n)
{
    (void)text;
    (void)n;
    kc_reflector *r = arg;
    if (++r->items > r->max_items) return 1; /* an answer that never ends: list_data says so */
    r->st.listed = r->items;
    kc_store_upsert(r->store, item);
    return 0;
}

static void list_data(void *arg, const char *data, size_t n)
{
    kc_reflector *r = arg;
    if (kc_listsplit_feed(r->split, data, n) == 0) return;
    kc_request_cancel(r->req);
    r->req = NULL;
    if (r->items > r->max_items) {
        free(r->cont);
        r->cont = NULL;
        char msg[256];
        snprintf(msg, sizeof msg,
                 "the list of %s did not end after %ld objects: the server is misbehaving",
                 strrchr(r->base, '/') + 1, r->max_items);
        fail(r, NEXT_LIST, msg, KC_ERR_CAPPED, -1);
        return;
    }
    list_invalid(r);
}

/* The apiserver's answer to a resourceVersion it has not reached (a restored etcd, a restarted
 * server): 504 "Too large resource version: N, current: M" (ResourceVersionTooLarge). */
static int too_large(const kc_response *resp, const kc_err *err)
{
    return (resp->status == 504 || err->code == 504) &&
           (strstr(err->msg, "Too large resource version") ||
            strstr(resp->body ? resp->body : "", "ResourceVersionTooLarge"));
}

static void list_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_reflector *r = arg;
    r->req = NULL;
    if (err->msg[0]) {
        if (resp->status == 410) {
            /* the RV (or the continue token) expired: a consistent read from the start */
            free(r->cont);
            r->cont = NULL;
            if (r->list_rv[0]) {
                r->list_rv[0] = 0;
                schedule(r, NEXT_LIST, 0);
                return;
            }
        }
        if (too_large(resp, err) && r->list_rv[0]) {
            /* the server is behind the resourceVersion we asked for: it went back in time */
            free(r->cont);
            r->cont = NULL;
            r->list_rv[0] = 0;
            schedule(r, NEXT_LIST, 0);
            return;
        }
        if (resp->status == 404) {
            give_up(r, err->msg, 404);
            return;
        }
        free(r->cont);
        r->cont = NULL;
        fail(r, NEXT_LIST, err->msg, err->code, resp->retry_after);
        return;
    }
    /* the items are in the store already (list_item); the rest of the page: its metadata */
    size_t head_len = 0;
    const char *head = kc_listsplit_head(r->split, &head_len);
    kc_json_arena *arena = NULL; /* read-only, freed at once (jsonarena.h) */
    cJSON *doc = head ? kc_json_parse(head, head_len, &arena) : NULL;
    if (!doc) {
        kc_json_arena_free(arena);
        list_invalid(r);
        return;
    }
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    const char *cont = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "continue"));
    const char *rv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion"));
    free(r->cont);
    r->cont = cont && *cont ? xstrdup(cont) : NULL;
    if (r->cont && ++r->pages >= r->max_pages) { /* continue tokens handed out forever */
        kc_json_arena_free(arena);
        free(r->cont);
        r->cont = NULL;
        char msg[256];
        snprintf(msg, sizeof msg,
                 "the list of %s did not end after %d pages (continue tokens): the server is "
                 "misbehaving",
                 strrchr(r->base, '/') + 1, r->max_pages);
        fail(r, NEXT_LIST, msg, KC_ERR_CAPPED, -1);
        return;
    }
    if (!r->cont) {
        copy_str(r->st.resource_version, sizeof r->st.resource_version, rv ? rv : "");
        if (r->replacing) kc_store_replace_end(r->store);
        r->replacing = 0;
        r->st.synced = 1;
        r->st.throttled = 0;
        r->after_pause = 0;
        r->st.stale_since_ms = 0; /* current as of this list; a failing watch says otherwise */
    }
    kc_json_arena_free(arena);
    if (r->cont)
        start_list(r);
    else
        start_watch(r);
}

/* The first list's answer began: how long the server took to answer (first_headers_ms). */
static void list_headers(void *arg, long status)
{
    kc_reflector *r = arg;
    (void)status;
    if (r->st.first_headers_ms >= 0) return;
    int64_t ms = kc_now_ms() - r->list_sent_ms;
    r->st.first_headers_ms = ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
    notify(r);
}

static void start_list(kc_reflector *r)
{
    kc_buf q = {0};
    r->watching = 0;
    if (!r->cont) {
        r->pages = 0;
        r->items = 0;
        r->st.listed = 0;
    }
    kc_buf_printf(&q, "%s?", r->base);
    /* keys in client-go's order (sorted, as url.Values.Encode) */
    if (r->cont) {
        char *c = kc_url_escape(r->cont);
        kc_buf_printf(&q, "continue=%s&", c);
        free(c);
    }
    if (r->field_q) kc_buf_printf(&q, "fieldSelector=%s&", r->field_q);
    if (r->label_q) kc_buf_printf(&q, "labelSelector=%s&", r->label_q);
    /* the first list (resourceVersion=0, from the server's cache) asks for everything at once:
     * it streams through the item splitter whatever its size, and a server that honours limit
     * there (one serving lists from storage) would otherwise take a round trip per page;
     * relists stay paged and consistent */
    int whole = !r->cont && !strcmp(r->list_rv, "0");
    if (!whole) kc_buf_printf(&q, "limit=%d&", r->page_size);
    if (!r->cont && r->list_rv[0]) {
        char *v = kc_url_escape(r->list_rv);
        kc_buf_printf(&q, "resourceVersion=%s&", v);
        free(v);
    }
    q.data[--q.len] = 0; /* the last '&' (or the '?' of a bare list) */
    if (r->st.state != KC_REFL_SYNCING && r->st.state != KC_REFL_RETRYING)
        set_state(r, KC_REFL_SYNCING);
    if (!r->cont && !r->additive) {
        /* a list from its start: whatever an earlier, unfinished one put in the store is stale
         * unless this one brings it again (a relist must leave exactly the server's state) */
        kc_store_replace_begin(r->store);
        r->replacing = 1;
    }
    kc_listsplit_free(r->split);
    r->split = kc_listsplit_new(r->max_line, list_item, r);
    kc_listsplit_set_lean(r->split, 1); /* the decoders read fieldsV1's top level only */
    /* streamed: a resourceVersion=0 list is the whole list in one answer, whatever the limit;
     * over a slow link that takes what it takes, so no deadline for the whole answer, only for
     * silence (as a page of 500 had 60 s, a list now has 60 s between bytes) */
    if (r->st.first_headers_ms < 0) r->list_sent_ms = kc_now_ms();
    kc_request_opts o = {.path = kc_buf_cstr(&q),
                         .stream = 1,
                         .low_speed_secs = 60,
                         .on_headers = list_headers,
                         .on_retry = on_retry,
                         .hold = r->held};
    r->req = kc_client_request(r->c, &o, list_data, list_done, r);
    kc_buf_free(&q);
}

/* ---- watch ---- */

static int on_line(void *arg, const char *line, size_t n)
{
    kc_reflector *r = arg;
    kc_json_arena *arena; /* the event's tree, read-only, freed at once (jsonarena.h) */
    cJSON *ev = kc_json_parse_lean(line, n, &arena);
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "type"));
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
    if (!type || !cJSON_IsObject(obj)) {
        kc_json_arena_free(arena);
        r->st.malformed++;
        notify(r);
        return 0;
    }
    if (strcmp(type, "ERROR") == 0) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "message"));
        r->stop_code = cJSON_IsNumber(code) ? code->valueint : 0;
        if (r->stop_code == 410) {
            r->stop = STOP_RELIST;
        } else {
            r->stop = STOP_ERROR;
            free(r->stop_msg);
            r->stop_msg = xasprintf("the watch failed: %.*s (code %d)", KC_REFL_ERROR_MAX,
                                    msg ? msg : "no message", r->stop_code);
            for (char *p = r->stop_msg; *p; p++)
                if ((unsigned char)*p < 0x20) *p = ' ';
        }
        kc_json_arena_free(arena);
        return 1;
    }
    if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0)
        kc_store_upsert(r->store, obj);
    else if (strcmp(type, "DELETED") == 0)
        kc_store_remove(r->store, obj);
    else if (strcmp(type, "BOOKMARK") != 0) {
        kc_json_arena_free(arena);
        r->st.malformed++;
        notify(r);
        return 0;
    }
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *rv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion"));
    if (rv && *rv) copy_str(r->st.resource_version, sizeof r->st.resource_version, rv);
    r->st.events++;
    r->watch_events++;
    if (r->st.stale_since_ms) mark_current(r);
    kc_json_arena_free(arena);
    return 0;
}

static void mark_current(kc_reflector *r)
{
    if (r->confirm) kc_loop_cancel(r->loop, r->confirm);
    r->confirm = 0;
    if (!r->st.stale_since_ms) return;
    r->st.stale_since_ms = 0;
    notify(r);
}

static void confirm_current(void *arg)
{
    kc_reflector *r = arg;
    r->confirm = 0;
    if (r->req && r->st.state == KC_REFL_LIVE) mark_current(r);
}

static void watch_headers(void *arg, long status)
{
    kc_reflector *r = arg;
    (void)status;
    if (r->st.state == KC_REFL_LIVE && !r->st.attempt && !r->st.last_error[0] &&
        !r->st.stale_since_ms)
        return;
    r->st.state = KC_REFL_LIVE;
    r->st.attempt = 0;
    r->st.throttled = 0;
    set_error(r, NULL);
    r->st.last_status = 0;
    r->st.next_try_ms = 0;
    /* headers are not data: a watch from an expired resourceVersion opens and then says 410.
     * The store is current once the watch delivers an event or has stood for a second. */
    if (r->st.stale_since_ms && !r->confirm)
        r->confirm = kc_loop_timer(r->loop, 1000, confirm_current, r);
    notify(r);
}

static void watch_data(void *arg, const char *data, size_t n)
{
    kc_reflector *r = arg;
    if (r->stop) return;
    if (kc_ndjson_feed(r->framer, data, n) < 0 && !r->stop) {
        /* an event was dropped: the store cannot be trusted until a re-list */
        r->stop = STOP_ERROR;
        r->stop_code = -1;
        free(r->stop_msg);
        r->stop_msg = xasprintf("a watch event larger than %zu bytes was refused", r->max_line);
    }
    if (!r->stop) return;
    kc_request_cancel(r->req);
    r->req = NULL;
    if (r->stop == STOP_RELIST) {
        relist(r);
    } else if (r->stop_code == -1) {
        copy_str(r->list_rv, sizeof r->list_rv, r->st.resource_version);
        r->st.relists++;
        fail(r, NEXT_LIST, r->stop_msg, 0, -1);
    } else {
        fail(r, NEXT_WATCH, r->stop_msg, r->stop_code, -1);
    }
}

static void watch_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_reflector *r = arg;
    r->req = NULL;
    if (err->msg[0]) {
        if (resp->status == 410 && err->code == 410) {
            relist(r);
        } else if (too_large(resp, err)) {
            relist(r);
            r->list_rv[0] = 0; /* from scratch: the server is behind what we saw */
        } else if (resp->status == 404 && err->code == 404) {
            give_up(r, err->msg, 404);
        } else {
            fail(r, NEXT_WATCH, err->msg, err->code, resp->retry_after);
        }
        return;
    }
    int64_t lasted = kc_now_ms() - r->watch_started;
    if (lasted < 1000 && r->watch_events == 0) {
        /* as client-go: a watch that ends at once with nothing is a failure, not a close */
        fail(r, NEXT_WATCH, "the watch closed at once without any event", 0, -1);
        return;
    }
    if (lasted < 1000) {
        /* it ended within a second, a bookmark or so later: the data is current, but re-open
         * it only after the backoff, or such a server gets thousands of watches a second */
        int64_t now = kc_now_ms(), d = kc_backoff_next(&r->backoff, now, -1);
        r->st.next_try_ms = now + d;
        if (!r->st.stale_since_ms) r->st.stale_since_ms = now;
        schedule(r, NEXT_WATCH, d);
        return;
    }
    r->after_pause = 0; /* a watch that ran its course: what comes next is not about a pause */
    start_watch(r);
}

static void start_watch(kc_reflector *r)
{
    kc_ndjson_free(r->framer);
    r->framer = kc_ndjson_new(r->max_line, on_line, r);
    r->stop = 0;
    r->stop_code = 0;
    r->watch_events = 0;
    r->watching = 1;
    r->watch_started = kc_now_ms();
    long timeout = 300 + (long)(rnd(r) % 301);
    kc_buf q = {0};
    kc_buf_printf(&q, "%s?allowWatchBookmarks=true&", r->base);
    if (r->field_q) kc_buf_printf(&q, "fieldSelector=%s&", r->field_q);
    if (r->label_q) kc_buf_printf(&q, "labelSelector=%s&", r->label_q);
    if (r->st.resource_version[0]) {
        char *v = kc_url_escape(r->st.resource_version);
        kc_buf_printf(&q, "resourceVersion=%s&", v);
        free(v);
    }
    kc_buf_printf(&q, "timeoutSeconds=%ld&watch=true", timeout);
    kc_request_opts o = {.path = kc_buf_cstr(&q),
                         .stream = 1,
                         .timeout_ms = (timeout + 30) * 1000,
                         .on_headers = watch_headers,
                         .on_retry = on_retry};
    r->req = kc_client_request(r->c, &o, watch_data, watch_done, r);
    kc_buf_free(&q);
}

/* ---- after a reconnect: has the server gone back in time? ---- */

/* 1 when both are decimal numbers (etcd revisions, as every apiserver gives) and a < b. Anything
 * else cannot be compared and is taken as not older. */
static int rv_older(const char *a, const char *b)
{
    size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
    if (!na || !nb || a[na] || b[nb] || na > 20 || nb > 20) return 0;
    while (*a == '0' && a[1]) a++, na--;
    while (*b == '0' && b[1]) b++, nb--;
    return na != nb ? na < nb : strcmp(a, b) < 0;
}

static void check_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_reflector *r = arg;
    r->req = NULL;
    if (err->msg[0]) {
        if (resp->status == 404) {
            give_up(r, err->msg, 404);
            return;
        }
        fail(r, NEXT_CHECK, err->msg, err->code, resp->retry_after);
        return;
    }
    kc_json_arena *arena;
    cJSON *doc = kc_json_parse(resp->body, resp->body_len, &arena);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    const char *rv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion"));
    int older = rv && rv_older(rv, r->st.resource_version);
    kc_json_arena_free(arena);
    if (older) {
        /* restarted with older state (or an etcd restore): a watch from our resourceVersion
         * would wait for changes the server will number below it and never send; list it all */
        r->st.relists++;
        r->list_rv[0] = 0;
        start_list(r);
        return;
    }
    start_watch(r);
}

/* A one-item consistent list (no resourceVersion: the server's current state) whose
 * metadata.resourceVersion says where the server is now. */
static void start_check(kc_reflector *r)
{
    kc_buf q = {0};
    r->watching = 0;
    kc_buf_printf(&q, "%s?", r->base);
    if (r->field_q) kc_buf_printf(&q, "fieldSelector=%s&", r->field_q);
    if (r->label_q) kc_buf_printf(&q, "labelSelector=%s&", r->label_q);
    kc_buf_printf(&q, "limit=1");
    kc_request_opts o = {.path = kc_buf_cstr(&q), .timeout_ms = 60000, .on_retry = on_retry};
    r->req = kc_client_request(r->c, &o, NULL, check_done, r);
    kc_buf_free(&q);
}
