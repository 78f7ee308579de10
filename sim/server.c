/* server.c: veltop-sim's Kubernetes API server on libmicrohttpd (thread per connection): what
 * reference/kube-api.md describes, faithful enough for the real kubectl and for veltop. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "link.h"
#include "simkinds.h"

#define MAX_FORBID 16

enum fault_kind {
    F_ERROR500,
    F_ERROR429,
    F_CLOSE_WATCH,
    F_EXPIRE,
    F_STALL,
    F_MALFORMED,
    F_FORBID,
    F_BOOKMARK_CLOSE,
    F_CLOSE_LOGS,
    F_EXPIRE_ALWAYS,
    F_DL_DRIP,
    F_DL_HANG,
    F_DL_EXPIRED,
    F_THROTTLE,
    F_COUNT
};
static const char *fault_names[F_COUNT] = {
    "error500",        "error429", "close-watch",    "expire",     "stall",
    "malformed-event", "forbid",   "bookmark-close", "close-logs", "expire-always",
    "dl-drip",         "dl-hang",  "dl-expired",     "throttle"};

typedef struct faults {
    int error500, error429; /* every Nth request */
    int close_watch_s;      /* close every watch after N s */
    int expire_once;        /* the first resumed watch gets 410 */
    int expire_every_s;     /* expire the history every N s */
    int stall_ms;
    int malformed;
    int bookmark_close; /* every watch ends at once (after one BOOKMARK when allowed) */
    int close_logs;     /* every followed log ends after what it had */
    int expire_always;  /* every watch from a resourceVersion gets 410 Expired at once */
    int dl_drip;        /* the object store sends artifacts at this many bytes a second */
    int dl_hang;        /* the object store answers 200 and then sends nothing */
    int dl_expired;     /* the first N artifact GETs answer S3's 403 "Request has expired" */
    char *retry_after;  /* Retry-After of an injected 429, as given (NULL: "1") */
    char *slow;         /* requests on this resource (plural) answer 1.5 s late */
    char *forbid[MAX_FORBID];
    int nforbid;
    int throttle_list, throttle_watch; /* the first N lists / watches of each path get 429 */
} faults;

#define MAX_THROTTLED 64
typedef struct {
    char path[192];
    int lists, watches;
} throttled_path;

struct simserver {
    simserver_opts o;
    faults f;
    struct MHD_Daemon *d;
    int port;
    int tls;
    int auth; /* 0 none, 1 token, 2 client-cert */
    char *host;
    atomic_int stopping;
    atomic_long requests, watches, api_requests;
    atomic_int rv0_limit;       /* resourceVersion=0 lists honour limit */
    atomic_long dr_created;     /* DownloadRequests created (GET /debug/stats) */
    atomic_int dl_expired_done; /* artifact GETs answered 403 expired so far */
    atomic_long fired[F_COUNT];
    atomic_int malformed_done, expire_done;
    atomic_int faults_off; /* POST /debug/faults-off: behave from now on as without --faults */
    faults nofaults;       /* all zero: what FA gives once faults are off */
    pthread_mutex_t mu;
    throttled_path throttled[MAX_THROTTLED]; /* under mu */
    int nthrottled;
    int64_t last_expire_ms;
    simlink *link; /* gzip and the emulated link (link.c) */
};

/* The faults in force (none once switched off). */
#define FA(s) (atomic_load(&(s)->faults_off) ? &(s)->nofaults : &(s)->f)

