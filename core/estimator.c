/* estimator.c: rate (least-squares slope over a window of change samples), ETA and stall
 * detection for one progress counter; pure computation over the times it is given. */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"
#include "kubeclient/util.h"

/* Rings start empty and grow on demand: most counters (volumes seen only when finished) never
 * hold a sample, so an idle estimator costs ~100 bytes, a live one at most 3 KB. */
#define EST_RING        128 /* change samples: > 60 s of a counter moving every second */
#define EST_COARSE      64  /* thinned samples for the sparkline, one per EST_COARSE_STEP seconds */
#define EST_COARSE_STEP 10.0
#define EST_GAPS        9 /* gaps between changes whose median is the observed update interval */
/* A lasting change of rate: for at least EST_SHIFT_GAPS gaps between changes and EST_SHIFT_SPAN
 * seconds, every gap moved faster (or slower) than the average over the window before them, and
 * over those gaps the counter moved more than EST_SHIFT_F times faster (slower) than that average
 * and than any single gap in the window. The rate then forgets what came before (est_shift). A
 * counter's usual jitter and bursts stay within what its window saw; a real step (x3, x0.3) does
 * not. */
#define EST_SHIFT_F        1.5
#define EST_SHIFT_GAPS     2
#define EST_SHIFT_SPAN     10.0
#define EST_SHIFT_REF_GAPS 3 /* gaps before the streak it is judged against, at least */

typedef struct est_pt {
    double t;
    int64_t v;
} est_pt;

/* A ring of points, oldest at head; grows (unwrapped, head 0) up to its maximum, then wraps. */
typedef struct est_ring {
    est_pt *p;
    uint16_t head, n, cap;
} est_ring;

struct est {
    float window_s, interval_s; /* est_opts; floats, and paused: an estimator fits 104 bytes */
    est_ring fine;              /* every change */
    est_ring coarse;            /* thinned, for a sparkline longer than the fine ring */
    int64_t total;              /* 0 = unknown */
    double seed_rate;           /* < 0: not seeded */
    double finish_rate;
    double last_change; /* < 0: none */
    double resumed;     /* time of the change that ended the last stall, < 0 none */
    double shift_t;     /* the point a lasting change of rate began at, < 0 none (est_shift) */
    int64_t shift_v;
    float paused; /* seconds spent stalled (gaps beyond the stall threshold) */
    uint8_t total_changed, finished;
    uint8_t streak; /* the last gaps that all moved faster (dir 1) or slower (-1) than the rate */
    int8_t streak_dir;
};

static est_pt *est_ring_at(const est_ring *r, int i)
{
    return &r->p[(r->head + i) % r->cap];
}

static void est_ring_push(est_ring *r, int max, est_pt pt)
{
    if (r->n == r->cap && r->cap < max) {
        int cap = r->cap ? r->cap * 2 : 4;
        if (cap > max) cap = max;
        r->p = xrealloc(r->p, (size_t)cap * sizeof *r->p);
        r->cap = (uint16_t)cap;
    }
    if (r->n == r->cap) {
        r->head = (uint16_t)((r->head + 1) % r->cap);
        r->n--;
    }
    *est_ring_at(r, r->n) = pt;
    r->n++;
}

static void est_ring_clear(est_ring *r)
{
    free(r->p);
    memset(r, 0, sizeof *r);
}

static const est_pt *est_at(const est *e, int i)
{
    return est_ring_at(&e->fine, i);
}

static const est_pt *est_last(const est *e)
{
    return est_at(e, e->fine.n - 1);
}

est *est_new(const est_opts *o)
{
    est *e = xcalloc(1, sizeof *e);
    e->window_s = (float)(o && o->window_s > 0 ? o->window_s : 60.0);
    e->interval_s = (float)(o && o->expected_interval_s > 0 ? o->expected_interval_s : 1.0);
    e->seed_rate = -1;
    e->finish_rate = -1;
    e->last_change = -1;
    e->resumed = -1;
    e->shift_t = -1;
    return e;
}

void est_free(est *e)
{
    if (!e) return;
    free(e->fine.p);
    free(e->coarse.p);
    free(e);
}

static void est_reset(est *e)
{
    est_ring_clear(&e->fine);
    est_ring_clear(&e->coarse);
    e->seed_rate = -1;
    e->total_changed = 0;
    e->last_change = -1;
    e->paused = 0;
    e->resumed = -1;
    e->shift_t = -1;
    e->streak = 0;
}

