/* simctl.c: the simulated Velero controller: plays a scenario's backups and restores over
 * simulated time on its own thread, writing everything through simstore (so watches see it),
 * feeding the server pod's log, and serving artifacts for DownloadRequests.
 *
 * Every run is planned once (its timeline, log lines and item list are pure functions of the
 * scenario and the seed); each tick computes the status every object should have at the current
 * simulated time and writes only what changed. Item values sit on a 1 s grid and byte values on a
 * 10 s grid from their start, as Velero's tickers produce them. */
#include "simctl.h"

#include <math.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "artifacts.h"
#include "kubeclient/util.h"
#include "restic.h"
#include "scenario.h"
#include "simlog.h"

#define TICK_MS        40
#define POD_LOG_WINDOW 900.0 /* the server pod started this long before the sim */
#define DR_TTL         600.0 /* DownloadRequest URL lifetime, real seconds */

/* ---- resource naming ---- */

typedef struct res_info {
    const char *gr, *gv, *kind;
    int namespaced;
} res_info;

static const res_info known_res[] = {
    {"namespaces", "v1", "Namespace", 0},
    {"pods", "v1", "Pod", 1},
    {"persistentvolumeclaims", "v1", "PersistentVolumeClaim", 1},
    {"persistentvolumes", "v1", "PersistentVolume", 0},
    {"serviceaccounts", "v1", "ServiceAccount", 1},
    {"secrets", "v1", "Secret", 1},
    {"configmaps", "v1", "ConfigMap", 1},
    {"services", "v1", "Service", 1},
    {"endpoints", "v1", "Endpoints", 1},
    {"events", "v1", "Event", 1},
    {"limitranges", "v1", "LimitRange", 1},
    {"resourcequotas", "v1", "ResourceQuota", 1},
    {"nodes", "v1", "Node", 0},
    {"endpointslices.discovery.k8s.io", "discovery.k8s.io/v1", "EndpointSlice", 1},
    {"deployments.apps", "apps/v1", "Deployment", 1},
    {"replicasets.apps", "apps/v1", "ReplicaSet", 1},
    {"statefulsets.apps", "apps/v1", "StatefulSet", 1},
    {"daemonsets.apps", "apps/v1", "DaemonSet", 1},
    {"controllerrevisions.apps", "apps/v1", "ControllerRevision", 1},
    {"jobs.batch", "batch/v1", "Job", 1},
    {"cronjobs.batch", "batch/v1", "CronJob", 1},
    {"horizontalpodautoscalers.autoscaling", "autoscaling/v2", "HorizontalPodAutoscaler", 1},
    {"poddisruptionbudgets.policy", "policy/v1", "PodDisruptionBudget", 1},
    {"ingresses.networking.k8s.io", "networking.k8s.io/v1", "Ingress", 1},
    {"networkpolicies.networking.k8s.io", "networking.k8s.io/v1", "NetworkPolicy", 1},
    {"roles.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "Role", 1},
    {"rolebindings.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "RoleBinding", 1},
    {"clusterroles.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "ClusterRole", 0},
    {"clusterrolebindings.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1",
     "ClusterRoleBinding", 0},
    {"storageclasses.storage.k8s.io", "storage.k8s.io/v1", "StorageClass", 0},
    {"volumesnapshotclasses.snapshot.storage.k8s.io", "snapshot.storage.k8s.io/v1",
     "VolumeSnapshotClass", 0},
    {"volumesnapshots.snapshot.storage.k8s.io", "snapshot.storage.k8s.io/v1", "VolumeSnapshot", 1},
    {"volumesnapshotcontents.snapshot.storage.k8s.io", "snapshot.storage.k8s.io/v1",
     "VolumeSnapshotContent", 0},
    {"customresourcedefinitions.apiextensions.k8s.io", "apiextensions.k8s.io/v1",
     "CustomResourceDefinition", 0},
    {"leases.coordination.k8s.io", "coordination.k8s.io/v1", "Lease", 1},
    {"certificates.cert-manager.io", "cert-manager.io/v1", "Certificate", 1},
    {"issuers.cert-manager.io", "cert-manager.io/v1", "Issuer", 1},
    {"servicemonitors.monitoring.coreos.com", "monitoring.coreos.com/v1", "ServiceMonitor", 1},
    {"prometheusrules.monitoring.coreos.com", "monitoring.coreos.com/v1", "PrometheusRule", 1},
};

/* One resource of a planned run: names for the log lines and the resource list. */
typedef struct pres {
    char *gr;        /* "deployments.apps" */
    char *bare;      /* "deployments" */
    char *list_key;  /* "apps/v1/Deployment" */
    char *groupkind; /* "Deployment.apps" */
    int namespaced;
    int items, added;
    int first; /* index of its first item in processing order */
} pres;

static void pres_init(pres *p, const char *gr)
{
    memset(p, 0, sizeof *p);
    p->gr = xstrdup(gr);
    const char *dot = strchr(gr, '.');
    p->bare = dot ? xstrndup(gr, (size_t)(dot - gr)) : xstrdup(gr);
    const char *group = dot ? dot + 1 : "";
    for (size_t i = 0; i < sizeof known_res / sizeof known_res[0]; i++)
        if (!strcmp(known_res[i].gr, gr)) {
            p->list_key = xasprintf("%s/%s", known_res[i].gv, known_res[i].kind);
            p->groupkind = xasprintf("%s%s%s", known_res[i].kind, *group ? "." : "", group);
            p->namespaced = known_res[i].namespaced;
            return;
        }
    /* Unknown: derive the Kind from the plural ("widgets.example.com" -> Widget). */
    char *kind = xstrdup(p->bare);
    size_t n = strlen(kind);
    if (n > 1 && kind[n - 1] == 's') kind[n - 1] = '\0';
    if (kind[0] >= 'a' && kind[0] <= 'z') kind[0] = (char)(kind[0] - 'a' + 'A');
    p->list_key = *group ? xasprintf("%s/v1/%s", group, kind) : xasprintf("v1/%s", kind);
    p->groupkind = xasprintf("%s%s%s", kind, *group ? "." : "", group);
    p->namespaced = 1;
    free(kind);
}

static void pres_clear(pres *p)
{
    free(p->gr);
    free(p->bare);
    free(p->list_key);
    free(p->groupkind);
}

/* ---- planned runs ---- */

typedef struct pline {
    double t;
    char *text;
} pline;

typedef struct pvol {
    scn_volume *sv;
    char *name; /* object name */
    char *node;
    char *pod_uid, *pvc_uid, *op_id, *snapshot_id;
    double t_create, t_accept, t_prepare, t_start, t_end;
    double t_stall_begin; /* when bytes stop moving, INFINITY = never */
    int fails;            /* ends Failed at t_end */
    double t_cancel;      /* parent failed: Canceled at this time, INFINITY = never */
    int exists, done, gone;
    cJSON *last;
    restic_job *real;        /* restic-real: the running job, NULL when simulated */
    const struct run *owner; /* its run (pacing) */
    int real_state;          /* 0 not started, 1 running, 2 finished, 3 fell back to simulation */
    int64_t real_total, real_done;
    double real_last_patch;
} pvol;

typedef struct run {
    scn_run sr;
    int is_restore;
    char *uid;
    char *backup_schedule; /* restores: the schedule label of their backup */
    double t0, t_start, t_items0, t_fail, t_pass_end, t_ops_seen, t_final;
    const char *final_phase;
    int n_items, fail_item, est0;
    int errors; /* effective error count (Failed runs have at least 1) */
    pres *res;
    size_t nres;
    pvol *vols;
    size_t nvols;
    int n_du;
    pline *lines;
    size_t nlines, emitted;
    artifacts_result_entry *errs, *warns;
    char **msgs; /* storage for errs/warns messages */
    size_t nmsgs;
    int exists, finished, gone;
    cJSON *last;
    uint64_t pace_seed; /* jitter draws (pacing) */
} run;

struct simctl {
    simstore *store;
    simctl_opts opts;
    char *base_url, *ns, *pod, *restic;
    scenario *scn;
    double epoch;    /* simulated unix time at start */
    int64_t t0_ms;   /* monotonic ms at start */
    uint64_t rng;    /* seeded: names and uids */
    uint64_t tokrng; /* tokens: not seeded */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int stop;
    run **runs;
    size_t nruns;
    double *sched_next;
    double last_bsl;
    double last_dr_scan;
    simstore_watch *adopt_w[2]; /* backups, restores: runs created by others */
    simstore_watch *dr_w;       /* downloadrequests: a pass only when one changed */
    int64_t dr_last_pass;       /* real ms of the last full pass (expiry, late targets) */
    double manual_now;          /* opts.manual: the simulated time simctl_advance set */
    struct token {
        char tok[40];
        char *kind, *target;
        double expires; /* wall clock */
    } * tokens;
    size_t ntokens;
};

static uint64_t rng_next(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_suffix(simctl *c, char *out, int n)
{
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < n; i++) out[i] = alpha[rng_next(&c->rng) % (sizeof alpha - 1)];
    out[n] = '\0';
}

static char *rng_uuid(uint64_t *st)
{
    uint64_t a = rng_next(st), b = rng_next(st);
    return xasprintf("%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
                     (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
                     (unsigned)((b >> 48) & 0x3fff) | 0x8000,
                     (unsigned long long)(b & 0xffffffffffffULL));
}

static double sim_now(const simctl *c)
{
    if (c->opts.manual) return c->manual_now;
    return c->epoch + (double)(kc_now_ms() - c->t0_ms) / 1000.0 * c->opts.speed;
}

static void fmt_time(double t, char *buf, size_t n)
{
    kc_format_time(floor(t), buf, n);
}

static void add_time(cJSON *o, const char *key, double t)
{
    char ts[40];
    fmt_time(t, ts, sizeof ts);
    cJSON_AddStringToObject(o, key, ts);
}

/* ---- planning ---- */

static const char *apps[] = {"web",      "api",    "worker", "postgres", "redis", "frontend",
                             "checkout", "ledger", "search", "gateway",  "cart",  "mailer"};
#define N_APPS (sizeof apps / sizeof apps[0])

static const char *run_ns(const run *r, size_t k)
{
    static const char *def[] = {"default"};
    if (r->sr.n_namespaces) return r->sr.namespaces[k % r->sr.n_namespaces];
    return def[0];
}

static size_t run_nns(const run *r)
{
    return r->sr.n_namespaces ? r->sr.n_namespaces : 1;
}

/* The k-th item (0-based within its resource): namespace (NULL for cluster-scoped) and name. */
static void item_id(const run *r, const pres *p, int k, const char **ns, char *name, size_t n)
{
    size_t nns = run_nns(r);
    if (!strcmp(p->gr, "namespaces")) {
        *ns = NULL;
        if ((size_t)k < nns)
            snprintf(name, n, "%s", run_ns(r, (size_t)k));
        else
            snprintf(name, n, "%s-%d", run_ns(r, (size_t)k), k / (int)nns);
        return;
    }
    *ns = p->namespaced ? run_ns(r, (size_t)k) : NULL;
    const char *app = apps[((size_t)k / nns) % N_APPS];
    int gen = (int)((size_t)k / nns / N_APPS);
    unsigned h = (unsigned)k * 2654435761u ^ (unsigned)strlen(p->gr) * 40503u;
    if (!strcmp(p->gr, "pods"))
        snprintf(name, n, "%s-%d-%05x", app, gen, h & 0xfffff);
    else if (!strcmp(p->gr, "replicasets.apps"))
        snprintf(name, n, "%s-%d-%08x", app, gen, h);
    else if (!p->namespaced)
        snprintf(name, n, "%s-%s-%d", app, p->bare, gen);
    else if (gen)
        snprintf(name, n, "%s-%d", app, gen);
    else
        snprintf(name, n, "%s", app);
}

static void add_line(run *r, double t, const char *level, const char *msg, simlog_field *f,
                     size_t nf)
{
    r->lines = xrealloc(r->lines, (r->nlines + 1) * sizeof *r->lines);
    r->lines[r->nlines].t = t;
    r->lines[r->nlines].text = simlog_line(t, level, msg, f, nf);
    r->nlines++;
}

static double vol_bytes_at(const pvol *v, double t);

/* ---- pacing: a run's speed over its life (scenario pace profile x seeded jitter) ---- */

#define PACE_SEG 5.0 /* jitter is drawn per this many simulated seconds */

static int pace_on(const run *r)
{
    return r->sr.n_pace || r->sr.jitter > 0;
}

/* The speed factor of segment k (from k x PACE_SEG s after the run's items start). */
static double pace_factor(const run *r, long k)
{
    double t = (double)k * PACE_SEG, f = 1;
    for (size_t i = 0; i < r->sr.n_pace; i++)
        if (t >= r->sr.pace_at[i]) f = r->sr.pace_factor[i];
    if (r->sr.jitter > 0) {
        uint64_t st = r->pace_seed ^ ((uint64_t)k * 0xd1b54a32d192ed03ULL);
        double u = (double)(rng_next(&st) >> 11) / 9007199254740992.0 * 2 - 1;
        f *= 1 + r->sr.jitter * u;
    }
    return f > 1e-3 ? f : 1e-3;
}

/* Work (in seconds at the nominal rate) done x seconds after the items start: the integral of
 * the factor. The identity without pacing. */
static double pace_work(const run *r, double x)
{
    if (!pace_on(r) || !(x > 0) || !isfinite(x)) return x;
    double w = 0;
    long k = 0;
    for (; (double)(k + 1) * PACE_SEG <= x; k++) w += pace_factor(r, k) * PACE_SEG;
    return w + pace_factor(r, k) * (x - (double)k * PACE_SEG);
}

/* The inverse: seconds after the items start when work w is done. */
static double pace_time(const run *r, double w)
{
    if (!pace_on(r) || !(w > 0) || !isfinite(w)) return w;
    double x = 0;
    for (long k = 0;; k++, x += PACE_SEG) {
        double f = pace_factor(r, k);
        if (w <= f * PACE_SEG) return x + w / f;
        w -= f * PACE_SEG;
    }
}

/* Simulated time when work w (nominal seconds) has been done from time a on. */
static double pace_after(const run *r, double a, double w)
{
    if (!pace_on(r) || !isfinite(a) || !isfinite(w)) return a + w;
    return r->t_items0 + pace_time(r, pace_work(r, a - r->t_items0) + w);
}

/* Work done between times a <= b. */
static double pace_between(const run *r, double a, double b)
{
    if (!pace_on(r)) return b - a;
    return pace_work(r, b - r->t_items0) - pace_work(r, a - r->t_items0);
}

/* Items done at simulated time t on the 1 s grid, before the final patch. */
static int items_at(const run *r, double t)
{
    if (t < r->t_items0) return 0;
    double tq = r->t_items0 + floor(t - r->t_items0);
    int d = (int)floor(pace_work(r, tq - r->t_items0) * r->sr.rate + 1e-9);
    if (d > r->n_items) d = r->n_items;
    if (r->fail_item >= 0 && d > r->fail_item) d = r->fail_item;
    return d;
}

static int estimate_at(const run *r, int done)
{
    int total = 0;
    for (size_t i = 0; i < r->nres; i++)
        total += done > r->res[i].first ? r->res[i].items : r->res[i].items - r->res[i].added;
    return total;
}

static double item_time(const run *r, int k) /* when item k (0-based) is done */
{
    return r->t_items0 + pace_time(r, (k + 1) / r->sr.rate);
}

static const char *err_texts[] = {
    ("error executing custom action (groupResource=pods, namespace=%s, name=%s): rpc error: "
     "code = Unknown desc = timed out waiting for hook to complete"),
    "error getting volume info for %s/%s: volume snapshot not ready",
    "failed to get pod volume backup for %s/%s: context deadline exceeded",
};
static const char *warn_texts[] = {
    "skipping item %s/%s because it is being deleted",
    ("could not restore, %s/%s already exists. Warning: the in-cluster version is different "
     "than the backed-up version"),
    "volume %s/%s has no snapshot location, skipping",
};

/* Keeps a results message alive for the run's lifetime. */
static void add_result(run *r, char *msg)
{
    r->msgs = xrealloc(r->msgs, (r->nmsgs + 1) * sizeof *r->msgs);
    r->msgs[r->nmsgs++] = msg;
}

/* The apiserver's generateName "<run>-": the prefix cut to 58 characters, then 5 random ones. */
static char *generated_name(const char *run_name, const char *suffix)
{
    char *prefix = xasprintf("%s-", run_name);
    char *name = xasprintf("%.58s%s", prefix, suffix);
    free(prefix);
    return name;
}

/* Plans volumes: creation when pods begin, phases, stall, completion. */
static void plan_volumes(simctl *c, run *r, double t_pods)
{
    r->nvols = r->sr.n_volumes;
    r->vols = r->nvols ? xcalloc(r->nvols, sizeof *r->vols) : NULL;
    for (size_t i = 0; i < r->nvols; i++) {
        pvol *v = &r->vols[i];
        scn_volume *sv = &r->sr.volumes[i];
        v->sv = sv;
        char suf[8];
        rng_suffix(c, suf, 5);
        v->name = generated_name(r->sr.name, suf);
        v->node = sv->node ? xstrdup(sv->node) : xasprintf("worker-%zu", i % 3 + 1);
        v->pod_uid = rng_uuid(&c->rng);
        v->pvc_uid = rng_uuid(&c->rng);
        char *u = rng_uuid(&c->rng);
        v->op_id = xasprintf("%s-%s", r->is_restore ? "dd" : "du", u);
        free(u);
        v->snapshot_id = xasprintf("%016llx%016llx", (unsigned long long)rng_next(&c->rng),
                                   (unsigned long long)rng_next(&c->rng));
        if (sv->uploader == SCN_DATAMOVER) r->n_du++;
        v->t_create = t_pods + 0.2 * (double)i;
        v->t_accept = v->t_create + 1;
        v->t_prepare = v->t_create + 2;
        v->t_start = v->t_create + 3;
        v->owner = r;
        double size = (double)sv->size, rate = sv->rate > 0 ? sv->rate : 1;
        double stall_at = sv->stall_after >= 0 ? sv->stall_after * size : INFINITY;
        double fail_at = sv->fail_after >= 0 ? sv->fail_after * size : INFINITY;
        v->t_stall_begin = stall_at < size && stall_at < fail_at
                               ? pace_after(r, v->t_start, stall_at / rate)
                               : INFINITY;
        double stall_len =
            isfinite(v->t_stall_begin) ? (sv->stall_for > 0 ? sv->stall_for : INFINITY) : 0;
        double end_bytes = fail_at < size ? fail_at : size;
        v->fails = fail_at < size;
        v->t_end = isfinite(v->t_stall_begin)
                       ? pace_after(r, v->t_stall_begin + stall_len, (end_bytes - stall_at) / rate)
                       : pace_after(r, v->t_start, end_bytes / rate);
        v->t_cancel = INFINITY;
    }
}

/* Bytes done at time t, continuous (before the 10 s grid). */
static double vol_bytes_at(const pvol *v, double t)
{
    if (t <= v->t_start) return 0;
    double rate = v->sv->rate > 0 ? v->sv->rate : 1;
    const run *r = v->owner;
    double el = pace_between(r, v->t_start, t);
    if (t > v->t_stall_begin) {
        double stall_len = v->sv->stall_for > 0 ? v->sv->stall_for : INFINITY;
        double before = pace_between(r, v->t_start, v->t_stall_begin);
        el = t < v->t_stall_begin + stall_len
                 ? before
                 : before + pace_between(r, v->t_stall_begin + stall_len, t);
    }
    double b = el * rate;
    double cap = v->fails ? v->sv->fail_after * (double)v->sv->size : (double)v->sv->size;
    return b > cap ? cap : b;
}

static void plan_run(simctl *c, run *r)
{
    scn_run *s = &r->sr;
    r->is_restore = s->kind == SCN_RESTORE;
    if (!s->n_namespaces && c->scn->n_namespaces) {
        s->namespaces = xcalloc(c->scn->n_namespaces, sizeof *s->namespaces);
        for (size_t i = 0; i < c->scn->n_namespaces; i++)
            s->namespaces[i] = xstrdup(c->scn->namespaces[i]);
        s->n_namespaces = c->scn->n_namespaces;
    }
    r->uid = rng_uuid(&c->rng);
    r->pace_seed = (uint64_t)c->opts.seed * 0x9e3779b97f4a7c15ULL;
    for (const char *q = s->name; q && *q; q++)
        r->pace_seed = (r->pace_seed ^ (uint8_t)*q) * 1099511628211ULL;
    r->t0 = c->epoch + s->start;
    r->t_start = r->t0 + (r->is_restore ? 1.0 : 1.5);
    r->t_items0 = r->t_start + 0.5;
    r->nres = s->n_resources;
    r->res = r->nres ? xcalloc(r->nres, sizeof *r->res) : NULL;
    r->n_items = 0;
    for (size_t i = 0; i < r->nres; i++) {
        pres_init(&r->res[i], s->resources[i].name);
        r->res[i].items = s->resources[i].items;
        r->res[i].added = s->resources[i].added;
        r->res[i].first = r->n_items;
        r->n_items += s->resources[i].items;
    }
    r->est0 = estimate_at(r, 0);
    int failed = s->outcome && !strcmp(s->outcome, "Failed");
    r->errors = failed && s->errors < 1 ? 1 : s->errors;
    r->fail_item = failed ? (int)floor(s->fail_at * r->n_items) : -1;
    r->t_fail =
        failed ? (r->fail_item > 0 ? item_time(r, r->fail_item - 1) : r->t_items0) + 0.5 : INFINITY;

    double t_pods = r->t_items0;
    for (size_t i = 0; i < r->nres; i++)
        if (!strcmp(r->res[i].gr, "pods"))
            t_pods = r->t_items0 + pace_time(r, r->res[i].first / s->rate);
    plan_volumes(c, r, t_pods);

    int vol_failed = 0;
    double t_items_end = r->n_items ? item_time(r, r->n_items - 1) : r->t_items0;
    double pass_end = t_items_end, ops_end = 0;
    for (size_t i = 0; i < r->nvols; i++) {
        pvol *v = &r->vols[i];
        if (v->fails) vol_failed = 1;
        if (v->sv->uploader == SCN_DATAMOVER)
            ops_end = fmax(ops_end, v->t_end);
        else
            pass_end = fmax(pass_end, v->t_end);
    }
    if (failed) {
        r->t_pass_end = r->t_fail;
        r->t_ops_seen = r->t_fail;
        r->t_final = r->t_fail;
        r->final_phase = "Failed";
        for (size_t i = 0; i < r->nvols; i++) {
            pvol *v = &r->vols[i];
            if (v->t_create >= r->t_fail)
                v->t_create = INFINITY; /* never created */
            else if (v->t_end > r->t_fail)
                v->t_cancel = r->t_fail + 0.5;
        }
    } else {
        r->t_pass_end = pass_end + 0.5;
        if (r->n_du && ops_end > r->t_pass_end)
            r->t_ops_seen = r->t_pass_end + 10 * ceil((ops_end - r->t_pass_end) / 10);
        else
            r->t_ops_seen = r->t_pass_end;
        r->t_final = r->t_ops_seen + 1;
        r->final_phase = s->outcome                      ? s->outcome
                         : (r->errors > 0 || vol_failed) ? "PartiallyFailed"
                                                         : "Completed";
    }

    /* Results: errors and warnings spread over the items' namespaces. */
    r->errs = r->errors ? xcalloc((size_t)r->errors, sizeof *r->errs) : NULL;
    r->warns = s->warnings ? xcalloc((size_t)s->warnings, sizeof *r->warns) : NULL;

    /* Log lines, in time order. */
    char who[300], name[200];
    snprintf(who, sizeof who, "%s/%s", c->ns, s->name);
    const char *wk = r->is_restore ? "restore" : "backup";
    const char *src = r->is_restore ? "pkg/restore/restore.go:" : "pkg/backup/backup.go:";
    char ls[64];
#define F(k, v) {k, v}
    {
        simlog_field f[] = {
            F(wk, who), F("logSource", r->is_restore ? "pkg/controller/restore_controller.go:520"
                                                     : "pkg/controller/backup_controller.go:670")};
        add_line(r, r->t_start, "info",
                 r->is_restore ? "Setting up restore log" : "Setting up backup log", f, 2);
        if (r->is_restore) {
            char m[300];
            snprintf(m, sizeof m, "starting restore of backup %s/%s", c->ns,
                     s->backup ? s->backup : "");
            add_line(r, r->t_start, "info", m, f, 2);
        } else {
            add_line(r, r->t_start, "info", "Setting up backup temp file", f, 2);
            add_line(r, r->t_start, "info", "Setting up plugin manager", f, 2);
            add_line(r, r->t_start, "info", "Getting backup item actions", f, 2);
        }
        kc_buf inc = {0};
        for (size_t i = 0; i < run_nns(r); i++)
            kc_buf_printf(&inc, "%s%s", i ? ", " : "", run_ns(r, i));
        char m[600];
        snprintf(m, sizeof m, "Including namespaces: %s", kc_buf_cstr(&inc));
        kc_buf_free(&inc);
        simlog_field f2[] = {F(wk, who),
                             F("logSource", r->is_restore ? "pkg/restore/restore.go:280"
                                                          : "pkg/backup/backup.go:260")};
        add_line(r, r->t_start, "info", m, f2, 2);
        add_line(r, r->t_start, "info", "Excluding namespaces: <none>", f2, 2);
    }
    double tc = r->t_start + 0.1;
    size_t nns = run_nns(r);
    for (size_t i = 0; i < r->nres; i++) {
        pres *p = &r->res[i];
        int known = p->items - p->added;
        if (!r->is_restore) {
            simlog_field g[] = {F(wk, who), F("logSource", "pkg/backup/item_collector.go:330"),
                                F("resource", p->bare)};
            add_line(r, tc, "info", "Getting items for resource", g, 3);
        }
        size_t nloop =
            p->namespaced ? (nns < (size_t)known ? nns : (size_t)(known ? known : 1)) : 1;
        for (size_t j = 0; j < nloop; j++) {
            int cnt = p->namespaced ? known / (int)nns + ((int)j < known % (int)nns) : known;
            const char *nsn = p->namespaced ? run_ns(r, j) : "";
            if (r->is_restore) {
                char m[300];
                if (p->namespaced)
                    snprintf(m, sizeof m, "Restoring resource '%s' into namespace '%s'", p->gr,
                             nsn);
                else
                    snprintf(m, sizeof m, "Restoring cluster level resource '%s'", p->gr);
                simlog_field g[] = {F(wk, who), F("logSource", "pkg/restore/restore.go:610")};
                add_line(r, tc, "info", m, g, 2);
                continue;
            }
            simlog_field g[] = {F(wk, who), F("logSource", "pkg/backup/item_collector.go:470"),
                                F("namespace", nsn), F("resource", p->bare)};
            add_line(r, tc, "info", "Listing items", g, 4);
            char m[64];
            snprintf(m, sizeof m, "Retrieved %d items", cnt);
            g[1].val = "pkg/backup/item_collector.go:496";
            add_line(r, tc, "info", m, g, 4);
        }
    }
    if (!r->is_restore) {
        char m[400];
        snprintf(
            m, sizeof m,
            "Collected %d items matching the backup spec from the Kubernetes API (actual number "
            "of items backed up may be more or less depending on velero.io/exclude-from-backup "
            "annotation, plugins returning additional related items to back up, etc.)",
            r->est0);
        simlog_field g[] = {F(wk, who), F("logSource", "pkg/backup/backup.go:480"),
                            F("progress", "")};
        add_line(r, tc, "info", m, g, 3);
    }
    int last_items = r->fail_item >= 0 ? r->fail_item : r->n_items;
    int n_err_spread = failed ? r->errors - 1 : r->errors;
    int ei = 0, wi = 0;
    size_t ri = 0;
    for (int k = 0; k < last_items; k++) {
        while (ri + 1 < r->nres && k >= r->res[ri].first + r->res[ri].items) ri++;
        pres *p = &r->res[ri];
        const char *nsn;
        item_id(r, p, k - p->first, &nsn, name, sizeof name);
        double tk = item_time(r, k);
        double tp = tk - 0.5 / s->rate;
        if (!r->is_restore) {
            simlog_field g[] = {F(wk, who),        F("logSource", "pkg/backup/backup.go:452"),
                                F("name", name),   F("namespace", nsn ? nsn : ""),
                                F("progress", ""), F("resource", p->gr)};
            add_line(r, tp, "info", "Processing item", g, 6);
            g[1].val = "pkg/backup/item_backupper.go:180";
            add_line(r, tp, "info", "Backing up item", g, 6);
        } else {
            char m[300];
            snprintf(m, sizeof m, "Attempting to restore %s: %s", p->groupkind, name);
            simlog_field g[] = {F(wk, who),        F("logSource", "pkg/restore/restore.go:1590"),
                                F("name", name),   F("namespace", nsn ? nsn : ""),
                                F("progress", ""), F("resource", p->gr)};
            add_line(r, tp, "info", m, g, 6);
        }
        /* errors and warnings at evenly spread items */
        while (ei < n_err_spread && (long)(ei + 1) * last_items / (n_err_spread + 1) == k) {
            char m[600];
            snprintf(m, sizeof m, err_texts[ei % 3], nsn ? nsn : "cluster", name);
            simlog_field g[] = {F(wk, who),
                                F("error", m),
                                F("logSource", r->is_restore ? "pkg/restore/restore.go:1420"
                                                             : "pkg/backup/backup.go:520"),
                                F("name", name),
                                F("namespace", nsn ? nsn : ""),
                                F("resource", p->gr)};
            add_line(r, tp, "error",
                     r->is_restore ? "error restoring item" : "Error backing up item", g, 6);
            add_result(r, xstrdup(m));
            r->errs[ei].scope = nsn ? nsn : "cluster";
            r->errs[ei].msg = r->msgs[r->nmsgs - 1];
            ei++;
        }
        while (wi < s->warnings && (long)(wi + 1) * last_items / (s->warnings + 1) == k) {
            char m[600];
            snprintf(m, sizeof m, warn_texts[wi % 3], nsn ? nsn : "cluster", name);
            simlog_field g[] = {F(wk, who),
                                F("logSource", r->is_restore ? "pkg/restore/restore.go:1510"
                                                             : "pkg/backup/item_backupper.go:140"),
                                F("name", name), F("namespace", nsn ? nsn : ""),
                                F("resource", p->gr)};
            add_line(r, tp, "warning", m, g, 5);
            add_result(r, xstrdup(m));
            r->warns[wi].scope = nsn ? nsn : "cluster";
            r->warns[wi].msg = r->msgs[r->nmsgs - 1];
            wi++;
        }
        int done = k + 1, total = estimate_at(r, done);
        char m[200];
        if (!r->is_restore) {
            snprintf(m, sizeof m,
                     "Backed up %d items out of an estimated total of %d (estimate will change "
                     "throughout the backup)",
                     done, total);
            simlog_field g[] = {F(wk, who),
                                F("kind", p->groupkind),
                                F("logSource", "pkg/backup/backup.go:499"),
                                F("name", name),
                                F("namespace", nsn ? nsn : ""),
                                F("progress", "")};
            add_line(r, tk, "info", m, g, 6);
        } else {
            snprintf(m, sizeof m,
                     "Restored %d items out of an estimated total of %d (estimate will change "
                     "throughout the restore)",
                     done, total);
            simlog_field g[] = {F(wk, who),        F("logSource", "pkg/restore/restore.go:1720"),
                                F("name", name),   F("namespace", nsn ? nsn : ""),
                                F("progress", ""), F("resource", p->gr)};
            add_line(r, tk, "info", m, g, 6);
        }
    }
    /* remaining warnings (runs with fewer items than warnings) */
    for (; wi < s->warnings; wi++) {
        char m[300];
        snprintf(m, sizeof m, warn_texts[wi % 3], "velero", s->name);
        simlog_field g[] = {F(wk, who), F("logSource", "pkg/backup/backup.go:610")};
        add_line(r, r->t_pass_end - 0.2, "warning", m, g, 2);
        add_result(r, xstrdup(m));
        r->warns[wi].scope = "velero";
        r->warns[wi].msg = r->msgs[r->nmsgs - 1];
    }
    for (; ei < n_err_spread; ei++) {
        char m[300];
        snprintf(m, sizeof m, err_texts[ei % 3], "velero", s->name);
        simlog_field g[] = {F(wk, who), F("error", m), F("logSource", "pkg/backup/backup.go:612")};
        add_line(r, r->t_pass_end - 0.2, "error", "Error backing up item", g, 3);
        add_result(r, xstrdup(m));
        r->errs[ei].scope = "velero";
        r->errs[ei].msg = r->msgs[r->nmsgs - 1];
    }
    for (size_t i = 0; i < r->nvols; i++) {
        pvol *v = &r->vols[i];
        if (!isfinite(v->t_create)) continue;
        char m[400];
        if (v->sv->uploader == SCN_DATAMOVER)
            snprintf(m, sizeof m, "%s %s/%s created for PVC %s/%s",
                     r->is_restore ? "DataDownload" : "DataUpload", c->ns, v->name, v->sv->ns,
                     v->sv->pvc);
        else
            snprintf(m, sizeof m, "Created %s %s/%s for pod %s/%s volume %s",
                     r->is_restore ? "PodVolumeRestore" : "PodVolumeBackup", c->ns, v->name,
                     v->sv->ns, v->sv->pod, v->sv->volume);
        simlog_field g[] = {F(wk, who),
                            F("logSource", r->is_restore ? "pkg/podvolume/restorer.go:180"
                                                         : "pkg/podvolume/backupper.go:320")};
        add_line(r, v->t_create, "info", m, g, 2);
    }
    snprintf(ls, sizeof ls, "%s%d", src, r->is_restore ? 640 : 430);
    if (failed) {
        simlog_field g[] = {
            F(wk, who), F("error", s->failure_reason ? s->failure_reason : "failed"),
            F("logSource", r->is_restore ? "pkg/controller/restore_controller.go:590"
                                         : "pkg/controller/backup_controller.go:700")};
        add_line(r, r->t_fail, "error", r->is_restore ? "restore failed" : "backup failed", g, 3);
        add_result(r, xstrdup(s->failure_reason ? s->failure_reason : "failed"));
        r->errs[r->errors - 1].scope = "velero";
        r->errs[r->errors - 1].msg = r->msgs[r->nmsgs - 1];
    } else if (isfinite(r->t_pass_end)) {
        char m[200];
        simlog_field g[] = {F(wk, who), F("logSource", ls), F("progress", "")};
        if (!r->is_restore) {
            if (r->nvols > (size_t)r->n_du)
                add_line(r, t_items_end, "info", "Waiting for all pod volume backups to complete",
                         g, 2);
            snprintf(m, sizeof m, "Backed up a total of %d items", r->n_items);
            add_line(r, r->t_pass_end, "info", m, g, 3);
        } else {
            add_line(r, r->t_pass_end, "info",
                     "Waiting for all post-restore-exec hooks to complete", g, 2);
            add_line(r, r->t_pass_end, "info",
                     "Done waiting for all post-restore exec hooks to complete", g, 2);
        }
    }
    if (isfinite(r->t_final)) {
        simlog_field g[] = {F("controller", wk), F(wk, who),
                            F("logSource", r->is_restore
                                               ? "pkg/controller/restore_controller.go:600"
                                               : "pkg/controller/backup_controller.go:720")};
        add_line(r, r->t_final + 0.001, "info",
                 r->is_restore ? "restore completed" : "Backup completed", g, 3);
    }
#undef F
    /* stable sort by time (insertion sort keeps order of equal times; lines are nearly sorted) */
    for (size_t i = 1; i < r->nlines; i++) {
        pline x = r->lines[i];
        size_t j = i;
        while (j > 0 && r->lines[j - 1].t > x.t) {
            r->lines[j] = r->lines[j - 1];
            j--;
        }
        r->lines[j] = x;
    }
}

static void run_free(run *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->nres; i++) pres_clear(&r->res[i]);
    free(r->res);
    for (size_t i = 0; i < r->nvols; i++) {
        pvol *v = &r->vols[i];
        free(v->name);
        free(v->node);
        free(v->pod_uid);
        free(v->pvc_uid);
        free(v->op_id);
        free(v->snapshot_id);
        cJSON_Delete(v->last);
        restic_job_free(v->real);
    }
    free(r->vols);
    for (size_t i = 0; i < r->nlines; i++) free(r->lines[i].text);
    free(r->lines);
    for (size_t i = 0; i < r->nmsgs; i++) free(r->msgs[i]);
    free(r->msgs);
    free(r->errs);
    free(r->warns);
    free(r->uid);
    free(r->backup_schedule);
    cJSON_Delete(r->last);
    scn_run_clear(&r->sr);
    free(r);
}

/* ---- desired state at a simulated time ---- */

static const char *run_phase(const run *r, double t)
{
    if (!r->is_restore) {
        if (t < r->t0 + 0.5) return "New";
        if (t < r->t0 + 1.0) return "Queued";
        if (t < r->t_start) return "ReadyToStart";
    } else if (t < r->t_start) {
        return "New";
    }
    if (t >= r->t_final) return r->final_phase;
    if (t < r->t_pass_end) return "InProgress";
    int pf = !strcmp(r->final_phase, "PartiallyFailed");
    if (t < r->t_ops_seen)
        return pf ? "WaitingForPluginOperationsPartiallyFailed" : "WaitingForPluginOperations";
    return pf ? "FinalizingPartiallyFailed" : "Finalizing";
}

static int run_failed(const run *r)
{
    return r->fail_item >= 0;
}

static int vol_terminal_at(const pvol *v, double t)
{
    return t >= v->t_cancel || t >= v->t_end;
}

static cJSON *run_status(const simctl *c, const run *r, double t)
{
    cJSON *st = cJSON_CreateObject();
    const char *phase = run_phase(r, t);
    cJSON_AddStringToObject(st, "phase", phase);
    if (!strcmp(phase, "Queued")) cJSON_AddNumberToObject(st, "queuePosition", 1);
    if (t < r->t_start) return st;
    if (!r->is_restore) {
        cJSON_AddNumberToObject(st, "version", 1);
        cJSON_AddStringToObject(st, "formatVersion", "1.1.0");
        add_time(st, "expiration", r->t_start + r->sr.ttl);
    }
    add_time(st, "startTimestamp", r->t_start);
    if (t >= r->t_start + 0.1) { /* items collected */
        int done, total;
        int ended = t >= r->t_pass_end;
        if (ended && !run_failed(r)) {
            done = total = r->n_items;
        } else {
            done = ended ? r->fail_item : items_at(r, t);
            total = estimate_at(r, done);
        }
        cJSON *pg = cJSON_AddObjectToObject(st, "progress");
        if (total) cJSON_AddNumberToObject(pg, "totalItems", total);
        if (done)
            cJSON_AddNumberToObject(pg, r->is_restore ? "itemsRestored" : "itemsBackedUp", done);
        if (!c->opts.no_resource_progress && r->nres) {
            cJSON *rp = cJSON_AddObjectToObject(st, "resourceProgress");
            for (size_t i = 0; i < r->nres; i++) {
                const pres *p = &r->res[i];
                int proc = done - p->first;
                if (proc < 0) proc = 0;
                if (proc > p->items) proc = p->items;
                int tot =
                    done > p->first || (ended && !run_failed(r)) ? p->items : p->items - p->added;
                cJSON *e = cJSON_AddObjectToObject(rp, p->gr);
                cJSON_AddNumberToObject(e, "processed", proc);
                cJSON_AddNumberToObject(e, "total", tot);
            }
        }
    }
    if (t >= r->t_pass_end) {
        if (r->errors) cJSON_AddNumberToObject(st, "errors", r->errors);
        if (r->sr.warnings) cJSON_AddNumberToObject(st, "warnings", r->sr.warnings);
        if (r->sr.hooks_attempted) {
            cJSON *h = cJSON_AddObjectToObject(st, "hookStatus");
            cJSON_AddNumberToObject(h, "hooksAttempted", r->sr.hooks_attempted);
            if (r->sr.hooks_failed) cJSON_AddNumberToObject(h, "hooksFailed", r->sr.hooks_failed);
        }
        if (r->n_du && !run_failed(r)) {
            /* the operations controller syncs every 10 s */
            double ts =
                t >= r->t_ops_seen ? t : r->t_pass_end + 10 * floor((t - r->t_pass_end) / 10);
            int ok = 0, bad = 0;
            for (size_t i = 0; i < r->nvols; i++) {
                const pvol *v = &r->vols[i];
                if (v->sv->uploader != SCN_DATAMOVER || ts < v->t_end) continue;
                if (v->fails)
                    bad++;
                else
                    ok++;
            }
            const char *pre = r->is_restore ? "restoreItemOperations" : "backupItemOperations";
            char k[64];
            snprintf(k, sizeof k, "%sAttempted", pre);
            cJSON_AddNumberToObject(st, k, r->n_du);
            snprintf(k, sizeof k, "%sCompleted", pre);
            if (ok) cJSON_AddNumberToObject(st, k, ok);
            snprintf(k, sizeof k, "%sFailed", pre);
            if (bad) cJSON_AddNumberToObject(st, k, bad);
        }
    }
    if (t >= r->t_final) {
        if (run_failed(r) && r->sr.failure_reason)
            cJSON_AddStringToObject(st, "failureReason", r->sr.failure_reason);
        add_time(st, "completionTimestamp", r->t_final);
    }
    return st;
}

static cJSON *vol_status(const run *r, const pvol *v, double t)
{
    int dm = v->sv->uploader == SCN_DATAMOVER;
    cJSON *st = cJSON_CreateObject();
    const char *phase = t < v->t_accept    ? "New"
                        : t < v->t_prepare ? "Accepted"
                        : t < v->t_start   ? "Prepared"
                        : t >= v->t_cancel ? "Canceled"
                        : t >= v->t_end    ? (v->fails ? "Failed" : "Completed")
                                           : "InProgress";
    if (v->t_cancel <= t && t < v->t_start) phase = "Canceled";
    cJSON_AddStringToObject(st, "phase", phase);
    if (t >= v->t_accept) {
        add_time(st, "acceptedTimestamp", v->t_accept);
        if (dm) cJSON_AddStringToObject(st, "acceptedByNode", v->node);
    }
    if (t >= v->t_prepare && (dm || r->is_restore)) cJSON_AddStringToObject(st, "node", v->node);
    cJSON *pg = cJSON_AddObjectToObject(st, "progress");
    if (t >= v->t_start) {
        add_time(st, "startTimestamp", v->t_start);
        if (!dm)
            cJSON_AddItemToObject(
                st, "path",
                cJSON_CreateString(r->is_restore ? "/host_pods/restored/volumes" : "/host_pods"));
        double b;
        int64_t total = v->sv->size;
        double tend = fmin(v->t_end, v->t_cancel);
        if (v->real_state == 1 || v->real_state == 2) {
            total = v->real_total;
            b = (double)v->real_done;
        } else if (t >= tend) {
            b = t >= v->t_cancel || v->fails ? vol_bytes_at(v, tend) : (double)total;
            if (t >= v->t_cancel)
                b = vol_bytes_at(v, v->t_start + 10 * floor((tend - v->t_start) / 10));
        } else {
            b = vol_bytes_at(v, v->t_start + 10 * floor((t - v->t_start) / 10));
        }
        if (total) cJSON_AddNumberToObject(pg, "totalBytes", (double)total);
        if (b >= 1) cJSON_AddNumberToObject(pg, "bytesDone", floor(b));
    }
    if (vol_terminal_at(v, t) && t >= v->t_start) {
        add_time(st, "completionTimestamp", fmin(v->t_end, v->t_cancel));
        if (!strcmp(phase, "Completed")) cJSON_AddStringToObject(st, "snapshotID", v->snapshot_id);
        if (!strcmp(phase, "Failed"))
            cJSON_AddStringToObject(st, "message",
                                    v->sv->fail_message ? v->sv->fail_message
                                                        : "data path backup failed: error running "
                                                          "uploader: unexpected EOF");
        if (!strcmp(phase, "Canceled"))
            cJSON_AddStringToObject(st, "message", "data path canceled: the backup failed");
    } else if (t >= v->t_cancel) {
        add_time(st, "completionTimestamp", v->t_cancel);
        cJSON_AddStringToObject(st, "message", "data path canceled: the backup failed");
    }
    if (v->real_state == 3)
        cJSON_AddStringToObject(st, "message", "restic not available, progress is simulated");
    return st;
}

/* ---- objects ---- */

/* Velero's label.GetValidName: a value over 63 characters becomes its first 57 and the first 6
 * hex digits of its sha256. out has room for 64. */
static const char *valid_label(const char *name, char out[64])
{
    size_t n = strlen(name);
    if (n <= 63) return name;
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)name, n, d);
    snprintf(out, 64, "%.57s%02x%02x%02x", name, d[0], d[1], d[2]);
    return out;
}

static cJSON *labels_of(cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    if (!md) md = cJSON_AddObjectToObject(obj, "metadata");
    cJSON *l = cJSON_GetObjectItemCaseSensitive(md, "labels");
    if (!l) l = cJSON_AddObjectToObject(md, "labels");
    return l;
}

static cJSON *new_object(const char *api, const char *kind, const char *ns, const char *name,
                         double created)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", api);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    if (created > 0) add_time(md, "creationTimestamp", created);
    return o;
}