/* The cluster's clock: simulated time when the sim runs faster than real time. */
static double server_now(const simserver *s)
{
    return s->o.now ? s->o.now(s->o.now_arg) : kc_wall_now();
}

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
                    : !strcmp(t, "dl-drip")        ? &f->dl_drip
                    : !strcmp(t, "dl-expired")     ? &f->dl_expired
                                                   : NULL;
        if (!slot || !val || n <= 0) {
            snprintf(err, errlen,
                     "bad fault '%s%s%s': expected error500=N, error429=N, throttle-list=N, "
                     "throttle-watch=N, "
                     "close-watch=S, expire, expire-every=S, expire-always, bookmark-close, "
                     "close-logs, retry-after=S, slow=RESOURCE, stall=MS, malformed-event, "
                     "forbid=RESOURCE, dl-drip=BYTES_PER_S, dl-hang or dl-expired=N",
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

/* ---- responses ---- */

typedef struct req {
    kc_buf body;
    int done;
} req;

/* may_gzip: an API object or list, which kube-apiserver compresses (link.h); retry_after: the
 * Retry-After of a 429 (the faults' retry-after; NULL: "1") */
static enum MHD_Result queue_body(struct MHD_Connection *c, int code, const char *ctype, char *body,
                                  size_t len, int may_gzip, const char *retry_after)
{
    struct MHD_Response *r = simlink_buffer_response(c, body, len, may_gzip);
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    if (code == 429) MHD_add_response_header(r, "Retry-After", retry_after ? retry_after : "1");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result queue(struct MHD_Connection *c, int code, const char *ctype, char *body,
                             size_t len)
{
    return queue_body(c, code, ctype, body, len, 0, NULL);
}

static enum MHD_Result send_json(struct MHD_Connection *c, int code, cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return queue_body(c, code, "application/json", s, strlen(s), 1, NULL);
}

static const char *reason_for(int code)
{
    switch (code) {
    case 400:
        return "BadRequest";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "NotFound";
    case 405:
        return "MethodNotAllowed";
    case 406:
        return "NotAcceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Expired";
    case 415:
        return "UnsupportedMediaType";
    case 422:
        return "Invalid";
    case 429:
        return "TooManyRequests";
    case 500:
        return "InternalError";
    default:
        return "";
    }
}

typedef struct target {
    const sim_resource *res;
    char *ns, *name, *sub;
} target;

static cJSON *status_obj(int code, const char *reason, const char *msg, const target *t)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "kind", "Status");
    cJSON_AddStringToObject(st, "apiVersion", "v1");
    cJSON_AddObjectToObject(st, "metadata");
    cJSON_AddStringToObject(st, "status", code < 300 ? "Success" : "Failure");
    if (msg) cJSON_AddStringToObject(st, "message", msg);
    if (reason && *reason) cJSON_AddStringToObject(st, "reason", reason);
    if (t && t->res) {
        cJSON *d = cJSON_AddObjectToObject(st, "details");
        if (t->name) cJSON_AddStringToObject(d, "name", t->name);
        if (t->res->group[0]) cJSON_AddStringToObject(d, "group", t->res->group);
        cJSON_AddStringToObject(d, "kind", t->res->plural);
        if (code == 429) cJSON_AddNumberToObject(d, "retryAfterSeconds", 1);
    } else if (code == 429) {
        cJSON *d = cJSON_AddObjectToObject(st, "details");
        cJSON_AddNumberToObject(d, "retryAfterSeconds", 1);
    }
    cJSON_AddNumberToObject(st, "code", code);
    return st;
}

static enum MHD_Result send_status(struct MHD_Connection *c, int code, const char *msg,
                                   const target *t)
{
    return send_json(c, code, status_obj(code, reason_for(code), msg, t));
}

static enum MHD_Result not_found(struct MHD_Connection *c)
{
    return send_status(c, 404, "the server could not find the requested resource", NULL);
}

/* ---- discovery ---- */

static const char *verbs_main[] = {"create", "delete", "deletecollection", "get",
                                   "list",   "patch",  "update",           "watch"};

static cJSON *str_array(const char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static const char *short_name(const sim_resource *r)
{
    if (!strcmp(r->plural, "backupstoragelocations")) return "bsl";
    if (!strcmp(r->plural, "volumesnapshotlocations")) return "vsl";
    if (!strcmp(r->plural, "pods")) return "po";
    if (!strcmp(r->plural, "daemonsets")) return "ds";
    if (!strcmp(r->plural, "namespaces")) return "ns";
    return NULL;
}

static cJSON *resource_list(const char *group, const char *version)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "kind", "APIResourceList");
    cJSON_AddStringToObject(l, "apiVersion", "v1");
    char gv[64];
    snprintf(gv, sizeof gv, "%s%s%s", group, *group ? "/" : "", version);
    cJSON_AddStringToObject(l, "groupVersion", gv);
    cJSON *arr = cJSON_AddArrayToObject(l, "resources");
    size_t n;
    const sim_resource *rs = sim_resources(&n);
    for (size_t i = 0; i < n; i++) {
        const sim_resource *r = &rs[i];
        if (strcmp(r->group, group) || strcmp(r->version, version)) continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", r->plural);
        cJSON_AddStringToObject(e, "singularName", r->singular);
        cJSON_AddBoolToObject(e, "namespaced", r->namespaced);
        cJSON_AddStringToObject(e, "kind", r->kind);
        cJSON_AddItemToObject(e, "verbs", str_array(verbs_main, 8));
        const char *sn = short_name(r);
        cJSON_AddItemToObject(e, "shortNames", str_array(&sn, sn ? 1 : 0));
        int velero = !strcmp(group, "velero.io");
        if (velero) {
            const char *cat = "velero";
            cJSON_AddItemToObject(e, "categories", str_array(&cat, 1));
        } else {
            const char *cat = "all"; /* kubectl get all: pods and daemonsets, not namespaces */
            cJSON_AddItemToObject(e, "categories",
                                  str_array(&cat, strcmp(r->plural, "namespaces") ? 1 : 0));
        }
        cJSON_AddItemToArray(arr, e);
        /* Velero's CRDs declare no status subresource (velero-api.md section 0): only the
         * built-in resources have /status, and pods /log */
        const char *subs[] = {"status", "log"};
        int nsub = velero ? 0 : strcmp(r->plural, "pods") ? 1 : 2;
        for (int k = 0; k < nsub; k++) {
            cJSON *s = cJSON_CreateObject();
            char *nm = xasprintf("%s/%s", r->plural, subs[k]);
            cJSON_AddStringToObject(s, "name", nm);
            free(nm);
            cJSON_AddStringToObject(s, "singularName", "");
            cJSON_AddBoolToObject(s, "namespaced", r->namespaced);
            cJSON_AddStringToObject(s, "kind", k ? "Pod" : r->kind);
            const char *sv[] = {"get", "patch", "update"};
            cJSON_AddItemToObject(s, "verbs", str_array(sv, k ? 1 : 3));
            cJSON_AddItemToArray(arr, s);
        }
    }
    if (!*group) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", "events");
        cJSON_AddStringToObject(e, "singularName", "event");
        cJSON_AddBoolToObject(e, "namespaced", 1);
        cJSON_AddStringToObject(e, "kind", "Event");
        const char *ev[] = {"get", "list", "watch"};
        cJSON_AddItemToObject(e, "verbs", str_array(ev, 3));
        const char *sn = "ev";
        cJSON_AddItemToObject(e, "shortNames", str_array(&sn, 1));
        cJSON_AddItemToArray(arr, e);
    }
    sim_kinds_add_resources(arr, group, version); /* what the sim's cluster has besides */
    return l;
}

static cJSON *gv_entry(const char *v)
{
    cJSON *e = cJSON_CreateObject();
    char gv[64];
    snprintf(gv, sizeof gv, "velero.io/%s", v);
    cJSON_AddStringToObject(e, "groupVersion", gv);
    cJSON_AddStringToObject(e, "version", v);
    return e;
}

static cJSON *velero_group(void)
{
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "name", "velero.io");
    cJSON *vs = cJSON_AddArrayToObject(g, "versions");
    cJSON_AddItemToArray(vs, gv_entry("v1"));
    cJSON_AddItemToArray(vs, gv_entry("v2alpha1"));
    cJSON_AddItemToObject(g, "preferredVersion", gv_entry("v1"));
    return g;
}

/* Discovery of the groups simkinds.h names (apps, rbac.authorization.k8s.io, ...): /apis/<group>
 * and /apis/<group>/<version>. Returns 1 with *r set when url is one of them. */
static int discovery_other(struct MHD_Connection *c, const char *url, enum MHD_Result *r)
{
    if (strncmp(url, "/apis/", 6) || !strncmp(url, "/apis/velero.io", 15)) return 0;
    char group[128], version[32] = "";
    size_t gl = strcspn(url + 6, "/");
    if (gl == 0 || gl >= sizeof group) return 0;
    memcpy(group, url + 6, gl);
    group[gl] = '\0';
    const char *rest = url + 6 + gl;
    if (*rest == '/') rest++;
    size_t vl = strcspn(rest, "/");
    if (vl >= sizeof version || (vl && rest[vl] && rest[vl + 1])) return 0; /* deeper: a resource */
    memcpy(version, rest, vl);
    version[vl] = '\0';
    if (!*version) {
        cJSON *g = sim_kinds_group(group);
        if (!g) return 0;
        *r = send_json(c, 200, g);
        return 1;
    }
    cJSON *l = resource_list(group, version);
    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "resources"))) {
        cJSON_Delete(l);
        return 0;
    }
    *r = send_json(c, 200, l);
    return 1;
}

static int arg_true(struct MHD_Connection *c, const char *k);

/* GET of a list of a resource discovery names (simkinds.h) but the sim holds no objects of:
 * /api/v1/[namespaces/NS/]PLURAL or /apis/G/V/[namespaces/NS/]PLURAL answer an empty list, as a
 * cluster with none would (a watch or a named object: not here, 404). */
