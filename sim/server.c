/* server.c: veltop-sim's Kubernetes API server on libmicrohttpd (thread per connection): what
 * reference/kube-api.md describes, faithful enough for the real kubectl and for veltop. This file
 * holds its lifecycle, the faults it injects, who a request comes from and where a request goes;
 * the answers are in the server_*.c files beside it (server_int.h says which holds what). */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "link.h"
#include "server_int.h"
#include "simkinds.h"

static const char *fault_names[F_COUNT] = {
    "error500",   "error429",       "close-watch", "expire",        "stall",   "malformed-event",
    "forbid",     "bookmark-close", "close-logs",  "expire-always", "dl-drip", "dl-hang",
    "dl-expired", "throttle",       "log-delay",   "log-stall"};

/* ---- faults ---- */

static void faults_free(faults *f)
{
    for (int i = 0; i < f->nforbid; i++) free(f->forbid[i]);
    free(f->retry_after);
    free(f->slow);
    memset(f, 0, sizeof *f);
}

static int faults_parse(const char *spec, faults *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!spec || !*spec) return 0;
    char *copy = xstrdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        const char *val = eq ? eq + 1 : NULL;
        if (eq) *eq = '\0';
        int n = val ? atoi(val) : 0;
        if (!strcmp(t, "forbid") && val && *val && f->nforbid < MAX_FORBID) {
            f->forbid[f->nforbid++] = xstrdup(val);
            continue;
        }
        if (!strcmp(t, "expire") && !val) {
            f->expire_once = 1;
            continue;
        }
        if (!strcmp(t, "malformed-event") && !val) {
            f->malformed = 1;
            continue;
        }
        if (!strcmp(t, "bookmark-close") && !val) {
            f->bookmark_close = 1;
            continue;
        }
        if (!strcmp(t, "close-logs") && !val) {
            f->close_logs = 1;
            continue;
        }
        if (!strcmp(t, "slow") && val && *val) {
            free(f->slow);
            f->slow = xstrdup(val);
            continue;
        }
        if (!strcmp(t, "retry-after") && val && *val) {
            free(f->retry_after);
            f->retry_after = xstrdup(val); /* verbatim: huge or odd values are the point */
            continue;
        }
        if (!strcmp(t, "expire-always") && !val) {
            f->expire_always = 1;
            continue;
        }
        if (!strcmp(t, "dl-hang") && !val) {
            f->dl_hang = 1;
            continue;
        }
        int *slot = !strcmp(t, "error500")         ? &f->error500
                    : !strcmp(t, "error429")       ? &f->error429
                    : !strcmp(t, "throttle-list")  ? &f->throttle_list
                    : !strcmp(t, "throttle-watch") ? &f->throttle_watch
                    : !strcmp(t, "close-watch")    ? &f->close_watch_s
                    : !strcmp(t, "expire-every")   ? &f->expire_every_s
                    : !strcmp(t, "stall")          ? &f->stall_ms
                    : !strcmp(t, "slow-history")   ? &f->slow_history_ms
                    : !strcmp(t, "dl-drip")        ? &f->dl_drip
                    : !strcmp(t, "dl-expired")     ? &f->dl_expired
                    : !strcmp(t, "log-delay")      ? &f->log_delay_ms
                    : !strcmp(t, "log-stall")      ? &f->log_stall
                                                   : NULL;
        if (!slot || !val || n <= 0) {
            snprintf(
                err, errlen,
                "bad fault '%s%s%s': expected error500=N, error429=N, throttle-list=N, "
                "throttle-watch=N, "
                "close-watch=S, expire, expire-every=S, expire-always, bookmark-close, "
                "close-logs, retry-after=S, slow=RESOURCE, slow-history=MS, stall=MS, "
                "malformed-event, forbid=RESOURCE, dl-drip=BYTES_PER_S, dl-hang, dl-expired=N, "
                "log-delay=MS or log-stall=N",
                t, val ? "=" : "", val ? val : "");
            free(copy);
            faults_free(f);
            return -1;
        }
        *slot = n;
    }
    free(copy);
    return 0;
}

int simserver_check_faults(const char *spec, char *err, size_t errlen)
{
    faults f;
    if (faults_parse(spec, &f, err, errlen)) return -1;
    faults_free(&f);
    return 0;
}

/* ---- auth ---- */

