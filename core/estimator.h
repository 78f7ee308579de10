/* estimator.h: rate, ETA and stall detection for one progress counter from its sample history
 * (design.md "Rate, ETA, stall"). Pure computation: times are passed in, nothing reads a clock. */
#pragma once
#include <stdint.h>

typedef struct est est;

typedef struct est_opts {
    double window_s; /* least-squares window: 60 for items, >= 60 for bytes */
    double
        expected_interval_s; /* how often the counter normally moves: 1 for items, 10 for bytes */
} est_opts;

est *est_new(const est_opts *o);
void est_free(est *e);

/* Records the counter at monotonic time t (seconds). Only changes are kept (a repeated value only
 * refreshes "seen at"). A value lower than the last one resets the history (counter reset). */
void est_sample(est *e, double t, int64_t value, int64_t total);
/* Seeds the rate from the average since the run's start, for a run already in flight when we
 * attached: value units were done in elapsed_s seconds up to time t. Records (t, value) as a
 * sample too; the seed's weight fades as real samples cover the window. Pass the total with
 * est_sample (the same value again only updates the total). */
void est_seed(est *e, double t, int64_t value, double elapsed_s);
/* Marks the run finished: rate becomes the whole-run average over elapsed_s. */
void est_finish(est *e, int64_t value, double elapsed_s);

double est_rate(const est *e, double now); /* units per second; < 0 when unknown */
/* The rate as of the last change, ignoring a stall since (what it moved at before it stopped). */
double est_rate_moving(const est *e);
/* Seconds to reach total, the projection whatever its length (never a cap standing in for it);
 * < 0 when unknown or meaningless (no rate, no total, stalled, not finite). */
double est_eta(const est *e, double now);
/* Seconds since the counter last moved; stalled when that exceeds 3 x expected interval (and at
 * least the update cadence allows). Returns 1 if stalled and sets *since_s. */
int est_stalled(const est *e, double now, double *since_s);
/* Its update interval as learned from its own cadence (what "3 of its update intervals" counts):
 * the median of its recent gaps, or before two gaps are seen the seed's pace (a unit every 1 /
 * rate s); never below the expected interval. < 0 for NULL. */
double est_interval(const est *e);
double est_last_change(const est *e); /* time of the last change, < 0 if none */
/* Time of the last change seen as a move (the counter went up after its first sighting), < 0 if
 * it was never seen moving: the first sample (attach, seed) is where watching began, no
 * evidence of progress. */
double est_last_move(const est *e);
int est_total_estimated(const est *e); /* 1 while the total has been seen to change (show "~N") */
/* 1 once the rate means something: seeded, finished, or moved twice over two update intervals
 * (a row's first items give no rate: "2 of 16  0.0/s  ETA 1h14m" is noise). */
int est_confident(const est *e);
/* Seconds the counter spent stalled before it moved again (gaps past the stall threshold, less
 * one update interval each): an average since the start leaves them out. */
double est_paused(const est *e);
/* 1 once the counter's rate changed for good (for EST_SHIFT_GAPS gaps and 10 s, every gap moved
 * 1.5x faster or slower than the rate before it): the rate is then taken from the changes since
 * the point it began at, (*t, *v), which an average should start from too. */
int est_shift(const est *e, double *t, int64_t *v);
/* 1 while the rate's window still spans a stall the counter came back from (the slope then
 * understates how fast it moves). */
int est_window_has_stall(const est *e);
/* Rate history for a sparkline: fills up to n values, oldest first (one per bucket_s). */
int est_rate_history(const est *e, double now, double bucket_s, double *out, int n);