static int empty_list(simserver *s, struct MHD_Connection *c, const char *url, enum MHD_Result *r)
{
    char gv[160], plural[96];
    const char *p;
    if (!strncmp(url, "/api/v1/", 8)) {
        snprintf(gv, sizeof gv, "v1");
        p = url + 8;
    } else if (!strncmp(url, "/apis/", 6)) {
        const char *v = strchr(url + 6, '/'), *e = v ? strchr(v + 1, '/') : NULL;
        if (!e || (size_t)(e - url - 6) >= sizeof gv) return 0;
        snprintf(gv, sizeof gv, "%.*s", (int)(e - url - 6), url + 6);
        p = e + 1;
    } else {
        return 0;
    }
    if (!strncmp(p, "namespaces/", 11)) {
        const char *e = strchr(p + 11, '/');
        if (!e) return 0;
        p = e + 1;
    }
    size_t n = strlen(p);
    if (!n || strchr(p, '/') || n >= sizeof plural) return 0;
    memcpy(plural, p, n + 1);
    const char *slash = strchr(gv, '/');
    char group[128];
    snprintf(group, sizeof group, "%.*s", slash ? (int)(slash - gv) : 0, gv);
    const char *version = slash ? slash + 1 : gv;
    if (sim_resource_find(group, version, plural) || arg_true(c, "watch")) return 0;
    size_t nk;
    const sim_kind *k = sim_kinds(&nk), *hit = NULL;
    for (size_t i = 0; i < nk && !hit; i++)
        if (!strcmp(k[i].group, group) && !strcmp(k[i].version, version) &&
            !strcmp(k[i].plural, plural))
            hit = &k[i];
    if (!hit) return 0;
    cJSON *j = cJSON_CreateObject();
    char *kind = xasprintf("%sList", hit->kind);
    cJSON_AddStringToObject(j, "kind", kind);
    free(kind);
    cJSON_AddStringToObject(j, "apiVersion", gv);
    char rv[32];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)simstore_rv(s->o.store));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "metadata"), "resourceVersion", rv);
    cJSON_AddArrayToObject(j, "items");
    *r = send_json(c, 200, j);
    return 1;
}

/* ---- tables ---- */

/* apimachinery's HumanDuration, as kubectl shows ages. */
static void human_duration(double secs, char *buf, size_t n)
{
    long long s = (long long)floor(secs);
    if (s < -1) {
        snprintf(buf, n, "<invalid>");
        return;
    }
    if (s < 0) s = 0;
    if (s < 120) {
        snprintf(buf, n, "%llds", s);
        return;
    }
    long long m = s / 60, h = s / 3600;
    if (m < 10) {
        if (s % 60)
            snprintf(buf, n, "%lldm%llds", m, s % 60);
        else
            snprintf(buf, n, "%lldm", m);
    } else if (m < 180) {
        snprintf(buf, n, "%lldm", m);
    } else if (h < 8) {
        if (m % 60)
            snprintf(buf, n, "%lldh%lldm", h, m % 60);
        else
            snprintf(buf, n, "%lldh", h);
    } else if (h < 48) {
        snprintf(buf, n, "%lldh", h);
    } else if (h < 24 * 8) {
        if (h % 24)
            snprintf(buf, n, "%lldd%lldh", h / 24, h % 24);
        else
            snprintf(buf, n, "%lldd", h / 24);
    } else if (h < 24 * 365 * 2) {
        snprintf(buf, n, "%lldd", h / 24);
    } else if (h < 24 * 365 * 8) {
        long long dy = (h / 24) % 365;
        if (dy)
            snprintf(buf, n, "%lldy%lldd", h / 24 / 365, dy);
        else
            snprintf(buf, n, "%lldy", h / 24 / 365);
    } else {
        snprintf(buf, n, "%lldy", h / 24 / 365);
    }
}

static const cJSON *path(const cJSON *o, const char *a, const char *b, const char *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    if (c) v = cJSON_GetObjectItemCaseSensitive(v, c);
    return v;
}

static cJSON *age_cell(const cJSON *ts, double now)
{
    double t;
    if (!cJSON_IsString(ts) || kc_parse_time(ts->valuestring, &t)) return cJSON_CreateNull();
    char buf[32];
    human_duration(now - t, buf, sizeof buf);
    return cJSON_CreateString(buf);
}

static cJSON *copy_or_null(const cJSON *v)
{
    return v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
}

static cJSON *int_or_zero(const cJSON *v)
{
    return cJSON_CreateNumber(cJSON_IsNumber(v) ? v->valuedouble : 0);
}

enum table_kind { T_RUN, T_VOLUME, T_POD, T_BSL, T_DS, T_OTHER };

static enum table_kind table_kind(const sim_resource *r)
{
    if (!strcmp(r->plural, "backups") || !strcmp(r->plural, "restores")) return T_RUN;
    if (!strcmp(r->plural, "podvolumebackups") || !strcmp(r->plural, "podvolumerestores") ||
        !strcmp(r->plural, "datauploads") || !strcmp(r->plural, "datadownloads"))
        return T_VOLUME;
    if (!strcmp(r->plural, "pods")) return T_POD;
    if (!strcmp(r->plural, "backupstoragelocations")) return T_BSL;
    if (!strcmp(r->plural, "daemonsets")) return T_DS;
    return T_OTHER;
}

static void add_col(cJSON *cols, const char *name, const char *type, const char *format,
                    const char *desc)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", name);
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "format", format);
    cJSON_AddStringToObject(c, "description", desc);
    cJSON_AddNumberToObject(c, "priority", 0);
    cJSON_AddItemToArray(cols, c);
}