static void owner_ref(cJSON *o, const run *r)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    cJSON *refs = cJSON_AddArrayToObject(md, "ownerReferences");
    cJSON *ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(ref, "kind", r->is_restore ? "Restore" : "Backup");
    cJSON_AddStringToObject(ref, "name", r->sr.name);
    cJSON_AddStringToObject(ref, "uid", r->uid);
    cJSON_AddTrueToObject(ref, "controller");
    cJSON_AddItemToArray(refs, ref);
}

/* Creates obj (taken) in the store; returns the stored uid (malloc'd) or NULL on failure. */
static char *store_create(simctl *c, const char *plural, cJSON *obj)
{
    int status = 0;
    char *msg = NULL;
    cJSON *created = simstore_create(c->store, plural, c->ns, obj, &status, &msg);
    free(msg);
    if (!created) return NULL;
    cJSON *md = cJSON_GetObjectItemCaseSensitive(created, "metadata");
    char *uid = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "uid")));
    cJSON_Delete(created);
    return uid ? uid : xstrdup("");
}

static cJSON *run_object(simctl *c, const run *r, double t)
{
    const scn_run *s = &r->sr;
    cJSON *o =
        new_object("velero.io/v1", r->is_restore ? "Restore" : "Backup", c->ns, s->name, r->t0);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON *inc = cJSON_AddArrayToObject(spec, "includedNamespaces");
    for (size_t i = 0; i < s->n_namespaces; i++)
        cJSON_AddItemToArray(inc, cJSON_CreateString(s->namespaces[i]));
    if (!s->n_namespaces) cJSON_AddItemToArray(inc, cJSON_CreateString("*"));
    if (!r->is_restore) {
        cJSON *l = labels_of(o);
        cJSON_AddStringToObject(l, "velero.io/storage-location", s->storage_location);
        char lv[64];
        if (s->schedule)
            cJSON_AddStringToObject(l, "velero.io/schedule-name", valid_label(s->schedule, lv));
        cJSON *an = cJSON_AddObjectToObject(md, "annotations");
        cJSON_AddStringToObject(an, "velero.io/resource-timeout", "10m0s");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-gitversion", "v1.30.4");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-major-version", "1");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-minor-version", "30");
        cJSON_AddStringToObject(spec, "storageLocation", s->storage_location);
        char ttl[64];
        snprintf(ttl, sizeof ttl, "%dh%dm%ds", (int)(s->ttl / 3600), (int)fmod(s->ttl / 60, 60),
                 (int)fmod(s->ttl, 60));
        cJSON_AddStringToObject(spec, "ttl", ttl);
        int pv = 0;
        for (size_t i = 0; i < r->nvols; i++) pv |= r->vols[i].sv->uploader != SCN_DATAMOVER;
        cJSON_AddBoolToObject(spec, "defaultVolumesToFsBackup", pv);
        cJSON_AddBoolToObject(spec, "snapshotMoveData", r->n_du > 0);
        cJSON_AddStringToObject(spec, "csiSnapshotTimeout", "10m0s");
        cJSON_AddStringToObject(spec, "itemOperationTimeout", "4h0m0s");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "volumeSnapshotLocations"),
                             cJSON_CreateString("default"));
    } else {
        cJSON_AddStringToObject(spec, "backupName", s->backup ? s->backup : "");
        if (r->backup_schedule) cJSON_AddStringToObject(spec, "scheduleName", r->backup_schedule);
        cJSON_AddBoolToObject(spec, "restorePVs", 1);
        cJSON_AddStringToObject(spec, "itemOperationTimeout", "4h0m0s");
    }
    cJSON_AddItemToObject(o, "status", run_status(c, r, t));
    return o;
}

