/* simplan.c: plans a scenario run: resource names (as Velero and Kubernetes name them), item
 * names, the items' and volumes' timeline, and (through simlogtext.c) its log lines. Everything
 * here is a pure function of the scenario run, the start time and the seeded random state. */
#include "simplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simkinds.h"
#include "simlogtext.h"

/* ---- resource naming ---- */

static void pres_init(sp_res *p, const char *gr)
{
    memset(p, 0, sizeof *p);
    p->gr = xstrdup(gr);
    const char *dot = strchr(gr, '.');
    p->bare = dot ? xstrndup(gr, (size_t)(dot - gr)) : xstrdup(gr);
    const char *group = dot ? dot + 1 : "";
    const sim_kind *k = sim_kind_by_gr(gr); /* the cluster's discovery names it */
    if (k) {
        p->list_key = xasprintf("%s%s%s/%s", k->group, *k->group ? "/" : "", k->version, k->kind);
        p->groupkind = xasprintf("%s%s%s", k->kind, *group ? "." : "", group);
        p->namespaced = k->namespaced;
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

static void pres_clear(sp_res *p)
{
    free(p->gr);
    free(p->bare);
    free(p->list_key);
    free(p->groupkind);
}

uint64_t sp_rng_next(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sp_rng_suffix(uint64_t *rng, char *out, int n)
{
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < n; i++) out[i] = alpha[sp_rng_next(rng) % (sizeof alpha - 1)];
    out[n] = '\0';
}

char *sp_rng_uuid(uint64_t *st)
{
    uint64_t a = sp_rng_next(st), b = sp_rng_next(st);
    return xasprintf("%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
                     (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
                     (unsigned)((b >> 48) & 0x3fff) | 0x8000,
                     (unsigned long long)(b & 0xffffffffffffULL));
}

/* ---- planning ---- */

static const char *apps[] = {"web",      "api",    "worker", "postgres", "redis", "frontend",
                             "checkout", "ledger", "search", "gateway",  "cart",  "mailer"};
#define N_APPS (sizeof apps / sizeof apps[0])

const char *sp_run_ns(const sp_run *r, size_t k)
{
    static const char *def[] = {"default"};
    if (r->sr.n_namespaces) return r->sr.namespaces[k % r->sr.n_namespaces];
    return def[0];
}

size_t sp_run_nns(const sp_run *r)
{
    return r->sr.n_namespaces ? r->sr.n_namespaces : 1;
}

/* The k-th item (0-based within its resource): namespace (NULL for cluster-scoped) and name. */
void sp_item_id(const sp_run *r, const sp_res *p, int k, const char **ns, char *name, size_t n)
{
    size_t nns = sp_run_nns(r);
    if (!strcmp(p->gr, "namespaces")) {
        *ns = NULL;
        if ((size_t)k < nns)
            snprintf(name, n, "%s", sp_run_ns(r, (size_t)k));
        else
            snprintf(name, n, "%s-%d", sp_run_ns(r, (size_t)k), k / (int)nns);
        return;
    }
    *ns = p->namespaced ? sp_run_ns(r, (size_t)k) : NULL;
    size_t per = p->namespaced ? nns : 1; /* cluster-scoped names must not repeat */
    const char *app = apps[((size_t)k / per) % N_APPS];
    int gen = (int)((size_t)k / per / N_APPS);
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

/* ---- pacing: a run's speed over its life (scenario pace profile x seeded jitter) ---- */

#define PACE_SEG 5.0 /* jitter is drawn per this many simulated seconds */

static int pace_on(const sp_run *r)
{
    return r->sr.n_pace || r->sr.jitter > 0;
}

/* The speed factor of segment k (from k x PACE_SEG s after the run's items start). */
static double pace_factor(const sp_run *r, long k)
{
    double t = (double)k * PACE_SEG, f = 1;
    for (size_t i = 0; i < r->sr.n_pace; i++)
        if (t >= r->sr.pace_at[i]) f = r->sr.pace_factor[i];
    if (r->sr.jitter > 0) {
        uint64_t st = r->pace_seed ^ ((uint64_t)k * 0xd1b54a32d192ed03ULL);
        double u = (double)(sp_rng_next(&st) >> 11) / 9007199254740992.0 * 2 - 1;
        f *= 1 + r->sr.jitter * u;
    }
    return f > 1e-3 ? f : 1e-3;
}

/* Work (in seconds at the nominal rate) done x seconds after the items start: the integral of
 * the factor. The identity without pacing. */
static double pace_work(const sp_run *r, double x)
{
    if (!pace_on(r) || !(x > 0) || !isfinite(x)) return x;
    double w = 0;
    long k = 0;
    for (; (double)(k + 1) * PACE_SEG <= x; k++) w += pace_factor(r, k) * PACE_SEG;
    return w + pace_factor(r, k) * (x - (double)k * PACE_SEG);
}

/* The inverse: seconds after the items start when work w is done. */
static double pace_time(const sp_run *r, double w)
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
static double pace_after(const sp_run *r, double a, double w)
{
    if (!pace_on(r) || !isfinite(a) || !isfinite(w)) return a + w;
    return r->t_items0 + pace_time(r, pace_work(r, a - r->t_items0) + w);
}

/* Work done between times a <= b. */
static double pace_between(const sp_run *r, double a, double b)
{
    if (!pace_on(r)) return b - a;
    return pace_work(r, b - r->t_items0) - pace_work(r, a - r->t_items0);
}

/* Items done at simulated time t on the 1 s grid, before the final patch. */
int sp_items_at(const sp_run *r, double t)
{
    if (t < r->t_items0) return 0;
    double tq = r->t_items0 + floor(t - r->t_items0);
    int d = (int)floor(pace_work(r, tq - r->t_items0) * r->sr.rate + 1e-9);
    if (d > r->n_items) d = r->n_items;
    if (r->fail_item >= 0 && d > r->fail_item) d = r->fail_item;
    return d;
}

int sp_estimate_at(const sp_run *r, int done)
{
    int total = 0;
    for (size_t i = 0; i < r->nres; i++)
        total += done > r->res[i].first ? r->res[i].items : r->res[i].items - r->res[i].added;
    return total;
}

double sp_item_time(const sp_run *r, int k) /* when item k (0-based) is done */
{
    return r->t_items0 + pace_time(r, (k + 1) / r->sr.rate);
}

/* The apiserver's generateName "<run>-": the prefix cut to 58 characters, then 5 random ones. */
char *sp_generated_name(const char *run_name, const char *suffix)
{
    char *prefix = xasprintf("%s-", run_name);
    char *name = xasprintf("%.58s%s", prefix, suffix);
    free(prefix);
    return name;
}

/* Plans volumes: creation when pods begin, phases, stall, completion. */
static void plan_volumes(const sp_ctx *c, sp_run *r, double t_pods)
{
    r->nvols = r->sr.n_volumes;
    r->vols = r->nvols ? xcalloc(r->nvols, sizeof *r->vols) : NULL;
    for (size_t i = 0; i < r->nvols; i++) {
        sp_vol *v = &r->vols[i];
        scn_volume *sv = &r->sr.volumes[i];
        v->sv = sv;
        char suf[8];
        sp_rng_suffix(c->rng, suf, 5);
        v->name = sp_generated_name(r->sr.name, suf);
        v->node = sv->node ? xstrdup(sv->node) : xasprintf("worker-%zu", i % 3 + 1);
        v->pod_uid = sp_rng_uuid(c->rng);
        v->pvc_uid = sp_rng_uuid(c->rng);
        char *u = sp_rng_uuid(c->rng);
        v->op_id = xasprintf("%s-%s", r->is_restore ? "dd" : "du", u);
        free(u);
        v->snapshot_id = xasprintf("%016llx%016llx", (unsigned long long)sp_rng_next(c->rng),
                                   (unsigned long long)sp_rng_next(c->rng));
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
        /* nobody accepts a pod volume on a node without a ready node-agent */
        int stuck = sv->stuck_in;
        if (!stuck && sv->uploader != SCN_DATAMOVER && !scn_agent_ready(&c->scn->cluster, v->node))
            stuck = SCN_STUCK_NEW;
        if (stuck) {
            if (stuck <= SCN_STUCK_NEW) v->t_accept = INFINITY;
            if (stuck <= SCN_STUCK_ACCEPTED) v->t_prepare = INFINITY;
            v->t_start = v->t_end = INFINITY;
        }
    }
}

/* Plans the plugin operations: each created at its item, early in the item pass (half a second
 * apart from the items' start), moving at its rate. */
static void plan_ops(sp_run *r, double t_items_end)
{
    r->nops = r->sr.n_ops;
    r->ops = r->nops ? xcalloc(r->nops, sizeof *r->ops) : NULL;
    for (size_t i = 0; i < r->nops; i++) {
        sp_op *o = &r->ops[i];
        const scn_op *so = &r->sr.ops[i];
        o->so = so;
        o->id = so->id ? xstrdup(so->id) : xasprintf("%s-op-%zu", r->sr.name, i + 1);
        o->t_created = fmin(r->t_items0 + 0.5 * (double)(i + 1), t_items_end);
        double total = (double)so->total;
        double stall_at = so->stall_after >= 0 ? so->stall_after * total : INFINITY;
        o->t_stall = stall_at < total ? o->t_created + stall_at / so->rate : INFINITY;
        o->t_end = isfinite(o->t_stall) ? INFINITY : o->t_created + total / so->rate;
    }
}

int64_t sp_op_done_at(const sp_op *o, double t)
{
    if (t <= o->t_created) return 0;
    double d = (fmin(t, o->t_stall) - o->t_created) * o->so->rate;
    if (isfinite(o->t_stall)) d = fmin(d, o->so->stall_after * (double)o->so->total);
    if (d >= (double)o->so->total) return o->so->total;
    return (int64_t)floor(d + 1e-9);
}

/* Bytes done at time t, continuous (before the 10 s grid). */
double sp_vol_bytes_at(const sp_vol *v, double t)
{
    if (t <= v->t_start) return 0;
    double rate = v->sv->rate > 0 ? v->sv->rate : 1;
    const sp_run *r = v->owner;
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

/* Keeps the first keep planned log lines (they are in time order), drops the rest. */
static void keep_lines(sp_run *r, size_t keep)
{
    for (size_t i = keep; i < r->nlines; i++) free(r->lines[i].text);
    r->nlines = keep;
}

/* Velero's server restarted while r was InProgress (the scenario's velero.restart_at): it logs
 * nothing more, and when it is back (down_for later) it marks the run Failed and cancels its
 * unfinished volumes (pkg/cmd/server/server.go). */
static void orphan_on_restart(const sp_ctx *c, sp_run *r)
{
    const scn_cluster *cl = &c->scn->cluster;
    if (!cl->has_restart) return;
    double t = c->epoch + cl->restart_at, back = t + cl->down_for;
    if (!(r->t_start <= t && t < r->t_pass_end)) return;
    int done = sp_items_at(r, t);
    r->fail_item = done > 0 ? done : 0;
    r->t_fail = r->t_pass_end = r->t_ops_seen = r->t_final = back;
    r->final_phase = "Failed";
    r->errors = 0;
    free(r->sr.failure_reason);
    r->sr.failure_reason = xstrdup(
        r->is_restore ? "found a restore with status \"InProgress\" during the server starting, "
                        "mark it as \"Failed\""
                      : "found a backup with status \"InProgress\" during the server starting, "
                        "mark it as \"Failed\"");
    for (size_t i = 0; i < r->nvols; i++)
        if (!sp_vol_terminal_at(&r->vols[i], t)) r->vols[i].t_cancel = back;
    size_t keep = 0;
    while (keep < r->nlines && r->lines[keep].t <= t) keep++;
    keep_lines(r, keep);
}

void sp_plan_run(const sp_ctx *c, sp_run *r)
{
    scn_run *s = &r->sr;
    r->is_restore = s->kind == SCN_RESTORE;
    if (!s->n_namespaces && c->scn->n_namespaces) {
        s->namespaces = xcalloc(c->scn->n_namespaces, sizeof *s->namespaces);
        for (size_t i = 0; i < c->scn->n_namespaces; i++)
            s->namespaces[i] = xstrdup(c->scn->namespaces[i]);
        s->n_namespaces = c->scn->n_namespaces;
    }
    r->uid = sp_rng_uuid(c->rng);
    r->pace_seed = (uint64_t)c->seed * 0x9e3779b97f4a7c15ULL;
    for (const char *q = s->name; q && *q; q++)
        r->pace_seed = (r->pace_seed ^ (uint8_t)*q) * 1099511628211ULL;
    r->t0 = c->epoch + s->start;
    r->t_start = s->queued && !r->is_restore ? INFINITY
                 : r->is_restore             ? r->t0 + 1.0
                                             : r->t0 + 1.5 + r->hold;
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
    r->est0 = sp_estimate_at(r, 0);
    int failed = s->outcome && !strcmp(s->outcome, "Failed");
    r->errors = failed && s->errors < 1 ? 1 : s->errors;
    r->fail_item = failed ? (int)floor(s->fail_at * r->n_items) : -1;
    r->t_fail = failed ? (r->fail_item > 0 ? sp_item_time(r, r->fail_item - 1) : r->t_items0) + 0.5
                       : INFINITY;

    double t_pods = r->t_items0;
    for (size_t i = 0; i < r->nres; i++)
        if (!strcmp(r->res[i].gr, "pods"))
            t_pods = r->t_items0 + pace_time(r, r->res[i].first / s->rate);
    plan_volumes(c, r, t_pods);

    int vol_failed = 0;
    double t_items_end = r->n_items ? sp_item_time(r, r->n_items - 1) : r->t_items0;
    double pass_end = t_items_end, ops_end = 0;
    plan_ops(r, t_items_end);
    for (size_t i = 0; i < r->nops; i++) ops_end = fmax(ops_end, r->ops[i].t_end);
    for (size_t i = 0; i < r->nvols; i++) {
        sp_vol *v = &r->vols[i];
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
            sp_vol *v = &r->vols[i];
            if (v->t_create >= r->t_fail)
                v->t_create = INFINITY; /* never created */
            else if (v->t_end > r->t_fail)
                v->t_cancel = r->t_fail + 0.5;
        }
    } else {
        r->t_pass_end = pass_end + 0.5;
        if ((r->n_du || r->nops) && ops_end > r->t_pass_end)
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
    if (r->is_restore)
        slt_plan_restore(c, r, failed);
    else
        slt_plan_backup(c, r, failed, t_items_end);
    /* stable sort by time (insertion sort keeps order of equal times; lines are nearly sorted) */
    for (size_t i = 1; i < r->nlines; i++) {
        sp_line x = r->lines[i];
        size_t j = i;
        while (j > 0 && r->lines[j - 1].t > x.t) {
            r->lines[j] = r->lines[j - 1];
            j--;
        }
        r->lines[j] = x;
    }
    if (s->hang) { /* the end of the item pass never comes, nor its log lines */
        size_t keep = 0;
        while (keep < r->nlines && r->lines[keep].t < r->t_pass_end) keep++;
        keep_lines(r, keep);
        r->t_pass_end = r->t_ops_seen = r->t_final = INFINITY;
    }
    orphan_on_restart(c, r);
}

void sp_run_free(sp_run *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->nres; i++) pres_clear(&r->res[i]);
    free(r->res);
    for (size_t i = 0; i < r->nvols; i++) {
        sp_vol *v = &r->vols[i];
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
    for (size_t i = 0; i < r->nops; i++) free(r->ops[i].id);
    free(r->ops);
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

const char *sp_run_phase(const sp_run *r, double t)
{
    if (!r->is_restore) {
        if (t < r->t0 + 0.5) return "New";
        /* held by the queue: Queued until half a second before its start (ReadyToStart) */
        if (t < r->t0 + 1.0 || r->sr.queued || t < r->t_start - 0.5) return "Queued";
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

int sp_run_failed(const sp_run *r)
{
    return r->fail_item >= 0;
}

int sp_vol_terminal_at(const sp_vol *v, double t)
{
    return t >= v->t_cancel || t >= v->t_end;
}
