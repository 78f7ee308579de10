/* test_answer.c: the one judgement of a run (answer.h) over synthetic sequences fed through the
 * model: a slow steady run is never stalled; a stalled run has no ETA; a run with everything done
 * whose phase never moves on is stuck, not "done in ~1s"; the attach time is no evidence of
 * progress; stale data freezes every answer and judges nothing; a forbidden list makes the answer
 * say what it lacks; an unsized volume leaves the bytes total unknown and the ETA an estimate
 * that may grow; a part stalled while others move is not a stalled run. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "format.h"
#include "kubeclient/util.h"
#include "testutil.h"

#define T0  1704626400.0 /* wall clock of monotonic 0 */
#define MiB 1048576.0

static void set_run(vl_run *r, const char *name, vl_phase ph, double started, int64_t done,
                    int64_t total)
{
    memset(r, 0, sizeof *r);
    r->kind = VL_BACKUP;
    r->meta.name = (char *)name;
    r->phase = (char *)(ph == VL_PH_FINALIZING ? "Finalizing" : "InProgress");
    r->phase_id = ph;
    r->started = started;
    r->has_progress = 1;
    r->items_done = done;
    r->items_total = total;
}

static void set_vol(vl_volume *v, const char *name, const char *run, vl_phase ph, int64_t done,
                    int64_t total)
{
    memset(v, 0, sizeof *v);
    v->kind = VL_PVB;
    v->meta.name = (char *)name;
    v->run_name = (char *)run;
    v->pod_ns = (char *)"payments";
    v->pod_name = (char *)"postgres-0";
    v->volume = (char *)"pgdata";
    v->phase = (char *)(ph == VL_PH_COMPLETED ? "Completed" : "InProgress");
    v->phase_id = ph;
    v->bytes_done = done;
    v->bytes_total = total;
}

/* A backup of total items, one more every second from its start (T0) up to upto. */
static model_run *run_moving(model *m, vl_run *r, const char *name, int64_t total, int upto)
{
    set_run(r, name, VL_PH_IN_PROGRESS, T0, 0, total);
    model_run *mr = model_upsert_run(m, r, 0, T0);
    for (int t = 1; t <= upto; t++) {
        r->items_done = t;
        model_upsert_run(m, r, t, T0 + t);
    }
    return mr;
}

static ans_ctx at(const model *m, double now)
{
    ans_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.now = now;
    c.wall = T0 + now;
    return c;
}

static void answer_at(const model *m, const model_run *r, double now, run_answer *a)
{
    ans_ctx c = at(m, now);
    answer_run(&c, r, a);
}

/* 0.2 items/s for an hour with exponential gaps (a fixed pseudo-random sequence): never stalled,
 * an ETA all along. */
START_TEST(slow_steady_run_is_never_stalled)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "slow", VL_PH_IN_PROGRESS, T0, 0, 1000);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    unsigned seed = 12345;
    double t = 0;
    int stalls = 0, etas = 0, checks = 0;
    while (t < 3600) {
        seed = seed * 1103515245u + 12345u;
        double u = ((seed >> 8) & 0xffff) / 65536.0;
        double gap = -5.0 * log(1 - u); /* mean 5 s */
        /* look every second inside the gap, as the screen does */
        for (double s = t + 1; s < t + gap; s += 1) {
            run_answer a;
            answer_at(m, mr, s, &a);
            checks++;
            stalls += a.stalled == ANS_YES;
            etas += a.eta_kind != ANS_ETA_NONE;
        }
        t += gap;
        r.items_done++;
        model_upsert_run(m, &r, t, T0 + t);
    }
    ck_assert_int_gt(checks, 3000);
    ck_assert_int_eq(stalls, 0);
    ck_assert_int_gt(etas, checks * 9 / 10);
    model_free(m);
}
END_TEST

/* Items move every second, then stop: stalled, no ETA on any surface, last progress when they
 * last moved (watched). */
