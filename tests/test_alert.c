/* test_alert.c: a run that finishes, fails or stalls while watched is an event (once); a run
 * first seen finished is not; --notify runs its command with the event in the environment, without
 * waiting for it, and reaps it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "alert.h"
#include "kubeclient/fdbudget.h"
#include "testutil.h"

/* The answers' context of model m at monotonic now (wall = now + 1000, as the upserts say). */
static ans_ctx at(model *m, double now, int stale)
{
    ans_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.now = now;
    c.wall = now + 1000;
    c.stale = stale;
    return c;
}

static int scan(model *m, double now, int stale, char *title, size_t n, int *bell)
{
    ans_ctx c = at(m, now, stale);
    return alert_scan(&c, m, title, n, bell);
}

START_TEST(events_from_phase_and_stall_changes)
{
    ck_assert_int_eq(alert_classify(VL_PH_IN_PROGRESS, 0, VL_PH_COMPLETED, 0), ALERT_FINISHED);
    ck_assert_int_eq(alert_classify(VL_PH_FINALIZING, 0, VL_PH_PARTIALLY_FAILED, 0), ALERT_FAILED);
    ck_assert_int_eq(alert_classify(VL_PH_IN_PROGRESS, 1, VL_PH_FAILED, 0), ALERT_FAILED);
    ck_assert_int_eq(alert_classify(VL_PH_NEW, 0, VL_PH_FAILED_VALIDATION, 0), ALERT_FAILED);
    ck_assert_int_eq(alert_classify(VL_PH_IN_PROGRESS, 0, VL_PH_IN_PROGRESS, 1), ALERT_STALLED);
    ck_assert_int_eq(alert_classify(VL_PH_IN_PROGRESS, 1, VL_PH_IN_PROGRESS, 1), ALERT_NONE);
    ck_assert_int_eq(alert_classify(VL_PH_IN_PROGRESS, 0, VL_PH_IN_PROGRESS, 0), ALERT_NONE);
    ck_assert_int_eq(alert_classify(VL_PH_COMPLETED, 0, VL_PH_COMPLETED, 0), ALERT_NONE);
    ck_assert_str_eq(alert_event_name(ALERT_STALLED), "stalled");
}
END_TEST

START_TEST(scan_fires_once_per_change_and_not_at_start)
{
    alert_configure(1, NULL);
    model *m = model_new();
    vl_run a = {0}, b = {0};
    a.kind = b.kind = VL_BACKUP;
    a.meta.name = "a";
    b.meta.name = "old";
    a.phase = "InProgress";
    a.phase_id = VL_PH_IN_PROGRESS;
    a.started = 1000;
    a.has_progress = 1;
    a.items_total = 10;
    a.items_done = 5;
    b.phase = "Completed";
    b.phase_id = VL_PH_COMPLETED;
    model_upsert_run(m, &a, 100, 1100);
    model_upsert_run(m, &b, 100, 1100);
    char title[200] = "";
    int bell = 0;
    ck_assert_int_eq(scan(m, 100.5, 0, title, sizeof title, &bell), 0); /* first sight */
    ck_assert_int_eq(scan(m, 101, 0, title, sizeof title, &bell), 0);
    /* no item moves for a long while: stalled, once; not judged while stale */
    ck_assert_int_eq(scan(m, 200, 1, title, sizeof title, &bell), 0);
    ck_assert_int_eq(scan(m, 200, 0, title, sizeof title, &bell), 1);
    ck_assert_str_eq(title, "veltop: backup a stalled");
    ck_assert_int_eq(bell, 1);
    ck_assert_int_eq(scan(m, 201, 0, title, sizeof title, &bell), 0);
    a.phase = "Failed";
    a.phase_id = VL_PH_FAILED;
    model_upsert_run(m, &a, 202, 1202);
    ck_assert_int_eq(scan(m, 202, 0, title, sizeof title, &bell), 1);
    ck_assert_str_eq(title, "veltop: backup a Failed");
    ck_assert_int_eq(scan(m, 203, 0, title, sizeof title, &bell), 0);
    alert_configure(0, NULL); /* --no-bell */
    vl_run c = a;
    c.meta.name = "c";
    c.phase = "InProgress";
    c.phase_id = VL_PH_IN_PROGRESS;
    model_upsert_run(m, &c, 300, 1300);
    scan(m, 300, 0, title, sizeof title, &bell);
    c.phase = "Completed";
    c.phase_id = VL_PH_COMPLETED;
    ck_assert_int_eq(scan(m, 301, 0, title, sizeof title, &bell), 1);
    ck_assert_int_eq(bell, 0);
    model_free(m);
}
END_TEST

