/* health.c: builds the health picture (health.h) from decoded Schedules, BSLs, VSLs, pods and the
 * model's runs: per schedule its next run and overdue state from the cron (cron.h), its newest
 * backup and the trend of its last finished runs; the server pod and a node-agent per node. */
#include "health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "kubeclient/daemonset.h"
#include "kubeclient/util.h"
#include "readiness.h"
#include "queue.h"

typedef struct health_vec {
    void **v;
    size_t n, cap;
} health_vec;

static void health_collect(void *arg, const char *key, void *obj)
{
    (void)key;
    health_vec *hv = arg;
    if (!obj) return;
    if (hv->n == hv->cap) {
        hv->cap = hv->cap ? hv->cap * 2 : 8;
        hv->v = xrealloc(hv->v, hv->cap * sizeof *hv->v);
    }
    hv->v[hv->n++] = obj;
}

static health_vec health_all(kc_store *s)
{
    health_vec hv = {0};
    if (s) kc_store_foreach(s, health_collect, &hv);
    return hv;
}

static int health_cmp_sched(const void *a, const void *b)
{
    const health_schedule *x = a, *y = b;
    return strcmp(x->s->meta.name ? x->s->meta.name : "", y->s->meta.name ? y->s->meta.name : "");
}

static int health_cmp_bsl(const void *a, const void *b)
{
    const vl_bsl *x = *(const vl_bsl *const *)a, *y = *(const vl_bsl *const *)b;
    return strcmp(x->meta.name ? x->meta.name : "", y->meta.name ? y->meta.name : "");
}

static int health_cmp_agent(const void *a, const void *b)
{
    const health_agent *x = a, *y = b;
    int c = strcmp(x->node ? x->node : "", y->node ? y->node : "");
    return c ? c : strcmp(x->pod->name ? x->pod->name : "", y->pod->name ? y->pod->name : "");
}

static int health_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void health_need_node(health *h, const char *node);

static double health_run_time(const vl_run *r)
{
    return r->started > 0 ? r->started : r->meta.created;
}

/* Keeps the max newest runs (by start, else creation) in v. */
static void health_keep_newest(const vl_run **v, int *n, int max, const vl_run *r)
{
    if (*n < max) {
        v[(*n)++] = r;
        return;
    }
    int oldest = 0;
    for (int k = 1; k < *n; k++)
        if (health_run_time(v[k]) < health_run_time(v[oldest])) oldest = k;
    if (health_run_time(v[oldest]) < health_run_time(r)) v[oldest] = r;
}

/* A run's recent finished runs, kept sorted oldest first in a ring of HEALTH_TREND, and the
 * outcomes of the last HEALTH_RECENT. */
