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
    /* the cell of an estimate past two days, and of one that may grow, whole (never "≥> 2d") */
    run_answer e = {.eta_kind = ANS_ETA_ESTIMATE, .eta = 3 * 86400.0, .eta_caveat = "more"};
    ck_assert_str_eq(answer_eta_cell(buf, sizeof buf, &e, 1), "> 2d");
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
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
