/* podlog.c: following a pod's log over the loop: pod discovery, timestamps, reconnects. */
#include "kubeclient/podlog.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/backoff.h"
#include "kubeclient/ndjson.h"
#include "kubeclient/pod.h"

struct kc_podlog {
    kc_client *c;
    kc_loop *loop;
    char *ns, *pod, *container;
    int named; /* the caller named the pod */
    double since;
    int no_follow;
    kc_podlog_line_fn line;
    kc_podlog_status_fn status;
    void *arg;
    kc_pl_state state;
    char error[1100];
    kc_request *req;
    uint64_t timer;
    kc_ndjson *framer;
    int find_step;      /* index into pl_selectors */
    int attempt;        /* consecutive failures, for the status */
    kc_backoff backoff; /* not reset by a stream that opens and ends at once */
    unsigned long lines;
    /* the last line's timestamp and how many lines carried it, to skip repeats on reconnect */
    long long last_s, last_ns;
    unsigned long at_last, skip_at_last;
    int have_last;
    long long resume_s; /* when reconnecting: skip lines older than last, and at_last of equal */
};

static void pl_find(kc_podlog *p);
static void pl_connect(kc_podlog *p);

static void pl_set(kc_podlog *p, kc_pl_state st, const char *err)
{
    p->state = st;
    snprintf(p->error, sizeof p->error, "%s", err ? err : "");
    if (p->status) p->status(p->arg, p);
}

static void pl_retry_fire(void *arg)
{
    kc_podlog *p = arg;
    p->timer = 0;
    if (p->pod)
        pl_connect(p);
    else
        pl_find(p);
}

/* retry_after: the server's Retry-After in seconds, < 0 none (capped by the backoff) */
static void pl_retry_after(kc_podlog *p, const char *err, long retry_after)
{
    int64_t delay = kc_backoff_next(&p->backoff, kc_now_ms(), retry_after);
    p->attempt++;
    pl_set(p, KC_PL_RETRYING, err);
    p->timer = kc_loop_timer(p->loop, delay, pl_retry_fire, p);
}

static void pl_retry(kc_podlog *p, const char *err)
{
    pl_retry_after(p, err, -1);
}

/* The server asked to wait (429 or 5xx with Retry-After): the client tries the same request
 * again after that wait (client.h), capped by this follower's backoff; retrying meanwhile. */
static int64_t pl_on_retry(void *arg, const kc_err *err, long retry_after_s, int attempt)
{
    (void)attempt;
    kc_podlog *p = arg;
    p->attempt++;
    pl_set(p, KC_PL_RETRYING, err->msg);
    return kc_backoff_retry_after(&p->backoff, retry_after_s);
}

/* ---- timestamps ---- */

/* "2024-06-03T01:25:53.123456789Z " at the start of a line (timestamps=true): parses it into
 * seconds and nanoseconds and returns its length with the space, or 0 when absent. */
static size_t pl_timestamp(const char *s, size_t n, long long *sec, long long *nsec)
{
    if (n < 21 || s[4] != '-' || s[10] != 'T') return 0;
    const char *sp = memchr(s, ' ', n < 40 ? n : 40);
    if (!sp) return 0;
    char buf[48];
    size_t len = (size_t)(sp - s), i = 0, o = 0;
    long long frac = 0;
    int digits = 0, infrac = 0;
    for (; i < len && o < sizeof buf - 2; i++) {
        if (s[i] == '.') {
            infrac = 1;
            continue;
        }
        if (infrac && s[i] >= '0' && s[i] <= '9') {
            if (digits < 9) frac = frac * 10 + (s[i] - '0'), digits++;
            continue;
        }
        infrac = 0;
        buf[o++] = s[i];
    }
    buf[o] = '\0';
    while (digits < 9) frac *= 10, digits++;
    double t;
    if (kc_parse_time(buf, &t)) return 0;
    *sec = (long long)t;
    *nsec = frac;
    return len + 1;
}

/* ---- streaming ---- */

