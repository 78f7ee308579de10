/* runeta.c: the run's critical path (items and pod volumes, then data movers, then Finalizing),
 * its ETA, last progress and stall over everything it waits on, and its schedule's history as
 * the ETA's prior (velero-api.md "How progress is produced"). Pure computation over the model. */
#include "runeta.h"

#include "itemops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"

/* The evidence (fraction of the run's time behind it) at which live rates alone are trusted. */
#define RE_PRIOR_FADE 0.3
/* From this share of the run done (by its live projection) the prior moves the live ETA by at
 * most RE_PRIOR_CLAMP of it. */
#define RE_PRIOR_CLAMP_FROM 0.2
#define RE_PRIOR_CLAMP      0.2

const char *runeta_part_name(re_part p)
{
    static const char *names[RE_NPARTS] = {"items", "pod volumes", "data mover", "finalizing"};
    return p < RE_NPARTS ? names[p] : "?";
}

char *runeta_vol_label(char *buf, size_t n, const model_volume *mv)
{
    const vl_volume *v = mv ? mv->vol : NULL;
    if (!v) {
        snprintf(buf, n, "-");
        return buf;
    }
    snprintf(buf, n, "%s%s%s%s%s", v->pod_ns ? v->pod_ns : "", v->pod_ns ? "/" : "",
             v->pod_name ? v->pod_name : "", v->pod_name && v->volume ? ":" : "",
             v->volume ? v->volume : (v->pod_name ? "" : mv->name));
    return buf;
}

static int64_t re_add(int64_t a, int64_t b) /* saturating, for sums of cluster numbers */
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

static int64_t re_left(int64_t done, int64_t total)
{
    if (done < 0) done = 0;
    return total > done ? total - done : 0;
}

/* An ETA as it is, however long (a slow run's real projection is days or years, never a cap
 * standing in for it); NaN and infinity (a rate too small to divide by) are no projection: -1. */
static double re_finite(double eta)
{
    return isfinite(eta) ? eta : -1;
}

/* The rate an ETA is projected with: the recent rate (the tracker's least-squares slope over its
 * window) blended with the average since the start. The recent rate alone follows every burst
 * and lull of a jittery counter, the average alone misses a lasting change; measured over the
 * bench/eta scenarios, half and half errs least (bench/README.md). < 0 unknown. */
#define RE_RECENT_W 0.5
static double re_blend_rate(double recent, double avg)
{
    if (recent > 0 && avg > 0) return RE_RECENT_W * recent + (1 - RE_RECENT_W) * avg;
    return recent > 0 ? recent : avg;
}

/* The average of a counter since a lasting change of its rate (est_shift), as of its last change
 * at last_change when it was at done; < 0 none. What came before the change is another pace. */
static double re_avg_since_shift(const est *e, int64_t done, double last_change)
{
    double t;
    int64_t v;
    if (!est_shift(e, &t, &v) || !(last_change > t) || done <= v) return -1;
    return kc_i64_diff(done, v) / (last_change - t);
}

/* The monotonic time of a volume's last byte change: the one veltop saw, else (never seen to
 * move: a first look, as --once and --wait take) the API server's time of its last status write
 * (managedFields), so that bytes written 9 s ago are timed as of then, not as of when veltop read
 * them: a first look and a watcher then project alike; < 0 none. */
static double re_vol_last_change(const model *m, const model_volume *mv, double now, double wall)
{
    double lc = est_last_change(mv->bytes);
    double t = vl_volume_status_time(mv->vol);
    if (est_last_move(mv->bytes) >= 0 || !(t > 0)) return lc;
    double at = now - model_wall_span(m, model_cluster_now(m, wall) - t);
    return at <= now && (lc < 0 || at < lc) ? at : lc;
}

/* A volume's average since its startTimestamp (or since its rate changed for good), as of its
 * last change; < 0 unknown. */
static double re_vol_avg(const model *m, const model_volume *mv, double now, double wall)
{
    const vl_volume *v = mv->vol;
    double last = re_vol_last_change(m, mv, now, wall);
    if (v->started <= 0 || v->bytes_done <= 0 || last < 0) return -1;
    double shifted = re_avg_since_shift(mv->bytes, v->bytes_done, last);
    if (shifted > 0) return shifted;
    double at = model_cluster_now(m, wall - (now - last)); /* the cluster's clock then */
    double el = model_wall_span(m, at - v->started) - est_paused(mv->bytes);
    return el >= 1 ? (double)v->bytes_done / el : -1;
}