static void health_schedule_runs(health_schedule *hs, model *m)
{
    const char *name = hs->s->meta.name;
    const model_run *fin[HEALTH_TREND];
    int nfin = 0;
    const vl_run *recent[HEALTH_RECENT];
    int nrec = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *mr = m->runs[i];
        const vl_run *r = mr->run;
        if (!r || mr->kind != VL_BACKUP || !r->schedule || !name || strcmp(r->schedule, name))
            continue;
        double t = health_run_time(r);
        if (!hs->last || t > health_run_time(hs->last)) hs->last = r;
        if (r->phase_id == VL_PH_COMPLETED && r->started > hs->last_success)
            hs->last_success = r->started;
        if (vl_phase_terminal(r->phase_id)) {
            if (!hs->last_finished || t > health_run_time(hs->last_finished)) hs->last_finished = r;
            health_keep_newest(recent, &nrec, HEALTH_RECENT, r);
        }
        if (!vl_phase_terminal(r->phase_id) || r->started <= 0 || r->completed < r->started)
            continue;
        /* keep the newest HEALTH_TREND, by start */
        int pos = nfin < HEALTH_TREND ? nfin++ : -1;
        if (pos < 0) {
            int oldest = 0;
            for (int k = 1; k < nfin; k++)
                if (fin[k]->run->started < fin[oldest]->run->started) oldest = k;
            if (fin[oldest]->run->started >= r->started) continue;
            pos = oldest;
        }
        fin[pos] = mr;
    }
    /* oldest first */
    for (int i = 1; i < nfin; i++)
        for (int k = i; k > 0 && fin[k]->run->started < fin[k - 1]->run->started; k--) {
            const model_run *t = fin[k];
            fin[k] = fin[k - 1];
            fin[k - 1] = t;
        }
    double sorted[HEALTH_TREND];
    for (int i = 0; i < nfin; i++) {
        const vl_run *r = fin[i]->run;
        hs->dur[i] = r->completed - r->started;
        hs->items[i] = r->items_total;
        hs->bytes[i] = fin[i]->vols.bytes_done;
        hs->bytes_loading = m->vols_partial;
        hs->phase[i] = r->phase_id;
        sorted[i] = hs->dur[i];
    }
    hs->n_recent = nrec;
    for (int i = 0; i < nrec; i++) {
        vl_phase p = recent[i]->phase_id;
        hs->n_ok += p == VL_PH_COMPLETED;
        hs->n_partial += p == VL_PH_PARTIALLY_FAILED;
        hs->n_failed += p == VL_PH_FAILED || p == VL_PH_FAILED_VALIDATION;
    }
    hs->n_trend = nfin;
    if (nfin) {
        qsort(sorted, (size_t)nfin, sizeof *sorted, health_cmp_double);
        hs->typical = sorted[nfin / 2];
    }
}

health *health_build(model *m, kc_store *schedules, kc_store *bsls, kc_store *vsls, kc_store *pods,
                     int pods_known, double wall)
{
    health *h = xcalloc(1, sizeof *h);
    h->now = wall = model_cluster_now(m, wall); /* schedules fire on the cluster's clock */
    h->queue = xcalloc(1, sizeof *h->queue);
    queue_summarise(m, h->now, h->queue);
    health_vec sv = health_all(schedules);
    h->n_sch = sv.n;
    h->sch = sv.n ? xcalloc(sv.n, sizeof *h->sch) : NULL;
    for (size_t i = 0; i < sv.n; i++) {
        health_schedule *hs = &h->sch[i];
        hs->s = sv.v[i];
        if (m) health_schedule_runs(hs, m);
        hs->cron_ok =
            cron_parse(hs->s->schedule, &(cron_spec){0}, hs->cron_err, sizeof hs->cron_err) == 0;
        if (hs->cron_ok) {
            cron_spec c;
            cron_parse(hs->s->schedule, &c, NULL, 0);
            double fire = hs->s->last_backup;
            if (hs->s->last_skipped > fire) fire = hs->s->last_skipped;
            cron_due_eval(&c, hs->s->paused, fire, hs->s->meta.created, hs->last_success,
                          hs->typical, wall, &hs->due);
            h->n_overdue += hs->due.overdue;
        }
        h->n_sched_failing += hs->last_finished && hs->last_finished->phase_id != VL_PH_COMPLETED;
    }
    free(sv.v);
    if (h->n_sch) qsort(h->sch, h->n_sch, sizeof *h->sch, health_cmp_sched);

    health_vec bv = health_all(bsls);
    h->bsl = (const vl_bsl **)bv.v;
    h->n_bsl = bv.n;
    if (h->n_bsl) qsort(h->bsl, h->n_bsl, sizeof *h->bsl, health_cmp_bsl);
    for (size_t i = 0; i < h->n_bsl; i++)
        h->n_bsl_unavailable += h->bsl[i]->phase && !strcmp(h->bsl[i]->phase, "Unavailable");
    health_vec vv = health_all(vsls);
    h->vsl = (const vl_bsl **)vv.v;
    h->n_vsl = vv.n;
    if (h->n_vsl) qsort(h->vsl, h->n_vsl, sizeof *h->vsl, health_cmp_bsl);

    h->pods_known = pods_known;
    health_vec pv = health_all(pods);
    h->server = kc_pod_pick_server((const kc_pod *const *)pv.v, pv.n);
    h->agents = pv.n ? xcalloc(pv.n, sizeof *h->agents) : NULL;
    for (size_t i = 0; i < pv.n; i++) {
        const kc_pod *p = pv.v[i];
        h->n_servers += p->role == KC_POD_SERVER;
        if (p->role != KC_POD_NODE_AGENT) continue;
        h->agents[h->n_agents++] = (health_agent){p->node, p};
        h->n_agents_ready += p->ready;
    }
    if (h->n_agents) qsort(h->agents, h->n_agents, sizeof *h->agents, health_cmp_agent);
    /* nodes that need a node-agent and have none: those of volumes not finished (a node-agent
     * moves their data), as far as veltop sees them */
    if (h->pods_known && m) {
        for (size_t i = 0; i < m->n_vols; i++) {
            const vl_volume *v = m->vols[i]->vol;
            if (!v || !v->node || vl_phase_terminal(v->phase_id)) continue;
            health_need_node(h, v->node);
        }
    }
    h->bsl_since = h->n_bsl ? xcalloc(h->n_bsl, sizeof *h->bsl_since) : NULL;
    free(pv.v);
    if (!pods_known) health_set_unread(h, HEALTH_IN_PODS, "not listed");
    return h;
}

