/* answer.c: the one judgement of a run (answer.h): runeta's critical path, plus the evidence of
 * last progress, stalled as yes / no / unknown, the kind of ETA, freshness, what is missing and
 * the diagnosis. Pure over the model and the context: times are passed in. */
#include "answer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"
#include "kubeclient/util.h"

#include "format.h"
#include "itemops.h"
#include "logderive.h"

/* At first sight (no counter watched moving) the one piece of evidence is the age of the last
 * status write, and the cadence is not seen yet: quiet for under 3 of its update intervals is
 * moving (10 s byte updates; for items Velero's 1 s patches, or the run's own pace since its
 * start when that is slower: est_interval of the seeded tracker, so a run writing an item every
 * 5 s is not "unknown" between its writes); for 3 of its 10 s updates or more, and past 3 of its
 * intervals, whatever it waits on, stalled (as the trackers judge a counter whose cadence they
 * have not seen yet: estimator.c); in between, unknown. */
#define ANS_FIRST_SIGHT_STALLED_S 30.0
static double ans_first_sight_moving(const run_answer *a, const model_run *r)
{
    if (a->waiting == RE_PODVOLS || a->waiting == RE_DATAMOVER) return 3 * 10.0;
    double iv = est_interval(r->items);
    return 3 * (iv > 1.0 ? iv : 1.0);
}

/* Everything done and the phase not moving on: no progress to measure. After this the answer is
 * "no ETA, waiting on <phase>" and, after DIAG_DONE_WAIT_S, stalled (as all-done-phase-stuck). */
#define ANS_FINAL_OVERDUE_S (3 * RE_FINALIZE_S + RE_OPS_SYNC_S)

const char *answer_why_text(ans_why w)
{
    switch (w) {
    case ANS_WHY_NONE:
        return "";
    case ANS_WHY_NOT_RUNNING:
        return "not running";
    case ANS_WHY_STALLED:
        return "stalled";
    case ANS_WHY_NO_RATE:
        return "nothing to measure";
    case ANS_WHY_NO_EVIDENCE:
        return "no evidence yet";
    case ANS_WHY_STALE:
        return "data not current";
    case ANS_WHY_INCOMPLETE:
        return "not visible";
    case ANS_WHY_LOADING:
        return "loading";
    case ANS_WHY_UNSIZED:
        return "volumes not sized yet";
    }
    return "";
}

const char *answer_eta_kind_name(ans_eta_kind k)
{
    return k == ANS_ETA_ESTIMATE ? "estimate" : k == ANS_ETA_BOUND ? "lowerBound" : "none";
}

const char *answer_evidence_name(ans_evidence e)
{
    static const char *n[] = {"none", "watched", "managedFields", "log", "timestamp"};
    return e <= ANS_EV_TIMESTAMP ? n[e] : "none";
}

/* ---- the context -------------------------------------------------------------------------- */

static const struct {
    int refl;
    unsigned bit;
    const char *what;
} ans_lists[] = {
    {APP_R_PVBS, ANS_MISS_PVB, "podvolumebackups"},
    {APP_R_PVRS, ANS_MISS_PVR, "podvolumerestores"},
    {APP_R_DUS, ANS_MISS_DU, "datauploads"},
    {APP_R_DDS, ANS_MISS_DD, "datadownloads"},
    {APP_R_PODS, ANS_MISS_PODS, "pods"},
};
#define ANS_NLISTS (sizeof ans_lists / sizeof ans_lists[0])