static cJSON *vol_object(simctl *c, const run *r, const pvol *v, double t)
{
    const scn_volume *sv = v->sv;
    int dm = sv->uploader == SCN_DATAMOVER;
    const char *kind = dm ? (r->is_restore ? "DataDownload" : "DataUpload")
                          : (r->is_restore ? "PodVolumeRestore" : "PodVolumeBackup");
    cJSON *o =
        new_object(dm ? "velero.io/v2alpha1" : "velero.io/v1", kind, c->ns, v->name, v->t_create);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    char *gen = xasprintf("%s-", r->sr.name);
    cJSON_AddStringToObject(md, "generateName", gen);
    free(gen);
    owner_ref(o, r);
    cJSON *l = labels_of(o);
    char lv[64];
    cJSON_AddStringToObject(l, r->is_restore ? "velero.io/restore-name" : "velero.io/backup-name",
                            valid_label(r->sr.name, lv));
    cJSON_AddStringToObject(l, r->is_restore ? "velero.io/restore-uid" : "velero.io/backup-uid",
                            r->uid);
    cJSON_AddStringToObject(l, "velero.io/pvc-uid", v->pvc_uid);
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddStringToObject(spec, "backupStorageLocation", "default");
    if (dm) {
        cJSON_AddStringToObject(l, "velero.io/async-operation-id", v->op_id);
        cJSON_AddStringToObject(spec, "datamover", "velero");
        cJSON_AddStringToObject(spec, "operationTimeout", "10m0s");
        cJSON_AddStringToObject(spec, "sourceNamespace", sv->ns);
        if (r->is_restore) {
            cJSON *tv = cJSON_AddObjectToObject(spec, "targetVolume");
            cJSON_AddStringToObject(tv, "pvc", sv->pvc);
            cJSON_AddStringToObject(tv, "pv", "");
            cJSON_AddStringToObject(tv, "namespace", sv->ns);
            cJSON_AddStringToObject(spec, "snapshotID", v->snapshot_id);
            cJSON_AddNumberToObject(spec, "snapshotSize", (double)sv->size);
        } else {
            cJSON_AddStringToObject(spec, "snapshotType", "CSI");
            cJSON_AddStringToObject(spec, "sourcePVC", sv->pvc);
            cJSON *cs = cJSON_AddObjectToObject(spec, "csiSnapshot");
            char vs[300];
            snprintf(vs, sizeof vs, "velero-%s-%.5s", sv->pvc, v->name + strlen(v->name) - 5);
            cJSON_AddStringToObject(cs, "volumeSnapshot", vs);
            cJSON_AddStringToObject(cs, "storageClass", "csi-rbd");
            cJSON_AddStringToObject(cs, "snapshotClass", "csi-rbd-snapclass");
            cJSON_AddStringToObject(cs, "driver", "rbd.csi.ceph.com");
        }
    } else {
        if (r->is_restore)
            cJSON_AddStringToObject(l, "velero.io/pod-uid", v->pod_uid);
        else
            cJSON_AddStringToObject(spec, "node", v->node);
        cJSON *pod = cJSON_AddObjectToObject(spec, "pod");
        cJSON_AddStringToObject(pod, "kind", "Pod");
        cJSON_AddStringToObject(pod, "namespace", sv->ns);
        cJSON_AddStringToObject(pod, "name", sv->pod);
        cJSON_AddStringToObject(pod, "uid", v->pod_uid);
        cJSON_AddStringToObject(spec, "volume", sv->volume);
        char repo[300];
        snprintf(repo, sizeof repo, "s3:http://minio.velero.svc:9000/velero-backups/%s/%s",
                 sv->uploader == SCN_KOPIA ? "kopia" : "restic", sv->ns);
        cJSON_AddStringToObject(spec, "repoIdentifier", repo);
        cJSON_AddStringToObject(spec, "uploaderType",
                                sv->uploader == SCN_KOPIA ? "kopia" : "restic");
        if (r->is_restore) {
            cJSON_AddStringToObject(spec, "snapshotID", v->snapshot_id);
            cJSON_AddStringToObject(spec, "sourceNamespace", sv->ns);
            cJSON_AddNumberToObject(spec, "snapshotSize", (double)sv->size);
        } else {
            cJSON *tags = cJSON_AddObjectToObject(spec, "tags");
            cJSON_AddStringToObject(tags, "backup", r->sr.name);
            cJSON_AddStringToObject(tags, "backup-uid", r->uid);
            cJSON_AddStringToObject(tags, "ns", sv->ns);
            cJSON_AddStringToObject(tags, "pod", sv->pod);
            cJSON_AddStringToObject(tags, "pod-uid", v->pod_uid);
            cJSON_AddStringToObject(tags, "volume", sv->volume);
        }
    }
    cJSON_AddItemToObject(o, "status", vol_status(r, v, t));
    return o;
}