START_TEST(items_done_while_volumes_move_is_no_stall)
{
    alert_configure(1, NULL);
    model *m = model_new();
    vl_run r = {0};
    r.kind = VL_BACKUP;
    r.meta.name = "b";
    r.phase = "InProgress";
    r.phase_id = VL_PH_IN_PROGRESS;
    r.started = 1000;
    r.has_progress = 1;
    r.items_total = r.items_done = 10;
    model_upsert_run(m, &r, 100, 1100);
    vl_volume v = {0};
    v.kind = VL_PVB;
    v.meta.name = "b-v";
    v.run_name = "b";
    v.phase = "InProgress";
    v.phase_id = VL_PH_IN_PROGRESS;
    v.bytes_total = 1000;
    v.bytes_done = 100;
    model_upsert_volume(m, &v, 100);
    char title[200];
    int bell;
    ck_assert_int_eq(scan(m, 100, 0, title, sizeof title, &bell), 0);
    for (int t = 110; t <= 200; t += 10) { /* bytes every 10 s, items still */
        v.bytes_done += 50;
        model_upsert_volume(m, &v, t);
        ck_assert_int_eq(scan(m, t, 0, title, sizeof title, &bell), 0);
    }
    /* the volume stops too: now the run is stalled */
    ck_assert_int_eq(scan(m, 300, 0, title, sizeof title, &bell), 1);
    ck_assert_str_eq(title, "veltop: backup b stalled");
    /* it moves again: the title says so (no event, no bell), not "stalled" for good */
    v.bytes_done += 50;
    model_upsert_volume(m, &v, 301);
    title[0] = 0;
    ck_assert_int_eq(scan(m, 301, 0, title, sizeof title, &bell), 0);
    ck_assert_str_eq(title, "veltop: backup b moving again");
    ck_assert_int_eq(bell, 0);
    model_free(m);
}
END_TEST

/* A slow, steady run: one item written every 5 s (0.2 items/s), watched from its first item
 * (attach 0) or attached mid-run (seeded by the average since its start). Between writes the run's
 * answer says moving at every instant, and the alerts, which render that answer, never say
 * stalled: no event, no bell, no title. */
static void slow_steady(int attach_mid)
{
    alert_configure(1, NULL);
    model *m = model_new();
    vl_run r = {0};
    r.kind = VL_BACKUP;
    r.meta.name = "slow";
    r.phase = "InProgress";
    r.phase_id = VL_PH_IN_PROGRESS;
    r.has_progress = 1;
    r.items_total = 400;
    r.items_done = attach_mid ? 40 : 0;
    r.started = attach_mid ? 1100 - 200 : 1100; /* cluster time = wall = now + 1000 */
    model_upsert_run(m, &r, 100, 1100);
    char title[200] = "";
    int bell = 0;
    for (int k = 0; k <= 1200; k++) { /* 600 s, scanned every 0.5 s */
        double t = 100 + k * 0.5;
        if (k && k % 10 == 0) { /* an item every 5 s */
            r.items_done++;
            model_upsert_run(m, &r, t, t + 1000);
        }
        ans_ctx c = at(m, t, 0);
        run_answer a;
        answer_run(&c, model_find_run(m, VL_BACKUP, "slow"), &a);
        if (t >= 106) /* its first write seen moving (the first sight may say unknown) */
            ck_assert_msg(a.stalled == ANS_NO, "t=%.1f: stalled %d for %.1f s", t, (int)a.stalled,
                          a.stalled_for);
        ck_assert_msg(scan(m, t, 0, title, sizeof title, &bell) == 0, "t=%.1f: %s", t, title);
        ck_assert_int_eq(bell, 0);
    }
    ck_assert_str_eq(title, "");
    model_free(m);
}