void answer_ctx_of_app(const app *a, const health *h, double now, double wall, ans_ctx *out)
{
    memset(out, 0, sizeof *out);
    out->m = a->model;
    out->h = h;
    out->now = now;
    out->wall = wall;
    out->derive = a->derive;
    out->loading = !app_volumes_listed(a);
    out->app = a;
    app_conn conn;
    app_connection(a, now, &conn);
    if (conn.stale_since > 0 && conn.stale_since <= now) {
        out->stale = 1;
        out->stale_for = now - conn.stale_since;
        out->now = conn.stale_since; /* frozen: every answer as of the last current data */
        out->wall = wall - out->stale_for;
    }
    for (size_t i = 0; i < ANS_NLISTS; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[ans_lists[i].refl]);
        if (!st || st->synced) continue; /* listed once: later gaps are staleness, not absence */
        /* a resource the server does not have (404: no data movers in this Velero) has no
         * objects to miss; forbidden, unauthorised or failing lists hide what is there */
        int failing = st->state == KC_REFL_FAILED || st->state == KC_REFL_RETRYING ||
                      (st->attempt > 0 && st->last_error[0]);
        if (!failing || st->last_status == 404) continue;
        out->missing |= ans_lists[i].bit;
        const char *why = st->last_status == 403   ? "forbidden"
                          : st->last_status == 401 ? "unauthorized"
                                                   : "failing";
        snprintf(out->missing_why[i], sizeof out->missing_why[i], "%s %s", ans_lists[i].what, why);
    }
}

/* ---- one run ------------------------------------------------------------------------------ */

/* Local unix seconds of a cluster timestamp t (the cluster's clock: model_cluster_now); 0 for an
 * unknown one. */
static double ans_local(const ans_ctx *c, double t)
{
    if (!(t > 0)) return 0;
    return c->wall - model_wall_span(c->m, model_cluster_now(c->m, c->wall) - t);
}

/* The newest real move a tracker saw (not the sighting it started from), as local unix time; 0
 * none. */
static double ans_watched(const ans_ctx *c, const est *e)
{
    double t = est_last_move(e);
    return t >= 0 && t <= c->now ? c->wall - (c->now - t) : 0;
}

static void ans_evidence_of(const ans_ctx *c, double t, ans_evidence ev, run_answer *a)
{
    if (t > 0 && t <= c->wall + 1 && t > a->last_progress) {
        a->last_progress = t;
        a->last_progress_ev = ev;
    }
}

/* The lists run r's answer needs. */
static unsigned ans_needs(const model_run *r)
{
    return r->kind == VL_BACKUP ? ANS_MISS_PVB | ANS_MISS_DU : ANS_MISS_PVR | ANS_MISS_DD;
}

/* Volumes: counts, the unsized ones, and their evidence of progress. */
static void ans_volumes(const ans_ctx *c, const model_run *r, run_answer *a)
{
    size_t nv = model_run_volumes(c->m, r, NULL, 0);
    model_volume *stack[64];
    model_volume **vv = nv <= 64 ? stack : xcalloc(nv, sizeof *vv);
    model_run_volumes(c->m, r, vv, nv);
    int64_t done = 0, total = 0;
    for (size_t i = 0; i < nv; i++) {
        const vl_volume *v = vv[i]->vol;
        if (!v) continue;
        a->n_volumes++;
        if (v->bytes_done > 0) done = kc_sat_add(done, v->bytes_done);
        /* totalBytes is omitempty: absent while the uploader has not sized the volume yet */
        if (model_volume_unsized(v))
            a->n_unsized++;
        else if (v->bytes_total > 0)
            total = kc_sat_add(total, v->bytes_total);
        if (!a->active) continue;
        ans_evidence_of(c, ans_watched(c, vv[i]->bytes), ANS_EV_WATCHED, a);
        ans_evidence_of(c, ans_local(c, vl_volume_status_time(v)), ANS_EV_MANAGED_FIELDS, a);
        if (vl_phase_terminal(v->phase_id) && v->completed > 0)
            ans_evidence_of(c, ans_local(c, v->completed), ANS_EV_TIMESTAMP, a);
    }
    if (vv != stack) free(vv);
    a->bytes_done = done;
    a->bytes_total = total;
    /* with every volume list visible, a run without volumes has moved 0 bytes of 0 */
    a->bytes_known = !(c->missing & ans_needs(r));
    a->bytes_total_known = a->bytes_known && a->n_unsized == 0;
}

static void ans_missing(const ans_ctx *c, const model_run *r, run_answer *a)
{
    a->missing = c->missing & ans_needs(r);
    if (!a->missing) return;
    size_t o = (size_t)snprintf(a->missing_text, sizeof a->missing_text, "%s not visible: ",
                                r->kind == VL_BACKUP ? "pod volumes and data uploads"
                                                     : "pod volumes and data downloads");
    int first = 1;
    for (size_t i = 0; i < ANS_NLISTS && o < sizeof a->missing_text; i++) {
        if (!(a->missing & ans_lists[i].bit)) continue;
        o += (size_t)snprintf(a->missing_text + o, sizeof a->missing_text - o, "%s%s",
                              first ? "" : ", ", c->missing_why[i]);
        first = 0;
    }
}

