/* queue.c: why a backup is not running (queue.h). */
#include "queue.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "format.h"

static int q_waiting(const vl_run *x)
{
    return x->phase_id == VL_PH_NEW || x->phase_id == VL_PH_QUEUED ||
           x->phase_id == VL_PH_READY_TO_START;
}

static int q_same_ns(const vl_run *a, const vl_run *b)
{
    const char *x = a->meta.ns ? a->meta.ns : "", *y = b->meta.ns ? b->meta.ns : "";
    return !strcmp(x, y);
}

/* Velero's order of the waiting: ReadyToStart first (it has left the queue), then by
 * queuePosition (a New one, without a position, last), then by creation and name. -1 when a
 * goes before b. */
static int q_before(const model_run *a, const model_run *b)
{
    const vl_run *x = a->run, *y = b->run;
    int rx = x->phase_id == VL_PH_READY_TO_START, ry = y->phase_id == VL_PH_READY_TO_START;
    if (rx != ry) return rx ? -1 : 1;
    int64_t px = x->queue_position > 0 ? x->queue_position : INT64_MAX;
    int64_t py = y->queue_position > 0 ? y->queue_position : INT64_MAX;
    if (px != py) return px < py ? -1 : 1;
    if (x->meta.created != y->meta.created) return x->meta.created < y->meta.created ? -1 : 1;
    return strcmp(a->name, b->name) < 0 ? -1 : 1;
}

static int q_all_ns(const vl_run *x)
{
    if (!x->n_included_ns) return 1;
    for (size_t i = 0; i < x->n_included_ns; i++)
        if (x->included_ns[i] && !strcmp(x->included_ns[i], "*")) return 1;
    return 0;
}

static int q_excluded(const vl_run *x, const char *ns)
{
    for (size_t i = 0; i < x->n_excluded_ns; i++)
        if (x->excluded_ns[i] && fnmatch(x->excluded_ns[i], ns, 0) == 0) return 1;
    return 0;
}

/* ns (a name or a pattern of a) is in x's namespaces. */
static int q_holds(const vl_run *x, const char *ns)
{
    if (q_excluded(x, ns)) return 0;
    if (q_all_ns(x)) return 1;
    for (size_t i = 0; i < x->n_included_ns; i++) {
        const char *p = x->included_ns[i];
        if (p && (fnmatch(p, ns, 0) == 0 || fnmatch(ns, p, 0) == 0)) return 1;
    }
    return 0;
}

int queue_ns_overlap(const vl_run *a, const vl_run *b)
{
    if (q_all_ns(a) && q_all_ns(b)) return 1; /* a cluster always has namespaces */
    const vl_run *lit = q_all_ns(a) ? b : a, *other = lit == a ? b : a;
    for (size_t i = 0; i < lit->n_included_ns; i++) {
        const char *ns = lit->included_ns[i];
        if (ns && !q_excluded(lit, ns) && q_holds(other, ns)) return 1;
    }
    return 0;
}

static void q_limit(const ans_ctx *c, queue_wait *q)
{
    const health *h = c->h;
    if (!h) {
        snprintf(q->limit_why, sizeof q->limit_why, "the Velero server pod is not read");
    } else if (!h->pods_known) {
        snprintf(q->limit_why, sizeof q->limit_why, "the Velero server pod is not read: %s",
                 h->unread[HEALTH_IN_PODS][0] ? h->unread[HEALTH_IN_PODS] : "pods not listed");
    } else if (!h->server) {
        snprintf(q->limit_why, sizeof q->limit_why, "no Velero server pod");
    } else {
        q->limit_known = 1;
        q->limit_default = h->server->concurrent_backups <= 0;
        q->limit = q->limit_default ? 1 : h->server->concurrent_backups;
    }
}

static int q_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The estimated start: the run needs (running - limit + 1) slots freed, plus one for each run
 * ahead that has not started yet (it takes a slot first); the k-th earliest end of the runs in
 * flight, when that many are in flight and each has an ETA. An overlapping run must end too. */