static void est_push(est *e, double t, int64_t v)
{
    est_ring_push(&e->fine, EST_RING, (est_pt){t, v});
    e->last_change = t;
    const est_pt *c = e->coarse.n ? est_ring_at(&e->coarse, e->coarse.n - 1) : NULL;
    if (!c || t - c->t >= EST_COARSE_STEP) est_ring_push(&e->coarse, EST_COARSE, (est_pt){t, v});
}

static double est_stall_after(const est *e);
static double est_observed_interval(const est *e);
static int est_window_start(const est *e, double end, int keep);

static double est_gap_rate(const est *e, int i) /* over the gap ending at point i >= 1 */
{
    const est_pt *a = est_at(e, i - 1), *b = est_at(e, i);
    return kc_i64_diff(b->v, a->v) / (b->t - a->t);
}

/* Before the change (t, value) is recorded: do the gaps up to it move at another pace than
 * before? A streak of gaps all faster (slower) than the average over the window before them is a
 * change of pace when, over the streak, the counter moved EST_SHIFT_F times faster (slower) than
 * that average and faster (slower) than any single gap in that window did: a counter's usual
 * bursts and jitter are no change. Returns 1 when that has lasted long enough to be a change of
 * rate (est_shift). */
static int est_shift_check(est *e, double t, int64_t value)
{
    const est_pt *last = est_last(e);
    double g = kc_i64_diff(value, last->v) / (t - last->t);
    for (int pass = 0; pass < 2; pass++) {
        /* the streak this gap would extend (pass 0), or a new one (pass 1) */
        int k = pass == 0 ? e->streak : 0;
        if (pass == 0 && k == 0) continue;
        int end = e->fine.n - 1 - k; /* the reference window ends where the streak starts */
        if (end < EST_SHIFT_REF_GAPS) continue;
        int from = est_window_start(e, est_at(e, end)->t, 2);
        if (end - from < EST_SHIFT_REF_GAPS) continue;
        double lo = INFINITY, hi = 0;
        for (int i = from + 1; i <= end; i++) {
            double r = est_gap_rate(e, i);
            if (r < lo) lo = r;
            if (r > hi) hi = r;
        }
        const est_pt *a = est_at(e, from), *b = est_at(e, end);
        if (b->t - a->t < 2 * EST_SHIFT_SPAN) continue; /* too little seen to judge against */
        double ref = kc_i64_diff(b->v, a->v) / (b->t - a->t);
        if (!(ref > 0)) continue;
        int dir = g > ref ? 1 : g < ref ? -1 : 0;
        if (!dir || (pass == 0 && dir != e->streak_dir)) continue;
        e->streak_dir = (int8_t)dir;
        e->streak = (uint8_t)(k + 1 < UINT8_MAX ? k + 1 : UINT8_MAX - 1);
        /* the streak's gaps start at the point streak - 1 gaps before the last one; over them
         * all, the counter moved at another pace than its window ever did */
        const est_pt *first = est_at(e, e->fine.n - e->streak);
        double agg = kc_i64_diff(value, first->v) / (t - first->t);
        int beyond =
            dir > 0 ? agg > EST_SHIFT_F * ref && agg > hi : agg < ref / EST_SHIFT_F && agg < lo;
        if (!beyond || e->streak < EST_SHIFT_GAPS || t - first->t < EST_SHIFT_SPAN) return 0;
        /* the change came somewhere in the streak's first gap, partly at the old pace: the new
         * one is measured from the gap after it */
        first = est_at(e, e->fine.n - e->streak + 1);
        e->shift_t = first->t;
        e->shift_v = first->v;
        e->streak = 0; /* the rate is now the new one's: the next gaps are compared with it */
        return 1;
    }
    e->streak = 0;
    return 0;
}

void est_sample(est *e, double t, int64_t value, int64_t total)
{
    if (!e || e->finished) return;
    if (total > 0) {
        if (e->total > 0 && total != e->total) e->total_changed = 1;
        e->total = total;
    }
    if (e->fine.n > 0) {
        const est_pt *last = est_last(e);
        if (value == last->v) return; /* no change: not a sample */
        if (value < last->v) {
            est_reset(e); /* counter reset: the old history says nothing about the new run */
            if (total > 0) e->total = total;
        } else if (t <= last->t) {
            /* two changes at one instant (or a clock going back): keep the newer value */
            est_ring_at(&e->fine, e->fine.n - 1)->v = value;
            return;
        } else if (t - last->t > est_stall_after(e) && (e->fine.n > 1 || e->seed_rate >= 0)) {
            /* it moves again after a stall: that time was no progress (est_paused); the average
             * with the stall left out takes over (est_window_has_stall), not a change of rate */
            e->paused += (float)(t - last->t - est_observed_interval(e));
            e->resumed = t;
            e->shift_t = -1;
            e->streak = 0;
        } else {
            est_shift_check(e, t, value);
        }
    }
    est_push(e, t, value);
}