START_TEST(slow_steady_run_is_no_stall)
{
    slow_steady(0);
}
END_TEST

START_TEST(slow_steady_run_attached_mid_run_is_no_stall)
{
    slow_steady(1);
}
END_TEST

START_TEST(notify_runs_the_command_with_the_event)
{
    char *dir = tu_mkdtemp();
    char cmd[1200], path[512];
    snprintf(path, sizeof path, "%s/events", dir);
    snprintf(cmd, sizeof cmd,
             "printf '%%s|%%s|%%s|%%s\\n' \"$VELTOP_EVENT\" \"$VELTOP_KIND\" \"$VELTOP_RUN\" "
             "\"$VELTOP_PHASE\" >>'%s'; echo noise; echo noise >&2",
             path);
    alert_configure(0, cmd);
    model *m = model_new();
    vl_run r = {0};
    r.kind = VL_RESTORE;
    r.meta.name = "r-1";
    r.phase = "InProgress";
    r.phase_id = VL_PH_IN_PROGRESS;
    model_upsert_run(m, &r, 1, 1);
    scan(m, 1, 0, NULL, 0, NULL);
    r.phase = "PartiallyFailed";
    r.phase_id = VL_PH_PARTIALLY_FAILED;
    ck_assert_int_eq(scan(m, 2, 0, NULL, 0, NULL), 1);
    /* the child is reaped from the loop: wait (bounded) until it is */
    int left = 1;
    for (int i = 0; i < 500 && (left = alert_reap()) > 0; i++) usleep(10000);
    ck_assert_int_eq(left, 0);
    char *got = tu_read(path, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, "failed|restore|r-1|PartiallyFailed\n");
    free(got);
    alert_configure(1, NULL);
    model_free(m);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* --notify's command starts with the open-file limit veltop was started with, not the one it
 * raised (fdbudget.h): programs that use select() break above 1024. */
START_TEST(notify_gets_the_original_open_file_limit)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= 256) return; /* nothing to raise */
    rl.rlim_cur = 256;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert_int_gt(kc_fd_raise(), 256);
    char *dir = tu_mkdtemp();
    char cmd[600], path[512];
    snprintf(path, sizeof path, "%s/limit", dir);
    snprintf(cmd, sizeof cmd, "ulimit -Sn >'%s'", path);
    pid_t pid = alert_notify(cmd, ALERT_FINISHED, VL_BACKUP, "b-1", "Completed");
    ck_assert_int_gt(pid, 0);
    int left = 1;
    for (int i = 0; i < 500 && (left = alert_reap()) > 0; i++) usleep(10000);
    ck_assert_int_eq(left, 0);
    char *got = tu_read(path, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, "256\n");
    free(got);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alert");
    TCase *tc = tcase_create("alert");
    tcase_add_test(tc, events_from_phase_and_stall_changes);
    tcase_add_test(tc, scan_fires_once_per_change_and_not_at_start);
    tcase_add_test(tc, items_done_while_volumes_move_is_no_stall);
    tcase_add_test(tc, slow_steady_run_is_no_stall);
    tcase_add_test(tc, slow_steady_run_attached_mid_run_is_no_stall);
    tcase_add_test(tc, notify_runs_the_command_with_the_event);
    /* not under valgrind: it keeps RLIMIT_NOFILE to itself (its own descriptors above the
     * client's), so the children it starts get its limit, not the one the program set; the
     * ASan run checks it */
    if (!getenv("VELTOP_UNDER_VALGRIND"))
        tcase_add_test(tc, notify_gets_the_original_open_file_limit);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