/* The authenticated user, or NULL for 401. */
static char *authenticate(simserver *s, struct MHD_Connection *c)
{
    if (s->auth == 0) return xstrdup("system:serviceaccount:velero:veltop");
    if (s->auth == 1) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        if (h && !strncmp(h, "Bearer ", 7) && s->o.token && !strcmp(h + 7, s->o.token))
            return xstrdup("system:serviceaccount:velero:veltop");
        return NULL;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (!ci || !ci->tls_session) return NULL;
    gnutls_session_t sess = (gnutls_session_t)ci->tls_session;
    unsigned int status = 0;
    unsigned int ncerts = 0;
    const gnutls_datum_t *certs = gnutls_certificate_get_peers(sess, &ncerts);
    if (!certs || !ncerts) return NULL;
    if (gnutls_certificate_verify_peers2(sess, &status) < 0 || status) return NULL;
    gnutls_x509_crt_t crt;
    if (gnutls_x509_crt_init(&crt) < 0) return NULL;
    char cn[256] = "";
    size_t cnlen = sizeof cn;
    if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) < 0 ||
        gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &cnlen) < 0) {
        gnutls_x509_crt_deinit(crt);
        return NULL;
    }
    gnutls_x509_crt_deinit(crt);
    return xstrdup(cn);
}

int srv_forbidden_resource(simserver *s, const target *t)
{
    for (int i = 0; t->res && i < FA(s)->nforbid; i++) {
        const char *f = FA(s)->forbid[i];
        size_t pl = strlen(t->res->plural);
        if (!strcmp(f, t->res->plural) ||
            (!strncmp(f, t->res->plural, pl) && f[pl] == '.' && !strcmp(f + pl + 1, t->res->group)))
            return 1;
    }
    return 0;
}

enum MHD_Result srv_send_forbidden(simserver *s, struct MHD_Connection *c, const target *t,
                                   const char *user, const char *verb)
{
    atomic_fetch_add(&s->fired[F_FORBID], 1);
    char *q = t->res->group[0] ? xasprintf("%s.%s", t->res->plural, t->res->group)
                               : xstrdup(t->res->plural);
    char *scope =
        t->ns ? xasprintf("in the namespace \"%s\"", t->ns) : xstrdup("at the cluster scope");
    char *msg = t->name ? xasprintf("%s \"%s\" is forbidden: User \"%s\" cannot %s resource "
                                    "\"%s%s%s\" in API group \"%s\" %s",
                                    q, t->name, user, verb, t->res->plural, t->sub ? "/" : "",
                                    t->sub ? t->sub : "", t->res->group, scope)
                        : xasprintf("%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API "
                                    "group \"%s\" %s",
                                    q, user, verb, t->res->plural, t->res->group, scope);
    enum MHD_Result r = srv_send_status(c, 403, msg, t);
    free(q);
    free(scope);
    free(msg);
    return r;
}

/* --rbac: 1 when the Role's rules allow the request; else 0 with the 403 queued in *r, the
 * Status kube-apiserver answers (responsewriters.Forbidden). */
static int rbac_allowed(simserver *s, struct MHD_Connection *c, const char *url, const char *method,
                        const char *user, enum MHD_Result *r)
{
    sim_rbac_req q;
    sim_rbac_request_info(method, url, srv_arg_true(c, "watch"), srv_arg(c, "fieldSelector"), &q);
    if (sim_rbac_allows(s->o.rbac, &q)) return 1;
    atomic_fetch_add(&s->rbac_denied, 1);
    char *msg = sim_rbac_forbidden_message(&q, user);
    cJSON *st = srv_status_obj(403, srv_reason_for(403), msg, NULL);
    free(msg);
    cJSON *d = cJSON_AddObjectToObject(st, "details");
    if (q.name[0]) cJSON_AddStringToObject(d, "name", q.name);
    if (q.group[0]) cJSON_AddStringToObject(d, "group", q.group);
    cJSON_AddStringToObject(d, "kind", q.resource);
    *r = srv_send_json(c, 403, st);
    return 0;
}

/* ---- dispatch ---- */

/* An artifact sent slowly (dl-drip) or not at all (dl-hang), on the connection's own thread. */
typedef struct dl_slow {
    simserver *s;
    struct MHD_Connection *conn;
    unsigned char *data;
    size_t len;
    int bps; /* 0: hang */
} dl_slow;