/* A volume's rate (a stalled one: what it moved at before it stopped); < 0 unknown. */
static double re_vol_rate(const model *m, const model_volume *mv, double now, double wall)
{
    double avg = re_vol_avg(m, mv, now, wall);
    /* just back from a stall: the slope over a window spanning it says little, the average
     * (stalled time left out) says more */
    if (avg > 0 && est_window_has_stall(mv->bytes)) return avg;
    return re_blend_rate(est_rate_moving(mv->bytes), avg);
}

/* Seconds until `left` more at `rate`, counted from the last change (so it counts down between
 * changes); < 0 unknown. */
static double re_eta_from(int64_t left, double rate, double now, double last_change,
                          double hold_after)
{
    if (!(rate > 0)) return -1;
    double since = last_change >= 0 ? now - last_change : 0;
    /* overdue (no update for 1.5 of its intervals): stop counting down, the end recedes as
     * long as nothing moves */
    if (since > hold_after) since = hold_after;
    double eta = (double)left / rate - since;
    return eta > 0 ? eta : 0;
}

#define RE_HOLD_BYTES 15.0 /* 1.5 x Velero's 10 s byte updates */

/* At first sight (veltop has not watched the volume move) its tracker has only the attach time
 * and the average since its start, which reads as a live rate however long ago it stopped: the
 * API server's write time of its status (managedFields) is the evidence, and quiet for 3 of
 * Velero's 10 s byte updates or more it is stalled, as the run answer judges a run at first
 * sight (answer.c). */
#define RE_FIRST_SIGHT_STALLED_S (3 * 10.0)

int runeta_volume_stalled(const model *m, const model_volume *mv, double now, double wall,
                          double *since)
{
    const vl_volume *v = mv ? mv->vol : NULL;
    double s = 0;
    int st = v && !vl_phase_terminal(v->phase_id) && est_stalled(mv->bytes, now, &s);
    double t = v ? vl_volume_status_time(v) : 0;
    if (v && v->phase_id == VL_PH_IN_PROGRESS && est_last_move(mv->bytes) < 0 && t > 0) {
        double quiet = model_wall_span(m, model_cluster_now(m, wall) - t);
        if (quiet >= RE_FIRST_SIGHT_STALLED_S &&
            (v->bytes_total <= 0 || v->bytes_done < v->bytes_total)) {
            st = 1;
            if (quiet > s) s = quiet;
        }
    }
    if (since) *since = st ? s : 0;
    return st;
}

void runeta_volume(const model *m, const model_volume *mv, double now, double wall, double *rate,
                   double *eta)
{
    const vl_volume *v = mv ? mv->vol : NULL;
    *rate = *eta = -1;
    if (!v) return;
    if (vl_phase_terminal(v->phase_id)) {
        *rate = est_rate(mv->bytes, now); /* finished: the whole-run average */
        return;
    }
    *rate = re_vol_rate(m, mv, now, wall);
    if (v->bytes_total <= 0 || runeta_volume_stalled(m, mv, now, wall, NULL)) return;
    *eta = re_finite(re_eta_from(re_left(v->bytes_done, v->bytes_total), *rate, now,
                                 re_vol_last_change(m, mv, now, wall), RE_HOLD_BYTES));
}

/* One volume into its stage. A sized volume with no rate of its own yet (not started, or no
 * byte update yet) is left in *pending for re_borrow. */