static cJSON *table_columns(const sim_resource *r)
{
    cJSON *cols = cJSON_CreateArray();
    add_col(cols, "Name", "string", "name",
            "Name must be unique within a namespace. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names");
    switch (table_kind(r)) {
    case T_RUN:
        add_col(cols, "Phase", "string", "", "The current phase");
        add_col(cols, "Items", "string", "", "Items done of the estimated total");
        add_col(cols, "Started", "date", "", "When the run started");
        add_col(cols, "Errors", "integer", "", "Errors encountered");
        add_col(cols, "Warnings", "integer", "", "Warnings encountered");
        break;
    case T_VOLUME:
        add_col(cols, "Phase", "string", "", "The current phase");
        add_col(cols, "Bytes Done", "integer", "", "Bytes moved so far");
        add_col(cols, "Total Bytes", "integer", "", "Total bytes to move");
        add_col(cols, "Node", "string", "", "Node doing the work");
        break;
    case T_POD:
        add_col(cols, "Ready", "string", "", "The aggregate readiness state of this pod");
        add_col(cols, "Status", "string", "", "The aggregate status of the containers");
        add_col(cols, "Restarts", "string", "", "The number of times the containers restarted");
        break;
    case T_BSL:
        add_col(cols, "Phase", "string", "", "Backup Storage Location status such as Available");
        add_col(cols, "Last Validated", "date", "", "LastValidationTime");
        break;
    case T_DS: /* as kube-apiserver's printers name them (kubectl get ds) */
        add_col(cols, "Desired", "integer", "",
                "The total number of nodes that should be running the daemon pod");
        add_col(cols, "Current", "integer", "",
                "The number of nodes that are running at least 1 daemon pod");
        add_col(cols, "Ready", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more "
                "of the daemon pod running and ready");
        add_col(cols, "Up-to-date", "integer", "",
                "The total number of nodes that are running updated daemon pod");
        add_col(cols, "Available", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more "
                "of the daemon pod running and available");
        add_col(cols, "Node Selector", "string", "", "NodeSelector of the daemon pods");
        break;
    case T_OTHER:
        break;
    }
    add_col(cols, "Age", "date", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created.");
    if (table_kind(r) == T_BSL)
        add_col(cols, "Default", "boolean", "", "Default backup storage location");
    return cols;
}

static cJSON *table_row(const sim_resource *r, const cJSON *obj, double now)
{
    cJSON *row = cJSON_CreateObject();
    cJSON *cells = cJSON_AddArrayToObject(row, "cells");
    cJSON_AddItemToArray(cells, copy_or_null(path(obj, "metadata", "name", NULL)));
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(st, "phase");
    switch (table_kind(r)) {
    case T_RUN: {
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "New"));
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(st, "progress");
        const cJSON *done = cJSON_GetObjectItemCaseSensitive(pr, "itemsBackedUp");
        if (!done) done = cJSON_GetObjectItemCaseSensitive(pr, "itemsRestored");
        const cJSON *tot = cJSON_GetObjectItemCaseSensitive(pr, "totalItems");
        char items[64];
        snprintf(items, sizeof items, "%.0f/%.0f", cJSON_IsNumber(done) ? done->valuedouble : 0,
                 cJSON_IsNumber(tot) ? tot->valuedouble : 0);
        cJSON_AddItemToArray(cells, cJSON_CreateString(items));
        cJSON_AddItemToArray(cells,
                             age_cell(cJSON_GetObjectItemCaseSensitive(st, "startTimestamp"), now));
        cJSON_AddItemToArray(cells, int_or_zero(cJSON_GetObjectItemCaseSensitive(st, "errors")));
        cJSON_AddItemToArray(cells, int_or_zero(cJSON_GetObjectItemCaseSensitive(st, "warnings")));
        break;
    }
    case T_VOLUME: {
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "New"));
        cJSON_AddItemToArray(cells, int_or_zero(path(st, "progress", "bytesDone", NULL)));
        cJSON_AddItemToArray(cells, int_or_zero(path(st, "progress", "totalBytes", NULL)));
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(st, "node");
        if (!cJSON_IsString(node)) node = path(obj, "spec", "node", NULL);
        cJSON_AddItemToArray(cells,
                             cJSON_CreateString(cJSON_IsString(node) ? node->valuestring : ""));
        break;
    }
    case T_POD: {
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(st, "containerStatuses");
        int n = cJSON_GetArraySize(cs), ready = 0, restarts = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, cs)
        {
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ready"))) ready++;
            const cJSON *rc = cJSON_GetObjectItemCaseSensitive(it, "restartCount");
            if (cJSON_IsNumber(rc)) restarts += rc->valueint;
        }
        char buf[32];
        snprintf(buf, sizeof buf, "%d/%d", ready, n);
        cJSON_AddItemToArray(cells, cJSON_CreateString(buf));
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "Pending"));
        snprintf(buf, sizeof buf, "%d", restarts);
        cJSON_AddItemToArray(cells, cJSON_CreateString(buf));
        break;
    }
    case T_BSL:
        cJSON_AddItemToArray(cells, copy_or_null(phase));
        cJSON_AddItemToArray(
            cells, age_cell(cJSON_GetObjectItemCaseSensitive(st, "lastValidationTime"), now));
        break;
    case T_DS: {
        static const char *const counts[] = {"desiredNumberScheduled", "currentNumberScheduled",
                                             "numberReady", "updatedNumberScheduled",
                                             "numberAvailable"};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, counts[k]);
            cJSON_AddItemToArray(cells, cJSON_CreateNumber(cJSON_IsNumber(v) ? v->valuedouble : 0));
        }
        cJSON_AddItemToArray(cells, cJSON_CreateString("<none>"));
        break;
    }
    case T_OTHER:
        break;
    }
    cJSON_AddItemToArray(cells, age_cell(path(obj, "metadata", "creationTimestamp", NULL), now));
    if (table_kind(r) == T_BSL) {
        const cJSON *def = path(obj, "spec", "default", NULL);
        cJSON_AddItemToArray(cells, cJSON_CreateBool(cJSON_IsTrue(def)));
    }
    cJSON *po = cJSON_AddObjectToObject(row, "object");
    cJSON_AddStringToObject(po, "kind", "PartialObjectMetadata");
    cJSON_AddStringToObject(po, "apiVersion", "meta.k8s.io/v1");
    cJSON_AddItemToObject(po, "metadata",
                          copy_or_null(cJSON_GetObjectItemCaseSensitive(obj, "metadata")));
    return row;
}

/* A Table of objs (array, not taken); columns only when with_cols; ages relative to now. */
static cJSON *make_table(const sim_resource *r, const cJSON *objs, uint64_t rv, const char *cont,
                         long remaining, int with_cols, double now)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "kind", "Table");
    cJSON_AddStringToObject(t, "apiVersion", "meta.k8s.io/v1");
    cJSON *md = cJSON_AddObjectToObject(t, "metadata");
    if (rv) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
        cJSON_AddStringToObject(md, "resourceVersion", buf);
    }
    if (cont && *cont) cJSON_AddStringToObject(md, "continue", cont);
    if (remaining > 0) cJSON_AddNumberToObject(md, "remainingItemCount", (double)remaining);
    cJSON_AddItemToObject(t, "columnDefinitions",
                          with_cols ? table_columns(r) : cJSON_CreateArray());
    cJSON *rows = cJSON_AddArrayToObject(t, "rows");
    const cJSON *it;
    cJSON_ArrayForEach(it, objs) cJSON_AddItemToArray(rows, table_row(r, it, now));
    return t;
}

static int wants_table(struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return a && strstr(a, "as=Table") != NULL;
}

/* ---- request parsing ---- */

static const char *arg(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

/* A boolean query parameter as the apiserver reads it (apimachinery runtime/conversion.go
 * Convert_Slice_string_To_bool): present with any value but "0" or "false" (any case) is true,
 * even empty ("?watch", "?watch=", "watch=True"); absent is false. */
static int arg_true(struct MHD_Connection *c, const char *k)
{
    const char *v = NULL;
    size_t vlen = 0;
    if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, k, strlen(k), &v, &vlen) != MHD_YES)
        return 0;
    return !v || (strcmp(v, "0") && strcasecmp(v, "false"));
}

static void target_free(target *t)
{
    free(t->ns);
    free(t->name);
    free(t->sub);
    memset(t, 0, sizeof *t);
}