static ssize_t dl_slow_read(void *arg, uint64_t pos, char *buf, size_t max)
{
    dl_slow *d = arg;
    if (pos >= d->len) return MHD_CONTENT_READER_END_OF_STREAM;
    /* a second per bps bytes; hanging: until the sim stops (or 10 min) */
    for (int i = 0; i < (d->bps ? 10 : 6000); i++) {
        if (atomic_load(&d->s->stopping) || srv_peer_closed(d->conn))
            return MHD_CONTENT_READER_END_WITH_ERROR;
        usleep(100000);
    }
    if (!d->bps) return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = (size_t)d->bps < max ? (size_t)d->bps : max;
    if (n > d->len - pos) n = d->len - (size_t)pos;
    memcpy(buf, d->data + pos, n);
    return (ssize_t)n;
}

static void dl_slow_free(void *arg)
{
    dl_slow *d = arg;
    free(d->data);
    free(d);
}

static enum MHD_Result do_download(simserver *s, struct MHD_Connection *c, const char *tok)
{
    unsigned char *data = NULL;
    size_t len = 0;
    int status = 404;
    if (!s->o.download || s->o.download(s->o.download_arg, tok, &data, &len, &status) < 0 ||
        !data) {
        free(data);
        const char *m = status == 410 ? "the download URL has expired" : "file not found";
        return srv_queue(c, status ? status : 404, "text/plain", xstrdup(m), strlen(m));
    }
    if (FA(s)->dl_expired && atomic_fetch_add(&s->dl_expired_done, 1) < FA(s)->dl_expired) {
        /* what S3 answers for a presigned URL past its X-Amz-Expires */
        atomic_fetch_add(&s->fired[F_DL_EXPIRED], 1);
        free(data);
        const char *m =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
            "<Message>Request has expired</Message><X-Amz-Expires>600</X-Amz-Expires>"
            "<RequestId>0000000000000000</RequestId></Error>";
        return srv_queue(c, 403, "application/xml", xstrdup(m), strlen(m));
    }
    if (FA(s)->dl_drip > 0 || FA(s)->dl_hang) {
        atomic_fetch_add(&s->fired[FA(s)->dl_hang ? F_DL_HANG : F_DL_DRIP], 1);
        dl_slow *d = xcalloc(1, sizeof *d);
        d->s = s;
        d->conn = c;
        d->data = data;
        d->len = len;
        d->bps = FA(s)->dl_hang ? 0 : FA(s)->dl_drip;
        struct MHD_Response *resp =
            MHD_create_response_from_callback(len, 64, dl_slow_read, d, dl_slow_free);
        MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
        enum MHD_Result r = MHD_queue_response(c, 200, resp);
        MHD_destroy_response(resp);
        return r;
    }
    return srv_queue(c, 200, "application/octet-stream", (char *)data, len);
}

char *simserver_stats_json(simserver *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "requests", (double)atomic_load(&s->requests));
    cJSON_AddNumberToObject(j, "watches", (double)atomic_load(&s->watches));
    cJSON_AddNumberToObject(j, "downloadRequestsCreated", (double)atomic_load(&s->dr_created));
    cJSON_AddNumberToObject(j, "rbacDenied", (double)atomic_load(&s->rbac_denied));
    cJSON_AddNumberToObject(j, "resourceVersion", (double)simstore_rv(s->o.store));
    simlink_stats ls = simlink_get_stats(s->link);
    cJSON_AddNumberToObject(j, "connections", (double)ls.connections);
    cJSON_AddNumberToObject(j, "bodyBytes", (double)ls.body_bytes);
    cJSON_AddNumberToObject(j, "gzipped", (double)ls.gzipped);
    cJSON *f = cJSON_AddObjectToObject(j, "faults");
    for (int i = 0; i < F_COUNT; i++)
        cJSON_AddNumberToObject(f, fault_names[i], (double)atomic_load(&s->fired[i]));
    char *out = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return out;
}

/* throttle-list=N / throttle-watch=N: 1 when this GET is one of the first N lists (a `limit`
 * parameter, as client-go and kubectl list, or a `resourceVersion` one, as veltop's first list
 * at resourceVersion=0 asks for everything) or watches (watch=true) of its path. */