void est_seed(est *e, double t, int64_t value, double elapsed_s)
{
    if (!e || e->finished) return;
    est_sample(e, t, value, 0);
    if (elapsed_s > 0 && value >= 0) e->seed_rate = (double)value / elapsed_s;
}

void est_finish(est *e, int64_t value, double elapsed_s)
{
    if (!e || e->finished) return;
    /* keep only the thinned history (with the last change), packed to its size */
    if (e->fine.n) {
        const est_pt *l = est_last(e);
        const est_pt *c = e->coarse.n ? est_ring_at(&e->coarse, e->coarse.n - 1) : NULL;
        if (!c || c->t != l->t) est_ring_push(&e->coarse, EST_COARSE, *l);
    }
    est_ring_clear(&e->fine);
    est_ring packed = {NULL, 0, e->coarse.n, e->coarse.n};
    if (packed.n) {
        packed.p = xmalloc(packed.n * sizeof *packed.p);
        for (int i = 0; i < packed.n; i++) packed.p[i] = *est_ring_at(&e->coarse, i);
    }
    free(e->coarse.p);
    e->coarse = packed;
    e->finished = 1;
    e->finish_rate = elapsed_s > 0 ? (double)value / elapsed_s : -1;
    e->total = value;
    e->total_changed = 0;
}

/* Median gap between the recent changes: how often this counter actually moves. */
static double est_observed_interval(const est *e)
{
    double gaps[EST_GAPS];
    int k = 0;
    for (int i = e->fine.n - 1; i > 0 && k < EST_GAPS; i--)
        gaps[k++] = est_at(e, i)->t - est_at(e, i - 1)->t;
    if (k == 0) return e->interval_s;
    for (int i = 1; i < k; i++) /* insertion sort: at most 9 values */
        for (int j = i; j > 0 && gaps[j - 1] > gaps[j]; j--) {
            double x = gaps[j];
            gaps[j] = gaps[j - 1];
            gaps[j - 1] = x;
        }
    return k % 2 ? gaps[k / 2] : (gaps[k / 2 - 1] + gaps[k / 2]) / 2;
}

double est_interval(const est *e)
{
    if (!e) return -1;
    double iv = est_observed_interval(e);
    if (iv < e->interval_s) iv = e->interval_s;
    if (e->fine.n < 3 && e->seed_rate > 0 && 1 / e->seed_rate > iv) iv = 1 / e->seed_rate;
    return iv;
}

static double est_window(const est *e)
{
    double w = 6 * est_observed_interval(e);
    return w > e->window_s ? w : e->window_s;
}

/* How long the counter may stay still before it is stalled: 3 of its update intervals (its
 * observed median gap, at least the expected interval), and beyond what its own cadence makes
 * likely: the mean of its recent gaps (but the stall it came back from) plus 10 of their standard
 * deviations. A regular counter (Velero's 1 s item and 10 s byte patches) is judged as soon as
 * before; a slow, irregular one (0.2 items/s with exponential gaps: an 11-mean gap happens once in
 * 60 000) is no stall for an hour. Seeded on attaching with no gap seen yet, the seed's pace says
 * how long one unit takes. */
#define EST_CADENCE_GAPS      32
#define EST_UNKNOWN_CADENCE_S 30.0
#define EST_CADENCE_K         10.0
static double est_stall_after(const est *e)
{
    double iv = est_observed_interval(e), s = 0, ss = 0;
    if (iv < e->interval_s) iv = e->interval_s;
    int k = 0;
    for (int i = e->fine.n - 1; i > 0 && k < EST_CADENCE_GAPS; i--) {
        if (est_at(e, i)->t == e->resumed) continue; /* the stall itself */
        double g = est_at(e, i)->t - est_at(e, i - 1)->t;
        s += g;
        ss += g * g;
        k++;
    }
    if (k < 2 && e->seed_rate > 0 && 1 / e->seed_rate > iv) iv = 1 / e->seed_rate;
    double after = 3 * iv;
    /* fewer than two gaps seen: its cadence is not known yet (a server may patch many items at
     * once every few seconds); not before 3 of Velero's 10 s updates */
    if (k < 2 && after < EST_UNKNOWN_CADENCE_S) after = EST_UNKNOWN_CADENCE_S;
    if (k >= 2) {
        double mean = s / k, var = ss / k - mean * mean;
        double cad = mean + EST_CADENCE_K * (var > 0 ? sqrt(var) : 0);
        if (cad > after) after = cad;
    }
    return after;
}

