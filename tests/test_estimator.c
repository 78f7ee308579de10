/* test_estimator.c: rate, ETA and stall detection over synthetic sample sequences (steady, 1 s and
 * 10 s steps, stalls, resets, growing totals, attaching mid-run, finished runs). */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>

#include "estimator.h"
#include "testutil.h"

static const est_opts items_opts = {60.0, 1.0};
static const est_opts bytes_opts = {60.0, 10.0};

#define ck_assert_near(x, want, tol)                                                               \
    do {                                                                                           \
        double x_ = (x), w_ = (want), t_ = (tol);                                                  \
        ck_assert_msg(fabs(x_ - w_) <= t_, "%s = %.9g, want %.9g +- %g", #x, x_, w_, t_);          \
    } while (0)

START_TEST(steady_progress_gives_exact_rate_and_eta)
{
    est *e = est_new(&items_opts);
    ck_assert_double_lt(est_rate(e, 0), 0); /* nothing known yet */
    ck_assert_double_lt(est_eta(e, 0), 0);
    for (int t = 0; t <= 30; t++) est_sample(e, 100.0 + t, 5 * t, 1000);
    ck_assert_near(est_rate(e, 130.0), 5.0, 1e-9);
    /* 150 of 1000 at 5/s: 170 s left at the last change, counting down between changes */
    ck_assert_near(est_eta(e, 130.0), 170.0, 1e-9);
    ck_assert_near(est_eta(e, 130.5), 169.5, 1e-9);
    ck_assert_near(est_last_change(e), 130.0, 0);
    ck_assert_int_eq(est_total_estimated(e), 0);
    double since = -1;
    ck_assert_int_eq(est_stalled(e, 131.0, &since), 0);
    ck_assert_near(since, 1.0, 1e-9);
    est_free(e);
    est_free(NULL);
}
END_TEST

START_TEST(eta_hidden_until_meaningful_and_never_capped)
{
    est *e = est_new(&items_opts);
    est_sample(e, 0, 0, 0);
    est_sample(e, 1, 10, 0);
    ck_assert_near(est_rate(e, 1), 10.0, 1e-9);
    ck_assert_double_lt(est_eta(e, 1), 0); /* total unknown */
    est_sample(e, 2, 20, 20);
    ck_assert_double_lt(est_eta(e, 2), 0); /* total reached */
    est_free(e);

    e = est_new(&items_opts);
    est_sample(e, 0, 0, 1000000000);
    est_sample(e, 1, 1, 1000000000);
    ck_assert_near(est_rate(e, 1), 1.0, 1e-9);
    /* ~31 years: the projection as it is, never a cap standing in for it */
    ck_assert_near(est_eta(e, 1), 999999999.0, 1e-3);
    est_free(e);

    e = est_new(&items_opts); /* 1.5 days is shown as it is */
    est_sample(e, 0, 0, 129600 + 1);
    est_sample(e, 1, 1, 129600 + 1);
    ck_assert_near(est_eta(e, 1), 129600.0, 1e-6);
    est_free(e);

    e = est_new(&items_opts);
    est_sample(e, 0, 5, 10); /* one sample, no seed: no rate */
    ck_assert_double_lt(est_rate(e, 0.5), 0);
    ck_assert_double_lt(est_eta(e, 0.5), 0);
    est_free(e);
}
END_TEST

/* A counter moving at `rate` reported every `step` s (floor of the true value), with an optional
 * deterministic jitter in the report times; checks the rate between and across steps. */
static void check_steps(const est_opts *o, double rate, double step, double jitter, int steps)
{
    est *e = est_new(o);
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k <= steps; k++) {
        double t = k * step + (k % 3 - 1) * jitter;
        est_sample(e, t, (int64_t)floor(rate * k * step), 0);
        if (k * step < 2 * o->window_s) continue; /* let the window fill */
        double at_change = est_rate(e, t);
        /* between two changes the rate holds still: no zig-zag, no decay */
        for (double dt = 0.1; dt < step; dt += step / 7) {
            ck_assert_near(est_rate(e, t + dt), at_change, 0);
            ck_assert_int_eq(est_stalled(e, t + dt, NULL), 0);
        }
        lo = fmin(lo, at_change);
        hi = fmax(hi, at_change);
    }
    ck_assert_msg(lo >= rate * 0.99 && hi <= rate * 1.01, "rate in [%g, %g], want %g +- 1%%", lo,
                  hi, rate);
    est_free(e);
}