static void health_need_node(health *h, const char *node)
{
    if (health_agent_on(h, node)) return;
    size_t i = 0;
    while (i < h->n_nodes_without && strcmp(h->nodes_without[i], node) < 0) i++;
    if (i < h->n_nodes_without && !strcmp(h->nodes_without[i], node)) return;
    if (h->n_nodes_without == HEALTH_MAX_NODES) return;
    memmove(&h->nodes_without[i + 1], &h->nodes_without[i],
            (h->n_nodes_without - i) * sizeof h->nodes_without[0]);
    h->nodes_without[i] = node;
    h->n_nodes_without++;
}

void health_set_daemonsets(health *h, kc_store *daemonsets, int known)
{
    health_vec dv = health_all(daemonsets);
    h->agent_ds = kc_daemonset_pick_node_agent((const kc_daemonset *const *)dv.v, dv.n);
    h->ds_known = known;
    free(dv.v);
}

int health_agents_wanted(const health *h)
{
    if (h->agent_ds && h->agent_ds->has_status) return h->agent_ds->desired;
    if (h->pods_known) return (int)h->n_agents;
    return -1;
}

double health_bsl_since(const health *h, const char *name)
{
    for (size_t i = 0; h && h->bsl_since && name && i < h->n_bsl; i++)
        if (h->bsl[i]->meta.name && !strcmp(h->bsl[i]->meta.name, name)) return h->bsl_since[i];
    return 0;
}

char *health_outcomes(const health_schedule *hs, char *buf, size_t n)
{
    buf[0] = 0;
    if (!hs->n_recent) return buf;
    size_t o = (size_t)snprintf(buf, n, "last %d: %d ok", hs->n_recent, hs->n_ok);
    if (hs->n_partial && o < n)
        o += (size_t)snprintf(buf + o, n - o, ", %d partial", hs->n_partial);
    if (hs->n_failed && o < n) o += (size_t)snprintf(buf + o, n - o, ", %d failed", hs->n_failed);
    int other = hs->n_recent - hs->n_ok - hs->n_partial - hs->n_failed;
    if (other > 0 && o < n) snprintf(buf + o, n - o, ", %d other", other);
    return buf;
}

void health_free(health *h)
{
    if (!h) return;
    free(h->sch);
    free(h->bsl);
    free(h->vsl);
    free(h->agents);
    free(h->bsl_since);
    ready_free(h->ready);
    repo_report_free(h->repos);
    free(h->queue);
    free(h);
}

const kc_pod *health_agent_on(const health *h, const char *node)
{
    const kc_pod *found = NULL;
    for (size_t i = 0; h && node && i < h->n_agents; i++)
        if (h->agents[i].node && !strcmp(h->agents[i].node, node))
            if (!found || (h->agents[i].pod->ready && !found->ready)) found = h->agents[i].pod;
    return found;
}