static void re_volume(const model *m, const model_volume *mv, double now, double wall, re_stage *s,
                      int *moving, double *last_progress, const model_volume **pending,
                      size_t *npending)
{
    const vl_volume *v = mv->vol;
    s->n++;
    s->done = re_add(s->done, v->bytes_done > 0 ? v->bytes_done : 0);
    s->total = re_add(s->total, v->bytes_total > 0 ? v->bytes_total : 0);
    double lc = est_last_change(mv->bytes);
    if (lc > *last_progress) *last_progress = lc;
    if (vl_phase_terminal(v->phase_id)) {
        s->n_done++;
        /* its whole-run average, from its own times (a volume first seen finished has no
         * tracker of its own: model.c) */
        double span = v->started > 0 && v->completed > v->started
                          ? model_wall_span(m, v->completed - v->started)
                          : -1;
        double fr = span > 0 ? (double)v->bytes_done / span : -1;
        if (v->phase_id == VL_PH_COMPLETED && v->bytes_done > 0 && fr > 0 && isfinite(fr)) {
            s->done_rate += fr;
            s->n_done_rated++;
        }
        if (v->completed > 0) { /* its completion was progress too (its counter may not say) */
            double t = now - model_wall_span(m, model_cluster_now(m, wall) - v->completed);
            if (t > *last_progress && t <= now) *last_progress = t;
        }
        return;
    }
    double eta = -1, since;
    int bound = 0;
    if (model_volume_unsized(v)) {
        s->n_unknown++; /* not sized yet: its time is unknown, only what is known counts */
        s->n_unsized++;
        bound = 1;
        eta = 0;
    } else if (v->phase_id != VL_PH_IN_PROGRESS) {
        pending[(*npending)++] = mv; /* sized, not moving yet: timed at its siblings' rate */
        return;
    } else if (v->bytes_done >= v->bytes_total) {
        eta = 0; /* all bytes moved: completing (a PVR can sit at 100% a while) */
        *moving = 1;
    } else if (runeta_volume_stalled(m, mv, now, wall, &since)) {
        double r = re_vol_rate(m, mv, now, wall);
        bound = 1; /* it moves again some day: at least its bytes left at its old rate */
        eta = r > 0 ? re_finite((double)re_left(v->bytes_done, v->bytes_total) / r) : 0;
        if (eta < 0) eta = 0;
        if (!s->stalled || since > s->stalled_for) {
            s->stalled = mv;
            s->stalled_for = since;
        }
        s->n_stalled++;
    } else {
        double r = re_vol_rate(m, mv, now, wall);
        eta = re_finite(re_eta_from(re_left(v->bytes_done, v->bytes_total), r, now,
                                    re_vol_last_change(m, mv, now, wall), RE_HOLD_BYTES));
        *moving = 1;
        if (eta < 0) {
            pending[(*npending)++] = mv; /* no rate of its own yet */
            return;
        }
        if (r > 0) {
            s->rate = (s->rate > 0 ? s->rate : 0) + r;
            s->n_rated++;
        }
    }
    if (bound) s->bound = 1;
    if (!s->last || eta > s->eta) {
        s->last = mv;
        s->eta = eta;
    }
}

/* The sized volumes of a stage with no rate of their own yet: their bytes at the rate one of the
 * run's volumes goes at (re_per_volume), an estimate that may grow (they may start late or go
 * slower); with no rate anywhere their time is unknown. */
static void re_borrow(re_stage *s, double per_vol, const model_volume **pending, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const vl_volume *v = pending[i]->vol;
        double eta =
            per_vol > 0 ? re_finite((double)re_left(v->bytes_done, v->bytes_total) / per_vol) : -1;
        s->bound = 1;
        if (eta < 0) {
            s->n_unknown++;
            eta = 0;
        } else {
            s->n_borrowed++;
        }
        if (!s->last || eta > s->eta) {
            s->last = pending[i];
            s->eta = eta;
        }
    }
}

/* The rate one volume of the run goes at, for s's volumes with none of their own: its moving
 * volumes' (each), else the other stage's, else the average its finished volumes went at, else
 * the other stage's finished ones'; < 0 none. The same cluster's uploader on the same nodes is
 * the best evidence there is for a volume that has not reported a byte yet. */
static double re_per_volume(const re_stage *s, const re_stage *o)
{
    if (s->rate > 0 && s->n_rated > 0) return s->rate / s->n_rated;
    if (o->rate > 0 && o->n_rated > 0) return o->rate / o->n_rated;
    if (s->n_done_rated > 0) return s->done_rate / s->n_done_rated;
    if (o->n_done_rated > 0) return o->done_rate / o->n_done_rated;
    return -1;
}

static void re_stage_state(re_stage *s, int moving)
{
    if (s->n == 0) {
        s->state = RE_ABSENT;
        s->eta = -1;
    } else if (s->n_done == s->n) {
        s->state = RE_DONE;
        s->eta = 0;
    } else if (moving) {
        s->state = RE_ACTIVE;
    } else {
        s->state = s->n_stalled ? RE_STALLED : RE_PENDING;
    }
}

