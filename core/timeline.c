/* timeline.c: a run's phase timeline (timeline.h) from its timestamps, what veltop saw and its
 * stored log. */
#include "timeline.h"

#include <string.h>

#include "kubeclient/util.h"

/* The stages of a run in order; the PartiallyFailed variants are the same stage. */
enum { S_NEW, S_QUEUED, S_READY, S_PROGRESS, S_WAITING, S_FINALIZING, S_END, S_N };

static int tl_stage(vl_phase p)
{
    switch (p) {
    case VL_PH_NEW:
    case VL_PH_UNKNOWN:
        return S_NEW;
    case VL_PH_QUEUED:
        return S_QUEUED;
    case VL_PH_READY_TO_START:
        return S_READY;
    case VL_PH_IN_PROGRESS:
        return S_PROGRESS;
    case VL_PH_WAITING_PLUGIN_OPS:
    case VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED:
        return S_WAITING;
    case VL_PH_FINALIZING:
    case VL_PH_FINALIZING_PARTIALLY_FAILED:
        return S_FINALIZING;
    case VL_PH_COMPLETED:
    case VL_PH_PARTIALLY_FAILED:
    case VL_PH_FAILED:
    case VL_PH_FAILED_VALIDATION:
        return S_END;
    default:
        return -1; /* Deleting and volume phases: not a stage */
    }
}

static const vl_phase tl_base[S_N] = {
    VL_PH_NEW,
    VL_PH_QUEUED,
    VL_PH_READY_TO_START,
    VL_PH_IN_PROGRESS,
    VL_PH_WAITING_PLUGIN_OPS,
    VL_PH_FINALIZING,
    VL_PH_COMPLETED,
};

static double tl_time(const char *s)
{
    double t;
    return s && *s && kc_parse_time(s, &t) == 0 ? t : 0;
}

void timeline_log_line(tl_log *log, const lp_line *l)
{
    double t = tl_time(l->time);
    if (t <= 0) return;
    if (log->first <= 0 || t < log->first) log->first = t;
    if (t > log->last) log->last = t;
    /* the end of the item pass: backup.go "Backed up a total of N items"; restore.go "Done waiting
     * for all pod volume restores to complete" (its log's last word on the items), or
     * restore_controller.go "restore completed" */
    if (l->msg && (!strncmp(l->msg, "Backed up a total of ", 21) ||
                   !strcmp(l->msg, "Done waiting for all pod volume restores to complete") ||
                   !strcmp(l->msg, "restore completed")))
        if (log->items_done <= 0) log->items_done = t;
}