START_TEST(one_second_item_steps_are_stable)
{
    check_steps(&items_opts, 7.3, 1.0, 0.0, 300);
    check_steps(&items_opts, 7.3, 1.0, 0.05, 300); /* ticker jitter */
    check_steps(&items_opts, 0.4, 1.0, 0.0, 300);  /* slower than one item per tick */
}
END_TEST

START_TEST(ten_second_byte_steps_are_stable)
{
    check_steps(&bytes_opts, 52428800.0, 10.0, 0.0, 100); /* 50 MiB/s */
    check_steps(&bytes_opts, 52428800.0, 10.0, 0.2, 100);
    check_steps(&bytes_opts, 1e12, 10.0, 0.0, 100); /* TB/s-scale counters stay exact */
}
END_TEST

START_TEST(sparse_updates_widen_the_window)
{
    /* a byte counter that moves only every 30 s: window 6 x 30 = 180 s, rate still exact */
    est *e = est_new(&bytes_opts);
    for (int k = 0; k <= 20; k++) est_sample(e, 30.0 * k, 3000 * k, 1000000);
    ck_assert_near(est_rate(e, 600), 100.0, 1e-9);
    ck_assert_int_eq(est_stalled(e, 600 + 89, NULL), 0); /* 3 x observed interval = 90 s */
    ck_assert_int_eq(est_stalled(e, 600 + 91, NULL), 1);
    est_free(e);

    /* bursty reports every 30 s (+1000, +2000, +6000: 100/s on average): a 60 s window would
     * swing between 50/s and 133/s; 6 intervals keep it within 10% */
    static const int gain[] = {1000, 2000, 6000};
    e = est_new(&bytes_opts);
    int64_t v = 0;
    for (int k = 0; k <= 40; k++) {
        est_sample(e, 30.0 * k, v, 10000000);
        if (k >= 12) {
            double r = est_rate(e, 30.0 * k);
            ck_assert_msg(r >= 90 && r <= 110, "rate %g at step %d", r, k);
        }
        v += gain[k % 3];
    }
    est_free(e);
}
END_TEST

START_TEST(stall_after_three_intervals_then_resume)
{
    est *e = est_new(&bytes_opts);
    for (int k = 0; k <= 12; k++) est_sample(e, 10.0 * k, 1000 * k, 100000);
    double since = -1;
    ck_assert_near(est_rate(e, 120), 100.0, 1e-9);
    /* repeated values are not changes */
    est_sample(e, 130, 12000, 100000);
    est_sample(e, 140, 12000, 100000);
    ck_assert_int_eq(est_stalled(e, 150.0, &since), 0); /* exactly 3 x 10 s: not yet */
    ck_assert_near(since, 30.0, 1e-9);
    ck_assert_near(est_rate(e, 150.0), 100.0, 1e-9); /* not decayed before a stall is suspected */
    ck_assert_double_ge(est_eta(e, 150.0), 0);
    ck_assert_int_eq(est_stalled(e, 150.5, &since), 1);
    ck_assert_near(since, 30.5, 1e-9);
    ck_assert_double_lt(est_rate(e, 150.5), 100.0);
    ck_assert_double_lt(est_eta(e, 150.5), 0); /* no ETA while stalled */
    ck_assert_int_eq(est_stalled(e, 420.0, &since), 1);
    ck_assert_near(since, 300.0, 1e-9);
    ck_assert_near(est_rate(e, 420.0), 0.0, 0); /* nothing moved within the window */
    ck_assert_near(est_last_change(e), 120.0, 0);

    /* resumes at the old pace: not stalled, and the rate comes back once the window refills */
    for (int k = 1; k <= 8; k++) est_sample(e, 420.0 + 10 * k, 12000 + 1000 * k, 100000);
    ck_assert_int_eq(est_stalled(e, 505.0, &since), 0);
    ck_assert_near(since, 5.0, 1e-9);
    ck_assert_near(est_rate(e, 500.0), 100.0, 1e-9);
    ck_assert_near(est_eta(e, 500.0), (100000 - 20000) / 100.0, 1e-6);
    est_free(e);
}
END_TEST