/* 1 while a part still in play has volumes not sized yet. */
static int ans_unsized_left(const runeta *e)
{
    return e->part[RE_PODVOLS].n_unsized + e->part[RE_DATAMOVER].n_unsized > 0;
}

/* 1 while the end waits on volumes none of which has started (New, Accepted, Prepared: a
 * node-agent preparing, an exposer pod starting): their silence is no stall at first sight, as
 * the trackers do not call a counter that never moved stalled (the diagnosis says when such a
 * wait is too long). A volume InProgress, sized or not, is judged by its silence as before. */
static int ans_waits_on_unstarted(const ans_ctx *c, const model_run *r, const run_answer *a)
{
    if (a->waiting != RE_PODVOLS && a->waiting != RE_DATAMOVER) return 0;
    size_t nv = model_run_volumes(c->m, r, NULL, 0);
    model_volume **vv = xcalloc(nv ? nv : 1, sizeof *vv);
    model_run_volumes(c->m, r, vv, nv);
    int waiting = 0, started = 0;
    for (size_t i = 0; i < nv; i++) {
        const vl_volume *v = vv[i]->vol;
        if (!v || vl_phase_terminal(v->phase_id)) continue;
        re_part p = vv[i]->kind == VL_DU || vv[i]->kind == VL_DD ? RE_DATAMOVER : RE_PODVOLS;
        if (p != a->waiting) continue;
        if (v->phase_id == VL_PH_NEW || v->phase_id == VL_PH_ACCEPTED ||
            v->phase_id == VL_PH_PREPARED)
            waiting++;
        else
            started++;
    }
    free(vv);
    return waiting > 0 && started == 0;
}

/* Seconds the run's end has waited on a phase change with nothing to measure (everything done,
 * Finalizing or the operations controller yet to move): since the newest evidence. */
static double ans_final_wait(const ans_ctx *c, const run_answer *a)
{
    if (a->waiting != RE_FINAL &&
        !(a->waiting == RE_DATAMOVER && a->part[RE_DATAMOVER].state == RE_DONE))
        return 0;
    if (a->part[RE_ITEMS].state != RE_DONE) return 0;
    if (a->ops_left) return 0; /* another plugin's operations are still at work */
    return a->last_progress > 0 ? c->wall - a->last_progress : 0;
}