static int replace_status(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_Duplicate((const cJSON *)arg, 1);
    if (cJSON_GetObjectItemCaseSensitive(obj, "status"))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, "status", st);
    else
        cJSON_AddItemToObject(obj, "status", st);
    return 1;
}

/* ---- restic-real volumes ---- */

/* Pushes a run's item-pass end (and what follows) later, for a real restic job that is slower
 * than its plan. Caller holds c->mu. */
static void run_delay(run *r, double old_pass_end, double delta)
{
    for (size_t i = 0; i < r->nlines; i++)
        if (r->lines[i].t >= old_pass_end && i >= r->emitted) r->lines[i].t += delta;
    r->t_pass_end += delta;
    r->t_ops_seen += delta;
    r->t_final += delta;
}

static void vol_real_step(simctl *c, run *r, pvol *v, double now, kc_buf *podlog_dummy)
{
    (void)podlog_dummy;
    if (v->sv->uploader != SCN_RESTIC_REAL || now < v->t_start || v->real_state >= 2) return;
    char err[300] = "";
    if (v->real_state == 0) {
        v->real = restic_job_start(c->restic, v->sv->size, c->opts.seed + (uint64_t)(v - r->vols),
                                   err, sizeof err);
        if (!v->real) {
            v->real_state = 3;
            char who[300], m[400];
            snprintf(who, sizeof who, "%s/%s", c->ns, r->sr.name);
            snprintf(m, sizeof m, "restic-real volume %s falls back to simulated progress: %s",
                     v->name, err);
            simlog_field f[] = {{"backup", who}, {"logSource", "pkg/uploader/restic.go:90"}};
            char *line = simlog_line(now, "warning", m, f, 2);
            simstore_log_append(c->store, c->pod, now, line);
            free(line);
            return;
        }
        v->real_state = 1;
        v->real_last_patch = -INFINITY;
    }
    int64_t total = v->real_total, done = v->real_done;
    char snap[80] = "";
    int rc = restic_job_poll(v->real, &total, &done, snap, sizeof snap, err, sizeof err);
    /* copy restic's status into the PVB at most every 10 simulated seconds, like Velero */
    if (rc != 0 || now - v->real_last_patch >= 10) {
        v->real_total = total;
        v->real_done = done;
        v->real_last_patch = now;
    }
    if (rc == 1) {
        v->real_state = 2;
        if (snap[0]) {
            free(v->snapshot_id);
            v->snapshot_id = xstrdup(snap);
        }
        if (now < v->t_end) v->t_end = now; /* finishes when restic does */
        restic_job_free(v->real);
        v->real = NULL;
    } else if (rc < 0) {
        v->real_state = 2;
        v->fails = 1;
        free(v->sv->fail_message);
        v->sv->fail_message = xstrdup(err);
        v->t_end = now;
        restic_job_free(v->real);
        v->real = NULL;
    } else if (now >= v->t_end - 0.5) {
        /* still running past its planned end: keep the volume (and the run) going */
        double delta = now + 5 - v->t_end;
        v->t_end += delta;
        if (v->t_end + 0.5 > r->t_pass_end) {
            pthread_mutex_lock(&c->mu);
            run_delay(r, r->t_pass_end, v->t_end + 0.5 - r->t_pass_end);
            pthread_mutex_unlock(&c->mu);
        }
    }
}