START_TEST(item_counter_stalls_after_three_seconds)
{
    est *e = est_new(&items_opts);
    for (int t = 0; t <= 10; t++) est_sample(e, t, 3 * t, 100);
    ck_assert_int_eq(est_stalled(e, 13.0, NULL), 0);
    ck_assert_int_eq(est_stalled(e, 13.01, NULL), 1);
    est_free(e);

    /* a counter that has not moved since we first saw it at 0 is not started, not stalled */
    e = est_new(&items_opts);
    est_sample(e, 0, 0, 100);
    ck_assert_int_eq(est_stalled(e, 600, NULL), 0);
    est_free(e);

    /* a counter at its total is done, waiting for the phase, not stalled */
    e = est_new(&items_opts);
    for (int t = 0; t <= 10; t++) est_sample(e, t, 10 * t, 100);
    ck_assert_int_eq(est_stalled(e, 60, NULL), 0);
    est_free(e);
}
END_TEST

START_TEST(counter_going_down_resets_history)
{
    est *e = est_new(&items_opts);
    for (int t = 0; t <= 30; t++) est_sample(e, t, 100 * t, 10000);
    ck_assert_near(est_rate(e, 30), 100.0, 1e-9);
    est_sample(e, 31, 10, 10000); /* restarted */
    ck_assert_near(est_last_change(e), 31.0, 0);
    ck_assert_double_lt(est_rate(e, 31), 0); /* one sample: no rate from the old run */
    est_sample(e, 32, 12, 10000);
    est_sample(e, 33, 14, 10000);
    ck_assert_near(est_rate(e, 33), 2.0, 1e-9);
    ck_assert_near(est_eta(e, 33), (10000 - 14) / 2.0, 1e-6);
    est_free(e);
}
END_TEST

START_TEST(growing_total_is_an_estimate)
{
    est *e = est_new(&items_opts);
    for (int t = 0; t <= 10; t++) est_sample(e, t, 10 * t, 500);
    ck_assert_int_eq(est_total_estimated(e), 0);
    ck_assert_near(est_eta(e, 10), 40.0, 1e-9);
    est_sample(e, 11, 110, 600); /* Velero re-estimated */
    ck_assert_int_eq(est_total_estimated(e), 1);
    ck_assert_near(est_eta(e, 11), 49.0, 1e-9); /* (600-110)/10 */
    est_sample(e, 12, 120, 0);                  /* a missing total keeps the last one */
    ck_assert_near(est_eta(e, 12), 48.0, 1e-9);
    ck_assert_int_eq(est_total_estimated(e), 1);
    est_free(e);
}
END_TEST

START_TEST(attach_mid_run_seeds_from_start)
{
    /* 1200 of 3000 items done in the 600 s since startTimestamp: 2 items/s at once */
    est *e = est_new(&items_opts);
    est_seed(e, 1000.0, 1200, 600.0);
    est_sample(e, 1000.0, 1200, 3000); /* same value: only the total */
    ck_assert_near(est_rate(e, 1000.0), 2.0, 1e-9);
    ck_assert_near(est_eta(e, 1000.0), 900.0, 1e-9);
    ck_assert_near(est_eta(e, 1000.5), 899.5, 1e-9);
    double since;
    ck_assert_int_eq(est_stalled(e, 1002.0, &since), 0);

    /* the run is faster now (4/s): the seed fades as samples cover the window */
    for (int k = 1; k <= 30; k++) est_sample(e, 1000.0 + k, 1200 + 4 * k, 3000);
    ck_assert_near(est_rate(e, 1030.0), 0.5 * 4.0 + 0.5 * 2.0, 1e-9); /* half the window */
    ck_assert_near(est_eta(e, 1030.0), (3000 - 1320) / 3.0, 1e-9);
    for (int k = 31; k <= 90; k++) est_sample(e, 1000.0 + k, 1200 + 4 * k, 3000);
    ck_assert_near(est_rate(e, 1090.0), 4.0, 1e-9); /* window full: measured only */

    /* a seed of nothing done says nothing */
    est *z = est_new(&items_opts);
    est_seed(z, 5.0, 0, 0.0);
    ck_assert_double_lt(est_rate(z, 5.0), 0);
    est_free(z);
    est_free(e);
}
END_TEST