size_t timeline_build(const model_run *r, double now, const tl_log *log, tl_entry *out)
{
    const vl_run *run = r->run;
    if (!run) return 0;
    tl_entry st[S_N];
    int known[S_N] = {0}; /* the run went through the stage (or may have: unknown) */
    memset(st, 0, sizeof st);
    for (int i = 0; i < S_N; i++) {
        st[i].phase = tl_base[i];
        st[i].dur = -1;
    }
    int cur = tl_stage(run->phase_id);
    if (cur < 0) cur = run->completed > 0 ? S_END : run->started > 0 ? S_PROGRESS : S_NEW;
    if (cur == S_END) st[S_END].phase = run->phase_id;
    /* what each source says, the most exact first */
    if (run->meta.created > 0) {
        st[S_NEW].entered = run->meta.created;
        st[S_NEW].src = TL_METADATA;
    }
    if (run->started > 0) {
        st[S_PROGRESS].entered = run->started;
        st[S_PROGRESS].src = TL_STATUS;
    }
    if (cur == S_END && run->completed > 0) {
        st[S_END].entered = run->completed;
        st[S_END].src = TL_STATUS;
    }
    /* what veltop saw: a change into a phase is when it was entered; the phase at first sight
     * was entered then or before */
    const model_seen *seen[1 + MODEL_MOVES_MAX];
    int ns = 0;
    if (r->first_seen.at > 0) seen[ns++] = &r->first_seen;
    for (int i = 0; i < r->n_moves; i++) seen[ns++] = &r->moves[i];
    for (int i = 0; i < ns; i++) {
        int s = tl_stage((vl_phase)seen[i]->phase);
        if (s < 0) continue;
        known[s] = 1;
        if (s != S_END) st[s].phase = (vl_phase)seen[i]->phase; /* a PartiallyFailed variant */
        if (seen[i]->queue_pos) st[s].queue_pos = seen[i]->queue_pos;
        if (st[s].src != TL_UNKNOWN && st[s].src != TL_SEEN_BY) continue;
        st[s].entered = seen[i]->at;
        st[s].src = i == 0 ? TL_SEEN_BY : TL_SEEN;
    }
    if (cur == S_QUEUED && run->queue_position > 0)
        st[S_QUEUED].queue_pos = (int32_t)run->queue_position;
    /* the stored log: the item pass from its first line to "Backed up a total", then the next
     * stage (plugin operations when there were some, else Finalizing) */
    int after_items = run->ops_attempted > 0 ? S_WAITING : S_FINALIZING;
    if (log && log->first > 0 && st[S_PROGRESS].src == TL_UNKNOWN && cur >= S_PROGRESS) {
        st[S_PROGRESS].entered = log->first;
        st[S_PROGRESS].src = TL_LOG;
    }
    if (log && log->items_done > 0 && cur > S_PROGRESS && st[after_items].src == TL_UNKNOWN &&
        (cur == S_END || cur >= after_items)) {
        st[after_items].entered = log->items_done;
        st[after_items].src = TL_LOG;
        known[after_items] = 1;
    }
    /* which stages the run went through, up to the one it is in */
    int restore = r->kind == VL_RESTORE, failed_early = run->phase_id == VL_PH_FAILED_VALIDATION;
    for (int s = 0; s <= cur; s++) {
        if (s == S_NEW || s == cur) known[s] = 1;
        if (restore && (s == S_QUEUED || s == S_READY)) known[s] = 0; /* restores have no queue */
        if (failed_early && s > S_NEW && s < S_END) known[s] = 0;     /* validation: never ran */
        if (st[s].src != TL_UNKNOWN) known[s] = 1;
    }
    if (!restore && !failed_early) /* every backup since v1.18 is queued: when, unknown */
        for (int s = S_QUEUED; s <= S_READY && s < cur; s++) known[s] = 1;
    if (cur > S_PROGRESS && !failed_early) {
        known[S_PROGRESS] = 1;
        /* Velero finalizes every run that completes (v1.12+); plugin operations only with some */
        if (cur == S_END && run->phase_id != VL_PH_FAILED) known[S_FINALIZING] = 1;
        if (run->ops_attempted > 0 && (cur > S_WAITING)) known[S_WAITING] = 1;
    }
    size_t n = 0;
    for (int s = 0; s <= cur && n < TL_MAX; s++) {
        if (!known[s]) continue;
        st[s].current = s == cur && cur != S_END;
        out[n++] = st[s];
    }
    /* a phase veltop saw was entered then or before: when the next one's own timestamp (whole
     * seconds: it may be up to a second early) is earlier still (the change reached veltop late:
     * a loaded machine, a slow watch), it was entered by then, not after */
    for (size_t i = n; i-- > 1;) {
        tl_entry *a = &out[i - 1];
        const tl_entry *b = &out[i];
        if ((a->src == TL_SEEN || a->src == TL_SEEN_BY) && b->entered > 0 &&
            a->entered > b->entered + 1)
            a->entered = b->entered + 1;
    }
    /* how long each lasted: until the next one was entered (or now, for the one it is in) */
    for (size_t i = 0; i < n; i++) {
        if (out[i].entered <= 0) continue;
        double next = 0;
        if (out[i].current)
            next = now; /* so far (at least, when entered is a bound) */
        else if (i + 1 < n && out[i + 1].src != TL_SEEN_BY)
            next = out[i + 1].entered; /* a bound for the next: how long this lasted, unknown */
        /* timestamps have whole seconds, what veltop saw does not: a next phase stamped up to a
         * second before this one was seen followed at once */
        if (next > 0 && next >= out[i].entered - 1)
            out[i].dur = next > out[i].entered ? next - out[i].entered : 0;
    }
    return n;
}