/* ---- the tick ---- */

typedef struct pending_line {
    double t;
    size_t seq;
    const char *text;
} pending_line;

typedef struct line_batch {
    pending_line *v;
    size_t n, cap;
} line_batch;

static void batch_add(line_batch *b, double t, const char *text)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n].t = t;
    b->v[b->n].seq = b->n;
    b->v[b->n].text = text;
    b->n++;
}

static int pending_cmp(const void *a, const void *b)
{
    const pending_line *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static run *find_run(simctl *c, int restore, const char *name)
{
    for (size_t i = 0; i < c->nruns; i++)
        if (c->runs[i]->is_restore == restore && !strcmp(c->runs[i]->sr.name, name))
            return c->runs[i];
    return NULL;
}

static void add_run(simctl *c, const scn_run *src)
{
    run *r = xcalloc(1, sizeof *r);
    scn_run_copy(&r->sr, src);
    plan_run(c, r);
    if (r->is_restore && r->sr.backup) {
        run *b = find_run(c, 0, r->sr.backup);
        if (b && b->sr.schedule) r->backup_schedule = xstrdup(b->sr.schedule);
    }
    pthread_mutex_lock(&c->mu);
    c->runs = xrealloc(c->runs, (c->nruns + 1) * sizeof *c->runs);
    c->runs[c->nruns++] = r;
    pthread_mutex_unlock(&c->mu);
}

static void write_status(simctl *c, const char *plural, const char *name, cJSON **last,
                         cJSON *desired, int *gone)
{
    if (*last && cJSON_Compare(*last, desired, 1)) {
        cJSON_Delete(desired);
        return;
    }
    if (!simstore_mutate(c->store, plural, c->ns, name, replace_status, desired)) *gone = 1;
    cJSON_Delete(*last);
    *last = desired;
}

static void step_run(simctl *c, run *r, double now, line_batch *lines, double pod_start)
{
    const char *plural = r->is_restore ? "restores" : "backups";
    if (!r->exists) {
        if (now < r->t0) return;
        cJSON *o = run_object(c, r, now);
        r->last = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o, "status"), 1);
        char *uid = store_create(c, plural, o);
        if (!uid) {
            r->gone = 1; /* someone else owns that name */
            return;
        }
        free(r->uid);
        r->uid = uid;
        r->exists = 1;
    } else {
        write_status(c, plural, r->sr.name, &r->last, run_status(c, r, now), &r->gone);
        if (r->gone) return;
    }
    int all_done = 1;
    for (size_t i = 0; i < r->nvols; i++) {
        pvol *v = &r->vols[i];
        const char *vp = v->sv->uploader == SCN_DATAMOVER
                             ? (r->is_restore ? "datadownloads" : "datauploads")
                             : (r->is_restore ? "podvolumerestores" : "podvolumebackups");
        if (v->gone || v->done) continue;
        if (!isfinite(v->t_create)) continue; /* the run failed before creating it */
        all_done = 0;
        if (now < v->t_create) continue;
        vol_real_step(c, r, v, now, NULL);
        if (!v->exists) {
            cJSON *o = vol_object(c, r, v, now);
            v->last = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o, "status"), 1);
            char *uid = store_create(c, vp, o);
            if (!uid) {
                /* name taken: pick another suffix next tick */
                char suf[8];
                rng_suffix(c, suf, 5);
                free(v->name);
                v->name = generated_name(r->sr.name, suf);
                cJSON_Delete(v->last);
                v->last = NULL;
                continue;
            }
            free(uid);
            v->exists = 1;
        } else {
            write_status(c, vp, v->name, &v->last, vol_status(r, v, now), &v->gone);
        }
        if (vol_terminal_at(v, now) && v->real_state != 1) v->done = 1;
    }
    while (r->emitted < r->nlines && r->lines[r->emitted].t <= now) {
        if (r->lines[r->emitted].t >= pod_start)
            batch_add(lines, r->lines[r->emitted].t, r->lines[r->emitted].text);
        r->emitted++;
    }
    if (now >= r->t_final && all_done && r->emitted == r->nlines) r->finished = 1;
}

