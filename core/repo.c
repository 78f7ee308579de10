/* repo.c: judges repository maintenance (repo.h) from decoded BackupRepositories: the age of the
 * last successful maintenance against the repository's frequency, and the streak of failed
 * maintenances that ends with the newest result. */
#include "repo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"
#include "format.h"
#include "kubeclient/util.h"

typedef struct repo_vec {
    repo_row *v;
    size_t n, cap;
} repo_vec;

static void repo_collect(void *arg, const char *key, void *obj)
{
    (void)key;
    repo_vec *rv = arg;
    if (!obj) return;
    if (rv->n == rv->cap) {
        rv->cap = rv->cap ? rv->cap * 2 : 8;
        rv->v = xrealloc(rv->v, rv->cap * sizeof *rv->v);
    }
    rv->v[rv->n++] = (repo_row){.r = obj};
}

static int repo_cmp(const void *a, const void *b)
{
    const repo_row *x = a, *y = b;
    return strcmp(x->r->name ? x->r->name : "", y->r->name ? y->r->name : "");
}

static void repo_judge(repo_row *w, double now)
{
    const kc_repo *r = w->r;
    double f = 0;
    if (r->frequency && !cron_parse_duration(r->frequency, &f) && f > 0) {
        w->frequency = f;
    } else {
        w->frequency = REPO_DEFAULT_FREQUENCY_S;
        w->frequency_default = 1;
    }
    w->age = r->last_maintenance > 0 ? now - r->last_maintenance : -1;
    if (w->age < 0 && r->last_maintenance > 0) w->age = 0; /* a clock behind the stamp */
    /* never maintained: due at once (Velero's dueForMaintenance), as of its creation */
    w->due = r->last_maintenance > 0 ? r->last_maintenance + w->frequency : r->created;
    w->overdue = w->due > 0 && now > w->due + REPO_OVERDUE_GRACE_S;
    w->newest = r->n_recent ? &r->recent[r->n_recent - 1] : NULL;
    for (size_t i = r->n_recent; i > 0 && r->recent[i - 1].failed; i--) w->failed_streak++;
    w->streak_at_least = w->failed_streak && (size_t)w->failed_streak == r->n_recent &&
                         r->n_recent >= REPO_RECENT_KEPT;
    w->not_ready = r->phase && !strcmp(r->phase, "NotReady");
}

repo_report *repo_build(kc_store *repos, double now)
{
    repo_report *rp = xcalloc(1, sizeof *rp);
    rp->now = now;
    repo_vec rv = {0};
    if (repos) kc_store_foreach(repos, repo_collect, &rv);
    rp->rows = rv.v;
    rp->n = rv.n;
    if (rp->n) qsort(rp->rows, rp->n, sizeof *rp->rows, repo_cmp);
    for (size_t i = 0; i < rp->n; i++) {
        repo_row *w = &rp->rows[i];
        repo_judge(w, now);
        rp->n_failing += w->failed_streak > 0;
        rp->n_overdue += w->overdue;
        rp->n_not_ready += w->not_ready;
    }
    return rp;
}

void repo_set_unread(repo_report *rp, const char *why)
{
    snprintf(rp->unread, sizeof rp->unread, "%s", why && *why ? why : "not listed");
    rp->n = 0; /* what a stale store holds is not what the cluster has */
    rp->n_failing = rp->n_overdue = rp->n_not_ready = 0;
}

void repo_report_free(repo_report *rp)
{
    if (!rp) return;
    free(rp->rows);
    free(rp);
}

int repo_attention(const repo_row *w)
{
    return w->failed_streak > 0 || w->overdue || w->not_ready;
}

char *repo_diagnose(const repo_row *w, char *buf, size_t n)
{
    const char *name = w->r->name ? w->r->name : "?";
    buf[0] = 0;
    if (w->failed_streak) {
        const char *msg = w->newest && w->newest->message ? w->newest->message : "no message";
        if (w->failed_streak == 1)
            snprintf(buf, n, "repository %s: maintenance failed, last: %s", name, msg);
        else
            snprintf(buf, n, "repository %s: maintenance failed %s%d times, last: %s", name,
                     w->streak_at_least ? "at least " : "", w->failed_streak, msg);
    } else if (w->not_ready) {
        snprintf(buf, n, "repository %s: NotReady: %s", name,
                 w->r->message ? w->r->message : "no message");
    } else if (w->overdue) {
        char by[32], ago[32], every[32];
        fmt_duration(every, sizeof every, w->frequency);
        if (w->age >= 0) {
            fmt_duration(by, sizeof by, w->age - w->frequency);
            snprintf(buf, n, "repository %s: maintenance overdue by %s (last %s ago, every %s)",
                     name, by, fmt_duration(ago, sizeof ago, w->age), every);
        } else {
            snprintf(buf, n, "repository %s: never maintained (every %s)", name, every);
        }
    }
    return buf;
}

char *repo_unknown(const repo_report *rp, char *buf, size_t n)
{
    buf[0] = 0;
    if (rp->unread[0]) snprintf(buf, n, "cannot read backuprepositories: %s", rp->unread);
    return buf;
}

char *repo_summary(const repo_report *rp, char *buf, size_t n)
{
    if (rp->unread[0]) {
        char why[256];
        snprintf(buf, n, "repositories: unknown (%s)", repo_unknown(rp, why, sizeof why));
        return buf;
    }
    size_t o = (size_t)snprintf(buf, n, "repositories %zu", rp->n);
    const char *sep = " (";
    if (rp->n_failing && o < n) {
        o += (size_t)snprintf(buf + o, n - o, "%s%d failing", sep, rp->n_failing);
        sep = ", ";
    }
    if (rp->n_overdue && o < n) {
        o += (size_t)snprintf(buf + o, n - o, "%s%d overdue", sep, rp->n_overdue);
        sep = ", ";
    }
    if (rp->n_not_ready && o < n) {
        o += (size_t)snprintf(buf + o, n - o, "%s%d not ready", sep, rp->n_not_ready);
        sep = ", ";
    }
    if (sep[0] == ',' && o < n) snprintf(buf + o, n - o, ")");
    return buf;
}

