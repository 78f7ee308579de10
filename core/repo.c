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
