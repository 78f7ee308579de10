/* download.c: the DownloadRequest flow: create, watch for the URL, fetch, gunzip, delete. */
#include "kubeclient/download.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kubeclient/backoff.h"
#include "kubeclient/caps.h"
#include "kubeclient/gunzip.h"
#include "kubeclient/ndjson.h"

struct kc_download {
    kc_client *c;
    kc_loop *loop;
    char *ns, *kind, *target, *name, *base, *rv, *url;
    long url_timeout_ms;
    kc_buf ca; /* extra trust for the object store (opts.ca_pem) */
    size_t max_bytes;
    kc_download_data_fn data;
    kc_download_done_fn done;
    void *arg;
    kc_dl_state state;
    kc_request *req;
    uint64_t timer;
    kc_ndjson *framer;
    kc_gunzip *gz;
    kc_err err; /* the outcome, reported after the cleanup */
    size_t in_bytes;
    int next;      /* decided inside a request's callback, done from a timer: DL_NEXT_* */
    uint64_t step; /* that timer */
    /* re-watching: a watch that ended within a second is re-opened after the backoff */
    kc_backoff backoff;
    uint64_t rewatch;
    int64_t watch_started;
    int64_t fetch_started;
    int renewed; /* a new DownloadRequest was made once for an expired link */
    int renew;   /* the cleanup is of an expired link's request: a new one follows */
    /* The owner let go (kc_download_free) while the request existed: it goes on alone until its
     * DELETE is answered, listed in dl_orphans for the program's exit (kc_download_pending). */
    int orphan;
    struct kc_download *onext;
};

static kc_download *dl_orphans;

enum { DL_NEXT_NONE, DL_NEXT_FETCH, DL_NEXT_FAIL };

static void dl_watch(kc_download *d);
static void dl_cleanup(kc_download *d);

/* A random suffix like the CLI's uuid, from /dev/urandom (falls back to the clock). */
static char *dl_random_name(const char *target)
{
    unsigned char r[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), ok = 0;
    if (fd >= 0) {
        ok = read(fd, r, sizeof r) == (ssize_t)sizeof r;
        close(fd);
    }
    if (!ok) {
        uint64_t t = (uint64_t)kc_now_ms() ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof r; i++)
            r[i] = (unsigned char)(t >> ((i % 8) * 8)) ^ (unsigned char)i;
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
    return xasprintf("%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                     target, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
                     r[11], r[12], r[13], r[14], r[15]);
}

static void dl_free_now(kc_download *d);
static void dl_create(kc_download *d);

static void dl_finish(kc_download *d)
{
    d->state = d->err.msg[0] ? KC_DL_FAILED : KC_DL_DONE;
    if (d->orphan) {
        kc_download **p = &dl_orphans;
        while (*p && *p != d) p = &(*p)->onext;
        if (*p) *p = d->onext;
        dl_free_now(d);
        return;
    }
    if (d->renew) { /* the expired link's request is gone: ask for a new one */
        d->renew = 0;
        kc_err_clear(&d->err);
        dl_create(d);
        return;
    }
    kc_err e = d->err;
    if (d->done) d->done(d->arg, &e); /* may free d */
}

/* Stops what is in flight and reports d->err (after deleting the request if it exists). */
static void dl_abort(kc_download *d)
{
    if (d->req) kc_request_cancel(d->req);
    d->req = NULL;
    if (d->timer) kc_loop_cancel(d->loop, d->timer);
    d->timer = 0;
    if (d->rewatch) kc_loop_cancel(d->loop, d->rewatch);
    d->rewatch = 0;
    if (d->state != KC_DL_CREATING)
        dl_cleanup(d);
    else
        dl_finish(d);
}

static void dl_fail(kc_download *d, const char *fmt, const char *detail)
{
    kc_err_set(&d->err, fmt, detail ? detail : "");
    dl_abort(d);
}

/* Runs the step decided inside a streaming callback, outside it (the request is cancelled
 * here, not from within its own data callback). */