START_TEST(stalled_run_has_no_eta)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "b", 100, 20);
    run_answer a;
    answer_at(m, mr, 21, &a);
    ck_assert_int_eq(a.stalled, ANS_NO);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert(a.eta > 70 && a.eta < 90);
    ck_assert_int_eq(a.last_progress_ev, ANS_EV_WATCHED);
    ck_assert(fabs(a.last_progress - (T0 + 20)) < 1e-6);
    answer_at(m, mr, 200, &a);
    ck_assert_int_eq(a.stalled, ANS_YES);
    ck_assert(fabs(a.stalled_for - 180) < 1e-6);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_STALLED);
    char buf[64];
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &a, 1), "stall");
    /* the cell of an estimate past two days is its projection (never a "> 2d" cap), and of one
     * that may grow has the "+" */
    run_answer e = {.eta_kind = ANS_ETA_ESTIMATE, .eta = 3 * 86400.0, .eta_caveat = "more"};
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 1), "3d00h+");
    e.eta = 192;
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 1), "3m12s+");
    e.eta_caveat = NULL;
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 1), "3m12s");
    /* an ETA that leans on the schedule's history says so in the cell, as the detail does */
    e.from_history = 1;
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 1), "\u22483m12s");
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 0), "~3m12s");
    model_free(m);
}
END_TEST

/* Every item and the volume done minutes ago, the phase never moving on: no "done in ~1s" rolling
 * forward, but no ETA and, past DIAG_DONE_WAIT_S, stalled on the phase change. */
START_TEST(stuck_run_is_not_done_in_a_second)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "stuck", 50, 50);
    run_answer a;
    answer_at(m, mr, 52, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE); /* just done: Finalizing's second or so */
    answer_at(m, mr, 50 + 30, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE); /* overdue: nothing says when */
    ck_assert_int_eq(a.eta_why, ANS_WHY_NO_RATE);
    ck_assert_int_ne(a.stalled, ANS_YES);
    answer_at(m, mr, 50 + 360, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.stalled, ANS_YES);
    ck_assert(fabs(a.stalled_for - 360) < 1e-6);
    model_free(m);
}
END_TEST

/* Attached to a run in flight: the sighting is no progress. With nothing else to go by, last
 * progress is unknown and the run is not called moving or stalled at once. */
START_TEST(attach_time_is_no_evidence)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "old", VL_PH_IN_PROGRESS, T0 - 600, 40, 100);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    run_answer a;
    answer_at(m, mr, 0, &a);
    ck_assert(a.last_progress == 0);
    ck_assert_int_eq(a.last_progress_ev, ANS_EV_NONE);
    ck_assert_int_eq(a.stalled, ANS_UNKNOWN);
    ck_assert_int_eq(a.stalled_why, ANS_WHY_NO_EVIDENCE);
    model_free(m);
}
END_TEST

/* While the data is not current: the answer is as of the last current data, with no ETA and no
 * stall judged. */
START_TEST(stale_data_freezes_and_judges_nothing)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "b", 100, 20);
    ans_ctx c = at(m, 20);
    c.stale = 1;
    c.stale_for = 300;
    run_answer a;
    answer_run(&c, mr, &a);
    ck_assert_int_eq(a.stale, 1);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_STALE);
    ck_assert_int_eq(a.stalled, ANS_UNKNOWN);
    ck_assert_int_eq(a.stalled_why, ANS_WHY_STALE);
    char buf[64];
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &a, 1), "stale");
    model_free(m);
}
END_TEST

/* PodVolumeBackups forbidden: the answer says so and gives no ETA (the volumes it may wait on
 * cannot be seen); bytes unknown. */