typedef struct repo_jobs_ctx {
    repo_report *rp;
    const kc_job **all;
    size_t n, cap;
} repo_jobs_ctx;

static void repo_job_collect(void *arg, const char *key, void *obj)
{
    (void)key;
    repo_jobs_ctx *c = arg;
    if (!obj) return;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->all = xrealloc(c->all, c->cap * sizeof *c->all);
    }
    c->all[c->n++] = obj;
}

static double repo_job_time(const kc_job *j)
{
    return j->started > 0 ? j->started : j->created;
}

const char *repo_job_state(const kc_job *j)
{
    if (j->failed_cond) return "failed";
    if (j->complete) return "succeeded";
    if (j->active) return "running";
    if (j->succeeded) return "succeeded";
    if (j->failed) return "failed";
    return "running"; /* created, its pod not started yet */
}

/* newest first; running ones before finished ones */
static int repo_job_cmp(const void *a, const void *b)
{
    const kc_job *x = *(const kc_job *const *)a, *y = *(const kc_job *const *)b;
    int rx = !strcmp(repo_job_state(x), "running"), ry = !strcmp(repo_job_state(y), "running");
    if (rx != ry) return rx ? -1 : 1;
    double tx = repo_job_time(x), ty = repo_job_time(y);
    if (tx != ty) return tx > ty ? -1 : 1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

void repo_add_jobs(repo_report *rp, kc_store *jobs, int jobs_known, const char *why, kc_store *pods)
{
    rp->pods = pods;
    if (!jobs_known) {
        snprintf(rp->jobs_unread, sizeof rp->jobs_unread, "%s", why && *why ? why : "not listed");
        return;
    }
    rp->jobs_unread[0] = 0;
    repo_jobs_ctx c = {rp, NULL, 0, 0};
    if (jobs) kc_store_foreach(jobs, repo_job_collect, &c);
    if (c.n) qsort(c.all, c.n, sizeof *c.all, repo_job_cmp);
    char label[80];
    for (size_t i = 0; i < rp->n; i++) {
        repo_row *w = &rp->rows[i];
        kc_job_repo_label(w->r->name, label, sizeof label);
        for (size_t k = 0; k < c.n; k++) {
            const kc_job *j = c.all[k];
            if (!j->repo_label || strcmp(j->repo_label, label)) continue;
            w->n_jobs_all++;
            if (!strcmp(repo_job_state(j), "running")) w->n_running++;
            if (w->n_jobs < REPO_JOBS_KEPT) w->jobs[w->n_jobs++] = j;
        }
    }
    free(c.all);
}

typedef struct repo_pod_ctx {
    const char *job;
    const kc_pod *best;
} repo_pod_ctx;

static void repo_pod_collect(void *arg, const char *key, void *obj)
{
    (void)key;
    repo_pod_ctx *c = arg;
    const kc_pod *p = obj;
    if (!p) return;
    const char *jn = kc_pod_label(p, "job-name");
    if (!jn || strcmp(jn, c->job)) return;
    if (!c->best || p->created > c->best->created) c->best = p;
}

const kc_pod *repo_job_pod(const repo_report *rp, const kc_job *j)
{
    if (!rp || !rp->pods || !j || !j->name) return NULL;
    repo_pod_ctx c = {j->name, NULL};
    kc_store_foreach(rp->pods, repo_pod_collect, &c);
    return c.best;
}

char *repo_jobs_line(const repo_report *rp, const repo_row *w, char *buf, size_t n)
{
    if (!n) return buf;
    buf[0] = 0;
    size_t k = 0;
    char d1[32], d2[32];
#define RJ(...)                                                                                    \
    do {                                                                                           \
        if (k < n) {                                                                               \
            int w_ = snprintf(buf + k, n - k, __VA_ARGS__);                                        \
            if (w_ > 0) k += (size_t)w_;                                                           \
        }                                                                                          \
    } while (0)
    if (rp->jobs_unread[0]) {
        RJ("maintenance jobs: unknown (%s)", rp->jobs_unread);
        return buf;
    }
    if (!w->n_jobs) {
        RJ("maintenance jobs: none");
        return buf;
    }
    RJ("maintenance jobs:");
    size_t i = 0;
    for (; i < w->n_jobs && i < w->n_running; i++) {
        const kc_job *j = w->jobs[i];
        double t = repo_job_time(j);
        RJ("%s running %s", i ? "," : "", j->name ? j->name : "?");
        if (t > 0) RJ(" (started %s ago)", fmt_duration(d1, sizeof d1, rp->now - t));
    }
    if (i < w->n_jobs) RJ("%s last:", i ? ";" : "");
    for (size_t f = i; i < w->n_jobs && i < f + 3; i++) {
        const kc_job *j = w->jobs[i];
        double t = repo_job_time(j);
        RJ("%s %s", i > f ? "," : "", repo_job_state(j));
        if (j->ended > 0)
            RJ(" %s ago", fmt_duration(d1, sizeof d1, rp->now - j->ended));
        else if (t > 0)
            RJ(" (started %s ago)", fmt_duration(d1, sizeof d1, rp->now - t));
        if (j->ended > 0 && t > 0 && j->ended >= t)
            RJ(" (took %s)", fmt_duration(d2, sizeof d2, j->ended - t));
        if (j->message && !strcmp(repo_job_state(j), "failed")) RJ(": %s", j->message);
    }
#undef RJ
    return buf;
}