START_TEST(finished_run_shows_whole_run_average)
{
    est *e = est_new(&items_opts);
    for (int t = 0; t <= 20; t++) est_sample(e, t, 50 * t, 1000);
    est_finish(e, 1000, 250.0);
    ck_assert_near(est_rate(e, 21), 4.0, 1e-9);
    ck_assert_near(est_rate(e, 99999), 4.0, 1e-9); /* never decays, never stalls */
    ck_assert_double_lt(est_eta(e, 21), 0);
    ck_assert_int_eq(est_stalled(e, 99999, NULL), 0);
    ck_assert_int_eq(est_total_estimated(e), 0);
    est_sample(e, 30, 5, 10); /* ignored once finished */
    ck_assert_near(est_rate(e, 31), 4.0, 1e-9);
    est_free(e);

    /* finished without ever being sampled (seen first when already done) */
    e = est_new(&bytes_opts);
    est_finish(e, 1073741824, 64.0);
    ck_assert_near(est_rate(e, 0), 16777216.0, 1e-6);
    est_free(e);

    e = est_new(&bytes_opts);
    est_finish(e, 10, 0.0); /* no duration: unknown */
    ck_assert_double_lt(est_rate(e, 0), 0);
    est_free(e);
}
END_TEST

START_TEST(rate_history_for_the_sparkline)
{
    est *e = est_new(&bytes_opts);
    double out[16];
    ck_assert_int_eq(est_rate_history(e, 0, 10, out, 16), 0);
    /* 100/s for 100 s, then 300/s for 50 s, in 10 s steps */
    for (int k = 0; k <= 10; k++) est_sample(e, 10.0 * k, 1000 * k, 0);
    for (int k = 1; k <= 5; k++) est_sample(e, 100.0 + 10 * k, 10000 + 3000 * k, 0);
    int n = est_rate_history(e, 150.0, 10.0, out, 16);
    ck_assert_int_eq(n, 15); /* buckets before the first sample are left out */
    for (int i = 0; i < 10; i++) ck_assert_near(out[i], 100.0, 1e-9);
    for (int i = 10; i < 15; i++) ck_assert_near(out[i], 300.0, 1e-9);
    /* between changes the last bucket holds the current rate instead of dropping to 0 */
    double cur = est_rate(e, 155.0);
    n = est_rate_history(e, 155.0, 5.0, out, 2);
    ck_assert_int_eq(n, 2);
    ck_assert_near(out[0], 300.0, 1e-9);
    ck_assert_near(out[1], cur, 1e-9);
    /* long after a stall the history goes to 0 */
    n = est_rate_history(e, 400.0, 10.0, out, 3);
    ck_assert_int_eq(n, 3);
    for (int i = 0; i < 3; i++) ck_assert_near(out[i], 0.0, 1e-9);
    est_free(e);

    /* longer than the fine ring: older buckets come from the thinned samples */
    e = est_new(&items_opts);
    for (int t = 0; t <= 600; t++) est_sample(e, t, (t < 300 ? 2 * t : 600 + 6 * (t - 300)), 0);
    n = est_rate_history(e, 600.0, 60.0, out, 10);
    ck_assert_int_eq(n, 10);
    for (int i = 0; i < 5; i++) ck_assert_near(out[i], 2.0, 1e-9);
    for (int i = 5; i < 10; i++) ck_assert_near(out[i], 6.0, 1e-9);
    est_free(e);
}
END_TEST