START_TEST(forbidden_list_is_said)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "b", 100, 20);
    ans_ctx c = at(m, 21);
    c.missing = ANS_MISS_PVB;
    snprintf(c.missing_why[0], sizeof c.missing_why[0], "podvolumebackups forbidden");
    run_answer a;
    answer_run(&c, mr, &a);
    ck_assert_uint_eq(a.missing, ANS_MISS_PVB);
    ck_assert_str_eq(a.missing_text,
                     "pod volumes and data uploads not visible: podvolumebackups forbidden");
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_INCOMPLETE);
    ck_assert_int_eq(a.bytes_known, 0);
    /* a restore needs PodVolumeRestores, not these */
    vl_run rr;
    set_run(&rr, "rs", VL_PH_IN_PROGRESS, T0, 1, 100);
    rr.kind = VL_RESTORE;
    model_run *mrr = model_upsert_run(m, &rr, 21, T0 + 21);
    answer_run(&c, mrr, &a);
    ck_assert_uint_eq(a.missing, 0);
    model_free(m);
}
END_TEST

/* A volume InProgress with bytes done and no totalBytes (omitempty: not sized yet): the bytes
 * total is unknown, the ETA an estimate that may grow. */
START_TEST(unsized_volume_leaves_the_total_unknown)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "b", 100, 20);
    vl_volume v;
    set_vol(&v, "b-v", "b", VL_PH_IN_PROGRESS, 634, 0);
    model_upsert_volume(m, &v, 20);
    run_answer a;
    answer_at(m, mr, 21, &a);
    ck_assert_int_eq(a.n_volumes, 1);
    ck_assert_int_eq(a.n_unsized, 1);
    ck_assert_int_eq(a.bytes_known, 1);
    ck_assert_int_eq(a.bytes_done, 634);
    ck_assert_int_eq(a.bytes_total_known, 0);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_str_eq(a.eta_caveat, "volumes not sized yet");
    char buf[64];
    answer_eta_cell(buf, sizeof buf, &a, 1);
    ck_assert_msg(buf[strlen(buf) - 1] == '+', "%s", buf);
    model_free(m);
}
END_TEST

/* veltop attaches to a run whose pod volume stopped 7 minutes ago (its status last written then,
 * as the API server's managedFields say) while another moves: at first sight the stopped one is
 * stalled for those 7 minutes, it has no ETA, and its rate (the average since its start, all the
 * tracker has) is not summed into the run's moving bytes/s; the run is not stalled (the other
 * moves). Real clock: the model seeds a volume's tracker by it. */
START_TEST(volume_idle_by_its_write_time_is_stalled_at_first_sight)
{
    double w = floor(kc_wall_now());
    model *m = model_new();
    vl_run r;
    set_run(&r, "b", VL_PH_IN_PROGRESS, w - 600, 100, 5000);
    r.meta.status_time = w - 1;
    model_run *mr = model_upsert_run(m, &r, 0, w);
    vl_volume pg, rd;
    set_vol(&pg, "b-pg", "b", VL_PH_IN_PROGRESS, (int64_t)(1700 * MiB), (int64_t)(10000 * MiB));
    pg.started = w - 590;
    pg.meta.status_time = w - 420;
    model_upsert_volume(m, &pg, 0);
    set_vol(&rd, "b-rd", "b", VL_PH_IN_PROGRESS, (int64_t)(5900 * MiB), (int64_t)(100000 * MiB));
    rd.volume = (char *)"data";
    rd.started = w - 590;
    rd.meta.status_time = w - 2;
    model_upsert_volume(m, &rd, 0);
    ans_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.now = 1;
    c.wall = w + 1;
    run_answer a;
    answer_run(&c, mr, &a);
    ck_assert_int_eq(a.part[RE_PODVOLS].n, 2);
    ck_assert_int_eq(a.part[RE_PODVOLS].n_stalled, 1);
    ck_assert_int_eq(a.part_stalled, 1);
    ck_assert_ptr_nonnull(a.stalled_vol);
    ck_assert_str_eq(a.stalled_vol->name, "b-pg");
    ck_assert_int_eq(a.stalled, ANS_NO);
    /* the moving volume's rate alone: 5900 MiB over its 591 s */
    double rd_rate = 5900 * MiB / 591.0;
    ck_assert_msg(fabs(a.bytes_rate - rd_rate) < 0.02 * rd_rate, "bytes_rate %.0f, want %.0f",
                  a.bytes_rate, rd_rate);
    model_volume *vv[2];
    ck_assert_uint_eq(model_run_volumes(m, mr, vv, 2), 2);
    const model_volume *mpg = strcmp(vv[0]->name, "b-pg") ? vv[1] : vv[0];
    double rate, eta, since;
    runeta_volume(m, mpg, 1, w + 1, &rate, &eta);
    ck_assert(eta < 0);
    ck_assert_int_eq(runeta_volume_stalled(m, mpg, 1, w + 1, &since), 1);
    ck_assert_msg(fabs(since - 421) < 1.5, "stalled for %.1f s", since);
    model_free(m);
}
END_TEST

