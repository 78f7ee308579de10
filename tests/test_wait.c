/* test_wait.c: --wait targets (backup/NAME, restore/NAME; anything else is a usage error that
 * says what is expected), and the progress line: the run's answer in the words every surface
 * uses (the rate of what the end waits on, the ETA with its caveat, stalled and what, what the end
 * waits on), within a terminal's width by dropping the least important fields first, an RFC 3339
 * timestamp on each piped line, and a piped line repeated only at the interval unless the verdict
 * changes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "sanitize.h"
#include "testutil.h"
#include "wait.h"

START_TEST(targets_parse)
{
    vl_kind k;
    char name[300], err[300];
    ck_assert_int_eq(wait_parse("backup/nightly-1", &k, name, sizeof name, err, sizeof err), 0);
    ck_assert_int_eq(k, VL_BACKUP);
    ck_assert_str_eq(name, "nightly-1");
    ck_assert_int_eq(wait_parse("restores/r-1", &k, name, sizeof name, err, sizeof err), 0);
    ck_assert_int_eq(k, VL_RESTORE);
    ck_assert_str_eq(name, "r-1");
    static const char *bad[] = {"nightly-1", "backup/", "backup/a/b", "schedule/x", "Backup/x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(wait_parse(bad[i], &k, name, sizeof name, err, sizeof err), -1);
        char want[300];
        snprintf(want, sizeof want, "invalid --wait '%s': expected backup/NAME or restore/NAME",
                 bad[i]);
        ck_assert_str_eq(err, want);
    }
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    memcpy(longname, "backup/", 7);
    ck_assert_int_eq(wait_parse(longname, &k, name, sizeof name, err, sizeof err), -1);
}
END_TEST

/* A backup in flight whose end waits on a pod volume: 120 of ~400 items, 1.2 of 4.0 GiB, the
 * volume moving at 12 MiB/s while items go at 3/s, done in ~3m12s, more volumes may come. */
static vl_run t_run;
static model_run t_mr;
static vl_volume t_vol;
static model_volume t_mv;
#define T_AT 1796662800.0 /* 2026-12-07T17:00:00Z */

static run_answer waiting_on_volume(void)
{
    memset(&t_run, 0, sizeof t_run);
    t_run.kind = VL_BACKUP;
    t_run.meta.name = "nightly";
    t_run.phase = "InProgress";
    t_run.phase_id = VL_PH_IN_PROGRESS;
    memset(&t_mr, 0, sizeof t_mr);
    t_mr.kind = VL_BACKUP;
    t_mr.name = "nightly";
    t_mr.run = &t_run;
    memset(&t_vol, 0, sizeof t_vol);
    t_vol.kind = VL_PVB;
    t_vol.pod_ns = "shop";
    t_vol.pod_name = "db-0";
    t_vol.volume = "data";
    memset(&t_mv, 0, sizeof t_mv);
    t_mv.kind = VL_PVB;
    t_mv.name = "nightly-x7k2p";
    t_mv.vol = &t_vol;
    run_answer a;
    memset(&a, 0, sizeof a);
    a.run = &t_mr;
    a.kind = VL_BACKUP;
    a.phase = VL_PH_IN_PROGRESS;
    a.active = 1;
    a.items_done = 120;
    a.items_total = 400;
    a.items_known = a.items_estimated = 1;
    a.items_rate = 3.0;
    a.bytes_done = (int64_t)1.2 * 1024 * 1024 * 1024 + 214748365; /* 1.2 GiB */
    a.bytes_total = 4LL << 30;
    a.n_volumes = 2;
    a.bytes_known = a.bytes_total_known = 1;
    a.bytes_rate = 20.0 * 1024 * 1024;
    a.part[RE_ITEMS].state = RE_ACTIVE;
    a.part[RE_PODVOLS].state = RE_ACTIVE;
    a.eta_kind = ANS_ETA_ESTIMATE;
    a.eta = 192;
    a.eta_end = T_AT + 192;
    a.eta_caveat = "more volumes may come";
    a.stalled = ANS_NO;
    a.waiting = RE_PODVOLS;
    a.waiting_vol = &t_mv;
    a.waiting_left = 2LL << 30;
    a.waiting_rate = 12.0 * 1024 * 1024;
    a.at = T_AT;
    return a;
}

/* The same run, nothing it waits on moved for 3m12s: stalled, no ETA. */
static run_answer stalled_on_volume(void)
{
    run_answer a = waiting_on_volume();
    a.items_done = a.items_total = 400;
    a.items_estimated = 0;
    a.part[RE_ITEMS].state = RE_DONE;
    a.part[RE_PODVOLS].state = RE_STALLED;
    a.stalled = ANS_YES;
    a.stalled_for = 192;
    a.stalled_part = RE_PODVOLS;
    a.stalled_vol = &t_mv;
    a.eta_kind = ANS_ETA_NONE;
    a.eta = a.eta_end = -1;
    a.eta_caveat = NULL;
    a.eta_why = ANS_WHY_STALLED;
    a.waiting_rate = 0;
    return a;
}