const vl_bsl *health_bsl(const health *h, const char *name)
{
    for (size_t i = 0; h && name && i < h->n_bsl; i++)
        if (h->bsl[i]->meta.name && !strcmp(h->bsl[i]->meta.name, name)) return h->bsl[i];
    return NULL;
}

static const char *const health_in_names[HEALTH_NIN] = {
    "schedules",          "backups", "backupstoragelocations",  "pods",
    "backuprepositories", "jobs",    "volumesnapshotlocations", "daemonsets"};

/* Each list the app reads (APP_R_*) as the health input it is (HI: + 1), or ELSEWHERE when
 * another answer says it is not read: the restores are the runs (the lamp, --once's exit 1),
 * the volumes the answers' own (answer.c: "podvolumebackups forbidden"). A list left out is 0:
 * health_input_of_list says -2 and test_health fails. */
#define HI(in)    ((signed char)((in) + 1))
#define ELSEWHERE ((signed char)-1)
static const signed char health_in_of_list[APP_NREFL] = {
    [APP_R_BACKUPS] = HI(HEALTH_IN_BACKUPS),
    [APP_R_RESTORES] = ELSEWHERE,
    [APP_R_PVBS] = ELSEWHERE,
    [APP_R_PVRS] = ELSEWHERE,
    [APP_R_DUS] = ELSEWHERE,
    [APP_R_DDS] = ELSEWHERE,
    [APP_R_SCHEDULES] = HI(HEALTH_IN_SCHEDULES),
    [APP_R_BSLS] = HI(HEALTH_IN_BSLS),
    [APP_R_VSLS] = HI(HEALTH_IN_VSLS),
    [APP_R_PODS] = HI(HEALTH_IN_PODS),
    [APP_R_DAEMONSETS] = HI(HEALTH_IN_DAEMONSETS),
    [APP_R_REPOS] = HI(HEALTH_IN_REPOS),
    [APP_R_JOBS] = HI(HEALTH_IN_JOBS),
};
#undef HI
#undef ELSEWHERE

int health_input_of_list(int refl)
{
    if (refl < 0 || refl >= APP_NREFL) return -2;
    int v = health_in_of_list[refl];
    return v > 0 ? v - 1 : v < 0 ? -1 : -2;
}

const char *health_incomplete(const health *h, health_input in, char *buf, size_t n)
{
    /* the pods are the answers' own (answer.h: "pods forbidden"), the backups the runs' */
    if (in >= HEALTH_NIN || in == HEALTH_IN_PODS || in == HEALTH_IN_BACKUPS) return NULL;
    const char *why = h->unread[in];
    if (!why[0]) return NULL;
    snprintf(buf, n, "%s%s%.160s", health_in_names[in],
             strcmp(why, "forbidden") && strcmp(why, "unauthorized") ? ": " : " ", why);
    return buf;
}

const char *health_input_name(health_input in)
{
    return in < HEALTH_NIN ? health_in_names[in] : "?";
}

void health_set_unread(health *h, health_input in, const char *why)
{
    if (in >= HEALTH_NIN) return;
    snprintf(h->unread[in], sizeof h->unread[in], "%s", why && *why ? why : "not listed");
    if (in == HEALTH_IN_REPOS) { /* no repository is "none" */
        if (h->repos) repo_set_unread(h->repos, h->unread[in]);
    } else if (in == HEALTH_IN_PODS) { /* no server, no node-agents: unknown, not missing */
        h->pods_known = 0;
        h->n_nodes_without = 0;
    } else if (in == HEALTH_IN_BACKUPS) {
        if (h->queue) queue_summary_unread(h->queue, h->unread[in]);
        /* the schedules' runs are not seen: none of them is "none yet", none overdue */
        for (size_t i = 0; i < h->n_sch; i++) {
            health_schedule *hs = &h->sch[i];
            hs->runs_unknown = 1;
            hs->last = hs->last_finished = NULL;
            hs->last_success = hs->typical = 0;
            hs->n_trend = hs->n_recent = hs->n_ok = hs->n_partial = hs->n_failed = 0;
            hs->due.overdue = 0;
        }
        h->n_overdue = h->n_sched_failing = 0;
    }
}