static void dl_fetch(kc_download *d);
static void dl_step(void *arg)
{
    kc_download *d = arg;
    d->step = 0;
    int next = d->next;
    d->next = DL_NEXT_NONE;
    if (d->req) kc_request_cancel(d->req);
    d->req = NULL;
    if (next == DL_NEXT_FETCH) {
        dl_fetch(d);
    } else if (next == DL_NEXT_FAIL) {
        dl_abort(d);
    }
}

static void dl_defer(kc_download *d, int next)
{
    d->next = next;
    if (!d->step) d->step = kc_loop_timer(d->loop, 0, dl_step, d);
}

/* ---- cleanup ---- */

static void dl_deleted(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    (void)err; /* 403 (no delete permission) and any other failure: the server expires it */
    kc_download *d = arg;
    d->req = NULL;
    dl_finish(d);
}

static void dl_cleanup(kc_download *d)
{
    d->state = KC_DL_CLEANING;
    char *path = xasprintf("%s/%s", d->base, d->name);
    kc_request_opts o = {.method = "DELETE", .path = path, .timeout_ms = 10000};
    d->req = kc_client_request(d->c, &o, NULL, dl_deleted, d);
    free(path);
}

/* ---- fetch ---- */

static void dl_fetch_data(void *arg, const char *data, size_t n)
{
    kc_download *d = arg;
    d->in_bytes += n;
    if (d->err.msg[0]) return;
    if (kc_gunzip_feed(d->gz, data, n, &d->err)) dl_defer(d, DL_NEXT_FAIL);
}

static void dl_fetch_done(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_download *d = arg;
    d->req = NULL;
    if (d->step) kc_loop_cancel(d->loop, d->step);
    d->step = 0;
    if (!d->err.msg[0]) {
        int64_t took = kc_now_ms() - d->fetch_started;
        if (err->msg[0] && resp->status == 403 && resp->body &&
            strstr(resp->body, "Request has expired")) {
            /* a signed URL past its lifetime (S3's answer): one new DownloadRequest signs
             * another, as the link may have waited in a queue or a slow create */
            if (!d->renewed) {
                d->renewed = d->renew = 1;
                kc_err_set(&d->err, "the download link expired");
            } else {
                kc_err_set(&d->err,
                           "downloading %s: the download link expired before it was used, twice "
                           "(the object store answered 403 \"Request has expired\"; is its "
                           "clock or Velero's off?)",
                           d->kind);
            }
        } else if (err->msg[0] && resp->status != 404 && strstr(err->msg, "timed out") &&
                   (took >= KC_CAP_DL_SLOW_SECS * 1000 || d->in_bytes > 0)) {
            /* the fetch has no deadline of its own: a time-out after bytes came is the store's
             * slowness (curl's low-speed check), whatever our clock says of its length */
            kc_err_set(&d->err,
                       "downloading %s: the object store sent %zu bytes in %lld s, under %ld "
                       "bytes a second: given up",
                       d->kind, d->in_bytes, (long long)(took / 1000), KC_CAP_DL_MIN_BPS);
        } else if (err->msg[0]) {
            if (resp->status == 404)
                kc_err_set(&d->err, "%s of %s not found in the backup storage location", d->kind,
                           d->target);
            else
                kc_err_set(&d->err, "downloading %s: %s", d->kind, err->msg);
        } else {
            kc_gunzip_finish(d->gz, &d->err);
        }
    }
    dl_cleanup(d);
}

static void dl_gz_out(void *arg, const char *data, size_t n)
{
    kc_download *d = arg;
    if (d->data) d->data(d->arg, data, n);
}