static int throttle(simserver *s, struct MHD_Connection *c, const char *url)
{
    const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
    int watch = w && (!strcmp(w, "true") || !strcmp(w, "1"));
    int list = !watch && (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit") ||
                          MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion"));
    int limit = watch ? FA(s)->throttle_watch : list ? FA(s)->throttle_list : 0;
    if (!limit || strlen(url) >= sizeof s->throttled[0].path) return 0;
    pthread_mutex_lock(&s->mu);
    throttled_path *t = NULL;
    for (int i = 0; i < s->nthrottled && !t; i++)
        if (!strcmp(s->throttled[i].path, url)) t = &s->throttled[i];
    if (!t && s->nthrottled < MAX_THROTTLED) {
        t = &s->throttled[s->nthrottled++];
        memset(t, 0, sizeof *t);
        snprintf(t->path, sizeof t->path, "%s", url);
    }
    int hit = 0;
    if (t) {
        int *n = watch ? &t->watches : &t->lists;
        hit = *n < limit;
        (*n)++;
    }
    pthread_mutex_unlock(&s->mu);
    return hit;
}

static enum MHD_Result record_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind;
    cJSON_AddStringToObject(cls, key, value ? value : "");
    return MHD_YES;
}

/* --record: what the client sent, one JSON line, appended whole (one write on an O_APPEND file:
 * lines of concurrent requests do not mix) */
static void srv_record(simserver *s, struct MHD_Connection *c, const char *method, const char *url,
                       const req *rq, const char *user)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "method", method);
    cJSON_AddStringToObject(j, "path", url);
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, record_arg,
                              cJSON_AddObjectToObject(j, "query"));
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    cJSON_AddStringToObject(j, "contentType", ct ? ct : "");
    cJSON_AddStringToObject(j, "user", user ? user : "");
    cJSON *b = rq->body.len ? cJSON_ParseWithLength(rq->body.data, rq->body.len) : NULL;
    if (b)
        cJSON_AddItemToObject(j, "body", b);
    else
        cJSON_AddStringToObject(j, "bodyText",
                                rq->body.len ? kc_buf_cstr((kc_buf *)&rq->body) : "");
    char *line = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *out = xasprintf("%s\n", line);
    cJSON_free(line);
    int fd = open(s->o.record, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, out, strlen(out));
        (void)w;
        close(fd);
    }
    free(out);
}