static void line_of(const run_answer *a, int width, char *line, size_t n, char *key, size_t kn)
{
    wait_describe(a, a->run, width, line, n, key, kn);
    if (width > 0)
        ck_assert_msg(san_width(line) <= width, "%d columns > %d: %s", san_width(line), width,
                      line);
}

START_TEST(piped_line_is_the_whole_answer)
{
    fmt_set_utc(1);
    char line[1024], key[512];
    run_answer a = waiting_on_volume();
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    /* the rate of what the end waits on (the volume's bytes/s, not the items'), the ETA with its
     * caveat, and what it waits on: pod volumes, which one */
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 12.0 MiB/s  eta done in ~3m12s (at 17:03:12), more volumes may "
                           "come  waiting on pod volumes shop/db-0:data");
    /* waiting on items: their rate */
    a.waiting = RE_ITEMS;
    a.waiting_vol = NULL;
    a.waiting_rate = 3.0;
    a.eta_caveat = NULL;
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 3.0/s  eta done in ~3m12s (at 17:03:12)  waiting on items");
    /* stalled: for how long and what, as --once --json says stalled: true; no ETA */
    a = stalled_on_volume();
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 400/400  bytes 1.2 GiB/4.0 GiB  "
                           "stalled 3m12s (pod volumes shop/db-0:data)  eta none  waiting on pod "
                           "volumes shop/db-0:data");
    /* the cluster not answering: frozen as of then, said */
    a = waiting_on_volume();
    a.stale = 1;
    a.eta_kind = ANS_ETA_NONE;
    a.eta_why = ANS_WHY_STALE;
    a.stalled = ANS_UNKNOWN;
    a.stalled_why = ANS_WHY_STALE;
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 12.0 MiB/s  eta unknown: no current data since 17:00:00  waiting "
                           "on pod volumes shop/db-0:data  (cluster not answering since 17:00:00)");
    /* a volume list not visible: bytes unknown, not 0 */
    a = waiting_on_volume();
    a.bytes_known = a.bytes_total_known = 0;
    a.n_volumes = 0;
    a.missing = ANS_MISS_PVB;
    snprintf(a.missing_text, sizeof a.missing_text,
             "pod volumes and data uploads not visible: podvolumebackups forbidden");
    a.eta_kind = ANS_ETA_NONE;
    a.eta_why = ANS_WHY_INCOMPLETE;
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes unknown  rate 12.0 "
                           "MiB/s  eta unknown: pod volumes and data uploads not visible: "
                           "podvolumebackups forbidden  waiting on pod volumes shop/db-0:data");
    /* finished: the whole-run average, no ETA, nothing waited on */
    a = waiting_on_volume();
    t_run.phase = "Completed";
    t_run.phase_id = VL_PH_COMPLETED;
    a.active = 0;
    a.items_done = a.items_total = 400;
    a.items_estimated = 0;
    a.bytes_done = a.bytes_total;
    a.eta_kind = ANS_ETA_NONE;
    a.eta_why = ANS_WHY_NOT_RUNNING;
    a.waiting = RE_FINAL;
    line_of(&a, 0, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  Completed  items 400/400  bytes 4.0 GiB/4.0 GiB  rate "
                           "3.0/s  eta -");
    fmt_set_utc(0);
}
END_TEST