START_TEST(finished_run_keeps_a_thinned_history)
{
    est *e = est_new(&bytes_opts);
    for (int k = 0; k <= 30; k++) est_sample(e, 10.0 * k, 500 * k, 15000);
    est_finish(e, 15000, 300.0);
    ck_assert_near(est_last_change(e), 300.0, 0);
    double out[6];
    int n = est_rate_history(e, 300.0, 50.0, out, 6);
    ck_assert_int_eq(n, 6);
    for (int i = 0; i < 6; i++) ck_assert_near(out[i], 50.0, 1e-9);
    /* after the end: flat, no held rate */
    n = est_rate_history(e, 400.0, 50.0, out, 2);
    ck_assert_int_eq(n, 2);
    ck_assert_near(out[0], 0.0, 0);
    ck_assert_near(out[1], 0.0, 0);
    est_free(e);
}
END_TEST

START_TEST(estimators_are_small)
{
    /* one per volume (50 000 of them): idle or finished ones must cost about 100 bytes */
    enum { N = 1000 };
    static est *es[N];
    struct mallinfo2 a = mallinfo2();
    for (int i = 0; i < N; i++) {
        es[i] = est_new(&bytes_opts);
        est_finish(es[i], 1000, 10.0);
    }
    struct mallinfo2 b = mallinfo2();
    double each = (double)(b.uordblks - a.uordblks) / N;
    ck_assert_msg(each <= 128, "%g bytes per finished estimator", each);
    for (int i = 0; i < N; i++) est_free(es[i]);
}
END_TEST

/* A resource row seen at 0 long before its first items: no rate until it moved twice over two
 * update intervals, and then the idle start does not pull the rate down. */
START_TEST(first_items_after_an_idle_start_give_no_absurd_rate)
{
    est *e = est_new(&items_opts);
    est_sample(e, 0, 0, 16);
    ck_assert_int_eq(est_confident(e), 0);
    est_sample(e, 40, 2, 16); /* "2 of 16": a slope over 40 s would say 0.05/s, ETA 5 min */
    ck_assert_int_eq(est_confident(e), 0);
    est_sample(e, 41, 4, 16);
    ck_assert_int_eq(est_confident(e), 0); /* one interval only */
    est_sample(e, 42, 6, 16);
    ck_assert_int_eq(est_confident(e), 1);
    ck_assert_near(est_rate(e, 42), 2.0, 1e-9); /* the idle point is left out */
    ck_assert_near(est_eta(e, 42), 5.0, 1e-9);
    est_free(e);
    ck_assert_int_eq(est_confident(NULL), 0);
}
END_TEST

/* Time stalled is counted, so an average since the start can leave it out. */
START_TEST(paused_time_is_counted)
{
    est *e = est_new(&bytes_opts);
    for (int t = 0; t <= 100; t += 10) est_sample(e, t, t * 100, 100000);
    ck_assert_near(est_paused(e), 0, 0);
    est_sample(e, 220, 11000, 100000);            /* 120 s without a change, then it moves again */
    ck_assert_near(est_paused(e), 110, 1e-9);     /* the gap less one update interval */
    ck_assert_int_eq(est_window_has_stall(e), 1); /* the slope's window spans the stall */
    est_sample(e, 230, 12000, 100000);
    ck_assert_near(est_paused(e), 110, 1e-9);
    for (int t = 240; t <= 290; t += 10) est_sample(e, t, 12000 + (t - 230) * 100, 100000);
    ck_assert_int_eq(est_window_has_stall(e), 0); /* a window later it no longer does */
    ck_assert_near(est_rate(e, 290), 100, 1e-9);
    est_sample(e, 300, 0, 100000); /* a reset forgets it */
    ck_assert_near(est_paused(e), 0, 0);
    ck_assert_int_eq(est_window_has_stall(e), 0);
    est_free(e);
    ck_assert_near(est_paused(NULL), 0, 0);
    ck_assert_int_eq(est_window_has_stall(NULL), 0);
}
END_TEST

/* Attached mid-run (seeded), the first byte update lands 2 s later with 10 s of bytes: the
 * sparkline starts there, with no spike of 5 x the rate. */