static int pl_on_line(void *arg, const char *line, size_t n)
{
    kc_podlog *p = arg;
    long long s, ns;
    size_t ts = pl_timestamp(line, n, &s, &ns);
    if (ts) {
        if (p->skip_at_last || p->resume_s) {
            /* reconnected from a whole second: drop what was already delivered */
            if (p->have_last && (s < p->last_s || (s == p->last_s && ns < p->last_ns))) return 0;
            if (p->have_last && s == p->last_s && ns == p->last_ns && p->skip_at_last) {
                p->skip_at_last--;
                return 0;
            }
            p->skip_at_last = 0;
            p->resume_s = 0;
        }
        if (p->have_last && s == p->last_s && ns == p->last_ns) {
            p->at_last++;
        } else {
            p->last_s = s;
            p->last_ns = ns;
            p->at_last = 1;
            p->have_last = 1;
        }
        line += ts;
        n -= ts;
    }
    p->lines++;
    if (p->line) p->line(p->arg, line, n);
    return 0;
}

static void pl_on_data(void *arg, const char *data, size_t n)
{
    kc_podlog *p = arg;
    if (p->state != KC_PL_STREAMING) {
        p->attempt = 0;
        pl_set(p, KC_PL_STREAMING, NULL);
    }
    kc_ndjson_feed(p->framer, data, n);
}

static void pl_on_headers(void *arg, long status)
{
    kc_podlog *p = arg;
    (void)status;
    if (p->state != KC_PL_STREAMING) {
        p->attempt = 0;
        pl_set(p, KC_PL_STREAMING, NULL);
    }
}

static void pl_on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_podlog *p = arg;
    p->req = NULL;
    if (err->msg[0]) {
        if (resp->status == 404 && !p->named) {
            /* the pod went away (restarted): find the new one */
            free(p->pod);
            p->pod = NULL;
            p->find_step = 0;
            pl_retry_after(p, err->msg, resp->retry_after);
        } else if (resp->status == 401 || resp->status == 403 ||
                   (resp->status == 404 && p->named)) {
            pl_set(p, KC_PL_FAILED, err->msg);
        } else {
            pl_retry_after(p, err->msg, resp->retry_after);
        }
        return;
    }
    if (p->no_follow) {
        pl_set(p, KC_PL_FAILED, "end of log");
        return;
    }
    pl_retry(p, "log stream closed, reconnecting");
}

static void pl_connect(kc_podlog *p)
{
    kc_ndjson_free(p->framer);
    p->framer = kc_ndjson_new(1 << 20, pl_on_line, p);
    /* the pod's name comes from the cluster: one escaped path segment, or nothing is requested */
    char *ns = kc_path_segment(p->ns), *pod = kc_path_segment(p->pod);
    if (!ns || !pod) {
        char msg[400];
        snprintf(msg, sizeof msg, "the %s name \"%.300s\" cannot be used in a request path",
                 ns ? "pod" : "namespace", ns ? p->pod : p->ns);
        free(ns);
        free(pod);
        pl_set(p, KC_PL_FAILED, msg);
        return;
    }
    kc_buf path = {0};
    kc_buf_printf(&path, "/api/v1/namespaces/%s/pods/%s/log?timestamps=true", ns, pod);
    free(ns);
    free(pod);
    if (!p->no_follow) kc_buf_printf(&path, "&follow=true");
    if (p->container) {
        char *c = kc_url_escape(p->container);
        kc_buf_printf(&path, "&container=%s", c);
        free(c);
    }
    double since = p->since;
    if (p->have_last) {
        /* resume at the last line's second; lines up to it are skipped */
        since = (double)p->last_s;
        p->skip_at_last = p->at_last;
        p->resume_s = p->last_s;
    }
    if (since > 0) {
        char ts[40];
        kc_format_time(since, ts, sizeof ts);
        char *e = kc_url_escape(ts);
        kc_buf_printf(&path, "&sinceTime=%s", e);
        free(e);
    }
    pl_set(p, KC_PL_CONNECTING, NULL);
    kc_request_opts o = {.path = kc_buf_cstr(&path),
                         .accept = "text/plain, */*",
                         .stream = 1,
                         .on_headers = pl_on_headers,
                         .on_retry = pl_on_retry};
    p->req = kc_client_request(p->c, &o, pl_on_data, pl_on_done, p);
    kc_buf_free(&path);
}

/* ---- finding the Velero server pod ---- */