static enum MHD_Result dispatch(simserver *s, struct MHD_Connection *c, const char *url,
                                const char *method, req *rq)
{
    atomic_fetch_add(&s->requests, 1);
    if (!strcmp(url, "/debug/faults-off") && !strcmp(method, "POST")) {
        atomic_store(&s->faults_off, 1);
        return srv_queue(c, 200, "text/plain", xstrdup("faults off\n"), 11);
    }
    if (!strcmp(url, "/debug/stats")) {
        char *j = simserver_stats_json(s);
        return srv_queue(c, 200, "application/json", j, strlen(j));
    }
    if (!strncmp(url, "/download/", 10)) return do_download(s, c, url + 10);
    if (!strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz"))
        return srv_queue(c, 200, "text/plain", xstrdup("ok"), 2);
    if (FA(s)->stall_ms) {
        atomic_fetch_add(&s->fired[F_STALL], 1);
        usleep((useconds_t)FA(s)->stall_ms * 1000);
    }
    if (!strcmp(url, "/version") || !strcmp(url, "/version/")) {
        int minor = s->o.kube_minor ? s->o.kube_minor : 30;
        cJSON *v = cJSON_CreateObject();
        char buf[32];
        cJSON_AddStringToObject(v, "major", "1");
        snprintf(buf, sizeof buf, "%d", minor);
        cJSON_AddStringToObject(v, "minor", buf);
        snprintf(buf, sizeof buf, "v1.%d.0", minor);
        cJSON_AddStringToObject(v, "gitVersion", buf);
        cJSON_AddStringToObject(v, "gitCommit", "0000000000000000000000000000000000000000");
        cJSON_AddStringToObject(v, "gitTreeState", "clean");
        cJSON_AddStringToObject(v, "buildDate", "2024-01-01T00:00:00Z");
        cJSON_AddStringToObject(v, "goVersion", "go1.22.0");
        cJSON_AddStringToObject(v, "compiler", "gc");
        cJSON_AddStringToObject(v, "platform", "linux/amd64");
        return srv_send_json(c, 200, v);
    }
    char *user = authenticate(s, c);
    if (!user) return srv_send_status(c, 401, "Unauthorized", NULL);
    enum MHD_Result r;
    if (s->o.rbac && !rbac_allowed(s, c, url, method, user, &r)) goto out;
    long n = atomic_fetch_add(&s->api_requests, 1) + 1;
    if (FA(s)->error500 && n % FA(s)->error500 == 0) {
        atomic_fetch_add(&s->fired[F_ERROR500], 1);
        r = srv_send_status(c, 500,
                            "an error on the server (\"injected fault\") has prevented the "
                            "request from succeeding",
                            NULL);
        goto out;
    }
    if (FA(s)->error429 && n % FA(s)->error429 == 0) {
        atomic_fetch_add(&s->fired[F_ERROR429], 1);
        cJSON *st = srv_status_obj(429, srv_reason_for(429),
                                   "the server has received too many requests and has asked us to "
                                   "try again later",
                                   NULL);
        char *body = cJSON_PrintUnformatted(st);
        cJSON_Delete(st);
        r = srv_queue_body(c, 429, "application/json", body, strlen(body), 0, FA(s)->retry_after);
        goto out;
    }
    if ((FA(s)->throttle_list || FA(s)->throttle_watch) && !strcmp(method, "GET") &&
        throttle(s, c, url)) {
        atomic_fetch_add(&s->fired[F_THROTTLE], 1);
        cJSON *st = srv_status_obj(429, srv_reason_for(429),
                                   "the server has received too many requests and has asked us to "
                                   "try again later",
                                   NULL);
        char *body = cJSON_PrintUnformatted(st);
        cJSON_Delete(st);
        r = srv_queue_body(c, 429, "application/json", body, strlen(body), 0, FA(s)->retry_after);
        goto out;
    }
    srv_maybe_expire(s);
    if (!strncmp(url, "/openapi", 8)) {
        r = srv_not_found(c);
        goto out;
    }
    if (!strcmp(url, "/api") || !strcmp(url, "/api/")) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", "APIVersions");
        const char *v1 = "v1";
        cJSON_AddItemToObject(j, "versions", srv_str_array(&v1, 1));
        cJSON *arr = cJSON_AddArrayToObject(j, "serverAddressByClientCIDRs");
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "clientCIDR", "0.0.0.0/0");
        char *addr = xasprintf("%s:%d", s->host, s->port);
        cJSON_AddStringToObject(e, "serverAddress", addr);
        free(addr);
        cJSON_AddItemToArray(arr, e);
        r = srv_send_json(c, 200, j);
        goto out;
    }
    if (!strcmp(url, "/apis") || !strcmp(url, "/apis/")) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", "APIGroupList");
        cJSON_AddStringToObject(j, "apiVersion", "v1");
        cJSON *groups = cJSON_AddArrayToObject(j, "groups");
        cJSON_AddItemToArray(groups, srv_velero_group());
        sim_kinds_add_groups(groups);
        r = srv_send_json(c, 200, j);
        goto out;
    }
    if (!strcmp(method, "GET") &&
        (srv_discovery_other(c, url, &r) || srv_empty_list(s, c, url, &r)))
        goto out;
    if (!strcmp(url, "/apis/velero.io") || !strcmp(url, "/apis/velero.io/")) {
        cJSON *g = srv_velero_group();
        cJSON_AddStringToObject(g, "kind", "APIGroup");
        cJSON_AddStringToObject(g, "apiVersion", "v1");
        r = srv_send_json(c, 200, g);
        goto out;
    }
    if (!strcmp(url, "/api/v1")) {
        r = srv_send_json(c, 200, srv_resource_list("", "v1"));
        goto out;
    }
    if (!strcmp(url, "/apis/velero.io/v1") || !strcmp(url, "/apis/velero.io/v2alpha1")) {
        r = srv_send_json(c, 200, srv_resource_list("velero.io", url + strlen("/apis/velero.io/")));
        goto out;
    }
    /* events: kubectl describe asks; answer an empty EventList */
    if (!strcmp(method, "GET") && (!strcmp(url, "/api/v1/events") ||
                                   (!strncmp(url, "/api/v1/namespaces/", 19) && strlen(url) > 7 &&
                                    !strcmp(url + strlen(url) - 7, "/events")))) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", "EventList");
        cJSON_AddStringToObject(j, "apiVersion", "v1");
        cJSON *md = cJSON_AddObjectToObject(j, "metadata");
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)simstore_rv(s->o.store));
        cJSON_AddStringToObject(md, "resourceVersion", buf);
        cJSON_AddArrayToObject(j, "items");
        r = srv_send_json(c, 200, j);
        goto out;
    }
    target t;
    if (srv_parse_target(url, &t)) {
        r = srv_not_found(c);
        goto out;
    }
    if (s->o.record && strcmp(method, "GET")) srv_record(s, c, method, url, rq, user);
    r = srv_do_resource(s, c, method, &t, rq, user);
    srv_target_free(&t);
