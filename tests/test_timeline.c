/* test_timeline.c: where a run has been (core/timeline.c): phases veltop saw change are entered
 * then, the phase at first sight only "by" then, the object's timestamps win over both, a
 * finished run's stored log fills the end of its item pass, unknown stays unknown, restores have
 * no queue and a run that failed validation never ran. */
#include <check.h>
#include <string.h>

#include "testutil.h"
#include "timeline.h"

#define T0 1780308000.0 /* 2026-06-01T10:00:00Z */

static vl_run mkrun(vl_kind k, const char *name, vl_phase ph)
{
    vl_run r;
    memset(&r, 0, sizeof r);
    r.kind = k;
    r.meta.name = (char *)name;
    r.phase_id = ph;
    r.phase = (char *)vl_phase_name(ph);
    r.meta.created = T0;
    return r;
}

START_TEST(a_watched_backup_through_its_phases)
{
    model *m = model_new();
    vl_run r = mkrun(VL_BACKUP, "b", VL_PH_NEW);
    model_run *mr = model_upsert_run(m, &r, 1, T0 + 0.2); /* seen New at creation */
    r.phase_id = VL_PH_QUEUED;
    r.queue_position = 2;
    model_upsert_run(m, &r, 2, T0 + 1);
    r.queue_position = 1; /* moved up the queue */
    model_upsert_run(m, &r, 3, T0 + 30);
    r.phase_id = VL_PH_READY_TO_START;
    r.queue_position = 0;
    model_upsert_run(m, &r, 4, T0 + 60.4);
    r.phase_id = VL_PH_IN_PROGRESS;
    r.started = T0 + 60; /* stamped in whole seconds, before veltop saw it */
    model_upsert_run(m, &r, 5, T0 + 60.5);
    tl_entry e[TL_MAX];
    size_t n = timeline_build(mr, T0 + 100, NULL, e);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(e[0].phase, VL_PH_NEW);
    ck_assert_int_eq(e[0].src, TL_METADATA);
    ck_assert_double_eq(e[0].dur, 1);
    ck_assert_int_eq(e[1].phase, VL_PH_QUEUED);
    ck_assert_int_eq(e[1].src, TL_SEEN);
    ck_assert_int_eq(e[1].queue_pos, 1);
    ck_assert_double_eq_tol(e[1].dur, 59.4, 1e-6);
    ck_assert_int_eq(e[2].phase, VL_PH_READY_TO_START);
    ck_assert_double_eq(e[2].dur, 0); /* the start stamped within its second */
    ck_assert_int_eq(e[3].phase, VL_PH_IN_PROGRESS);
    ck_assert_int_eq(e[3].src, TL_STATUS);
    ck_assert_int_eq(e[3].current, 1);
    ck_assert_double_eq(e[3].dur, 40); /* so far */
    /* a change that reached veltop late (2.6 s after the next phase's own stamp): entered by
     * that stamp's second, not after it, so the phase before has a duration (0 s), not unknown */
    vl_run q = mkrun(VL_BACKUP, "late", VL_PH_READY_TO_START);
    model_run *mq = model_upsert_run(m, &q, 1, T0 + 0.2);
    q.phase_id = VL_PH_IN_PROGRESS;
    q.started = T0 - 3;
    model_upsert_run(m, &q, 2, T0 + 0.4);
    tl_entry f[TL_MAX];
    size_t nf = timeline_build(mq, T0 + 10, NULL, f);
    ck_assert_uint_ge(nf, 2);
    ck_assert_int_eq(f[nf - 2].phase, VL_PH_READY_TO_START);
    ck_assert_double_eq_tol(f[nf - 2].entered, T0 - 2, 1e-6);
    ck_assert_double_eq(f[nf - 2].dur, 0);
    /* through Finalizing (PartiallyFailed) to the end */
    r.phase_id = VL_PH_FINALIZING_PARTIALLY_FAILED;
    model_upsert_run(m, &r, 6, T0 + 200);
    r.phase_id = VL_PH_PARTIALLY_FAILED;
    r.completed = T0 + 205;
    model_upsert_run(m, &r, 7, T0 + 205.3);
    n = timeline_build(mr, T0 + 300, NULL, e);
    ck_assert_uint_eq(n, 6);
    ck_assert_double_eq(e[3].dur, 140);
    ck_assert_int_eq(e[4].phase, VL_PH_FINALIZING_PARTIALLY_FAILED);
    ck_assert_double_eq(e[4].dur, 5);
    ck_assert_int_eq(e[5].phase, VL_PH_PARTIALLY_FAILED);
    ck_assert_int_eq(e[5].src, TL_STATUS);
    ck_assert_int_eq(e[5].current, 0);
    model_free(m);
}
END_TEST