static void step_schedules(simctl *c, double now)
{
    for (size_t i = 0; i < c->scn->n_schedules; i++) {
        scn_schedule *sc = &c->scn->schedules[i];
        if (sc->paused) continue;
        scn_cron cron;
        char err[200];
        if (scn_cron_parse(sc->cron, &cron, err, sizeof err)) continue;
        int fired = 0;
        while (c->sched_next[i] <= now) {
            double t = c->sched_next[i];
            char stamp[32], name[300];
            time_t tt = (time_t)t;
            struct tm tm;
            gmtime_r(&tt, &tm);
            strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
            snprintf(name, sizeof name, "%s-%s", sc->name, stamp);
            scn_run r;
            scn_run_copy(&r, &sc->tmpl);
            free(r.name);
            r.name = xstrdup(name);
            r.kind = SCN_BACKUP;
            r.start = t - c->epoch;
            add_run(c, &r);
            scn_run_clear(&r);
            c->sched_next[i] = scn_cron_next(&cron, c->epoch, t);
            fired = 1;
        }
        if (fired) {
            cJSON *st = cJSON_CreateObject();
            cJSON_AddStringToObject(st, "phase", "Enabled");
            double last = c->runs[c->nruns - 1]->t0;
            add_time(st, "lastBackup", last);
            simstore_mutate(c->store, "schedules", c->ns, sc->name, replace_status, st);
            cJSON_Delete(st);
        }
    }
}