START_TEST(sparkline_has_no_spike_after_attaching)
{
    est *e = est_new(&bytes_opts);
    est_seed(e, 100, 50000, 500); /* 100/s since the start */
    for (int k = 0; k <= 6; k++) est_sample(e, 102 + 10 * k, 51000 + 1000 * k, 1000000);
    double h[20];
    int n = est_rate_history(e, 162, 5.0, h, 20); /* from 62: before the attach too */
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) ck_assert_msg(h[i] <= 101, "bucket %d: %g", i, h[i]);
    est_free(e);
}
END_TEST

/* A hostile counter (itemsBackedUp jumping between -2^63 and 2^63-1, totals at the int64 limit)
 * gives finite, non-negative answers and no signed overflow (UBSan aborts on one). */
START_TEST(counter_at_the_int64_extremes)
{
    est *e = est_new(&items_opts);
    for (int t = 0; t < 40; t++) {
        est_sample(e, 100.0 + t, t % 2 ? INT64_MAX : INT64_MIN, INT64_MAX);
        est_sample(e, 100.5 + t, t % 2 ? INT64_MIN + 1 : INT64_MAX - 1, INT64_MAX);
    }
    double r = est_rate(e, 140.0), eta = est_eta(e, 140.0), hist[16];
    ck_assert(isfinite(r));
    ck_assert(isfinite(eta));
    ck_assert(eta < 0 || eta >= 0); /* a number or unknown, never NaN */
    int n = est_rate_history(e, 140.0, 2.0, hist, 16);
    for (int i = 0; i < n; i++) ck_assert(isfinite(hist[i]) && hist[i] >= 0);
    est_free(e);
    /* monotonic but spanning the whole range: the slope is the real one */
    e = est_new(&items_opts);
    est_sample(e, 0.0, INT64_MIN, INT64_MAX);
    est_sample(e, 1.0, 0, INT64_MAX);
    est_sample(e, 2.0, INT64_MAX, INT64_MAX);
    ck_assert_near(est_rate(e, 2.0), 9223372036854775807.0, 1e4);
    ck_assert_near(est_eta(e, 2.0), -1, 0); /* done */
    est_free(e);
    e = est_new(&items_opts);
    est_sample(e, 0.0, INT64_MIN, INT64_MAX);
    est_sample(e, 1.0, INT64_MIN + 10, INT64_MAX);
    /* ~2^64 items left at 10/s: 1.8e18 s, as it is */
    ck_assert_near(est_eta(e, 1.0), (18446744073709551615.0 - 10) / 10, 1e4);
    est_free(e);
}
END_TEST

/* A volume's bytes every 10 s at 2.4 MiB/s, then three times as fast for good (bench_eta's
 * rate-30%-then-3x, whose ETA never came within 10 % of the truth before the run's 90 %): the
 * rate is the new one two updates after the step, and the ETA within 10 % of the truth. */
START_TEST(a_lasting_rate_step_is_followed_within_two_updates)
{
    est *e = est_new(&bytes_opts);
    const double r0 = 2.4, r1 = 7.2; /* MiB/s */
    const int64_t total = 4000;
    double v = 0;
    for (int t = 0; t <= 300; t += 10) est_sample(e, t, (int64_t)(v = r0 * t), total);
    ck_assert_near(est_rate(e, 300), r0, 1e-3);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 0);
    /* x3 from t = 305: the update at 310 carries half a gap of each */
    double at305 = r0 * 305;
    est_sample(e, 310, (int64_t)(at305 + r1 * 5), total);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 0); /* one gap is no change yet */
    est_sample(e, 320, (int64_t)(at305 + r1 * 15), total);
    double st;
    int64_t sv;
    ck_assert_int_eq(est_shift(e, &st, &sv), 1);
    /* measured from the gap after the one the step fell in */
    ck_assert_near(st, 310, 0);
    ck_assert_int_eq(sv, (int64_t)(at305 + r1 * 5));
    ck_assert_near(est_rate(e, 320), r1, 0.01);
    double left = (total - (at305 + r1 * 15)) / r1;
    ck_assert_near(est_eta(e, 320), left, 0.1 * left);
    /* the rate keeps following the new pace as the window moves past the step */
    for (int t = 330; t <= 400; t += 10) est_sample(e, t, (int64_t)(at305 + r1 * (t - 305)), total);
    ck_assert_near(est_rate(e, 400), r1, 0.01);
    ck_assert_int_eq(est_shift(e, &st, NULL), 1);
    ck_assert_near(st, 310, 0);
    est_free(e);
}
END_TEST