char *health_unknown(const health *h, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    /* the pods first: the most common list a user may not read; lists that fail for the same
     * reason (an unreachable server) are named together */
    static const health_input order[] = {HEALTH_IN_PODS, HEALTH_IN_BACKUPS,   HEALTH_IN_SCHEDULES,
                                         HEALTH_IN_BSLS, HEALTH_IN_VSLS,      HEALTH_IN_REPOS,
                                         HEALTH_IN_JOBS, HEALTH_IN_DAEMONSETS};
    enum { NO = sizeof order / sizeof order[0] };
    _Static_assert((int)NO == (int)HEALTH_NIN, "every input is said when it is not read");
    int said[NO] = {0};
    for (size_t i = 0; i < NO && o < n; i++) {
        const char *why = h->unread[order[i]];
        if (said[i] || !why[0]) continue;
        o += (size_t)snprintf(buf + o, n - o, "%scannot read %s", o ? "; " : "",
                              health_in_names[order[i]]);
        for (size_t k = i + 1; k < NO && o < n; k++)
            if (!said[k] && !strcmp(h->unread[order[k]], why)) {
                said[k] = 1;
                o += (size_t)snprintf(buf + o, n - o, ", %s", health_in_names[order[k]]);
            }
        if (o < n) o += (size_t)snprintf(buf + o, n - o, ": %s", why);
    }
    return buf;
}

const char *health_verdict_name(health_verdict v)
{
    return v == HEALTH_OK ? "OK" : v == HEALTH_ATTENTION ? "ATTENTION" : "unknown";
}

health_verdict health_judge(const health *h, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
#define HS_ADD(...)                                                                                \
    do {                                                                                           \
        if (len < n) len += (size_t)snprintf(buf + len, n - len, __VA_ARGS__);                     \
    } while (0)
#define HS_SEP (len ? "  " : "")
    if (!h->unread[HEALTH_IN_SCHEDULES][0]) {
        HS_ADD("schedules %zu", h->n_sch);
        if (h->n_overdue) HS_ADD(" (%d overdue)", h->n_overdue);
    }
    /* each schedule whose recent runs did not all complete: how they ended */
    for (size_t i = 0; i < h->n_sch; i++) {
        const health_schedule *hs = &h->sch[i];
        char oc[96];
        if (hs->n_recent == hs->n_ok) continue;
        HS_ADD("%s%s: %s", HS_SEP, hs->s->meta.name ? hs->s->meta.name : "?",
               health_outcomes(hs, oc, sizeof oc));
    }
    if (!h->unread[HEALTH_IN_BSLS][0])
        HS_ADD("%sBSL %zu/%zu available", HS_SEP, h->n_bsl - (size_t)h->n_bsl_unavailable,
               h->n_bsl);
    if (h->pods_known) {
        if (!h->server)
            HS_ADD("%sserver: no pod", HS_SEP);
        else {
            HS_ADD("%sserver %s", HS_SEP, h->server->ready ? "ready" : "NOT READY");
            if (h->server->restarts)
                HS_ADD(" (%d restart%s)", h->server->restarts, h->server->restarts == 1 ? "" : "s");
        }
    }
    int wanted = health_agents_wanted(h);
    if (h->pods_known && wanted > 0) { /* without the pods, how many are ready is unknown */
        HS_ADD("%snode-agents %d/%d ready", HS_SEP, h->n_agents_ready, wanted);
        if (h->n_nodes_without == 1)
            HS_ADD(" (%s has none)", h->nodes_without[0]);
        else if (h->n_nodes_without > 1)
            HS_ADD(" (%zu nodes have none)", h->n_nodes_without);
    }
    /* each schedule whose newest restorable backup is too old (readiness.h) */
    for (size_t i = 0; h->ready && i < h->ready->n; i++) {
        const ready_schedule *rs = &h->ready->s[i];
        char age[32];
        if (!rs->stale) continue;
        if (rs->backup)
            HS_ADD("%s%s: newest restorable %s old", HS_SEP, rs->schedule,
                   fmt_duration(age, sizeof age, rs->age));
        else
            HS_ADD("%s%s: nothing restorable", HS_SEP, rs->schedule);
    }
    /* repositories only when there are some (most clusters without pod volume backups have none) */
    const repo_report *rp = h->repos;
    if (rp && !h->unread[HEALTH_IN_REPOS][0] && rp->n) {
        char rs[128];
        HS_ADD("%s%s", HS_SEP, repo_summary(rp, rs, sizeof rs));
    }
#undef HS_SEP
#undef HS_ADD
    int bad = (h->ready && h->ready->n_stale) || h->n_overdue || h->n_bsl_unavailable ||
              h->n_sched_failing || (h->pods_known && !h->server) ||
              (h->pods_known && h->server && (!h->server->ready || h->server->restarts)) ||
              (h->pods_known && wanted >= 0 && h->n_agents_ready < wanted) || h->n_nodes_without ||
              (rp && (rp->n_failing || rp->n_overdue || rp->n_not_ready));
    if (bad) return HEALTH_ATTENTION;
    for (int i = 0; i < HEALTH_NIN; i++)
        if (h->unread[i][0]) return HEALTH_UNKNOWN;
    return HEALTH_OK;
}