/* Splits /api/v1/... or /apis/G/V/... into a target; 0 when it names a served resource. */
static int parse_target(const char *url, target *t)
{
    memset(t, 0, sizeof *t);
    char *copy = xstrdup(url), *save = NULL;
    char *parts[12];
    int n = 0;
    for (char *p = strtok_r(copy, "/", &save); p && n < 12; p = strtok_r(NULL, "/", &save))
        parts[n++] = p;
    int i, rc = -1;
    const char *group, *version;
    if (n >= 3 && !strcmp(parts[0], "api") && !strcmp(parts[1], "v1")) {
        group = "";
        version = "v1";
        i = 2;
    } else if (n >= 4 && !strcmp(parts[0], "apis")) {
        group = parts[1];
        version = parts[2];
        i = 3;
    } else {
        goto out;
    }
    if (n - i <= 3 && n - i >= 1 && !strcmp(parts[i], "namespaces") &&
        (n - i != 3 || !strcmp(parts[i + 2], "status"))) {
        /* the namespaces themselves: /api/v1/namespaces[/NAME[/status]] */
        t->res = sim_resource_find(group, version, "namespaces");
        if (!t->res) goto out;
        if (n - i >= 2) t->name = xstrdup(parts[i + 1]);
        if (n - i == 3) t->sub = xstrdup(parts[i + 2]);
        rc = 0;
        goto out;
    }
    if (n - i >= 2 && !strcmp(parts[i], "namespaces")) {
        t->ns = xstrdup(parts[i + 1]);
        i += 2;
    }
    if (i >= n || n - i > 3) goto out;
    t->res = sim_resource_find(group, version, parts[i]);
    if (!t->res) goto out;
    if (i + 1 < n) t->name = xstrdup(parts[i + 1]);
    if (i + 2 < n) t->sub = xstrdup(parts[i + 2]);
    rc = 0;
out:
    free(copy);
    if (rc) target_free(t);
    return rc;
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

static int forbidden_resource(simserver *s, const target *t)
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

static enum MHD_Result send_forbidden(simserver *s, struct MHD_Connection *c, const target *t,
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
    enum MHD_Result r = send_status(c, 403, msg, t);
    free(q);
    free(scope);
    free(msg);
    return r;
}

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

static int peer_closed(struct MHD_Connection *c)
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
        const cJSON *rvs = path(obj, "metadata", "resourceVersion", NULL);
        uint64_t rv = cJSON_IsString(rvs) ? strtoull(rvs->valuestring, NULL, 10) : 0;
        cJSON_AddItemToObject(ev, "object",
                              make_table(wc->res, one, rv, NULL, 0, wc->first, server_now(wc->s)));
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
        if (peer_closed(wc->conn)) {
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

static enum MHD_Result stream(struct MHD_Connection *c, const char *ctype,
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

static void maybe_expire(simserver *s)
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

static enum MHD_Result do_watch(simserver *s, struct MHD_Connection *c, const target *t)
{
    const char *rvs = arg(c, "resourceVersion");
    uint64_t since = rvs && *rvs ? strtoull(rvs, NULL, 10) : 0;
    const char *ls = arg(c, "labelSelector"), *fs = arg(c, "fieldSelector");
    char *err = NULL;
    if (fs && *fs && sim_field_selector_match(fs, NULL, &err) < 0) {
        enum MHD_Result r = send_status(c, 400, err, NULL);
        free(err);
        return r;
    }
    if (ls && *ls && sim_label_selector_match(ls, NULL, &err) < 0) {
        char *m = xasprintf("unable to parse labelSelector: %s", err);
        enum MHD_Result r = send_status(c, 400, m, NULL);
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
    wc->table = wants_table(c);
    wc->first = 1;
    wc->bookmarks = arg_true(c, "allowWatchBookmarks");
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
        wc->gone = status_obj(410, "Expired", m, NULL);
        free(m);
    }
    int64_t now = kc_now_ms();
    const char *ts = arg(c, "timeoutSeconds");
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
    return stream(c, "application/json", watch_reader, wc, watch_free);
}

/* ---- pod logs ---- */

typedef struct log_ctx {
    simserver *s;
    struct MHD_Connection *conn;
    char *pod;
    size_t pos;
    int follow, timestamps;
    double since;
    kc_buf out;
    size_t off;
} log_ctx;

static void log_format(log_ctx *lc, char **lines, double *times, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (times[i] >= lc->since) {
            if (lc->timestamps) {
                time_t sec = (time_t)times[i];
                struct tm tm;
                gmtime_r(&sec, &tm);
                char buf[64];
                strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
                kc_buf_printf(&lc->out, "%s.%09ldZ ", buf, (long)((times[i] - (double)sec) * 1e9));
            }
            kc_buf_append(&lc->out, lines[i], strlen(lines[i]));
            kc_buf_append(&lc->out, "\n", 1);
        }
        free(lines[i]);
    }
    free(lines);
    free(times);
}

static ssize_t log_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    log_ctx *lc = cls;
    while (lc->off >= lc->out.len) {
        lc->out.len = 0;
        lc->off = 0;
        if (!lc->follow || atomic_load(&lc->s->stopping) || peer_closed(lc->conn))
            return MHD_CONTENT_READER_END_OF_STREAM;
        size_t n;
        double *times;
        char **lines = simstore_log_read(lc->s->o.store, lc->pod, &lc->pos, 250, &n, &times);
        if (lines) log_format(lc, lines, times, n);
    }
    size_t n = lc->out.len - lc->off;
    if (n > max) n = max;
    memcpy(buf, lc->out.data + lc->off, n);
    lc->off += n;
    return (ssize_t)n;
}

static void log_free(void *cls)
{
    log_ctx *lc = cls;
    free(lc->pod);
    kc_buf_free(&lc->out);
    free(lc);
}

static enum MHD_Result do_log(simserver *s, struct MHD_Connection *c, const target *t)
{
    cJSON *pod = simstore_get(s->o.store, "pods", t->ns, t->name);
    if (!pod) {
        char *m = xasprintf("pods \"%s\" not found", t->name);
        enum MHD_Result r = send_status(c, 404, m, t);
        free(m);
        return r;
    }
    cJSON_Delete(pod);
    log_ctx *lc = xcalloc(1, sizeof *lc);
    lc->s = s;
    lc->conn = c;
    lc->pod = xstrdup(t->name);
    lc->follow = arg_true(c, "follow");
    if (lc->follow && FA(s)->close_logs) {
        atomic_fetch_add(&s->fired[F_CLOSE_LOGS], 1);
        lc->follow = 0; /* what it has, then the end, as a restarted container's log */
    }
    lc->timestamps = arg_true(c, "timestamps");
    lc->since = -1e18;
    const char *st = arg(c, "sinceTime"), *ss = arg(c, "sinceSeconds");
    if (st && *st && kc_parse_time(st, &lc->since)) {
        log_free(lc);
        return send_status(c, 400, "sinceTime: invalid value, must be RFC3339", NULL);
    }
    if (ss && *ss) lc->since = server_now(s) - atof(ss);
    const char *tl = arg(c, "tailLines");
    size_t total = simstore_log_count(s->o.store, lc->pod);
    if (tl && *tl) {
        long k = atol(tl);
        if (k >= 0 && (size_t)k < total) lc->pos = total - (size_t)k;
    }
    size_t n;
    double *times;
    char **lines = simstore_log_read(s->o.store, lc->pod, &lc->pos, 0, &n, &times);
    if (lines) log_format(lc, lines, times, n);
    if (!lc->follow) {
        char *body = lc->out.data;
        size_t len = lc->out.len;
        lc->out.data = NULL;
        log_free(lc);
        return queue(c, 200, "text/plain", body ? body : xstrdup(""), len);
    }
    return stream(c, "text/plain", log_reader, lc, log_free);
}

/* ---- list, get and writes ---- */

static char *continue_token(uint64_t rv, const char *ns, const char *name)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "rv", (double)rv);
    cJSON_AddStringToObject(j, "ns", ns);
    cJSON_AddStringToObject(j, "start", name);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *b = kc_base64_encode((const unsigned char *)s, strlen(s));
    free(s);
    return b;
}