/* One volume stalls while another moves at speed: a part stalled, not a stalled run; the ETA an
 * estimate that says a volume is stalled. */
START_TEST(part_stalled_is_not_a_stalled_run)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "b", VL_PH_IN_PROGRESS, T0, 100, 100);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume v1, v2;
    set_vol(&v1, "b-1", "b", VL_PH_IN_PROGRESS, 0, (int64_t)(100000 * MiB));
    set_vol(&v2, "b-2", "b", VL_PH_IN_PROGRESS, 0, (int64_t)(100000 * MiB));
    v2.pod_name = (char *)"postgres-1";
    for (int t = 0; t <= 300; t += 10) {
        v1.bytes_done = (int64_t)(t * 138 * MiB);
        model_upsert_volume(m, &v1, t);
        v2.bytes_done = (int64_t)((t < 60 ? t : 60) * 10 * MiB);
        model_upsert_volume(m, &v2, t);
    }
    run_answer a;
    answer_at(m, mr, 301, &a);
    ck_assert_int_eq(a.stalled, ANS_NO);
    ck_assert_int_eq(a.part_stalled, 1);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_ptr_nonnull(a.stalled_vol);
    ck_assert_str_eq(a.stalled_vol->name, "b-2");
    model_free(m);
}
END_TEST

/* A finish time not on the data's day carries its date (local, or UTC with --utc): "at 17:05:02"
 * alone a day away reads as today. */
START_TEST(finish_time_a_day_away_carries_its_date)
{
    char buf[160];
    setenv("TZ", "UTC", 1);
    tzset();
    fmt_set_utc(0);
    /* at 2024-01-07 11:20:00 UTC */
    run_answer e = {.eta_kind = ANS_ETA_ESTIMATE, .at = T0, .eta = 192, .eta_end = T0 + 192};
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &e, 0), "done in ~3m12s (at 11:23:12)");
    e.eta = 86400 + 2 * 3600;
    e.eta_end = T0 + e.eta;
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &e, 0),
                     "done in ~1d02h (at 2024-01-08 13:20:00)");
    /* past midnight by a minute: tomorrow, though minutes away */
    e.at = T0 + 12 * 3600 + 39 * 60;
    e.eta = 120;
    e.eta_end = e.at + e.eta;
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &e, 0),
                     "done in ~2m00s (at 2024-01-08 00:01:00)");
    /* two hours east of UTC that is 02:01 of the 8th, the data's day too: the time alone; with
     * --utc the day is UTC's */
    setenv("TZ", "XYZ-2", 1);
    tzset();
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &e, 0), "done in ~2m00s (at 02:01:00)");
    fmt_set_utc(1);
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &e, 1),
                     "done in ~2m00s (at 2024-01-08 00:01:00)");
    fmt_set_utc(0);
    setenv("TZ", "UTC", 1);
    tzset();
}
END_TEST

/* Seen once (--once, or the first look of a watch): a slow, steady writer (0.2 items/s, 40 items in
 * the 200 s since its start; or an item every 50 s) whose last status write is anywhere between
 * two of its writes is moving, as it is to a veltop that watches it: not "unknown" from 3 s on
 * (a fast run's 1 s item cadence), nor "stalled" from 30 s on. Quiet for 3 of its own intervals,
 * it is no longer called moving; past them and 30 s, stalled. */