static void q_start(const ans_ctx *c, queue_wait *q, const model_run *const *running, size_t nr)
{
    q->start_known = 0;
    if (!q->limit_known) {
        snprintf(q->start_why, sizeof q->start_why, "the concurrency limit is unknown");
        return;
    }
    if (q->overlap && !vl_phase_active(q->overlap->run->phase_id)) {
        snprintf(q->start_why, sizeof q->start_why,
                 "the overlapping backup has not started: its length is unknown");
        return;
    }
    long need = (long)nr - q->limit + 1 + (long)q->n_ahead_queued;
    if (need > (long)nr) {
        snprintf(q->start_why, sizeof q->start_why,
                 "it waits on runs ahead that have not started: their length is unknown");
        return;
    }
    double *ends = nr ? calloc(nr, sizeof *ends) : NULL;
    double over_end = 0;
    for (size_t i = 0; i < nr; i++) {
        /* no slot needed: only the overlapping run's end matters */
        if (need <= 0 && running[i] != q->overlap) continue;
        run_answer a;
        answer_run(c, running[i], &a);
        if (a.eta_kind == ANS_ETA_NONE || !(a.eta_end > 0)) {
            snprintf(q->start_why, sizeof q->start_why, "backup %.80s ahead has no ETA (%s)",
                     running[i]->name, answer_why_text(a.eta_why));
            free(ends);
            return;
        }
        ends[i] = a.eta_end;
        if (running[i] == q->overlap) over_end = a.eta_end;
    }
    double start = c->wall;
    if (need > 0) {
        qsort(ends, nr, sizeof *ends, q_cmp_double);
        start = ends[need - 1];
    }
    if (over_end > start) start = over_end;
    if (start < c->wall) start = c->wall;
    free(ends);
    q->start_known = 1;
    q->start = start;
}

void queue_judge(const ans_ctx *c, const model_run *r, queue_wait *q)
{
    memset(q, 0, sizeof *q);
    if (!r || !r->run || r->kind != VL_BACKUP || !q_waiting(r->run)) return;
    q->waiting = 1;
    const model *m = c->m;
    if (r->run->meta.created > 0)
        q->waited = model_wall_span(m, model_cluster_now(m, c->wall) - r->run->meta.created);
    const model_run *running[64];
    size_t nr = 0;
    int64_t place = 1;
    /* in flight first, then the waiting ahead, each in Velero's order */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < m->n_runs; i++) {
            const model_run *o = m->runs[i];
            if (o == r || o->kind != VL_BACKUP || !o->run || !q_same_ns(o->run, r->run)) continue;
            int act = vl_phase_active(o->run->phase_id);
            int ahead = pass == 0 ? act : (q_waiting(o->run) && q_before(o, r) < 0);
            if (!ahead) continue;
            if (pass == 0) {
                q->n_ahead_running++;
                if (nr < 64) running[nr++] = o;
            } else {
                q->n_ahead_queued++;
                place++;
            }
            if (q->n_ahead < QUEUE_MAX_AHEAD) q->ahead[q->n_ahead] = o;
            q->n_ahead++;
            if (!queue_ns_overlap(o->run, r->run)) continue;
            /* the one named: in flight the earliest started, else the first in Velero's order */
            if (!q->overlap)
                q->overlap = o;
            else if (pass == 0 && o->run->started < q->overlap->run->started)
                q->overlap = o;
            else if (pass == 1 && !vl_phase_active(q->overlap->run->phase_id) &&
                     q_before(o, q->overlap) < 0)
                q->overlap = o;
        }
    }
    if (r->run->queue_position > 0 && r->run->phase_id == VL_PH_QUEUED) {
        q->position = r->run->queue_position;
    } else {
        q->position = place;
        q->position_ours = 1;
    }
    q_limit(c, q);
    q->limit_full = q->limit_known && (int64_t)q->n_ahead_running >= q->limit;
    if (q->limit_full)
        q->why = QUEUE_WHY_LIMIT;
    else if (q->overlap)
        q->why = QUEUE_WHY_OVERLAP;
    else if (q->n_ahead_queued)
        q->why = QUEUE_WHY_AHEAD;
    else if (!q->limit_known)
        q->why = QUEUE_WHY_UNKNOWN;
    else
        q->why = QUEUE_WHY_NONE;
    q_start(c, q, running, nr);
}