/* The item pass's items: done, moving, stalled, or not collected yet. */
static void re_items(const model_run *r, double now, double elapsed, int pass_over, re_stage *s)
{
    const vl_run *x = r->run;
    s->n = 1;
    s->done = x->items_done > 0 ? x->items_done : 0;
    s->total = x->items_total > 0 ? x->items_total : 0;
    s->rate = est_rate(r->items, now);
    /* the average as of the last change (between changes it counts down, as the ETA does) */
    double lc = est_last_change(r->items);
    double moving = elapsed - (lc >= 0 && now > lc ? now - lc : 0) - est_paused(r->items);
    double avg = moving > 0 && s->done > 0 ? (double)s->done / moving : -1;
    double shifted = re_avg_since_shift(r->items, s->done, lc);
    if (shifted > 0) avg = shifted;
    if (s->rate <= 0 && avg > 0) s->rate = avg;
    double since;
    if (pass_over || (s->total > 0 && s->done >= s->total)) {
        s->state = RE_DONE;
        s->n_done = 1;
        s->eta = 0;
    } else if (s->total <= 0) {
        s->state = RE_PENDING; /* items not collected yet */
        s->eta = 0;
        s->bound = 1;
    } else if (est_stalled(r->items, now, &since)) {
        s->state = RE_STALLED;
        s->stalled_for = since;
        s->bound = 1;
        s->eta = avg > 0 ? (double)re_left(s->done, s->total) / avg : 0;
    } else {
        s->state = s->done > 0 || est_last_change(r->items) >= 0 ? RE_ACTIVE : RE_PENDING;
        /* just back from a stall: the average (stalled time left out), as for volumes */
        double recent = avg > 0 && est_window_has_stall(r->items) ? -1 : est_rate_moving(r->items);
        s->eta = re_eta_from(re_left(s->done, s->total), re_blend_rate(recent, avg), now,
                             est_last_change(r->items), INFINITY);
        if (s->eta < 0) {
            s->eta = 0;
            s->bound = 1;
        }
    }
    s->eta = re_finite(s->eta);
}

/* 1 while the item pass has pods or PVCs left: each may bring a volume. A log-derived row with
 * no total (MODEL_RES_NO_TOTAL) says nothing of what is left: the run's own count does (every
 * item done: none left). */
static int re_volumes_may_come(const model_run *r)
{
    size_t n;
    const model_res *res = model_run_resources(r, &n, NULL);
    const vl_run *x = r->run;
    int items_left = !(x->items_total > 0 && x->items_done >= x->items_total);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].resource, "pods") && strcmp(res[i].resource, "persistentvolumeclaims"))
            continue;
        if (res[i].flags & MODEL_RES_NO_TOTAL) {
            if (items_left) return 1;
        } else if (res[i].total <= 0 || res[i].done < res[i].total) {
            return 1;
        }
    }
    return 0;
}

double runeta_blend(double live, int live_bound, double elapsed, const re_history *h,
                    int *from_history)
{
    *from_history = 0;
    double prior = h && h->n > 0 ? h->dur_med - elapsed : -1;
    if (!(prior > 0)) return live; /* no history, or the run already takes longer than usual */
    /* a live figure that is only a bound (items not counted, volumes not sized or stalled)
     * leaves out what the prior knows; one that is a bound only because volumes may still come
     * (live_bound 2) lacks only what runs that moved volume bytes know */
    if (live < 0 || live_bound == 1 || (live_bound == 2 && h->bytes_med > 0)) {
        if (live < 0 || prior > live) {
            *from_history = 1;
            return re_finite(prior);
        }
        return live;
    }
    if (elapsed < 0) elapsed = 0;
    /* how far this run is, by its own progress (not by the history's duration, which kept a
     * fast run's ETA near the usual one to its end): from RE_PRIOR_FADE (30 %) on the live
     * figure alone counts */
    double frac = elapsed / (elapsed + live);
    double w = frac / RE_PRIOR_FADE;
    if (w >= 1) return live;
    double v = w * live + (1 - w) * prior;
    /* design.md: from 30 % of the run on the history moves the ETA by at most 20 % of the live
     * projection. The share done is itself judged from the live projection, which errs early
     * on, so the limit starts at 20 % by it */
    if (frac >= RE_PRIOR_CLAMP_FROM) {
        if (v > live * (1 + RE_PRIOR_CLAMP)) v = live * (1 + RE_PRIOR_CLAMP);
        if (v < live * (1 - RE_PRIOR_CLAMP)) v = live * (1 - RE_PRIOR_CLAMP);
    }
    *from_history = w < 0.5;
    return re_finite(v);
}