START_TEST(slow_writer_at_first_sight_is_moving_between_writes)
{
    static const struct {
        double started_ago, gap;
        int64_t done;
    } w[] = {{200, 5, 40}, {2000, 50, 40}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        for (double q = 0; q <= w[i].gap + 4 * w[i].gap; q += 0.5) {
            model *m = model_new();
            vl_run r;
            set_run(&r, "slow", VL_PH_IN_PROGRESS, T0 - w[i].started_ago, w[i].done, 400);
            r.meta.status_time = T0 - q; /* the API server's time of its last status write */
            model_run *mr = model_upsert_run(m, &r, 0, T0);
            run_answer a;
            answer_at(m, mr, 0, &a);
            if (q < 3 * w[i].gap)
                ck_assert_msg(a.stalled == ANS_NO, "an item every %.0f s, written %.1f s ago: %d",
                              w[i].gap, q, (int)a.stalled);
            else if (q < fmax(30, 3 * w[i].gap))
                ck_assert_msg(a.stalled == ANS_UNKNOWN, "every %.0f s, %.1f s ago: %d", w[i].gap, q,
                              (int)a.stalled);
            else
                ck_assert_msg(a.stalled == ANS_YES, "every %.0f s, %.1f s ago: %d", w[i].gap, q,
                              (int)a.stalled);
            model_free(m);
        }
    }
}
END_TEST

/* A slow steady run (1000 of 5000 items in its first day, attached now): its ETA is the
 * projection, 4 days, on every surface; never 172801 s, the old 2-day cap standing in for it. */
START_TEST(slow_run_eta_is_its_projection_not_a_cap)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "slow", VL_PH_IN_PROGRESS, T0 - 86400, 1000, 5000);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    run_answer a;
    answer_at(m, mr, 0, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_msg(fabs(a.eta - 4 * 86400.0) < 60, "%f", a.eta);
    char buf[128];
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &a, 1), "4d00h");
    setenv("TZ", "UTC", 1);
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &a, 1),
                     "done in ~4d00h (at 2024-01-11 11:20:01)");
    /* an end past year 9999 has no date, and no time_t cast of it (UBSan aborted here) */
    run_answer far = {
        .eta_kind = ANS_ETA_ESTIMATE, .eta = 1.8e25, .eta_end = T0 + 1.8e25, .at = T0};
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &far, 1), "done in ~6e17y");
    model_free(m);
}
END_TEST

/* Velero issue #7851's object: every item done, a PodVolumeBackup InProgress with bytesDone 634
 * and no totalBytes. Nothing says how much it has left: no ETA, and the reason says why (it was
 * "done in ~1s" before, the unsized volume counted as 0 s). */
START_TEST(unsized_volume_alone_left_has_no_eta_and_says_why)
{
    model *m = model_new();
    vl_run r;
    model_run *mr = run_moving(m, &r, "b", 10, 10);
    vl_volume v;
    set_vol(&v, "b-v", "b", VL_PH_IN_PROGRESS, 634, 0);
    model_upsert_volume(m, &v, 10);
    run_answer a;
    answer_at(m, mr, 11, &a);
    ck_assert_int_eq(a.bytes_total_known, 0);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_UNSIZED);
    char buf[128];
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &a, 1), "unknown: volumes not sized yet");
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &a, 1), "?");
    ck_assert_str_eq(answer_why_text(a.eta_why), "volumes not sized yet");
    model_free(m);
}
END_TEST

/* A volume sized (totalBytes known) but not moving yet (Accepted) beside one moving at 10 MiB/s:
 * the bytes total is known, so the caveat never says "not sized"; the waiting one is timed at its
 * sibling's rate, an estimate that may grow. */