const char *queue_why_code(queue_why w)
{
    switch (w) {
    case QUEUE_WHY_LIMIT:
        return "limit";
    case QUEUE_WHY_OVERLAP:
        return "overlap";
    case QUEUE_WHY_AHEAD:
        return "ahead";
    case QUEUE_WHY_UNKNOWN:
        return "unknown";
    case QUEUE_WHY_NONE:
        break;
    }
    return "none";
}

char *queue_why_text(char *buf, size_t n, const queue_wait *q)
{
    if (!n) return buf;
    buf[0] = 0;
    if (!q->waiting) return buf;
    size_t k = 0;
#define QPUT(...)                                                                                  \
    do {                                                                                           \
        if (k < n) {                                                                               \
            int w_ = snprintf(buf + k, n - k, __VA_ARGS__);                                        \
            if (w_ > 0) k += (size_t)w_;                                                           \
        }                                                                                          \
    } while (0)
    if (q->limit_full) {
        QPUT("the concurrency limit is full: %zu of %d backup%s running (--concurrent-backups%s%d)",
             q->n_ahead_running, q->limit, q->limit == 1 ? "" : "s",
             q->limit_default ? " default " : "=", q->limit);
    }
    if (q->overlap) {
        QPUT("%sits namespaces overlap backup %s (%s)", k ? "; " : "", q->overlap->name,
             q->overlap->run->phase);
    }
    if (!k && q->why == QUEUE_WHY_AHEAD)
        QPUT("%zu earlier backup%s queued ahead", q->n_ahead_queued,
             q->n_ahead_queued == 1 ? " is" : "s are");
    if (!k && q->why == QUEUE_WHY_UNKNOWN)
        QPUT("unknown: %zu running, the concurrency limit is unknown (%s)", q->n_ahead_running,
             q->limit_why);
    if (!k)
        QPUT("nothing Velero waits on holds it: %zu of %d running, no overlap", q->n_ahead_running,
             q->limit);
#undef QPUT
    return buf;
}

int queue_dead(const model *m, const model_run *r, double now, const model_run **head,
               double *since)
{
    if (!r || !r->run || r->kind != VL_BACKUP || !q_waiting(r->run)) return 0;
    const model_run *h = r;
    double last_end = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *o = m->runs[i];
        if (o->kind != VL_BACKUP || !o->run || !q_same_ns(o->run, r->run)) continue;
        if (vl_phase_active(o->run->phase_id)) return 0;
        if (q_waiting(o->run) && q_before(o, h) < 0) h = o;
        if (vl_phase_terminal(o->run->phase_id) && o->run->completed > last_end)
            last_end = o->run->completed;
    }
    double s = h->run->meta.created > last_end ? h->run->meta.created : last_end;
    if (!(s > 0) || now - s <= QUEUE_DEAD_S) return 0;
    *head = h;
    *since = s;
    return 1;
}

int queue_ready_stuck(const model_run *r, double now, double *since)
{
    if (!r || !r->run || r->kind != VL_BACKUP || r->run->phase_id != VL_PH_READY_TO_START) return 0;
    double s = vl_run_status_time(r->run);
    if (!(s > 0)) s = r->run->meta.created;
    if (!(s > 0) || now - s <= QUEUE_READY_STUCK_S) return 0;
    *since = s;
    return 1;
}