out:
    free(user);
    return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    simserver *s = cls;
    req *rq = *con_cls;
    if (!rq) {
        rq = xcalloc(1, sizeof *rq);
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) {
        if (rq->body.len + *upload_size > 16u << 20) return MHD_NO;
        kc_buf_append(&rq->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->done) return MHD_YES;
    rq->done = 1;
    simlink_before_answer(c);
    return dispatch(s, c, url, method, rq);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    req *rq = *con_cls;
    if (!rq) return;
    kc_buf_free(&rq->body);
    free(rq);
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    (void)fmt;
    (void)ap; /* library code never prints */
}

simserver *simserver_start(const simserver_opts *opts, char *err, size_t errlen)
{
    simserver *s = xcalloc(1, sizeof *s);
    s->o = *opts;
    atomic_store(&s->rv0_limit, opts->rv0_limit ? 1 : 0);
    if (faults_parse(opts->faults, &s->f, err, errlen)) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    s->last_expire_ms = kc_now_ms();
    s->host = xstrdup(opts->host ? opts->host : "127.0.0.1");
    s->tls = opts->cert_pem && opts->key_pem;
    s->auth = !opts->auth || !strcmp(opts->auth, "none") ? 0 : !strcmp(opts->auth, "token") ? 1 : 2;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)opts->port);
    if (inet_pton(AF_INET, s->host, &sa.sin_addr) != 1) {
        snprintf(err, errlen, "bad listen address '%s': expected an IPv4 address", s->host);
        goto fail;
    }
    /* poll(), not libmicrohttpd's default select(): a descriptor numbered 1024 or more (a sim
     * process serving hundreds of contexts, bench_fleet300) cannot be in an fd_set */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG;
    s->link = simlink_new(&(simlink_opts){.latency_ms = opts->latency_ms,
                                          .bandwidth = opts->bandwidth,
                                          .no_gzip = opts->no_gzip,
                                          .tls = s->tls,
                                          .clock_skew = opts->clock_skew});
    struct MHD_OptionItem o[9];
    int k = 0;
    o[k++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &sa};
    o[k++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, NULL};
    o[k++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL};
    o[k++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION,
                                     (intptr_t)simlink_notify_connection, s->link};
    if (s->tls) {
        flags |= MHD_USE_TLS;
        o[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)opts->cert_pem};
        o[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)opts->key_pem};
        if (s->auth == 2 && opts->ca_pem)
            o[k++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, (void *)opts->ca_pem};
    }
    o[k++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    s->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, s, MHD_OPTION_ARRAY, o, MHD_OPTION_END);
    if (!s->d) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", s->host, opts->port,
                 errno ? strerror(errno) : "libmicrohttpd failed to start");
        goto fail;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : opts->port;
    return s;
fail:
    simlink_free(s->link);
    faults_free(&s->f);
    pthread_mutex_destroy(&s->mu);
    free(s->host);
    free(s);
    return NULL;
}

int simserver_port(const simserver *s)
{
    return s->port;
}

void simserver_stop(simserver *s)
{
    if (!s) return;
    atomic_store(&s->stopping, 1);
    simlink_stop(s->link);
    simstore_wake(s->o.store);
    MHD_stop_daemon(s->d);
    simlink_free(s->link);
    faults_free(&s->f);
    pthread_mutex_destroy(&s->mu);
    free(s->host);
    free(s);
}

void simserver_set_bookmark_ms(simserver *s, int ms)
{
    s->o.bookmark_ms = ms;
}