START_TEST(caveat_agrees_with_the_byte_figures)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "b", VL_PH_IN_PROGRESS, T0, 100, 100);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume v1, v2;
    set_vol(&v1, "b-1", "b", VL_PH_IN_PROGRESS, 0, (int64_t)(1000 * MiB));
    set_vol(&v2, "b-2", "b", VL_PH_ACCEPTED, 0, (int64_t)(2000 * MiB));
    v2.phase = (char *)"Accepted";
    v2.pod_name = (char *)"postgres-1";
    model_upsert_volume(m, &v2, 0);
    for (int t = 0; t <= 60; t += 10) {
        v1.bytes_done = (int64_t)(t * 10 * MiB);
        model_upsert_volume(m, &v1, t);
    }
    run_answer a;
    answer_at(m, mr, 61, &a);
    ck_assert_int_eq(a.n_unsized, 0);
    ck_assert_int_eq(a.bytes_total_known, 1);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_str_eq(a.eta_caveat, "volumes not moving yet");
    /* 2000 MiB at the 10 MiB/s its sibling moves at, then Finalizing's second */
    ck_assert_msg(fabs(a.eta - 201) < 5, "%f", a.eta);
    model_free(m);
}
END_TEST

/* A restore on stock Velero: its pods row derived from the log has no total ("100 of ?"), every
 * item is restored and its one volume moves. No more volumes can come: the estimate has no
 * caveat (a row without a total said "may come" from its missing total). */
START_TEST(no_total_row_of_a_finished_item_pass_brings_no_volumes)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "rs", VL_PH_IN_PROGRESS, T0, 100, 100);
    r.kind = VL_RESTORE;
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_res_progress rows[] = {{(char *)"pods", 100, 0}};
    const unsigned char flags[] = {MODEL_RES_NO_TOTAL};
    model_run_set_derived(m, mr, rows, 1, flags, 0);
    vl_volume v;
    set_vol(&v, "rs-v", "rs", VL_PH_IN_PROGRESS, 0, (int64_t)(1000 * MiB));
    v.kind = VL_PVR;
    for (int t = 0; t <= 60; t += 10) {
        v.bytes_done = (int64_t)(t * 10 * MiB);
        model_upsert_volume(m, &v, t);
    }
    run_answer a;
    answer_at(m, mr, 61, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_ptr_null(a.eta_caveat);
    ck_assert_msg(fabs(a.eta - 41) < 3, "%f", a.eta); /* 400 MiB at 10 MiB/s, then Finalizing */
    /* the same row while items are left: pods still to come may bring volumes */
    r.items_done = 90;
    model_upsert_run(m, &r, 61, T0 + 61);
    answer_at(m, mr, 61, &a);
    ck_assert_str_eq(a.eta_caveat, "more volumes may come");
    model_free(m);
}
END_TEST

/* Waiting on plugin operations, the DataUpload sized but before its first byte update: it is
 * timed at the rate the run's finished pod volume went at (an estimate that may grow); with no
 * volume to go by there is no ETA and the reason says so. Both said "done in ~6s" before (the
 * DataUpload counted as 0 s, then the operations' sync and Finalizing). */
START_TEST(data_mover_before_its_first_byte_update)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "b", VL_PH_WAITING_PLUGIN_OPS, T0 - 200, 100, 100);
    r.phase = (char *)"WaitingForPluginOperations";
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume pv, du;
    set_vol(&pv, "b-pv", "b", VL_PH_COMPLETED, (int64_t)(1000 * MiB), (int64_t)(1000 * MiB));
    pv.started = T0 - 200;
    pv.completed = T0 - 100; /* 10 MiB/s on average */
    model_upsert_volume(m, &pv, 0);
    set_vol(&du, "b-du", "b", VL_PH_IN_PROGRESS, 0, (int64_t)(3000 * MiB));
    du.kind = VL_DU;
    du.started = T0 - 5;
    du.meta.status_time = T0 - 5; /* the node-agent's write that made it InProgress */
    model_upsert_volume(m, &du, 0);
    run_answer a;
    answer_at(m, mr, 1, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    ck_assert_str_eq(a.eta_caveat, "volumes not moving yet");
    ck_assert_msg(fabs(a.eta - (300 + 5 + 1)) < 2, "%f", a.eta); /* 3000 MiB at 10 MiB/s */
    model_remove_volume(m, VL_PVB, "b-pv");
    model_refresh_volumes(m);
    answer_at(m, mr, 1, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_NO_EVIDENCE);
    char buf[128];
    ck_assert_str_eq(answer_eta_line(buf, sizeof buf, &a, 1), "unknown: no rate yet");
    model_free(m);
}
END_TEST