static int bsl_validated(cJSON *obj, void *arg)
{
    const char *ts = arg;
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "lastValidationTime");
    cJSON_AddStringToObject(st, "lastValidationTime", ts);
    return 1;
}

static int dr_process(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (st) cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", cJSON_Duplicate((const cJSON *)arg, 1));
    return 1;
}

/* A full pass over the DownloadRequests copies every one of them, so it runs only when one
 * changed (a watch says so) or, for expirations and targets that appear late, every 2 s. */
static int downloads_changed(simctl *c)
{
    int changed = 0;
    if (!c->dr_w) {
        int gone;
        c->dr_w = simstore_watch_open(c->store, "downloadrequests", c->ns, NULL, NULL,
                                      simstore_rv(c->store), &gone);
        changed = 1;
    }
    const char *type;
    cJSON *ev;
    while (c->dr_w && (ev = simstore_watch_next(c->dr_w, 0, &type, NULL))) {
        if (!strcmp(type, "ERROR")) { /* fell behind the history: start over */
            simstore_watch_close(c->dr_w);
            c->dr_w = NULL;
        }
        cJSON_Delete(ev);
        changed = 1;
    }
    int64_t now = kc_now_ms();
    if (now - c->dr_last_pass >= 2000) changed = 1;
    if (changed) c->dr_last_pass = now;
    return changed;
}

static void step_downloads(simctl *c)
{
    uint64_t rv;
    int status = 0;
    char *msg = NULL;
    cJSON *list =
        simstore_list(c->store, "downloadrequests", c->ns, NULL, NULL, &rv, &status, &msg);
    free(msg);
    if (!list) return;
    double wall = kc_wall_now();
    cJSON *dr;
    cJSON_ArrayForEach(dr, list)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(dr, "metadata"), "name"));
        cJSON *st = cJSON_GetObjectItemCaseSensitive(dr, "status");
        const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
        if (!name) continue;
        if (phase && !strcmp(phase, "Processed")) {
            double exp;
            const char *es =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "expiration"));
            if (es && !kc_parse_time(es, &exp) && wall > exp) {
                cJSON *gone =
                    simstore_delete(c->store, "downloadrequests", c->ns, name, &status, &msg);
                cJSON_Delete(gone);
                free(msg);
                msg = NULL;
            }
            continue;
        }
        cJSON *target = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(dr, "spec"), "target");
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(target, "kind"));
        const char *tname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(target, "name"));
        if (!kind || !tname) continue;
        int restore = !strncmp(kind, "Restore", 7);
        pthread_mutex_lock(&c->mu);
        run *r = find_run(c, restore, tname);
        if (!r || !r->exists) {
            /* Not one of the controller's runs. Velero signs a URL whenever the Backup or
             * Restore object exists (fetching it then answers 404: nothing was stored) and
             * leaves the request unprocessed when it does not (v1.18). */
            pthread_mutex_unlock(&c->mu);
            cJSON *obj = simstore_get(c->store, restore ? "restores" : "backups", c->ns, tname);
            if (!obj) continue;
            cJSON_Delete(obj);
            pthread_mutex_lock(&c->mu);
        }
        c->tokens = xrealloc(c->tokens, (c->ntokens + 1) * sizeof *c->tokens);
        struct token *tk = &c->tokens[c->ntokens++];
        snprintf(tk->tok, sizeof tk->tok, "%016llx%016llx",
                 (unsigned long long)rng_next(&c->tokrng),
                 (unsigned long long)rng_next(&c->tokrng));
        tk->kind = xstrdup(kind);
        tk->target = xstrdup(tname);
        tk->expires = wall + DR_TTL;
        char url[600];
        snprintf(url, sizeof url, "%s/download/%s", c->base_url, tk->tok);
        pthread_mutex_unlock(&c->mu);
        cJSON *nst = cJSON_CreateObject();
        cJSON_AddStringToObject(nst, "phase", "Processed");
        cJSON_AddStringToObject(nst, "downloadURL", url);
        add_time(nst, "expiration", wall + DR_TTL);
        simstore_mutate(c->store, "downloadrequests", c->ns, name, dr_process, nst);
        cJSON_Delete(nst);
    }
    cJSON_Delete(list);
}

/* ---- runs created by others (kubectl, the velero CLI) ---- */

/* A backup or restore someone else created gets a small default plan, as Velero would run it. */
static void adopt(simctl *c, int restore, const cJSON *obj, double now)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name"));
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "uid"));
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    if (!name || (phase && *phase && strcmp(phase, "New"))) return;
    pthread_mutex_lock(&c->mu);
    run *known = find_run(c, restore, name);
    pthread_mutex_unlock(&c->mu);
    if (known) return;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    scn_run r;
    scn_run_defaults(&r);
    r.kind = restore ? SCN_RESTORE : SCN_BACKUP;
    r.name = xstrdup(name);
    r.start = now - c->epoch;
    r.rate = 5;
    const char *bn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "backupName"));
    if (restore) r.backup = xstrdup(bn ? bn : "");
    const char *loc =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "storageLocation"));
    if (loc && *loc) {
        free(r.storage_location);
        r.storage_location = xstrdup(loc);
    }
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(spec, "includedNamespaces"), *e;
    cJSON_ArrayForEach(e, inc)
    {
        const char *ns = cJSON_GetStringValue(e);
        if (!ns || !strcmp(ns, "*")) continue;
        r.namespaces = xrealloc(r.namespaces, (r.n_namespaces + 1) * sizeof *r.namespaces);
        r.namespaces[r.n_namespaces++] = xstrdup(ns);
    }
    static const struct {
        const char *name;
        int per_ns;
    } dflt[] = {{"namespaces", 1}, {"pods", 12},    {"persistentvolumeclaims", 2}, {"secrets", 6},
                {"configmaps", 8}, {"services", 4}, {"deployments.apps", 4}};
    size_t nns =
        r.n_namespaces ? r.n_namespaces : (c->scn->n_namespaces ? c->scn->n_namespaces : 1);
    r.n_resources = sizeof dflt / sizeof dflt[0];
    r.resources = xcalloc(r.n_resources, sizeof *r.resources);
    for (size_t i = 0; i < r.n_resources; i++) {
        r.resources[i].name = xstrdup(dflt[i].name);
        r.resources[i].items = dflt[i].per_ns * (int)nns;
    }
    add_run(c, &r);
    scn_run_clear(&r);
    run *nr = c->runs[c->nruns - 1];
    free(nr->uid);
    nr->uid = xstrdup(uid ? uid : "");
    nr->exists = 1; /* already in the store: only its status is ours */
}

static void step_adopt(simctl *c, double now)
{
    for (int k = 0; k < 2; k++) {
        const char *plural = k ? "restores" : "backups";
        if (!c->adopt_w[k]) {
            int gone;
            c->adopt_w[k] = simstore_watch_open(c->store, plural, c->ns, NULL, NULL, 0, &gone);
            if (!c->adopt_w[k]) continue;
        }
        const char *type;
        cJSON *ev;
        for (int budget = 5000; budget > 0; budget--) {
            ev = simstore_watch_next(c->adopt_w[k], 0, &type, NULL);
            if (!ev) break;
            if (!strcmp(type, "ERROR")) { /* fell behind the history: start over */
                cJSON_Delete(ev);
                simstore_watch_close(c->adopt_w[k]);
                c->adopt_w[k] = NULL;
                break;
            }
            if (!strcmp(type, "ADDED")) adopt(c, k, ev, now);
            cJSON_Delete(ev);
        }
    }
}

static void tick(simctl *c)
{
    double now = sim_now(c);
    step_schedules(c, now);
    if (!c->opts.passive) step_adopt(c, now);
    line_batch lines = {0};
    double pod_start = c->epoch - POD_LOG_WINDOW;
    for (size_t i = 0; i < c->nruns; i++) {
        run *r = c->runs[i];
        if (r->gone || r->finished) continue;
        step_run(c, r, now, &lines, pod_start);
    }
    if (lines.n) qsort(lines.v, lines.n, sizeof *lines.v, pending_cmp);
    for (size_t i = 0; i < lines.n; i++)
        simstore_log_append(c->store, c->pod, lines.v[i].t, lines.v[i].text);
    free(lines.v);
    if (now - c->last_bsl >= 60) {
        char ts[40];
        fmt_time(now, ts, sizeof ts);
        simstore_mutate(c->store, "backupstoragelocations", c->ns, "default", bsl_validated, ts);
        c->last_bsl = now;
    }
    if (downloads_changed(c)) step_downloads(c);
}