char *queue_why_short(char *buf, size_t n, const queue_wait *q)
{
    if (!n) return buf;
    buf[0] = 0;
    if (!q->waiting) return buf;
    char pos[32];
    snprintf(pos, sizeof pos, "#%lld", (long long)q->position);
    switch (q->why) {
    case QUEUE_WHY_LIMIT:
        if (q->overlap) /* both hold it: Velero checks the limit first, the overlap stays */
            snprintf(buf, n, "%s, limit %d full, overlaps %s", pos, q->limit, q->overlap->name);
        else
            snprintf(buf, n, "%s, limit %d full", pos, q->limit);
        break;
    case QUEUE_WHY_OVERLAP:
        snprintf(buf, n, "%s, overlaps %s", pos, q->overlap ? q->overlap->name : "?");
        break;
    case QUEUE_WHY_AHEAD:
        snprintf(buf, n, "%s, %zu queued ahead", pos, q->n_ahead_queued);
        break;
    case QUEUE_WHY_UNKNOWN:
        snprintf(buf, n, "%s, limit unknown", pos);
        break;
    case QUEUE_WHY_NONE:
        snprintf(buf, n, "%s, nothing holds it", pos);
        break;
    }
    return buf;
}

void queue_summarise(const model *m, double now, queue_summary *out)
{
    memset(out, 0, sizeof *out);
    out->known = 1;
    for (size_t i = 0; m && i < m->n_runs; i++) {
        const model_run *r = m->runs[i];
        if (r->kind != VL_BACKUP || !r->run) continue;
        if (vl_phase_active(r->run->phase_id)) out->n_running++;
        if (!q_waiting(r->run)) continue;
        out->n_waiting++;
        if (!out->oldest || r->run->meta.created < out->oldest->run->meta.created ||
            (r->run->meta.created == out->oldest->run->meta.created &&
             strcmp(r->name, out->oldest->name) < 0))
            out->oldest = r;
        const model_run *head;
        double since;
        if (!out->dead_head && queue_dead(m, r, now, &head, &since)) {
            out->dead_head = head;
            out->dead_since = since;
        }
        if (queue_ready_stuck(r, now, &since)) {
            if (!out->n_ready_stuck++) {
                out->ready_stuck = r;
                out->ready_since = since;
            }
        }
    }
    if (out->oldest && out->oldest->run->meta.created > 0 && now > out->oldest->run->meta.created)
        out->oldest_age = now - out->oldest->run->meta.created;
}

void queue_summary_unread(queue_summary *s, const char *why)
{
    memset(s, 0, sizeof *s);
    snprintf(s->why, sizeof s->why, "%s", why && *why ? why : "not listed");
}

char *queue_summary_line(const queue_summary *s, double now, char *buf, size_t n)
{
    if (!n) return buf;
    buf[0] = 0;
    size_t k = 0;
    char d[32];
#define QPUT(...)                                                                                  \
    do {                                                                                           \
        if (k < n) {                                                                               \
            int w_ = snprintf(buf + k, n - k, __VA_ARGS__);                                        \
            if (w_ > 0) k += (size_t)w_;                                                           \
        }                                                                                          \
    } while (0)
    if (!s->known) {
        QPUT("unknown: cannot read backups: %s", s->why);
        return buf;
    }
    if (!s->n_waiting) {
        QPUT("nothing waiting, %zu in progress", s->n_running);
        return buf;
    }
    QPUT("%zu waiting (oldest %s, ", s->n_waiting, s->oldest->name);
    if (s->oldest_age > 0)
        QPUT("%s)", fmt_duration(d, sizeof d, s->oldest_age));
    else
        QPUT("age unknown)");
    QPUT(", %zu in progress", s->n_running);
    if (s->dead_head)
        QPUT("; dead: nothing in progress for %s while %s (%s) waits at its head",
             fmt_duration(d, sizeof d, now - s->dead_since), s->dead_head->name,
             s->dead_head->run->phase);
    if (s->ready_stuck)
        QPUT("; ReadyToStart stuck: %s for %s%s", s->ready_stuck->name,
             fmt_duration(d, sizeof d, now - s->ready_since),
             s->n_ready_stuck > 1 ? " (and more)" : "");
#undef QPUT
    return buf;
}