/* ... and a lasting drop to 30 %, the same way (the slope over 60 s took minutes). */
START_TEST(a_lasting_rate_drop_is_followed_too)
{
    est *e = est_new(&bytes_opts);
    for (int t = 0; t <= 120; t += 10) est_sample(e, t, 8 * t, 100000);
    for (int t = 130; t <= 150; t += 10) est_sample(e, t, 960 + (int64_t)(2.4 * (t - 120)), 100000);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 1);
    ck_assert_near(est_rate(e, 150), 2.4, 0.01);
    est_free(e);
}
END_TEST

/* One fast or slow update is no change of rate, nor are bursts of a jittery counter: items every
 * second at 4/s whose speed is drawn in 0.7-1.3 every 5 s (the sim's 'jitter: 0.3'), over 20
 * minutes: never taken for a change, the ETA within 15 % of the time left at 4/s throughout. */
START_TEST(jitter_and_single_bursts_are_no_change_of_rate)
{
    est *e = est_new(&bytes_opts);
    for (int t = 0; t <= 100; t += 10) est_sample(e, t, 10 * t, 100000);
    est_sample(e, 110, 1000 + 300, 100000); /* one update 3 x the pace */
    for (int t = 120; t <= 200; t += 10) est_sample(e, t, 1300 + 10 * (t - 110), 100000);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 0);
    est_free(e);

    e = est_new(&items_opts);
    const int total = 4800;
    uint64_t seed = 42;
    double work = 0, f = 1, worst = 0;
    for (int t = 0; t <= 1200; t++) {
        if (t % 5 == 0) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            f = 1 + 0.3 * ((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
        }
        int64_t done = (int64_t)floor(work * 4);
        est_sample(e, t, done > total ? total : done, total);
        ck_assert_msg(!est_shift(e, NULL, NULL), "taken for a change of rate at %d s", t);
        double left = (total - work * 4) / 4; /* at 4/s, on average */
        if (t >= 120 && left > 60) {
            double err = fabs(est_eta(e, t) - left) / left;
            if (err > worst) worst = err;
        }
        work += f;
    }
    ck_assert_msg(worst <= 0.15, "ETA off by %.1f %% of the time left", 100 * worst);
    est_free(e);
}
END_TEST

/* The same 30 % jitter with a lasting x3 from 600 s (and, on another counter, x0.3): the change is
 * taken within 15 s and the rate is then the new pace within 15 %. */
START_TEST(a_step_through_jitter_is_followed_within_15_s)
{
    static const double factor[] = {3, 0.3};
    for (int k = 0; k < 2; k++) {
        est *e = est_new(&items_opts);
        uint64_t seed = 7;
        double work = 0, f = 1, at = -1;
        for (int t = 0; t <= 700; t++) {
            if (t % 5 == 0) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                f = 1 + 0.3 * ((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
            }
            est_sample(e, t, (int64_t)floor(work * 4), 1000000);
            double st;
            if (t < 600)
                ck_assert_msg(!est_shift(e, NULL, NULL), "taken for a change at %d s", t);
            else if (at < 0 && est_shift(e, &st, NULL))
                at = t;
            work += f * (t >= 600 ? factor[k] : 1);
        }
        ck_assert_msg(at >= 600 && at <= 615, "x%g taken at %g s", factor[k], at);
        ck_assert_near(est_rate(e, 700), 4 * factor[k], 0.15 * 4 * factor[k]);
        est_free(e);
    }
}
END_TEST

/* A stall the counter comes back from is a pause, not a change of rate (the average with the
 * stalled time left out takes over, est_window_has_stall); a change before it is forgotten. */
START_TEST(a_stall_is_no_change_of_rate)
{
    est *e = est_new(&bytes_opts);
    for (int t = 0; t <= 100; t += 10) est_sample(e, t, 10 * t, 100000);
    for (int t = 110; t <= 140; t += 10) est_sample(e, t, 1000 + 40 * (t - 100), 100000);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 1);
    /* stalled 2 min, then back at the same pace */
    for (int t = 270; t <= 300; t += 10) est_sample(e, t, 2600 + 40 * (t - 260), 100000);
    ck_assert_int_eq(est_shift(e, NULL, NULL), 0);
    ck_assert_int_eq(est_window_has_stall(e), 1);
    est_free(e);
}
END_TEST