/* Attached while the run waits on plugin operations and its DataUpload is still Accepted (the
 * node-agent preparing it) with nothing written for a minute: the silence of a volume that never
 * started is no stall (it said "stalled", the ETA's reason with it); stalled is unknown and the
 * ETA none, both with a true reason. The same DataUpload InProgress and silent is stalled. */
START_TEST(unstarted_data_mover_is_not_stalled_at_first_sight)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, "b", VL_PH_WAITING_PLUGIN_OPS, T0 - 300, 100, 100);
    r.phase = (char *)"WaitingForPluginOperations";
    r.meta.status_time = T0 - 60;
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume du;
    set_vol(&du, "b-du", "b", VL_PH_ACCEPTED, 0, (int64_t)(3000 * MiB));
    du.phase = (char *)"Accepted";
    du.kind = VL_DU;
    du.meta.status_time = T0 - 60;
    model_upsert_volume(m, &du, 0);
    run_answer a;
    answer_at(m, mr, 0, &a);
    ck_assert_int_eq(a.stalled, ANS_UNKNOWN);
    ck_assert_int_eq(a.stalled_why, ANS_WHY_NO_EVIDENCE);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE);
    ck_assert_int_eq(a.eta_why, ANS_WHY_NO_EVIDENCE);
    model_free(m);
    m = model_new();
    mr = model_upsert_run(m, &r, 0, T0);
    set_vol(&du, "b-du", "b", VL_PH_IN_PROGRESS, (int64_t)(100 * MiB), (int64_t)(3000 * MiB));
    du.kind = VL_DU;
    du.started = T0 - 120;
    du.meta.status_time = T0 - 60;
    model_upsert_volume(m, &du, 0);
    answer_at(m, mr, 0, &a);
    ck_assert_int_eq(a.stalled, ANS_YES);
    ck_assert_int_eq(a.eta_why, ANS_WHY_STALLED);
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("answer");
    TCase *tc = tcase_create("answer");
    tcase_add_test(tc, slow_steady_run_is_never_stalled);
    tcase_add_test(tc, stalled_run_has_no_eta);
    tcase_add_test(tc, stuck_run_is_not_done_in_a_second);
    tcase_add_test(tc, attach_time_is_no_evidence);
    tcase_add_test(tc, stale_data_freezes_and_judges_nothing);
    tcase_add_test(tc, forbidden_list_is_said);
    tcase_add_test(tc, unsized_volume_leaves_the_total_unknown);
    tcase_add_test(tc, part_stalled_is_not_a_stalled_run);
    tcase_add_test(tc, finish_time_a_day_away_carries_its_date);
    tcase_add_test(tc, volume_idle_by_its_write_time_is_stalled_at_first_sight);
    tcase_add_test(tc, slow_writer_at_first_sight_is_moving_between_writes);
    tcase_add_test(tc, slow_run_eta_is_its_projection_not_a_cap);
    tcase_add_test(tc, unsized_volume_alone_left_has_no_eta_and_says_why);
    tcase_add_test(tc, caveat_agrees_with_the_byte_figures);
    tcase_add_test(tc, no_total_row_of_a_finished_item_pass_brings_no_volumes);
    tcase_add_test(tc, data_mover_before_its_first_byte_update);
    tcase_add_test(tc, unstarted_data_mover_is_not_stalled_at_first_sight);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