static void dl_fetch(kc_download *d)
{
    if (d->req) kc_request_cancel(d->req);
    d->req = NULL;
    if (d->timer) kc_loop_cancel(d->loop, d->timer);
    d->timer = 0;
    d->state = KC_DL_FETCHING;
    d->fetch_started = kc_now_ms();
    kc_gunzip_free(d->gz);
    d->gz = kc_gunzip_new(d->max_bytes, dl_gz_out, d);
    kc_request_opts o = {.path = d->url,
                         .external = 1, /* never the API server's credentials */
                         .accept = "*/*",
                         .accept_encoding = "identity",
                         .stream = 1,
                         .low_speed_secs = KC_CAP_DL_SLOW_SECS,
                         .low_speed_bytes = KC_CAP_DL_MIN_BPS,
                         .extra_ca_pem = d->ca.data,
                         .extra_ca_len = d->ca.len};
    d->req = kc_client_request(d->c, &o, dl_fetch_data, dl_fetch_done, d);
}

/* ---- waiting for the URL ---- */

/* Looks at a DownloadRequest object: what comes next (DL_NEXT_*). */
static int dl_check_object(kc_download *d, const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    if (cJSON_IsString(rv)) {
        free(d->rv);
        d->rv = xstrdup(rv->valuestring);
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const cJSON *url = cJSON_GetObjectItemCaseSensitive(st, "downloadURL");
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(st, "phase");
    if (cJSON_IsString(url) && url->valuestring[0]) {
        if (strncasecmp(url->valuestring, "http://", 7) &&
            strncasecmp(url->valuestring, "https://", 8)) {
            /* joined to the API server's address, it would be fetched with the user's
             * credentials (a confused deputy): Velero only ever signs absolute URLs */
            char *shown = kc_url_redact(url->valuestring);
            kc_err_set(&d->err,
                       "the download URL \"%.200s\" is not an absolute http(s) URL: not fetched",
                       shown);
            free(shown);
            return DL_NEXT_FAIL;
        }
        free(d->url);
        d->url = xstrdup(url->valuestring);
        return DL_NEXT_FETCH;
    }
    if (cJSON_IsString(phase) && !strcmp(phase->valuestring, "Failed")) {
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(st, "message");
        kc_err_set(&d->err, "download request failed: %s",
                   cJSON_IsString(msg) ? msg->valuestring : "no message");
        return DL_NEXT_FAIL;
    }
    return DL_NEXT_NONE;
}

static int dl_watch_line(void *arg, const char *line, size_t n)
{
    kc_download *d = arg;
    cJSON *ev = cJSON_ParseWithLength(line, n);
    int stop = 0;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
    if (cJSON_IsString(type) && cJSON_IsObject(obj)) {
        if (!strcmp(type->valuestring, "DELETED")) {
            kc_err_set(&d->err, "download request was deleted before it was processed");
            stop = DL_NEXT_FAIL;
        } else if (!strcmp(type->valuestring, "ERROR")) {
            /* e.g. 410 Gone: watch again from now (the next event still carries the URL) */
            free(d->rv);
            d->rv = NULL;
        } else {
            stop = dl_check_object(d, obj);
        }
    }
    cJSON_Delete(ev);
    if (stop) dl_defer(d, stop);
    return stop;
}

static void dl_watch_data(void *arg, const char *data, size_t n)
{
    kc_download *d = arg;
    if (d->next == DL_NEXT_NONE) kc_ndjson_feed(d->framer, data, n);
}

static void dl_rewatch(void *arg)
{
    kc_download *d = arg;
    d->rewatch = 0;
    dl_watch(d);
}

static void dl_watch_done(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    kc_download *d = arg;
    d->req = NULL;
    if (d->next != DL_NEXT_NONE) return; /* the step timer goes on */
    if (err->msg[0] && err->code != 410) {
        dl_fail(d, "watching the download request: %s", err->msg);
        return;
    }
    if (err->code == 410) {
        free(d->rv);
        d->rv = NULL;
    }
    if (kc_now_ms() - d->watch_started < 1000) {
        /* it ended at once: a server that does so every time must not get a watch per ms */
        d->rewatch =
            kc_loop_timer(d->loop, kc_backoff_next(&d->backoff, kc_now_ms(), -1), dl_rewatch, d);
        return;
    }
    dl_watch(d); /* a normal close (timeoutSeconds): watch on */
}

static void dl_timeout(void *arg)
{
    kc_download *d = arg;
    d->timer = 0;
    dl_fail(d, "%s", KC_DL_URL_TIMEOUT_MSG);
}

static void dl_watch(kc_download *d)
{
    d->state = KC_DL_WAITING_URL;
    d->watch_started = kc_now_ms();
    kc_ndjson_free(d->framer);
    d->framer = kc_ndjson_new(1 << 20, dl_watch_line, d);
    char *sel = xasprintf("metadata.name=%s", d->name);
    char *esel = kc_url_escape(sel);
    char *path;
    if (d->rv) {
        char *erv = kc_url_escape(d->rv); /* from the server: one query value */
        path = xasprintf("%s?watch=true&fieldSelector=%s&resourceVersion=%s&timeoutSeconds=60",
                         d->base, esel, erv);
        free(erv);
    } else {
        path = xasprintf("%s?watch=true&fieldSelector=%s&timeoutSeconds=60", d->base, esel);
    }
    kc_request_opts o = {.path = path, .stream = 1};
    d->req = kc_client_request(d->c, &o, dl_watch_data, dl_watch_done, d);
    free(path);
    free(esel);
    free(sel);
}

/* ---- create ---- */

static void dl_created(void *arg, const kc_response *resp, const kc_err *err)
{
    kc_download *d = arg;
    d->req = NULL;
    if (err->msg[0]) {
        dl_fail(d, "creating the download request: %s", err->msg);
        return;
    }
    if (d->orphan) { /* let go while it was being created: delete it at once */
        dl_cleanup(d);
        return;
    }
    d->state = KC_DL_WAITING_URL;
    d->timer = kc_loop_timer(d->loop, d->url_timeout_ms, dl_timeout, d);
    cJSON *obj = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
    int next = cJSON_IsObject(obj) ? dl_check_object(d, obj) : DL_NEXT_NONE;
    cJSON_Delete(obj);
    if (next == DL_NEXT_FETCH)
        dl_fetch(d);
    else if (next == DL_NEXT_FAIL)
        dl_abort(d);
    else
        dl_watch(d);
}

kc_download *kc_download_start(kc_client *c, const kc_download_opts *o, kc_download_data_fn data,
                               kc_download_done_fn done, void *arg)
{
    kc_download *d = xcalloc(1, sizeof *d);
    d->c = c;
    d->loop = kc_client_loop(c);
    d->ns = xstrdup(o->ns ? o->ns : "velero");
    d->kind = xstrdup(o->kind);
    d->target = xstrdup(o->target);
    d->url_timeout_ms = o->url_timeout_ms ? o->url_timeout_ms : 60000;
    d->max_bytes = o->max_bytes ? o->max_bytes : KC_CAP_BODY_BYTES; /* an artifact: JSON */
    if (o->ca_pem && o->ca_pem_len) kc_buf_append(&d->ca, o->ca_pem, o->ca_pem_len);
    d->data = data;
    d->done = done;
    d->arg = arg;
    d->name = dl_random_name(d->target);
    kc_backoff_init(&d->backoff, 0, 0, 0);
    d->base = xasprintf("/apis/velero.io/v1/namespaces/%s/downloadrequests", d->ns);
    char *seg = kc_path_segment(d->name), *nseg = kc_path_segment(d->ns);
    int bad_name = !seg, bad_ns = !nseg;
    free(seg);
    free(nseg);
    if (bad_name || bad_ns) { /* the run's name (from the cluster) would steer the request */
        kc_err_set(&d->err, "the %s name \"%.300s\" cannot be used in a request path",
                   bad_ns ? "namespace" : "run", bad_ns ? d->ns : d->target);
        dl_defer(d, DL_NEXT_FAIL); /* reported from the loop, after this returns */
        return d;
    }
    dl_create(d);
    return d;
}

/* POSTs a DownloadRequest of a new name. */
static void dl_create(kc_download *d)
{
    free(d->name);
    d->name = dl_random_name(d->target);
    free(d->rv);
    d->rv = NULL;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(body, "kind", "DownloadRequest");
    cJSON *meta = cJSON_AddObjectToObject(body, "metadata");
    cJSON_AddStringToObject(meta, "name", d->name);
    cJSON_AddStringToObject(meta, "namespace", d->ns);
    cJSON *target = cJSON_AddObjectToObject(cJSON_AddObjectToObject(body, "spec"), "target");
    cJSON_AddStringToObject(target, "kind", d->kind);
    cJSON_AddStringToObject(target, "name", d->target);
    char *text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    d->state = KC_DL_CREATING;
    kc_request_opts ro = {.method = "POST",
                          .path = d->base,
                          .body = text,
                          .body_len = strlen(text),
                          .content_type = "application/json",
                          .timeout_ms = 30000};
    d->req = kc_client_request(d->c, &ro, NULL, dl_created, d);
    cJSON_free(text);
}

void kc_download_free(kc_download *d)
{
    if (!d) return;
    /* the request exists, or may (its POST is on its way): it is deleted on every path out,
     * as the velero CLI deletes its own; d goes on alone until the DELETE is answered */
    int exists = d->state == KC_DL_WAITING_URL || d->state == KC_DL_FETCHING ||
                 d->state == KC_DL_CLEANING || (d->state == KC_DL_CREATING && d->req);
    if (exists && !d->orphan) {
        d->orphan = 1;
        d->data = NULL;
        d->done = NULL;
        d->onext = dl_orphans;
        dl_orphans = d;
        if (d->timer) kc_loop_cancel(d->loop, d->timer);
        if (d->step) kc_loop_cancel(d->loop, d->step);
        if (d->rewatch) kc_loop_cancel(d->loop, d->rewatch);
        d->timer = d->step = d->rewatch = 0;
        d->renew = 0;
        if (d->state == KC_DL_WAITING_URL || d->state == KC_DL_FETCHING) {
            if (d->req) kc_request_cancel(d->req);
            d->req = NULL;
            dl_cleanup(d);
        } /* CREATING: dl_created deletes it; CLEANING: the DELETE is on its way */
        return;
    }
    dl_free_now(d);
}

size_t kc_download_pending(const kc_client *c)
{
    size_t n = 0;
    for (const kc_download *d = dl_orphans; d; d = d->onext) n += !c || d->c == c;
    return n;
}

void kc_download_abandon(kc_client *c)
{
    for (kc_download **p = &dl_orphans; *p;) {
        kc_download *d = *p;
        if (c && d->c != c) {
            p = &d->onext;
            continue;
        }
        *p = d->onext;
        dl_free_now(d);
    }
}

static void dl_free_now(kc_download *d)
{
    if (d->req) kc_request_cancel(d->req);
    if (d->timer) kc_loop_cancel(d->loop, d->timer);
    if (d->step) kc_loop_cancel(d->loop, d->step);
    if (d->rewatch) kc_loop_cancel(d->loop, d->rewatch);
    kc_ndjson_free(d->framer);
    kc_gunzip_free(d->gz);
    free(d->ns);
    free(d->kind);
    free(d->target);
    free(d->name);
    free(d->base);
    free(d->rv);
    free(d->url);
    kc_buf_free(&d->ca);
    free(d);
}

kc_dl_state kc_download_state(const kc_download *d)
{
    return d->state;
}

const char *kc_download_state_name(kc_dl_state s)
{
    switch (s) {
    case KC_DL_CREATING:
        return "creating download request";
    case KC_DL_WAITING_URL:
        return "waiting for the download URL";
    case KC_DL_FETCHING:
        return "downloading";
    case KC_DL_CLEANING:
        return "deleting download request";
    case KC_DL_DONE:
        return "done";
    case KC_DL_FAILED:
        return "failed";
    }
    return "?";
}

size_t kc_download_bytes_in(const kc_download *d)
{
    return d->in_bytes;
}

size_t kc_download_bytes_out(const kc_download *d)
{
    return d->gz ? kc_gunzip_out_bytes(d->gz) : 0;
}

const char *kc_download_name(const kc_download *d)
{
    return d->name;
}