void runeta_compute(const model *m, const model_run *r, double now, double wall, runeta *out)
{
    memset(out, 0, sizeof *out);
    out->eta = -1;
    out->ops_eta = -1;
    out->last_progress = -1;
    out->bytes_rate = -1;
    for (int i = 0; i < RE_NPARTS; i++) {
        out->part[i].eta = -1;
        out->part[i].rate = -1;
    }
    const vl_run *x = r ? r->run : NULL;
    if (!x) return;
    runeta_history(m, r, &out->hist);
    vl_phase ph = x->phase_id;
    int waiting_ops =
        ph == VL_PH_WAITING_PLUGIN_OPS || ph == VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED;
    int finalizing = ph == VL_PH_FINALIZING || ph == VL_PH_FINALIZING_PARTIALLY_FAILED;
    double elapsed = model_run_duration(r, wall);
    out->last_progress = est_last_change(r->items);

    /* volumes, by part */
    size_t nv = model_run_volumes(m, r, NULL, 0);
    model_volume **vv = xcalloc(nv ? nv : 1, sizeof *vv);
    model_run_volumes(m, r, vv, nv);
    int moving[RE_NPARTS] = {0};
    const model_volume **pend = xcalloc(nv ? nv : 1, sizeof *pend);
    size_t npend[RE_NPARTS] = {0}, pend_at[RE_NPARTS] = {0};
    /* pod volumes first, then data movers, so each stage's pending ones sit together */
    for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++) {
        pend_at[p] = p == RE_PODVOLS ? 0 : npend[RE_PODVOLS];
        for (size_t i = 0; i < nv; i++) {
            if (!vv[i]->vol) continue;
            re_part q = vv[i]->kind == VL_DU || vv[i]->kind == VL_DD ? RE_DATAMOVER : RE_PODVOLS;
            if ((int)q != p) continue;
            re_volume(m, vv[i], now, wall, &out->part[p], &moving[p], &out->last_progress,
                      pend + pend_at[p], &npend[p]);
        }
    }
    for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++) {
        const re_stage *o = &out->part[p == RE_PODVOLS ? RE_DATAMOVER : RE_PODVOLS];
        double per = re_per_volume(&out->part[p], o);
        re_borrow(&out->part[p], per, pend + pend_at[p], npend[p]);
    }
    free(pend);
    free(vv);
    re_stage_state(&out->part[RE_PODVOLS], moving[RE_PODVOLS]);
    re_stage_state(&out->part[RE_DATAMOVER], moving[RE_DATAMOVER]);
    for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++) {
        out->bytes_done = re_add(out->bytes_done, out->part[p].done);
        out->bytes_total = re_add(out->bytes_total, out->part[p].total);
        if (out->part[p].rate > 0)
            out->bytes_rate = (out->bytes_rate > 0 ? out->bytes_rate : 0) + out->part[p].rate;
    }
    re_items(r, now, elapsed, waiting_ops || finalizing || vl_phase_terminal(ph),
             &out->part[RE_ITEMS]);
    /* pods (pod volumes) or PVCs (data movers) still to be backed up: more volumes may come,
     * of a size nobody knows yet */
    if (!waiting_ops && !finalizing && re_volumes_may_come(r)) {
        out->part[RE_PODVOLS].bound = 1;
        if (out->part[RE_PODVOLS].state == RE_ABSENT) out->part[RE_PODVOLS].eta = -1;
    }
    re_stage *it = &out->part[RE_ITEMS], *pv = &out->part[RE_PODVOLS],
             *dm = &out->part[RE_DATAMOVER], *fin = &out->part[RE_FINAL];
    fin->n = 1;
    fin->state = vl_phase_terminal(ph) ? RE_DONE : finalizing ? RE_ACTIVE : RE_PENDING;
    fin->eta = fin->state == RE_DONE ? 0 : RE_FINALIZE_S;
    out->active = vl_phase_active(ph);
    if (!out->active) return;

    /* the critical path: max(items, pod volumes), then the data movers, then Finalizing */
    double pass = 0, end;
    re_part wait = RE_ITEMS;
    int bound = 0;
    if (!waiting_ops && !finalizing) {
        pass = it->eta;
        bound = it->bound && it->state != RE_DONE;
        if (pv->bound && pv->state == RE_ABSENT) bound = 1; /* volumes may still come */
        if (pv->state != RE_ABSENT && pv->state != RE_DONE) {
            if (pv->eta > pass || it->state == RE_DONE) {
                pass = pv->eta > pass ? pv->eta : pass;
                wait = RE_PODVOLS;
            }
            bound |= pv->bound;
        }
    }
    end = pass;
    if (!finalizing && dm->state != RE_ABSENT) {
        if (dm->state != RE_DONE) {
            bound |= dm->bound;
            if (dm->eta + RE_OPS_SYNC_S / 2 > end || waiting_ops) {
                end = dm->eta + RE_OPS_SYNC_S / 2;
                if (end < pass) end = pass;
                wait = RE_DATAMOVER;
            }
        } else if (waiting_ops) {
            end = RE_OPS_SYNC_S / 2; /* done; the operations controller has yet to see it */
            wait = RE_DATAMOVER;
        }
    }
    /* waiting on plugin operations with no data mover in sight (another plugin's): their
     * progress is not ours to see, the end is unknown */
    int unseen_ops = waiting_ops && dm->state == RE_ABSENT;
    /* ... or besides the data movers: the status counts more operations in flight than data
     * movers left, and their artifact was not read (a snapshot without --details) */
    if (waiting_ops && !(r->item_ops && r->item_ops->known) &&
        x->ops_attempted - x->ops_completed - x->ops_failed > (int64_t)(dm->n - dm->n_done))
        unseen_ops = out->ops_unseen = 1;
    /* ... unless their artifact was read: the operations no data mover counts already (another
     * plugin's, in its own units) end when their nCompleted reaches nTotal at their rate; one
     * without an ETA leaves the end unknown */
    if (waiting_ops && r->item_ops && r->item_ops->known) {
        double oe;
        int unk;
        out->ops_left = itemops_eta(m, r, now, wall, &oe, &unk);
        if (unk)
            unseen_ops = 1;
        else if (out->ops_left) {
            unseen_ops = 0;
            out->ops_eta = oe;
            wait = RE_DATAMOVER;
            if (oe + RE_OPS_SYNC_S / 2 > end || dm->state == RE_ABSENT) {
                end = oe + RE_OPS_SYNC_S / 2;
                if (end < pass) end = pass;
                out->end_from_ops = 1; /* they end last */
            }
        } else if (dm->state == RE_ABSENT) {
            unseen_ops = 0; /* all done: the operations controller has yet to see it */
            end = RE_OPS_SYNC_S / 2;
            wait = RE_DATAMOVER;
        }
    }
    if (unseen_ops) wait = RE_DATAMOVER;
    if (finalizing) wait = RE_FINAL;
    if (wait == RE_ITEMS && it->state == RE_DONE && !finalizing) wait = RE_FINAL;
    double live = unseen_ops ? -1 : re_finite(end + fin->eta);
    /* for the prior: a bound only because pods or PVCs still to come may bring volumes (2), or
     * because of what is known not to be sized or moving (1) */
    int hard = (it->bound && it->state != RE_DONE) || pv->n_unknown || pv->n_stalled ||
               dm->n_unknown || dm->n_stalled;
    out->eta =
        runeta_blend(live, bound ? (hard ? 1 : 2) : 0, elapsed, &out->hist, &out->from_history);
    /* is anything known left? items with a total and a rate, volumes sized and timed; what is
     * not (counted nowhere yet, not sized, nothing to time it by) adds an unknown */
    int known = 0, unknown = 0;
    if (!waiting_ops && !finalizing && it->state != RE_DONE) {
        if (it->total > 0 && it->rate > 0)
            known = 1;
        else
            unknown = 1;
    }
    for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++) {
        const re_stage *s = &out->part[p];
        if ((p == RE_PODVOLS && (waiting_ops || finalizing)) || (finalizing)) continue;
        if (s->state == RE_ABSENT || s->state == RE_DONE) continue;
        if (s->n_unknown) unknown = 1;
        if (s->n - s->n_done - s->n_unknown > 0) known = 1;
    }
    out->unknown_only = unknown && !known;
    out->bound = bound && !out->from_history;
    out->waiting = wait;
    re_stage *ws = wait == RE_ITEMS ? it : wait == RE_FINAL ? fin : &out->part[wait];
    out->waiting_vol = wait == RE_PODVOLS || wait == RE_DATAMOVER ? ws->last : NULL;
    if (out->waiting_vol) {
        const vl_volume *v = out->waiting_vol->vol;
        out->waiting_left = re_left(v->bytes_done, v->bytes_total);
        out->waiting_rate = re_vol_rate(m, out->waiting_vol, now, wall);
    } else if (wait == RE_ITEMS) {
        out->waiting_left = re_left(it->done, it->total);
        out->waiting_rate = it->rate;
    } else {
        out->waiting_rate = -1;
    }

    /* stall: over the parts in play; the run is stalled when something stalled and nothing
     * moves, and says what stalled (the part its end waits on first) */
    int any_moving = 0;
    if (waiting_ops) { /* another plugin's operations moving are progress of the run */
        double lm;
        if (itemops_moving(m, r, now, wall, &lm)) any_moving = 1;
        if (lm > out->last_progress) out->last_progress = lm;
    }
    re_part sp = RE_NPARTS;
    for (int p = RE_ITEMS; p <= RE_DATAMOVER; p++) {
        const re_stage *s = &out->part[p];
        if (p != RE_DATAMOVER && (waiting_ops || finalizing)) continue;
        if (s->state == RE_ACTIVE) any_moving = 1;
        int st = p == RE_ITEMS ? s->state == RE_STALLED : s->n_stalled > 0;
        if (st && (sp == RE_NPARTS || p == (int)wait)) sp = (re_part)p;
    }
    if (sp != RE_NPARTS) {
        out->stalled_part = sp;
        out->stalled_vol = out->part[sp].stalled;
        out->stalled_for = out->part[sp].stalled_for;
        /* ... and nothing else changed for 3 of that part's update intervals either (a volume
         * completing is progress its own counter may not show) */
        double quiet = out->last_progress >= 0 ? now - out->last_progress : INFINITY;
        double after = sp == RE_ITEMS ? 3 * 1.0 : 3 * 10.0;
        if (!any_moving && quiet > after) {
            out->stalled = 1;
            if (quiet < out->stalled_for) out->stalled_for = quiet;
            out->eta = -1; /* nothing moves: no end can be predicted */
            out->bound = 0;
            out->from_history = 0;
        } else {
            out->part_stalled = 1;
        }
    }
}