/* Why a list is not read, in the words health_unknown puts after "cannot read pods: ". */
static void health_why(const kc_refl_status *st, char *buf, size_t n)
{
    if (st->last_status == 403)
        snprintf(buf, n, "forbidden");
    else if (st->last_status == 401)
        snprintf(buf, n, "unauthorized");
    else if (st->last_error[0]) { /* cut to fit (snprintf "%s" trips -Wformat-truncation) */
        size_t k = strlen(st->last_error);
        if (k >= n) k = n - 1;
        memcpy(buf, st->last_error, k);
        buf[k] = 0;
    } else
        snprintf(buf, n, "not listed yet");
}

health *health_of_app(app *a, double wall)
{
    int pods_known = kc_reflector_status(a->refl[APP_R_PODS])->synced;
    health *h = health_build(a->model, a->stores[APP_R_SCHEDULES], a->stores[APP_R_BSLS],
                             a->stores[APP_R_VSLS], a->stores[APP_R_PODS], pods_known, wall);
    health_set_daemonsets(h, a->stores[APP_R_DAEMONSETS],
                          kc_reflector_status(a->refl[APP_R_DAEMONSETS])->synced);
    for (size_t i = 0; i < h->n_bsl; i++)
        h->bsl_since[i] = app_bsl_unavailable_since(a, h->bsl[i]->meta.name);
    h->repos = repo_build(a->stores[APP_R_REPOS], h->now);
    for (int i = 0; i < APP_NREFL; i++) { /* every list health is made of (health_in_of_list) */
        int in = health_input_of_list(i);
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        /* a resource the server does not have (404) has no objects to miss: none, as the
         * answers' own lists (answer.c); forbidden, unauthorised or failing lists hide them */
        if (in < 0 || st->synced || st->last_status == 404) continue;
        char why[sizeof h->unread[0]];
        health_why(st, why, sizeof why);
        health_set_unread(h, (health_input)in, why);
    }
    { /* the repositories' maintenance jobs: unknown with why while their list is not read */
        const kc_refl_status *jst = kc_reflector_status(a->refl[APP_R_JOBS]);
        char jwhy[sizeof h->unread[0]] = "";
        int jobs_absent = jst->last_status == 404; /* no Jobs API: no maintenance jobs */
        if (!jst->synced && !jobs_absent) health_why(jst, jwhy, sizeof jwhy);
        if (h->repos)
            repo_add_jobs(h->repos, a->stores[APP_R_JOBS], jst->synced || jobs_absent, jwhy,
                          h->pods_known ? a->stores[APP_R_PODS] : NULL);
    }
    const kc_refl_status *rst = kc_reflector_status(a->refl[APP_R_RESTORES]);
    char rwhy[sizeof h->unread[0]] = "";
    if (!rst->synced) health_why(rst, rwhy, sizeof rwhy);
    h->ready = ready_build(h, a->model, rwhy);
    return h;
}