static int parse_continue(const char *tok, uint64_t *rv, char **ns, char **name)
{
    size_t len;
    unsigned char *raw = kc_base64_decode(tok, &len);
    if (!raw) return -1;
    char *s = xstrndup((const char *)raw, len);
    free(raw);
    cJSON *j = cJSON_Parse(s);
    free(s);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "rv");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "ns");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "start");
    int ok = cJSON_IsNumber(r) && cJSON_IsString(n) && cJSON_IsString(m);
    if (ok) {
        *rv = (uint64_t)r->valuedouble;
        *ns = xstrdup(n->valuestring);
        *name = xstrdup(m->valuestring);
    }
    cJSON_Delete(j);
    return ok ? 0 : -1;
}

/* Does a list get pages of `limit`? kube-apiserver serves resourceVersion=0 from its watch cache,
 * which ignores limit (cacher computeListLimit: "the limit is ignored for requests that set
 * RV == 0"; so since 1.13, PR #70735, through 1.33): the whole list in one answer, no continue.
 * Consistent reads (no resourceVersion) and exact ones page, from etcd or (1.31+, consistent
 * reads from cache) from the cache, in every version the sim reports. */
static int list_honours_limit(simserver *s, const char *rv)
{
    /* --rv0-limit: a server that serves every list from storage (an aggregated API server,
     * kube-apiserver with the watch cache off) pages resourceVersion=0 lists too */
    return atomic_load(&s->rv0_limit) || !(rv && !strcmp(rv, "0"));
}

void simserver_set_rv0_limit(simserver *s, int on)
{
    atomic_store(&s->rv0_limit, on ? 1 : 0);
}

static enum MHD_Result do_list(simserver *s, struct MHD_Connection *c, const target *t)
{
    const char *ls = arg(c, "labelSelector"), *fs = arg(c, "fieldSelector");
    const char *lim = arg(c, "limit"), *cont = arg(c, "continue");
    const char *rvm = arg(c, "resourceVersionMatch"), *rvq = arg(c, "resourceVersion");
    if (rvm && *rvm) {
        if (!rvq || !*rvq)
            return send_status(c, 422,
                               "resourceVersionMatch is forbidden unless resourceVersion "
                               "is provided",
                               NULL);
        if (cont && *cont)
            return send_status(c, 422,
                               "resourceVersionMatch is forbidden when continue is "
                               "provided",
                               NULL);
    }
    if (arg(c, "sendInitialEvents"))
        return send_status(c, 422, "sendInitialEvents is forbidden for list", NULL);
    long limit = lim && *lim ? atol(lim) : 0;
    if (limit < 0 || !list_honours_limit(s, rvq)) limit = 0;
    uint64_t crv = 0;
    char *after_ns = NULL, *after_name = NULL;
    if (cont && *cont) {
        if (parse_continue(cont, &crv, &after_ns, &after_name))
            return send_status(c, 400, "continue key is not valid: illegal base64 data", NULL);
        if (crv < simstore_floor(s->o.store)) {
            free(after_ns);
            free(after_name);
            return send_status(c, 410,
                               "The provided continue parameter is too old to display a "
                               "consistent list result. You can start a new list without the "
                               "continue parameter.",
                               NULL);
        }
    }
    uint64_t rv = 0;
    char *nns = NULL, *nname = NULL, *msg = NULL;
    long remaining = 0;
    int st = 0;
    /* a List's items are the stored objects' own serializations (a Raw item), a Table's rows
     * are made from the objects */
    cJSON *items = (wants_table(c) ? simstore_list_page : simstore_list_page_raw)(
        s->o.store, t->res->plural, t->ns, ls, fs, (size_t)limit, after_ns, after_name, &rv, &nns,
        &nname, &remaining, &st, &msg);
    free(after_ns);
    free(after_name);
    if (!items) {
        enum MHD_Result r = send_status(c, st, msg, NULL);
        free(msg);
        return r;
    }
    if (crv) rv = crv;
    char *tok = nname ? continue_token(rv, nns, nname) : NULL;
    free(nns);
    free(nname);
    if ((ls && *ls) || (fs && *fs)) remaining = 0; /* as the apiserver: no count with selectors */
    cJSON *out;
    if (wants_table(c)) {
        out = make_table(t->res, items, rv, tok, remaining, 1, server_now(s));
        cJSON_Delete(items);
    } else {
        out = cJSON_CreateObject();
        char *kind = xasprintf("%sList", t->res->kind);
        char apiv[64];
        snprintf(apiv, sizeof apiv, "%s%s%s", t->res->group, t->res->group[0] ? "/" : "",
                 t->res->version);
        cJSON_AddStringToObject(out, "kind", kind);
        cJSON_AddStringToObject(out, "apiVersion", apiv);
        free(kind);
        cJSON *md = cJSON_AddObjectToObject(out, "metadata");
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
        cJSON_AddStringToObject(md, "resourceVersion", buf);
        if (tok) cJSON_AddStringToObject(md, "continue", tok);
        if (tok && remaining > 0) cJSON_AddNumberToObject(md, "remainingItemCount", remaining);
        cJSON_AddItemToObject(out, "items", items);
    }
    free(tok);
    return send_json(c, 200, out);
}