START_TEST(attached_late_and_finished_before)
{
    model *m = model_new();
    /* first seen Queued: it got there by then; New lasted an unknown time */
    vl_run q = mkrun(VL_BACKUP, "q", VL_PH_QUEUED);
    q.queue_position = 3;
    model_run *mq = model_upsert_run(m, &q, 1, T0 + 50);
    tl_entry e[TL_MAX];
    size_t n = timeline_build(mq, T0 + 80, NULL, e);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_lt(e[0].dur, 0);
    ck_assert_int_eq(e[1].src, TL_SEEN_BY);
    ck_assert_int_eq(e[1].queue_pos, 3);
    ck_assert_double_eq(e[1].dur, 30); /* at least */
    /* finished before veltop: the queue unknown, the item pass's end from the log */
    vl_run b = mkrun(VL_BACKUP, "b", VL_PH_COMPLETED);
    b.started = T0 + 10;
    b.completed = T0 + 100;
    model_run *mb = model_upsert_run(m, &b, 1, T0 + 5000);
    n = timeline_build(mb, T0 + 5000, NULL, e);
    ck_assert_uint_eq(n, 6);
    ck_assert_int_eq(e[1].phase, VL_PH_QUEUED);
    ck_assert_int_eq(e[1].src, TL_UNKNOWN);
    ck_assert_int_eq(e[2].src, TL_UNKNOWN);
    ck_assert_double_lt(e[3].dur, 0);
    ck_assert_int_eq(e[4].phase, VL_PH_FINALIZING);
    ck_assert_int_eq(e[4].src, TL_UNKNOWN);
    tl_log log = {0};
    lp_line l = {0};
    static const char *lines[] = {
        "time=\"2026-06-01T10:00:10Z\" level=info msg=\"Setting up backup temp file\"",
        "time=\"2026-06-01T10:01:30Z\" level=info msg=\"Backed up a total of 60 items\"",
        "time=\"2026-06-01T10:01:39Z\" level=info msg=\"something after\"",
    };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(lp_parse(&l, lines[i], strlen(lines[i])), 0);
        timeline_log_line(&log, &l);
    }
    lp_line_free(&l);
    ck_assert_double_eq(log.first, T0 + 10);
    ck_assert_double_eq(log.items_done, T0 + 90);
    ck_assert_double_eq(log.last, T0 + 99);
    n = timeline_build(mb, T0 + 5000, &log, e);
    ck_assert_double_eq(e[3].dur, 80);
    ck_assert_int_eq(e[4].src, TL_LOG);
    ck_assert_double_eq(e[4].entered, T0 + 90);
    ck_assert_double_eq(e[4].dur, 10);
    /* with plugin operations the item pass ends in WaitingForPluginOperations */
    b.ops_attempted = 2;
    n = timeline_build(mb, T0 + 5000, &log, e);
    ck_assert_uint_eq(n, 7);
    ck_assert_int_eq(e[4].phase, VL_PH_WAITING_PLUGIN_OPS);
    ck_assert_int_eq(e[4].src, TL_LOG);
    ck_assert_int_eq(e[5].phase, VL_PH_FINALIZING);
    ck_assert_int_eq(e[5].src, TL_UNKNOWN);
    model_free(m);
}
END_TEST

START_TEST(restores_and_failed_validation)
{
    model *m = model_new();
    vl_run r = mkrun(VL_RESTORE, "r", VL_PH_COMPLETED);
    r.started = T0 + 2;
    r.completed = T0 + 50;
    model_run *mr = model_upsert_run(m, &r, 1, T0 + 100);
    tl_entry e[TL_MAX];
    size_t n = timeline_build(mr, T0 + 100, NULL, e);
    ck_assert_uint_eq(n, 4); /* New, InProgress, Finalizing, Completed: no queue */
    ck_assert_int_eq(e[1].phase, VL_PH_IN_PROGRESS);
    ck_assert_double_eq(e[0].dur, 2);
    vl_run v = mkrun(VL_BACKUP, "v", VL_PH_FAILED_VALIDATION);
    v.completed = T0 + 1;
    model_run *mv = model_upsert_run(m, &v, 1, T0 + 100);
    n = timeline_build(mv, T0 + 100, NULL, e);
    ck_assert_uint_eq(n, 2); /* never ran */
    ck_assert_int_eq(e[1].phase, VL_PH_FAILED_VALIDATION);
    ck_assert_double_eq(e[0].dur, 1);
    model_free(m);
}
END_TEST

/* --demo --speed 10: the cluster's clock runs 10 times ours from its start; history before the
 * start keeps its true clock times (its durations and rates stay in wall time: once_speed.sh),
 * what happens after is scaled. */
START_TEST(history_keeps_true_times_on_a_fast_clock)
{
    model *m = model_new();
    model_set_clock(m, T0, T0, 10);
    ck_assert_double_eq(model_wall_time(m, T0 - 86400, T0 + 60), T0 - 86400); /* yesterday */
    ck_assert_double_eq(model_wall_time(m, T0 + 600, T0 + 60), T0 + 60);      /* scaled */
    vl_run y = mkrun(VL_BACKUP, "yesterday", VL_PH_COMPLETED);
    y.started = T0 - 86400;
    y.completed = T0 - 86400 + 600;
    y.items_done = 300;
    model_run *r = model_upsert_run(m, &y, 1, T0 + 60);
    ck_assert_double_eq(model_run_duration(r, T0 + 60), 60);
    vl_run t = mkrun(VL_BACKUP, "today", VL_PH_COMPLETED);
    t.started = T0 + 100;
    t.completed = T0 + 700;
    t.items_done = 300;
    r = model_upsert_run(m, &t, 1, T0 + 80);
    ck_assert_double_eq(model_run_duration(r, T0 + 80), 60);
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("timeline");
    tcase_add_test(tc, a_watched_backup_through_its_phases);
    tcase_add_test(tc, attached_late_and_finished_before);
    tcase_add_test(tc, restores_and_failed_validation);
    tcase_add_test(tc, history_keeps_true_times_on_a_fast_clock);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