/* Least-squares slope of points [from, n) plus an optional extra point; *span = time covered. */
static double est_slope(const est *e, int from, const est_pt *extra, double *span)
{
    int m = e->fine.n - from + (extra ? 1 : 0);
    double t0 = est_at(e, from)->t;
    int64_t v0 = est_at(e, from)->v; /* offsets keep 2^53-sized counters precise */
    double st = 0, sv = 0;
    for (int i = from; i < e->fine.n; i++) {
        st += est_at(e, i)->t - t0;
        sv += kc_i64_diff(est_at(e, i)->v, v0);
    }
    if (extra) {
        st += extra->t - t0;
        sv += kc_i64_diff(extra->v, v0);
    }
    double mt = st / m, mv = sv / m, stt = 0, stv = 0;
    for (int i = from; i <= e->fine.n - (extra ? 0 : 1); i++) {
        const est_pt *p = i < e->fine.n ? est_at(e, i) : extra;
        double dt = p->t - t0 - mt, dv = kc_i64_diff(p->v, v0) - mv;
        stt += dt * dt;
        stv += dt * dv;
    }
    *span = (extra ? extra->t : est_last(e)->t) - t0;
    return stt > 0 ? stv / stt : -1;
}

/* First point inside the window ending at time end, leaving at least `keep` points. */
static int est_window_start(const est *e, double end, int keep)
{
    double from = end - est_window(e) - 1e-9;
    int i = e->fine.n - 1;
    while (i > 0 && est_at(e, i - 1)->t >= from) i--;
    if (e->fine.n - i < keep) i = e->fine.n - keep < 0 ? 0 : e->fine.n - keep;
    /* an idle start (first seen at a value long before it began to move) is no rate: the counter
     * started moving somewhere in that gap, so the first point would pull the slope down */
    if (i == 0 && e->fine.n >= 3 && e->fine.n - 1 >= keep && e->seed_rate < 0 &&
        est_at(e, 1)->t - est_at(e, 0)->t > 3 * e->interval_s)
        i = 1;
    /* after a lasting change of rate, what came before it says nothing about the rate now */
    while (e->shift_t >= 0 && i < e->fine.n - keep && est_at(e, i)->t < e->shift_t) i++;
    return i;
}

/* The rate as of the last change: constant between changes, so a step-wise counter does not
 * zig-zag. A seed carries the estimate until the samples cover a whole window. */
static double est_rate_at_last(const est *e)
{
    if (e->fine.n == 0) return -1;
    if (e->fine.n == 1) return e->seed_rate;
    double span, r = est_slope(e, est_window_start(e, est_last(e)->t, 2), NULL, &span);
    if (r < 0) return e->seed_rate >= 0 ? e->seed_rate : r;
    if (e->seed_rate >= 0 && e->shift_t < 0) {
        double a = span / est_window(e);
        if (a < 1) r = a * r + (1 - a) * e->seed_rate;
    }
    return r;
}

static int est_is_stalled(const est *e, double now, double *since)
{
    if (e->finished || e->fine.n == 0) return 0;
    const est_pt *last = est_last(e);
    *since = now - last->t;
    if (e->total > 0 && last->v >= e->total) return 0; /* done, waiting for the phase to end */
    if (e->fine.n == 1 && last->v == 0 && e->seed_rate < 0) return 0; /* never seen moving */
    return *since > est_stall_after(e);
}

double est_rate(const est *e, double now)
{
    if (!e) return -1;
    if (e->finished) return e->finish_rate;
    double since;
    if (!est_is_stalled(e, now, &since)) return est_rate_at_last(e);
    /* stalled: the counter still reads its last value now, which pulls the slope down */
    est_pt still = {now, est_last(e)->v};
    double span;
    double r = est_slope(e, est_window_start(e, now, 1), &still, &span);
    return r < 0 ? 0 : r;
}

double est_rate_moving(const est *e)
{
    if (!e) return -1;
    return e->finished ? e->finish_rate : est_rate_at_last(e);
}