static enum MHD_Result send_obj(simserver *s, struct MHD_Connection *c, int code,
                                const sim_resource *r, cJSON *obj)
{
    if (wants_table(c)) {
        cJSON *one = cJSON_CreateArray();
        cJSON_AddItemToArray(one, obj);
        const cJSON *rvs = path(obj, "metadata", "resourceVersion", NULL);
        uint64_t rv = cJSON_IsString(rvs) ? strtoull(rvs->valuestring, NULL, 10) : 0;
        cJSON *t = make_table(r, one, rv, NULL, 0, 1, server_now(s));
        cJSON_Delete(one);
        return send_json(c, code, t);
    }
    return send_json(c, code, obj);
}

static enum MHD_Result store_error(struct MHD_Connection *c, int st, char *msg, const target *t)
{
    if (!st) st = 500;
    const char *reason = reason_for(st);
    if (st == 409 && msg && strstr(msg, "already exists")) reason = "AlreadyExists";
    enum MHD_Result r = send_json(c, st, status_obj(st, reason, msg ? msg : "internal error", t));
    free(msg);
    return r;
}

/* Strips what a client may not set on create: the server assigns them. */
static void strip_server_fields(cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *drop[] = {"uid",        "resourceVersion",   "creationTimestamp",
                          "generation", "deletionTimestamp", "managedFields"};
    for (size_t i = 0; md && i < sizeof drop / sizeof drop[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(md, drop[i]);
}

static int is_merge_patch(struct MHD_Connection *c)
{
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    return ct && !strncmp(ct, "application/merge-patch+json", 28);
}

static enum MHD_Result do_resource(simserver *s, struct MHD_Connection *c, const char *method,
                                   const target *t, req *rq, const char *user)
{
    simstore *st = s->o.store;
    int code = 0;
    char *msg = NULL;
    int is_get = !strcmp(method, "GET");
    if (t->sub && (strcmp(t->sub, "status") || t->res->group[0]) &&
        !(is_get && !strcmp(t->sub, "log") && !strcmp(t->res->plural, "pods")))
        return not_found(c);
    if (t->res->namespaced && !t->ns && (t->name || !is_get)) return not_found(c);
    const char *verb = is_get ? (t->name ? (arg_true(c, "watch") ? "watch" : "get")
                                         : (arg_true(c, "watch") ? "watch" : "list"))
                       : !strcmp(method, "POST")   ? "create"
                       : !strcmp(method, "PUT")    ? "update"
                       : !strcmp(method, "PATCH")  ? "patch"
                       : !strcmp(method, "DELETE") ? (t->name ? "delete" : "deletecollection")
                                                   : "unknown";
    if (FA(s)->slow && t->res && !strcmp(FA(s)->slow, t->res->plural)) usleep(1500 * 1000);
    if (forbidden_resource(s, t)) return send_forbidden(s, c, t, user, verb);
    if (is_get) {
        if (t->sub && !strcmp(t->sub, "log")) return do_log(s, c, t);
        if (arg_true(c, "watch")) return do_watch(s, c, t);
        if (!t->name) return do_list(s, c, t);
        cJSON *o = simstore_get(st, t->res->plural, t->ns, t->name);
        if (!o) {
            char *q = t->res->group[0] ? xasprintf("%s.%s", t->res->plural, t->res->group)
                                       : xstrdup(t->res->plural);
            char *m = xasprintf("%s \"%s\" not found", q, t->name);
            free(q);
            return store_error(c, 404, m, t);
        }
        return send_obj(s, c, 200, t->res, o);
    }
    cJSON *body = rq->body.len ? cJSON_ParseWithLength(rq->body.data, rq->body.len) : NULL;
    enum MHD_Result r;
    /* who writes, as kube-apiserver records it in managedFields */
    char mgr[160];
    sim_mf_writer w = {
        .manager = sim_mf_manager(arg(c, "fieldManager"),
                                  MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent"),
                                  mgr, sizeof mgr),
        .operation = "Update",
        .subresource = t->sub,
        .time = server_now(s)};
    if (!strcmp(method, "POST")) {
        if (t->name) {
            cJSON_Delete(body);
            return send_status(c, 405,
                               "the server does not allow this method on the requested "
                               "resource",
                               t);
        }
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return send_status(c, 400, "the body of the request was in an unknown format", NULL);
        }
        strip_server_fields(body);
        const cJSON *bn = path(body, "metadata", "name", NULL);
        target named = *t;
        named.name = cJSON_IsString(bn) ? xstrdup(bn->valuestring) : NULL;
        cJSON *o = simstore_create_as(st, t->res->plural, t->ns, body, &w, &code, &msg);
        if (!o) {
            r = store_error(c, code, msg, &named);
            free(named.name);
            return r;
        }
        free(named.name);
        if (!strcmp(t->res->plural, "downloadrequests")) atomic_fetch_add(&s->dr_created, 1);
        return send_obj(s, c, 201, t->res, o);
    }
    if (!t->name) {
        if (!strcmp(method, "DELETE")) {
            /* deletecollection: delete what matches, answer the list of deleted objects */
            uint64_t rv;
            cJSON *items = simstore_list(st, t->res->plural, t->ns, arg(c, "labelSelector"),
                                         arg(c, "fieldSelector"), &rv, &code, &msg);
            cJSON_Delete(body);
            if (!items) return store_error(c, code, msg, NULL);
            cJSON *it;
            cJSON_ArrayForEach(it, items)
            {
                const cJSON *n = path(it, "metadata", "name", NULL);
                const cJSON *ns = path(it, "metadata", "namespace", NULL);
                cJSON_Delete(simstore_delete(st, t->res->plural,
                                             cJSON_IsString(ns) ? ns->valuestring : NULL,
                                             n->valuestring, NULL, NULL));
            }
            cJSON *out = cJSON_CreateObject();
            char *kind = xasprintf("%sList", t->res->kind);
            cJSON_AddStringToObject(out, "kind", kind);
            free(kind);
            cJSON_AddObjectToObject(out, "metadata");
            cJSON_AddItemToObject(out, "items", items);
            return send_json(c, 200, out);
        }
        cJSON_Delete(body);
        return send_status(c, 405,
                           "the server does not allow this method on the requested resource", t);
    }
    int status_only = t->sub != NULL;
    if (!strcmp(method, "PUT")) {
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return send_status(c, 400, "the body of the request was in an unknown format", NULL);
        }
        cJSON *o = simstore_update_as(st, t->res->plural, t->ns, t->name, body, status_only, &w,
                                      &code, &msg);
        if (!o) return store_error(c, code, msg, t);
        return send_obj(s, c, 200, t->res, o);
    }
    if (!strcmp(method, "PATCH")) {
        if (!is_merge_patch(c)) {
            cJSON_Delete(body);
            return send_status(c, 415,
                               "the body of the request was in an unknown format - accepted media "
                               "types include: application/json-patch+json, "
                               "application/merge-patch+json, application/apply-patch+yaml",
                               t);
        }
        if (!cJSON_IsObject(body)) {
            cJSON_Delete(body);
            return send_status(c, 400, "the body of the request was in an unknown format", NULL);
        }
        cJSON *o = simstore_merge_patch_as(st, t->res->plural, t->ns, t->name, body, status_only,
                                           &w, &code, &msg);
        cJSON_Delete(body);
        if (!o) return store_error(c, code, msg, t);
        return send_obj(s, c, 200, t->res, o);
    }
    if (!strcmp(method, "DELETE") && !t->sub) {
        cJSON_Delete(body);
        cJSON *o = simstore_delete(st, t->res->plural, t->ns, t->name, &code, &msg);
        if (!o) return store_error(c, code, msg, t);
        cJSON *stj = status_obj(200, NULL, NULL, t);
        const cJSON *uid = path(o, "metadata", "uid", NULL);
        if (cJSON_IsString(uid))
            cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(stj, "details"), "uid",
                                    uid->valuestring);
        cJSON_Delete(o);
        r = send_json(c, 200, stj);
        return r;
    }
    cJSON_Delete(body);
    return send_status(c, 405, "the server does not allow this method on the requested resource",
                       t);
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
        if (atomic_load(&d->s->stopping) || peer_closed(d->conn))
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
        return queue(c, status ? status : 404, "text/plain", xstrdup(m), strlen(m));
    }
    if (FA(s)->dl_expired && atomic_fetch_add(&s->dl_expired_done, 1) < FA(s)->dl_expired) {
        /* what S3 answers for a presigned URL past its X-Amz-Expires */
        atomic_fetch_add(&s->fired[F_DL_EXPIRED], 1);
        free(data);
        const char *m =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
            "<Message>Request has expired</Message><X-Amz-Expires>600</X-Amz-Expires>"
            "<RequestId>0000000000000000</RequestId></Error>";
        return queue(c, 403, "application/xml", xstrdup(m), strlen(m));
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
    return queue(c, 200, "application/octet-stream", (char *)data, len);
}