static void *thread_main(void *arg)
{
    simctl *c = arg;
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        pthread_mutex_unlock(&c->mu);
        tick(c);
        pthread_mutex_lock(&c->mu);
        if (c->stop) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* ---- static objects ---- */

static void create_static(simctl *c)
{
    double now = c->epoch;
    cJSON *got = simstore_get(c->store, "backupstoragelocations", c->ns, "default");
    if (!got) {
        cJSON *o =
            new_object("velero.io/v1", "BackupStorageLocation", c->ns, "default", now - 86400 * 60);
        cJSON *spec = cJSON_AddObjectToObject(o, "spec");
        cJSON_AddStringToObject(spec, "provider", "aws");
        cJSON *os = cJSON_AddObjectToObject(spec, "objectStorage");
        cJSON_AddStringToObject(os, "bucket", "velero-backups");
        cJSON *cfg = cJSON_AddObjectToObject(spec, "config");
        cJSON_AddStringToObject(cfg, "region", "minio");
        cJSON_AddStringToObject(cfg, "s3Url", "http://minio.velero.svc:9000");
        cJSON_AddTrueToObject(spec, "default");
        cJSON_AddStringToObject(spec, "accessMode", "ReadWrite");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        cJSON_AddStringToObject(st, "phase", "Available");
        add_time(st, "lastValidationTime", now);
        add_time(st, "lastSyncedTime", now);
        free(store_create(c, "backupstoragelocations", o));
    }
    cJSON_Delete(got);
    got = simstore_get(c->store, "pods", c->ns, c->pod);
    if (!got) {
        cJSON *o = new_object("v1", "Pod", c->ns, c->pod, now - POD_LOG_WINDOW);
        cJSON *l = labels_of(o);
        cJSON_AddStringToObject(l, "component", "velero");
        cJSON_AddStringToObject(l, "deploy", "velero");
        cJSON *spec = cJSON_AddObjectToObject(o, "spec");
        cJSON *ctrs = cJSON_AddArrayToObject(spec, "containers");
        cJSON *ctr = cJSON_CreateObject();
        cJSON_AddStringToObject(ctr, "name", "velero");
        cJSON_AddStringToObject(ctr, "image", "velero/velero:v1.18.2");
        cJSON_AddItemToArray(ctrs, ctr);
        cJSON_AddStringToObject(spec, "nodeName", "worker-1");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        cJSON_AddStringToObject(st, "phase", "Running");
        add_time(st, "startTime", now - POD_LOG_WINDOW);
        free(store_create(c, "pods", o));
    }
    cJSON_Delete(got);
    for (size_t i = 0; i < c->scn->n_schedules; i++) {
        scn_schedule *sc = &c->scn->schedules[i];
        cJSON *o = new_object("velero.io/v1", "Schedule", c->ns, sc->name, now - 86400 * 30);
        cJSON *spec = cJSON_AddObjectToObject(o, "spec");
        cJSON_AddStringToObject(spec, "schedule", sc->cron);
        cJSON_AddBoolToObject(spec, "paused", sc->paused);
        cJSON *tmpl = cJSON_AddObjectToObject(spec, "template");
        cJSON *inc = cJSON_AddArrayToObject(tmpl, "includedNamespaces");
        for (size_t k = 0; k < sc->tmpl.n_namespaces; k++)
            cJSON_AddItemToArray(inc, cJSON_CreateString(sc->tmpl.namespaces[k]));
        cJSON_AddStringToObject(tmpl, "storageLocation", sc->tmpl.storage_location);
        cJSON_AddStringToObject(tmpl, "ttl", "720h0m0s");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        cJSON_AddStringToObject(st, "phase", "Enabled");
        free(store_create(c, "schedules", o));
    }
}

/* ---- public ---- */

simctl *simctl_start(simstore *store, const simctl_opts *opts, char *err, size_t errlen)
{
    scenario *scn =
        scenario_load(opts->scenario ? opts->scenario : "demo", opts->seed, err, errlen);
    if (!scn) return NULL;
    simctl *c = xcalloc(1, sizeof *c);
    c->store = store;
    c->opts = *opts;
    if (c->opts.speed <= 0) c->opts.speed = 1;
    c->base_url = xstrdup(opts->base_url ? opts->base_url : "http://127.0.0.1");
    c->ns = xstrdup(opts->ns ? opts->ns : "velero");
    c->pod = xstrdup(sim_velero_pod_name());
    c->restic = xstrdup(opts->restic);
    c->opts.restic = NULL;
    c->scn = scn;
    c->epoch = scn->has_epoch ? scn->epoch : floor(kc_wall_now());
    c->t0_ms = kc_now_ms();
    c->rng = 0x76656c65726fULL ^ ((uint64_t)opts->seed * 0x9e3779b97f4a7c15ULL);
    c->tokrng = (uint64_t)kc_now_ms() ^ ((uint64_t)(uintptr_t)c << 16) ^ (uint64_t)kc_wall_now();
    c->last_bsl = c->epoch;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->opts.scenario = NULL;
    c->opts.base_url = NULL;
    c->opts.ns = NULL;
    /* backups before restores so a restore can find its backup's schedule */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < scn->n_runs; i++)
            if ((scn->runs[i].kind == SCN_RESTORE) == pass) add_run(c, &scn->runs[i]);
    c->sched_next = scn->n_schedules ? xcalloc(scn->n_schedules, sizeof *c->sched_next) : NULL;
    for (size_t i = 0; i < scn->n_schedules; i++) {
        scn_cron cron;
        char cerr[200];
        c->sched_next[i] = scn_cron_parse(scn->schedules[i].cron, &cron, cerr, sizeof cerr)
                               ? INFINITY
                               : scn_cron_next(&cron, c->epoch, c->epoch);
    }
    create_static(c);
    c->manual_now = c->epoch;
    tick(c); /* history and runs in flight exist before anyone looks */
    if (c->opts.manual) {
        c->stop = 1; /* no thread to stop */
        return c;
    }
    if (pthread_create(&c->thread, NULL, thread_main, c)) {
        snprintf(err, errlen, "cannot start the controller thread");
        c->stop = 1;
        simctl_stop(c);
        return NULL;
    }
    return c;
}

void simctl_stop(simctl *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    int running = !c->stop;
    c->stop = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (running) pthread_join(c->thread, NULL);
    for (size_t i = 0; i < c->nruns; i++) run_free(c->runs[i]);
    free(c->runs);
    for (size_t i = 0; i < c->ntokens; i++) {
        free(c->tokens[i].kind);
        free(c->tokens[i].target);
    }
    free(c->tokens);
    free(c->sched_next);
    for (int k = 0; k < 2; k++)
        if (c->adopt_w[k]) simstore_watch_close(c->adopt_w[k]);
    if (c->dr_w) simstore_watch_close(c->dr_w);
    scenario_free(c->scn);
    free(c->base_url);
    free(c->ns);
    free(c->pod);
    free(c->restic);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

/* ---- artifacts ---- */

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *resource_list_json(const run *r)
{
    cJSON *o = cJSON_CreateObject();
    int last = run_failed(r) ? r->fail_item : r->n_items;
    for (size_t i = 0; i < r->nres; i++) {
        const pres *p = &r->res[i];
        int n = last - p->first;
        if (n > p->items) n = p->items;
        if (n <= 0) continue;
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, p->list_key);
        if (!arr) arr = cJSON_AddArrayToObject(o, p->list_key);
        char **names = xcalloc((size_t)n, sizeof *names);
        for (int k = 0; k < n; k++) {
            const char *ns;
            char name[200];
            item_id(r, p, k, &ns, name, sizeof name);
            names[k] = xasprintf("%s%s%s%s", ns ? ns : "", ns ? "/" : "", name,
                                 r->is_restore ? "(created)" : "");
        }
        qsort(names, (size_t)n, sizeof *names, str_cmp);
        for (int k = 0; k < n; k++) {
            cJSON_AddItemToArray(arr, cJSON_CreateString(names[k]));
            free(names[k]);
        }
        free(names);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

int simctl_download(simctl *c, const char *token, unsigned char **data, size_t *len, int *status)
{
    *data = NULL;
    *len = 0;
    *status = 404;
    pthread_mutex_lock(&c->mu);
    struct token *tk = NULL;
    for (size_t i = 0; i < c->ntokens; i++)
        if (!strcmp(c->tokens[i].tok, token)) tk = &c->tokens[i];
    if (!tk) goto out;
    if (kc_wall_now() > tk->expires) {
        *status = 410;
        goto out;
    }
    int restore = !strncmp(tk->kind, "Restore", 7);
    run *r = find_run(c, restore, tk->target);
    if (!r || sim_now(c) < r->t_pass_end) goto out; /* not written yet */
    char *content = NULL;
    const char *k = tk->kind + (restore ? 7 : 6);
    if (!strcmp(k, "Log")) {
        kc_buf b = {0};
        for (size_t i = 0; i < r->nlines && r->lines[i].t <= r->t_pass_end; i++)
            kc_buf_printf(&b, "%s\n", r->lines[i].text);
        content = kc_buf_cstr(&b);
    } else if (!strcmp(k, "ResourceList")) {
        content = resource_list_json(r);
    } else if (!strcmp(k, "Results")) {
        cJSON *o = artifacts_results(r->errs, (size_t)r->errors, r->warns, (size_t)r->sr.warnings);
        content = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
    }
    if (!content) goto out;
    *data = artifacts_gzip(content, strlen(content), len);
    free(content);
    *status = 200;
out:
    pthread_mutex_unlock(&c->mu);
    return *status == 200 ? 0 : -1;
}

/* Test and fault-injection hook: makes every download token expired. */
void simctl_expire_downloads(simctl *c)
{
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->ntokens; i++) c->tokens[i].expires = 0;
    pthread_mutex_unlock(&c->mu);
}

double simctl_now(simctl *c)
{
    return sim_now(c);
}

void simctl_advance(simctl *c, double t)
{
    if (!c || !c->opts.manual) return;
    if (t > c->manual_now) c->manual_now = t;
    tick(c);
}

double simctl_epoch(simctl *c)
{
    return c->epoch;
}