double est_eta(const est *e, double now)
{
    if (!e || e->finished || e->fine.n == 0) return -1;
    const est_pt *last = est_last(e);
    double since;
    if (e->total <= 0 || e->total <= last->v || est_is_stalled(e, now, &since)) return -1;
    double r = est_rate_at_last(e);
    if (!(r > 0)) return -1;
    /* finish time projected from the last change, so the ETA counts down between changes */
    double eta = kc_i64_diff(e->total, last->v) / r - (now - last->t);
    if (eta < 0) eta = 0;
    return isfinite(eta) ? eta : -1;
}

int est_stalled(const est *e, double now, double *since_s)
{
    double since = 0;
    int st = e ? est_is_stalled(e, now, &since) : 0;
    if (since_s) *since_s = since;
    return st;
}

double est_last_change(const est *e)
{
    return e ? e->last_change : -1;
}

double est_last_move(const est *e)
{
    return e && e->fine.n >= 2 ? e->last_change : -1;
}

double est_paused(const est *e)
{
    return e ? e->paused : 0;
}

int est_shift(const est *e, double *t, int64_t *v)
{
    if (!e || e->finished || e->shift_t < 0) return 0;
    if (t) *t = e->shift_t;
    if (v) *v = e->shift_v;
    return 1;
}

int est_window_has_stall(const est *e)
{
    /* the window ending at the last change reaches back over the stall's gap */
    return e && e->resumed >= 0 && e->fine.n && est_last(e)->t - e->resumed < est_window(e);
}

int est_confident(const est *e)
{
    if (!e) return 0;
    if (e->finished || e->seed_rate >= 0) return 1;
    /* two moves after the first sighting, over at least two update intervals */
    return e->fine.n >= 3 && est_last(e)->t - est_at(e, 1)->t >= 2 * e->interval_s;
}

int est_total_estimated(const est *e)
{
    return e ? e->total_changed : 0;
}

/* The counter as a function of time for the sparkline: linear between samples, then held at the
 * last rate until a stall would be suspected, then flat. */
typedef struct est_curve {
    est_pt *p;
    int n;
    double hold_rate, hold_until;
} est_curve;

static double est_curve_at(const est_curve *c, double t)
{
    if (t <= c->p[0].t) return (double)c->p[0].v;
    const est_pt *last = &c->p[c->n - 1];
    if (t >= last->t) {
        double u = t < c->hold_until ? t : c->hold_until;
        return (double)last->v + (u > last->t ? c->hold_rate * (u - last->t) : 0);
    }
    int lo = 0, hi = c->n - 1; /* p[lo].t <= t < p[hi].t */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (c->p[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    double f = (t - c->p[lo].t) / (c->p[hi].t - c->p[lo].t);
    return (double)c->p[lo].v + f * kc_i64_diff(c->p[hi].v, c->p[lo].v);
}

int est_rate_history(const est *e, double now, double bucket_s, double *out, int n)
{
    if (!e || e->fine.n + e->coarse.n == 0 || n <= 0 || !(bucket_s > 0)) return 0;
    est_curve c = {xmalloc((EST_COARSE + EST_RING) * sizeof(est_pt)), 0, 0, 0};
    double first_fine = e->fine.n ? est_at(e, 0)->t : INFINITY;
    for (int i = 0; i < e->coarse.n; i++) {
        const est_pt *p = est_ring_at(&e->coarse, i);
        if (p->t < first_fine) c.p[c.n++] = *p;
    }
    for (int i = 0; i < e->fine.n; i++) c.p[c.n++] = *est_at(e, i);
    double r = e->finished ? -1 : est_rate_at_last(e);
    if (r > 0) {
        c.hold_rate = r;
        c.hold_until = c.p[c.n - 1].t + est_stall_after(e);
    }
    int filled = 0;
    /* seeded on attaching mid-run: the first change after it may carry a whole update interval
     * of progress made partly before we looked (a spike); the curve starts at that change */
    double t0 = e->seed_rate >= 0 && c.n >= 2 ? c.p[1].t : c.p[0].t;
    for (int k = n; k >= 1; k--) {
        double a = now - k * bucket_s, b = a + bucket_s;
        if (b <= t0) continue; /* before the first sample: nothing known */
        if (a < t0) a = t0;
        if (b - a <= 1e-9) continue;
        double v = (est_curve_at(&c, b) - est_curve_at(&c, a)) / (b - a);
        out[filled++] = v > 0 ? v : 0;
    }
    free(c.p);
    return filled;
}