static int re_dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double re_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, re_dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int runeta_history(const model *m, const model_run *r, re_history *h)
{
    memset(h, 0, sizeof *h);
    const vl_run *x = r ? r->run : NULL;
    if (!x || !x->schedule || !*x->schedule || r->kind != VL_BACKUP) return 0;
    double start = x->started > 0 ? x->started : x->meta.created;
    /* the newest RE_HISTORY_MAX completed runs of the schedule before this one (not r: it
     * started at `start`, not before) */
    const model_run *pick[RE_HISTORY_MAX];
    int n = (int)model_schedule_runs(m, r->kind, x->schedule, start, pick, RE_HISTORY_MAX);
    if (!n) return 0;
    if (m->vols_partial) { /* their volume bytes are not all in: no prior yet, and it says so */
        h->loading = 1;
        return 0;
    }
    double dur[RE_HISTORY_MAX], items[RE_HISTORY_MAX], bytes[RE_HISTORY_MAX];
    h->dur_min = INFINITY;
    h->dur_max = 0;
    for (int i = 0; i < n; i++) {
        const vl_run *y = pick[i]->run;
        dur[i] = model_wall_span(m, y->completed - y->started);
        items[i] = (double)y->items_done;
        bytes[i] = (double)pick[i]->vols.bytes_total;
        if (dur[i] < h->dur_min) h->dur_min = dur[i];
        if (dur[i] > h->dur_max) h->dur_max = dur[i];
    }
    h->n = n;
    h->dur_med = re_median(dur, n);
    h->items_med = re_median(items, n);
    h->bytes_med = re_median(bytes, n);
    return n;
}