char *simserver_stats_json(simserver *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "requests", (double)atomic_load(&s->requests));
    cJSON_AddNumberToObject(j, "watches", (double)atomic_load(&s->watches));
    cJSON_AddNumberToObject(j, "downloadRequestsCreated", (double)atomic_load(&s->dr_created));
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

static enum MHD_Result dispatch(simserver *s, struct MHD_Connection *c, const char *url,
                                const char *method, req *rq)
{
    atomic_fetch_add(&s->requests, 1);
    if (!strcmp(url, "/debug/faults-off") && !strcmp(method, "POST")) {
        atomic_store(&s->faults_off, 1);
        return queue(c, 200, "text/plain", xstrdup("faults off\n"), 11);
    }
    if (!strcmp(url, "/debug/stats")) {
        char *j = simserver_stats_json(s);
        return queue(c, 200, "application/json", j, strlen(j));
    }
    if (!strncmp(url, "/download/", 10)) return do_download(s, c, url + 10);
    if (!strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz"))
        return queue(c, 200, "text/plain", xstrdup("ok"), 2);
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
        return send_json(c, 200, v);
    }
    char *user = authenticate(s, c);
    if (!user) return send_status(c, 401, "Unauthorized", NULL);
    enum MHD_Result r;
    long n = atomic_fetch_add(&s->api_requests, 1) + 1;
    if (FA(s)->error500 && n % FA(s)->error500 == 0) {
        atomic_fetch_add(&s->fired[F_ERROR500], 1);
        r = send_status(c, 500,
                        "an error on the server (\"injected fault\") has prevented the "
                        "request from succeeding",
                        NULL);
        goto out;
    }
    if (FA(s)->error429 && n % FA(s)->error429 == 0) {
        atomic_fetch_add(&s->fired[F_ERROR429], 1);
        cJSON *st = status_obj(429, reason_for(429),
                               "the server has received too many requests and has asked us to "
                               "try again later",
                               NULL);
        char *body = cJSON_PrintUnformatted(st);
        cJSON_Delete(st);
        r = queue_body(c, 429, "application/json", body, strlen(body), 0, FA(s)->retry_after);
        goto out;
    }
    if ((FA(s)->throttle_list || FA(s)->throttle_watch) && !strcmp(method, "GET") &&
        throttle(s, c, url)) {
        atomic_fetch_add(&s->fired[F_THROTTLE], 1);
        cJSON *st = status_obj(429, reason_for(429),
                               "the server has received too many requests and has asked us to "
                               "try again later",
                               NULL);
        char *body = cJSON_PrintUnformatted(st);
        cJSON_Delete(st);
        r = queue_body(c, 429, "application/json", body, strlen(body), 0, FA(s)->retry_after);
        goto out;
    }
    maybe_expire(s);
    if (!strncmp(url, "/openapi", 8)) {
        r = not_found(c);
        goto out;
    }
    if (!strcmp(url, "/api") || !strcmp(url, "/api/")) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", "APIVersions");
        const char *v1 = "v1";
        cJSON_AddItemToObject(j, "versions", str_array(&v1, 1));
        cJSON *arr = cJSON_AddArrayToObject(j, "serverAddressByClientCIDRs");
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "clientCIDR", "0.0.0.0/0");
        char *addr = xasprintf("%s:%d", s->host, s->port);
        cJSON_AddStringToObject(e, "serverAddress", addr);
        free(addr);
        cJSON_AddItemToArray(arr, e);
        r = send_json(c, 200, j);
        goto out;
    }
    if (!strcmp(url, "/apis") || !strcmp(url, "/apis/")) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", "APIGroupList");
        cJSON_AddStringToObject(j, "apiVersion", "v1");
        cJSON *groups = cJSON_AddArrayToObject(j, "groups");
        cJSON_AddItemToArray(groups, velero_group());
        sim_kinds_add_groups(groups);
        r = send_json(c, 200, j);
        goto out;
    }
    if (!strcmp(method, "GET") && (discovery_other(c, url, &r) || empty_list(s, c, url, &r)))
        goto out;
    if (!strcmp(url, "/apis/velero.io") || !strcmp(url, "/apis/velero.io/")) {
        cJSON *g = velero_group();
        cJSON_AddStringToObject(g, "kind", "APIGroup");
        cJSON_AddStringToObject(g, "apiVersion", "v1");
        r = send_json(c, 200, g);
        goto out;
    }
    if (!strcmp(url, "/api/v1")) {
        r = send_json(c, 200, resource_list("", "v1"));
        goto out;
    }
    if (!strcmp(url, "/apis/velero.io/v1") || !strcmp(url, "/apis/velero.io/v2alpha1")) {
        r = send_json(c, 200, resource_list("velero.io", url + strlen("/apis/velero.io/")));
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
        r = send_json(c, 200, j);
        goto out;
    }
    target t;
    if (parse_target(url, &t)) {
        r = not_found(c);
        goto out;
    }
    r = do_resource(s, c, method, &t, rq, user);
    target_free(&t);
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
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
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