START_TEST(terminal_line_fits_its_width)
{
    fmt_set_utc(1);
    char line[1024], key[512];
    run_answer a = waiting_on_volume();
    /* wide enough: everything, as piped */
    line_of(&a, 180, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 12.0 MiB/s  eta done in ~3m12s (at 17:03:12), more volumes may "
                           "come  waiting on pod volumes shop/db-0:data");
    /* 140 columns: the ETA as the list's cell, its caveat kept as "+" */
    line_of(&a, 140, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 12.0 MiB/s  eta 3m12s+  waiting on pod volumes shop/db-0:data");
    /* then what the end waits on without the volume, the rate, what it waits on, the bytes */
    line_of(&a, 132, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "rate 12.0 MiB/s  eta 3m12s+  waiting on pod volumes");
    line_of(&a, 117, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  "
                           "eta 3m12s+  waiting on pod volumes");
    line_of(&a, 99, line, sizeof line, key, sizeof key); /* 100 columns, one spare */
    ck_assert_str_eq(
        line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  eta 3m12s+");
    line_of(&a, 79, line, sizeof line, key, sizeof key); /* 80 columns */
    ck_assert_str_eq(
        line, "backup nightly  InProgress  items 120/~400  bytes 1.2 GiB/4.0 GiB  eta 3m12s+");
    line_of(&a, 70, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 120/~400  eta 3m12s+");
    /* big numbers are written shorter, whole, never cut */
    a.items_done = 1234567;
    a.items_total = 9876543;
    line_of(&a, 56, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 1.2M/~9.9M  eta 3m12s+");
    /* at the last the items go, then the phase, never the ETA */
    line_of(&a, 40, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  eta 3m12s+");
    line_of(&a, 30, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  eta 3m12s+");
    /* stalled: the stall and what stalled before the bytes; "eta none" goes first */
    a = stalled_on_volume();
    line_of(&a, 99, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 400/400  stalled 3m12s (pod volumes "
                           "shop/db-0:data)");
    line_of(&a, 79, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line, "backup nightly  InProgress  items 400/400  stalled 3m12s");
    /* stale at 80 columns: said, shorter, the ETA the note explains first */
    a = waiting_on_volume();
    a.stale = 1;
    a.eta_kind = ANS_ETA_NONE;
    a.eta_why = ANS_WHY_STALE;
    line_of(&a, 79, line, sizeof line, key, sizeof key);
    ck_assert_str_eq(line,
                     "backup nightly  InProgress  items 120/~400  (not answering since 17:00:00)");
    /* a long name: cut with an ellipsis after everything else gave way */
    a = waiting_on_volume();
    char name[200];
    memset(name, 'n', 120);
    name[120] = 0;
    t_mr.name = name;
    line_of(&a, 79, line, sizeof line, key, sizeof key);
    ck_assert_int_eq(san_width(line), 79);
    ck_assert_msg(strstr(line, "  InProgress  items 120/~400  eta 3m12s+") != NULL, "%s", line);
    ck_assert_msg(strncmp(line, "backup nnnn", 11) == 0, "%s", line);
    fmt_set_utc(0);
}
END_TEST

START_TEST(key_is_the_verdict)
{
    char line[1024], k1[512], k2[512];
    run_answer a = waiting_on_volume();
    wait_describe(&a, a.run, 0, line, sizeof line, k1, sizeof k1);
    a.items_done++; /* the figures moving are no verdict */
    a.eta = 180;
    a.bytes_done += 1 << 20;
    wait_describe(&a, a.run, 0, line, sizeof line, k2, sizeof k2);
    ck_assert_str_eq(k1, k2);
    a.waiting = RE_ITEMS; /* what it waits on */
    wait_describe(&a, a.run, 0, line, sizeof line, k2, sizeof k2);
    ck_assert_str_ne(k1, k2);
    a = stalled_on_volume(); /* stalled */
    wait_describe(&a, a.run, 0, line, sizeof line, k2, sizeof k2);
    ck_assert_str_ne(k1, k2);
    a = waiting_on_volume();
    a.eta_kind = ANS_ETA_NONE; /* the kind of ETA */
    a.eta_why = ANS_WHY_NO_EVIDENCE;
    wait_describe(&a, a.run, 0, line, sizeof line, k2, sizeof k2);
    ck_assert_str_ne(k1, k2);
}
END_TEST

START_TEST(piped_lines_are_stamped_and_spaced)
{
    char ts[64];
    ck_assert_str_eq(wait_stamp(ts, sizeof ts, T_AT + 2.7, 1), "2026-12-07T17:00:02Z");
    const char *tz = getenv("TZ");
    char *old = tz ? strdup(tz) : NULL;
    setenv("TZ", "XST-05:30", 1); /* POSIX: 5h30 east of UTC, no zone database needed */
    tzset();
    ck_assert_str_eq(wait_stamp(ts, sizeof ts, T_AT + 2, 0), "2026-12-07T22:30:02+05:30");
    setenv("TZ", "YST7", 1);
    tzset();
    ck_assert_str_eq(wait_stamp(ts, sizeof ts, T_AT + 2, 0), "2026-12-07T10:00:02-07:00");
    setenv("TZ", "UTC0", 1);
    tzset();
    ck_assert_str_eq(wait_stamp(ts, sizeof ts, T_AT + 2, 0), "2026-12-07T17:00:02+00:00");
    if (old)
        setenv("TZ", old, 1);
    else
        unsetenv("TZ");
    tzset();
    free(old);
    /* the first line; a change of verdict at once; the same verdict only at the interval and
     * only when its text changed */
    ck_assert_int_eq(wait_news("k1", "", "l1", "", 0, 10), 1);
    ck_assert_int_eq(wait_news("k2", "k1", "l2", "l1", 0.5, 10), 1);
    ck_assert_int_eq(wait_news("k1", "k1", "l2", "l1", 9.9, 10), 0);
    ck_assert_int_eq(wait_news("k1", "k1", "l2", "l1", 10, 10), 1);
    ck_assert_int_eq(wait_news("k1", "k1", "l1", "l1", 60, 10), 0);
    ck_assert_int_eq(wait_news("k1", "k1", "l2", "l1", 0, 0), 1); /* --interval 0 */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wait");
    TCase *tc = tcase_create("wait");
    tcase_add_test(tc, targets_parse);
    tcase_add_test(tc, piped_line_is_the_whole_answer);
    tcase_add_test(tc, terminal_line_fits_its_width);
    tcase_add_test(tc, key_is_the_verdict);
    tcase_add_test(tc, piped_lines_are_stamped_and_spaced);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