void answer_run(const ans_ctx *c, const model_run *r, run_answer *a)
{
    memset(a, 0, sizeof *a);
    a->run = r;
    a->eta = a->eta_end = -1;
    a->items_rate = a->bytes_rate = a->waiting_rate = -1;
    a->stale = c->stale;
    a->at = c->wall;
    a->at_mono = c->now;
    const vl_run *x = r ? r->run : NULL;
    if (!x) {
        a->eta_why = a->stalled_why = ANS_WHY_NO_EVIDENCE;
        a->stalled = ANS_UNKNOWN;
        return;
    }
    a->kind = r->kind;
    a->phase = x->phase_id;
    a->active = vl_phase_active(x->phase_id);
    a->started = x->started > 0 ? ans_local(c, x->started) : 0;
    a->ended = vl_phase_terminal(x->phase_id) && x->completed > 0 ? ans_local(c, x->completed) : 0;
    a->items_known = x->has_progress || x->items_total || x->items_done;
    a->items_done = x->items_done;
    a->items_total = x->items_total;
    a->items_estimated = a->items_known && model_run_total_estimated(r);
    a->items_rate = model_run_rate(r, c->now);
    ans_volumes(c, r, a);
    ans_missing(c, r, a);
    /* the live log's newest line of the run is the log-silent rule's evidence (none while the
     * data is not current) */
    diag_log log = {0};
    if (c->stale || !c->derive ||
        !logderive_last_line(c->derive, r, &log.last_time, &log.last_line))
        log.last_time = 0;
    a->n_diag = diag_run(&(diag_ctx){c->m, c->h, c->now, c->wall}, r,
                         log.last_time > 0 ? &log : NULL, a->diag, DIAG_MAX);

    if (!a->active) {
        a->eta_why = ANS_WHY_NOT_RUNNING;
        a->stalled = ANS_NO;
        a->stalled_why = ANS_WHY_NOT_RUNNING;
        a->waiting = RE_FINAL;
        queue_judge(c, r, &a->queue);
        double dur = model_run_duration(r, c->wall);
        if (vl_phase_terminal(x->phase_id) && x->completed > 0 && dur > 0) {
            if (a->bytes_done > 0) a->bytes_rate = (double)a->bytes_done / dur;
            if (runeta_history(c->m, r, &a->hist) && x->phase_id == VL_PH_COMPLETED &&
                a->hist.dur_med > 0)
                a->vs_usual = dur / a->hist.dur_med;
        }
        return;
    }

    runeta e;
    runeta_compute(c->m, r, c->now, c->wall, &e);
    memcpy(a->part, e.part, sizeof a->part);
    a->hist = e.hist;
    a->bytes_rate = e.bytes_rate;
    a->waiting = e.waiting;
    a->ops_left = e.ops_left;
    a->waiting_vol = e.waiting_vol;
    a->waiting_left = e.waiting_left;
    a->waiting_rate = e.waiting_rate;
    a->from_history = e.from_history;
    a->stalled_part = e.stalled_part;
    a->stalled_vol = e.stalled_vol;
    a->part_stalled = e.part_stalled;

    /* last progress, from evidence: a change veltop saw, a status write the API server stamped,
     * a log line of the run, a volume's completion (ans_volumes) */
    ans_evidence_of(c, ans_watched(c, r->items), ANS_EV_WATCHED, a);
    ans_evidence_of(c, ans_local(c, vl_run_status_time(x)), ANS_EV_MANAGED_FIELDS, a);
    double lt;
    const char *line;
    if (c->derive && logderive_last_line(c->derive, r, &lt, &line))
        ans_evidence_of(c, lt, ANS_EV_LOG, a);
    /* another plugin's operations moving (their refreshes, or at first sight their `updated`) */
    double olm;
    if (itemops_waiting(x) && (itemops_moving(c->m, r, c->now, c->wall, &olm), olm >= 0))
        ans_evidence_of(c, c->wall - (c->now - olm), ANS_EV_TIMESTAMP, a);
    double quiet = a->last_progress > 0 ? c->wall - a->last_progress : -1;
    int watched = a->last_progress_ev == ANS_EV_WATCHED ||
                  est_last_move(r->items) >= 0; /* veltop has seen this run move */

    /* stalled: the trackers' verdict where they saw the run move; at first sight the evidence's
     * age; otherwise unknown */
    double fw = ans_final_wait(c, a);
    if (e.stalled) {
        a->stalled = ANS_YES;
        a->stalled_for = quiet > e.stalled_for ? quiet : e.stalled_for;
    } else if (!watched && fw == 0 &&
               quiet >= fmax(ANS_FIRST_SIGHT_STALLED_S, ans_first_sight_moving(a, r)) &&
               !ans_waits_on_unstarted(c, r, a)) {
        a->stalled = ANS_YES; /* seen at first sight: nothing written for 3 of its intervals */
        a->stalled_for = quiet;
        a->stalled_part = RE_ITEMS;
        for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++)
            if (a->part[p].state != RE_ABSENT && a->part[p].state != RE_DONE) {
                a->stalled_part = (re_part)p;
                a->stalled_vol = a->part[p].last;
            }
    } else if (watched || (quiet >= 0 && (fw > 0 || quiet < ans_first_sight_moving(a, r)))) {
        a->stalled = ANS_NO;
    } else {
        a->stalled = ANS_UNKNOWN;
        a->stalled_why = ANS_WHY_NO_EVIDENCE;
    }
    /* nothing seen moves, but plugin operations it did not read may (a snapshot without
     * --details): whether the run moves is theirs to say, not a stall */
    if (e.ops_unseen && a->stalled == ANS_YES) {
        a->stalled = ANS_UNKNOWN;
        a->stalled_why = ANS_WHY_NO_RATE;
    }
    /* everything done and the phase not moving on for long: stuck, whatever the trackers say */
    if (a->stalled != ANS_YES && fw >= DIAG_DONE_WAIT_S &&
        !a->missing) { /* volumes it cannot see may be what moves */
        a->stalled = ANS_YES;
        a->stalled_for = fw;
        a->stalled_part = a->waiting;
        a->stalled_vol = NULL;
    }
    if (a->stalled == ANS_YES) a->stalled_why = ANS_WHY_NONE;

    if (a->missing && a->part[RE_ITEMS].state == RE_DONE) {
        /* its items are done and what it waits on now cannot be seen (its volume lists are
         * forbidden or failing): neither what that is ("finalizing" would be a guess) nor
         * whether it moves is known */
        a->waiting_unknown = 1;
        a->waiting_vol = NULL;
        if (a->stalled == ANS_NO) {
            a->stalled = ANS_UNKNOWN;
            a->stalled_why = ANS_WHY_INCOMPLETE;
        }
    }
    /* in flight first: a run whose volumes are all in is whole while the history's still come */
    int loading = c->loading && !(c->app && app_run_volumes_listed(c->app, r));
    if (loading && a->stalled != ANS_YES) { /* half the volumes say nothing of the whole */
        a->stalled = ANS_UNKNOWN;
        a->stalled_why = ANS_WHY_LOADING;
    }
    /* the ETA: none where nothing can be predicted, else an estimate (with its caveat) */
    if (loading) {
        a->eta_why = ANS_WHY_LOADING;
    } else if (a->stalled == ANS_YES) {
        a->eta_why = ANS_WHY_STALLED;
    } else if (a->missing) {
        a->eta_why = ANS_WHY_INCOMPLETE;
    } else if (fw > ANS_FINAL_OVERDUE_S) {
        a->eta_why = ANS_WHY_NO_RATE; /* its phase change is overdue: nothing says when */
    } else if (a->last_progress <= 0 && a->part[RE_ITEMS].state == RE_DONE &&
               (a->waiting == RE_FINAL ||
                (a->waiting == RE_DATAMOVER && a->part[RE_DATAMOVER].state == RE_DONE))) {
        /* everything done when first seen, and nothing says since when: it may end in a
         * second or have been stuck for an hour */
        a->eta_why = ANS_WHY_NO_EVIDENCE;
    } else if (e.eta < 0 || (e.unknown_only && !e.from_history)) {
        /* nothing to project: what is left is unknown (volumes not sized, or with no rate
         * anywhere to time them by), or waits on what cannot be seen */
        a->eta_why = (e.waiting == RE_DATAMOVER && e.part[RE_DATAMOVER].state == RE_ABSENT &&
                      !(r->item_ops && r->item_ops->known)) /* read: no rate yet */
                             || e.ops_unseen
                         ? ANS_WHY_NO_RATE
                     : e.unknown_only && ans_unsized_left(&e) ? ANS_WHY_UNSIZED
                                                              : ANS_WHY_NO_EVIDENCE;
        a->from_history = 0;
    } else {
        a->eta_kind = ANS_ETA_ESTIMATE;
        a->eta = e.eta;
        a->eta_end = c->wall + e.eta;
        a->eta_from_ops = e.end_from_ops && !e.from_history;
        if (e.bound) {
            /* runeta's bound is the known parts' projection: what is not known yet (volumes not
             * sized, volumes still to come, items not counted) can only add to it, but the
             * projection itself is an estimate, not a promise. The caveat names what the
             * figures show: "not sized" only beside a bytes total that is unknown */
            const re_stage *pv = &e.part[RE_PODVOLS], *dm = &e.part[RE_DATAMOVER];
            a->eta_caveat = e.part[RE_ITEMS].state == RE_PENDING && e.part[RE_ITEMS].total <= 0
                                ? "items not counted yet"
                            : a->n_unsized && ans_unsized_left(&e) ? "volumes not sized yet"
                            : pv->n_unknown + dm->n_unknown > pv->n_unsized + dm->n_unsized
                                ? "a volume has no rate yet"
                            : pv->n_borrowed + dm->n_borrowed ? "volumes not moving yet"
                            : pv->n_stalled + dm->n_stalled   ? "a volume is stalled"
                                                              : "more volumes may come";
        }
    }
    /* against the schedule's usual: the run's duration so far, and as predicted */
    double dur = model_run_duration(r, c->wall);
    if (a->eta_kind != ANS_ETA_NONE) dur += a->eta;
    if (a->hist.n && a->hist.dur_med > 0 && dur > 0) a->vs_usual = dur / a->hist.dur_med;
    if (c->stale) {
        /* frozen: the figures hold as of the last current data, and nothing is judged on data
         * that is not current */
        if (a->eta_kind != ANS_ETA_NONE) a->eta_kind = ANS_ETA_NONE;
        a->eta_why = ANS_WHY_STALE;
        if (a->stalled != ANS_YES) {
            a->stalled = ANS_UNKNOWN;
            a->stalled_why = ANS_WHY_STALE;
        }
    }
}