/* The counter's update interval as learned from its own cadence: before any gap is seen, the
 * seed's pace (a unit every 1 / rate seconds); then the median of its gaps; never below the
 * expected interval. */
START_TEST(interval_is_learned_from_the_counter)
{
    est *e = est_new(&items_opts);
    ck_assert_near(est_interval(e), 1.0, 1e-9); /* nothing seen: the expected interval */
    est_seed(e, 1000.0, 40, 200.0);             /* 40 items in 200 s: one every 5 s */
    ck_assert_near(est_interval(e), 5.0, 1e-9);
    for (int k = 1; k <= 4; k++) est_sample(e, 1000.0 + 5 * k, 40 + k, 400);
    ck_assert_near(est_interval(e), 5.0, 1e-9);
    for (int k = 1; k <= 9; k++) est_sample(e, 1020.0 + 2 * k, 44 + k, 400);
    ck_assert_near(est_interval(e), 2.0, 1e-9); /* its gaps now: 2 s */
    est *f = est_new(&items_opts);
    est_seed(f, 1000.0, 1200, 600.0); /* 2 items/s: the expected 1 s still */
    ck_assert_near(est_interval(f), 1.0, 1e-9);
    est *b = est_new(&bytes_opts);
    ck_assert_near(est_interval(b), 10.0, 1e-9);
    ck_assert_near(est_interval(NULL), -1, 1e-9);
    est_free(b);
    est_free(f);
    est_free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("estimator");
    TCase *tc = tcase_create("estimator");
    tcase_add_test(tc, steady_progress_gives_exact_rate_and_eta);
    tcase_add_test(tc, eta_hidden_until_meaningful_and_never_capped);
    tcase_add_test(tc, one_second_item_steps_are_stable);
    tcase_add_test(tc, ten_second_byte_steps_are_stable);
    tcase_add_test(tc, sparse_updates_widen_the_window);
    tcase_add_test(tc, stall_after_three_intervals_then_resume);
    tcase_add_test(tc, item_counter_stalls_after_three_seconds);
    tcase_add_test(tc, counter_going_down_resets_history);
    tcase_add_test(tc, growing_total_is_an_estimate);
    tcase_add_test(tc, attach_mid_run_seeds_from_start);
    tcase_add_test(tc, finished_run_shows_whole_run_average);
    tcase_add_test(tc, rate_history_for_the_sparkline);
    tcase_add_test(tc, finished_run_keeps_a_thinned_history);
    tcase_add_test(tc, first_items_after_an_idle_start_give_no_absurd_rate);
    tcase_add_test(tc, paused_time_is_counted);
    tcase_add_test(tc, sparkline_has_no_spike_after_attaching);
    tcase_add_test(tc, counter_at_the_int64_extremes);
    tcase_add_test(tc, a_lasting_rate_step_is_followed_within_two_updates);
    tcase_add_test(tc, a_lasting_rate_drop_is_followed_too);
    tcase_add_test(tc, jitter_and_single_bursts_are_no_change_of_rate);
    tcase_add_test(tc, a_stall_is_no_change_of_rate);
    tcase_add_test(tc, a_step_through_jitter_is_followed_within_15_s);
    tcase_add_test(tc, interval_is_learned_from_the_counter);
    if (!getenv("VELTOP_UNDER_VALGRIND")) tcase_add_test(tc, estimators_are_small);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