static const char *pl_str(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* The labels that find the Velero server pod, in order: `velero install` labels it deploy=velero
 * (component=velero is on node-agent pods too); the Helm chart name=velero and
 * app.kubernetes.io/name=velero (its node-agent pods carry the latter as well). */
static const char *const pl_selectors[] = {"deploy%3Dvelero", "name%3Dvelero",
                                           "app.kubernetes.io%2Fname%3Dvelero"};
#define PL_NSEL (int)(sizeof pl_selectors / sizeof pl_selectors[0])

int kc_podlog_pick_server(const cJSON *pods)
{
    return kc_pod_pick_server_json(pods);
}

static void pl_found(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_podlog *p = arg;
    p->req = NULL;
    if (err->msg[0]) {
        if (resp->status == 401 || resp->status == 403)
            pl_set(p, KC_PL_FAILED, err->msg);
        else
            pl_retry_after(p, err->msg, resp->retry_after);
        return;
    }
    cJSON *list = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(list, "items");
    int at = kc_podlog_pick_server(items);
    if (at >= 0) {
        const cJSON *best_item = cJSON_GetArrayItem(items, at);
        p->pod = xstrdup(pl_str(best_item, "metadata", "name"));
        /* a pod with sidecars (service mesh) needs container=; Velero's is named "velero" */
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(best_item, "spec"), "containers"),
                    *c;
        if (!p->container && cJSON_GetArraySize(cs) > 1) {
            cJSON_ArrayForEach(c, cs)
            {
                const char *cn = pl_str(c, "name", NULL);
                if (cn && !strcmp(cn, "velero")) p->container = xstrdup(cn);
            }
        }
        cJSON_Delete(list);
        pl_connect(p);
        return;
    }
    cJSON_Delete(list);
    if (p->find_step < PL_NSEL - 1) {
        p->find_step++;
        pl_find(p);
        return;
    }
    p->find_step = 0;
    char msg[300];
    snprintf(msg, sizeof msg,
             "no Velero server pod in namespace %s (label deploy=velero, name=velero or "
             "app.kubernetes.io/name=velero)",
             p->ns);
    if (p->no_follow)
        pl_set(p, KC_PL_FAILED, msg); /* a one-shot read does not wait for a pod to appear */
    else
        pl_retry(p, msg);
}

static void pl_find(kc_podlog *p)
{
    char *path =
        xasprintf("/api/v1/namespaces/%s/pods?labelSelector=%s", p->ns, pl_selectors[p->find_step]);
    if (p->state != KC_PL_RETRYING) pl_set(p, KC_PL_FINDING_POD, NULL);
    kc_request_opts o = {.path = path, .timeout_ms = 30000, .on_retry = pl_on_retry};
    p->req = kc_client_request(p->c, &o, NULL, pl_found, p);
    free(path);
}

kc_podlog *kc_podlog_start(kc_client *c, const kc_podlog_opts *o, kc_podlog_line_fn line,
                           kc_podlog_status_fn status, void *arg)
{
    kc_podlog *p = xcalloc(1, sizeof *p);
    p->c = c;
    p->loop = kc_client_loop(c);
    p->ns = xstrdup(o->ns ? o->ns : "velero");
    p->pod = xstrdup(o->pod);
    p->named = o->pod != NULL;
    p->container = xstrdup(o->container);
    p->since = o->since;
    p->no_follow = o->no_follow;
    p->line = line;
    p->status = status;
    p->arg = arg;
    kc_backoff_init(&p->backoff, 0, 0, 0);
    if (p->pod)
        pl_connect(p);
    else
        pl_find(p);
    return p;
}

void kc_podlog_free(kc_podlog *p)
{
    if (!p) return;
    if (p->req) kc_request_cancel(p->req);
    if (p->timer) kc_loop_cancel(p->loop, p->timer);
    kc_ndjson_free(p->framer);
    free(p->ns);
    free(p->pod);
    free(p->container);
    free(p);
}

void kc_podlog_finish(kc_podlog *p)
{
    if (!p || p->no_follow) return;
    p->no_follow = 1;
    /* waiting to reconnect after the stream closed: read the rest now (from the last line's
     * second, repeats skipped), not after the backoff */
    if (p->state == KC_PL_RETRYING && p->timer && p->pod) {
        kc_loop_cancel(p->loop, p->timer);
        p->timer = 0;
        pl_connect(p);
    }
}

kc_pl_state kc_podlog_state(const kc_podlog *p)
{
    return p->state;
}

const char *kc_podlog_pod(const kc_podlog *p)
{
    return p->pod;
}

const char *kc_podlog_error(const kc_podlog *p)
{
    return p->error;
}

unsigned long kc_podlog_lines(const kc_podlog *p)
{
    return p->lines;
}