/* ---- words -------------------------------------------------------------------------------- */

char *answer_eta_cell(char *buf, size_t n, const run_answer *a, int utf8)
{
    char d[32];
    (void)utf8;
    if (a->eta_kind == ANS_ETA_NONE) {
        snprintf(buf, n, "%s",
                 a->stalled == ANS_YES               ? "stall"
                 : a->eta_why == ANS_WHY_STALE       ? "stale"
                 : a->eta_why == ANS_WHY_INCOMPLETE  ? "?"
                 : a->eta_why == ANS_WHY_NOT_RUNNING ? "-"
                                                     : "?");
        return buf;
    }
    fmt_eta(d, sizeof d, a->eta);
    if (a->eta_kind == ANS_ETA_BOUND)
        snprintf(buf, n, "%s%s", utf8 ? "\u2265" : ">=", d);
    else /* "≈" (ASCII "~"): it leans on the schedule's history, not on what moves now */
        snprintf(buf, n, "%s%s%s", a->from_history ? (utf8 ? "\u2248" : "~") : "", d,
                 a->eta_caveat ? "+" : "");
    return buf;
}

char *answer_eta_line(char *buf, size_t n, const run_answer *a, int utc)
{
    char d[32], t[40];
    (void)utc;
    if (a->eta_kind != ANS_ETA_NONE) {
        fmt_eta(d, sizeof d, a->eta);
        if (a->eta_kind == ANS_ETA_BOUND)
            snprintf(buf, n, "done in \u2265 %s", d);
        else if (a->eta_end < KC_TIME_END) /* not on the data's day: with its date */
            snprintf(buf, n, "done in ~%s (at %s)%s%s", d,
                     fmt_clock_since(t, sizeof t, a->eta_end, a->at), a->eta_caveat ? ", " : "",
                     a->eta_caveat ? a->eta_caveat : "");
        else /* an end past year 9999 has no date to say */
            snprintf(buf, n, "done in ~%s%s%s", d, a->eta_caveat ? ", " : "",
                     a->eta_caveat ? a->eta_caveat : "");
        if (a->eta_from_ops) { /* what it is based on: not bytes, another plugin's units */
            size_t l = strlen(buf);
            snprintf(buf + l, n > l ? n - l : 0, ", from the plugin operations' progress");
        }
        return buf;
    }
    switch (a->eta_why) {
    case ANS_WHY_STALLED:
        snprintf(buf, n, "none");
        break; /* the stall itself is said beside */
    case ANS_WHY_STALE:
        snprintf(buf, n, "unknown: no current data since %s", fmt_clock(t, sizeof t, a->at, 0));
        break;
    case ANS_WHY_INCOMPLETE:
        snprintf(buf, n, "unknown: %s", a->missing_text);
        break;
    case ANS_WHY_NO_RATE:
        snprintf(buf, n, "unknown: waiting on %s, nothing to measure",
                 runeta_part_name(a->waiting));
        break;
    case ANS_WHY_NOT_RUNNING:
        snprintf(buf, n, "-");
        break;
    case ANS_WHY_UNSIZED:
        snprintf(buf, n, "unknown: %s", answer_why_text(a->eta_why));
        break;
    default:
        snprintf(buf, n, "unknown: no rate yet");
        break;
    }
    return buf;
}
