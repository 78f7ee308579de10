/* test_cron.c: Velero Schedule crons parse and fire as robfig/cron v3 (cron.ParseStandard) makes
 * them: fields, names, steps, descriptors, @every, CRON_TZ=/TZ= with DST, and the overdue rule. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cron.h"
#include "testutil.h"

/* "2012-03-11T00:00:00-0500" or "...Z" -> unix seconds */
static double ts(const char *s)
{
    struct tm tm = {0};
    int off_h = 0, off_m = 0;
    char sign = 'Z';
    int n = sscanf(s, "%d-%d-%dT%d:%d:%d%c%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &sign, &off_h, &off_m);
    ck_assert_int_ge(n, 7);
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    double u = (double)timegm(&tm);
    int off = (off_h * 60 + off_m) * 60;
    if (sign == '-') u += off;
    if (sign == '+') u -= off;
    return u;
}

static double next_of(const char *spec, const char *from)
{
    cron_spec c;
    char err[200];
    int rc = cron_parse(spec, &c, err, sizeof err);
    if (rc) ck_abort_msg("%s: %s", spec, err);
    return cron_next(&c, ts(from));
}

static const struct {
    const char *spec, *from, *want; /* want NULL: never (0) */
} cases[] = {
    {"* * * * *", "2012-07-09T14:45:00Z", "2012-07-09T14:46:00Z"},
    {"* * * * *", "2012-07-09T14:45:30Z", "2012-07-09T14:46:00Z"},
    {"*/15 * * * *", "2012-07-09T14:45:00Z", "2012-07-09T15:00:00Z"},
    {"*/15 * * * *", "2012-07-09T14:59:59Z", "2012-07-09T15:00:00Z"},
    {"5/20 * * * *", "2012-07-09T14:26:00Z", "2012-07-09T14:45:00Z"},
    {"0 0 * * 1-5", "2012-07-14T00:00:00Z", "2012-07-16T00:00:00Z"},
    {"30 9 * * MON-fri", "2012-07-13T10:00:00Z", "2012-07-16T09:30:00Z"},
    {"0 0 29 2 *", "2012-03-01T00:00:00Z", "2016-02-29T00:00:00Z"},
    {"0 0 30 2 *", "2012-03-01T00:00:00Z", NULL},
    /* dom and dow both restricted: either matches; one of them * or ?: both must */
    {"0 0 1,15 * 3", "2012-07-09T00:00:00Z", "2012-07-11T00:00:00Z"},
    {"0 0 ? * 3", "2012-07-09T00:00:00Z", "2012-07-11T00:00:00Z"},
    {"0 0 */2 * 3", "2012-07-09T00:00:00Z", "2012-07-11T00:00:00Z"},
    {"0 12 * jan-MAR sun", "2012-07-09T00:00:00Z", "2013-01-06T12:00:00Z"},
    {"0 0-6/3 * * *", "2012-07-09T04:00:00Z", "2012-07-09T06:00:00Z"},
    {"15,45 */6 * * *", "2012-07-09T06:15:00Z", "2012-07-09T06:45:00Z"},
    /* descriptors */
    {"@hourly", "2012-07-09T14:45:00Z", "2012-07-09T15:00:00Z"},
    {"@daily", "2012-07-09T14:45:00Z", "2012-07-10T00:00:00Z"},
    {"@midnight", "2012-07-09T00:00:00Z", "2012-07-10T00:00:00Z"},
    {"@weekly", "2012-07-09T14:45:00Z", "2012-07-15T00:00:00Z"},
    {"@monthly", "2012-07-09T14:45:00Z", "2012-08-01T00:00:00Z"},
    {"@yearly", "2012-07-09T14:45:00Z", "2013-01-01T00:00:00Z"},
    {"@annually", "2012-07-09T14:45:00Z", "2013-01-01T00:00:00Z"},
    /* @every: a constant delay from the given time, whole seconds, at least 1 s */
    {"@every 5m", "2012-07-09T14:45:07Z", "2012-07-09T14:50:07Z"},
    {"@every 1h30m", "2012-07-09T14:45:00Z", "2012-07-09T16:15:00Z"},
    {"@every 90.7s", "2012-07-09T14:45:00Z", "2012-07-09T14:46:30Z"},
    {"@every 500ms", "2012-07-09T14:45:00Z", "2012-07-09T14:45:01Z"},
    {"TZ=Asia/Kolkata @every 24h", "2012-07-09T14:45:00Z", "2012-07-10T14:45:00Z"},
    /* zones: CRON_TZ= and TZ= read the system tz database */
    {"CRON_TZ=Europe/Berlin 0 3 * * *", "2026-06-01T00:00:00Z", "2026-06-01T01:00:00Z"},
    {"CRON_TZ=Europe/Berlin 0 3 * * *", "2026-12-01T00:00:00Z", "2026-12-01T02:00:00Z"},
    {"CRON_TZ=Asia/Kolkata 0 0 * * *", "2026-06-01T00:00:00Z", "2026-06-01T18:30:00Z"},
    {"TZ=UTC 0 3 * * *", "2026-06-01T00:00:00Z", "2026-06-01T03:00:00Z"},
    /* DST, spring forward (America/New_York 2012-03-11 02:00 EST -> 03:00 EDT): robfig's cases */
    {"TZ=America/New_York 30 2 11 Mar *", "2012-03-11T00:00:00-0500", "2013-03-11T02:30:00-0400"},
    {"TZ=America/New_York 0 * * * *", "2012-03-11T00:00:00-0500", "2012-03-11T01:00:00-0500"},
    {"TZ=America/New_York 0 * * * *", "2012-03-11T01:00:00-0500", "2012-03-11T03:00:00-0400"},
    {"TZ=America/New_York 0 * * * *", "2012-03-11T03:00:00-0400", "2012-03-11T04:00:00-0400"},
    {"TZ=America/New_York 0 1 * * *", "2012-03-11T00:00:00-0500", "2012-03-11T01:00:00-0500"},
    {"TZ=America/New_York 0 1 * * *", "2012-03-11T01:00:00-0500", "2012-03-12T01:00:00-0400"},
    {"CRON_TZ=America/New_York 0 2 * * *", "2012-03-11T00:00:00-0500", "2012-03-12T02:00:00-0400"},
    /* DST, fall back (2012-11-04 02:00 EDT -> 01:00 EST): the 1 o'clock hour runs twice */
    {"TZ=America/New_York 30 2 04 Nov *", "2012-11-04T00:00:00-0400", "2012-11-04T02:30:00-0500"},
    {"TZ=America/New_York 30 1 04 Nov *", "2012-11-04T01:45:00-0400", "2012-11-04T01:30:00-0500"},
    {"TZ=America/New_York 0 * * * *", "2012-11-04T00:00:00-0400", "2012-11-04T01:00:00-0400"},
    {"TZ=America/New_York 0 * * * *", "2012-11-04T01:00:00-0400", "2012-11-04T01:00:00-0500"},
    {"TZ=America/New_York 0 * * * *", "2012-11-04T01:00:00-0500", "2012-11-04T02:00:00-0500"},
    {"TZ=America/New_York 0 1 * * *", "2012-11-04T00:00:00-0400", "2012-11-04T01:00:00-0400"},
    {"TZ=America/New_York 0 1 * * *", "2012-11-04T01:00:00-0400", "2012-11-04T01:00:00-0500"},
    {"TZ=America/New_York 0 1 * * *", "2012-11-04T01:00:00-0500", "2012-11-05T01:00:00-0500"},
};

START_TEST(next_run_matches_robfig)
{
    setenv("TZ", "Pacific/Auckland", 1); /* the process zone plays no part */
    tzset();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = next_of(cases[i].spec, cases[i].from);
        double want = cases[i].want ? ts(cases[i].want) : 0;
        if (got != want)
            ck_abort_msg("%s from %s: got %.0f want %.0f (%s)", cases[i].spec, cases[i].from, got,
                         want, cases[i].want ? cases[i].want : "never");
    }
    ck_assert_str_eq(getenv("TZ"), "Pacific/Auckland"); /* restored after each zone switch */
    unsetenv("TZ");
    next_of("CRON_TZ=Europe/Berlin 0 3 * * *", "2026-06-01T00:00:00Z");
    ck_assert_ptr_null(getenv("TZ"));
}
END_TEST

static const struct {
    const char *spec, *err;
} bad[] = {
    {"", "empty spec string"},
    {"   ", "empty spec string"},
    {"* * * *", "expected exactly 5 fields, found 4: * * * *"},
    {"0 * * * * *", "expected exactly 5 fields, found 6: 0 * * * * *"},
    {"60 * * * *", "end of range (60) above maximum (59): 60"},
    {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
    {"* * * * 7", "end of range (7) above maximum (6): 7"},
    {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
    {"*/0 * * * *", "step of range should be a positive number: */0"},
    {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
    {"*/2/3 * * * *", "too many slashes: */2/3"},
    {"a * * * *", "failed to parse int from a: invalid syntax"},
    {"* * * JANUARY *", "failed to parse int from JANUARY: invalid syntax"},
    {"-1 * * * *", "failed to parse int from : invalid syntax"},
    {"@fortnightly", "unrecognized descriptor: @fortnightly"},
    {"@every", "unrecognized descriptor: @every"},
    {"@every 5 minutes",
     "failed to parse duration @every 5 minutes: time: invalid duration \"5 minutes\""},
    {"CRON_TZ=Mars/Olympus 0 * * * *",
     "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
    {"TZ=../../etc/passwd 0 * * * *",
     "provided bad location ../../etc/passwd: unknown time zone ../../etc/passwd"},
};

START_TEST(bad_specs_say_why)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cron_spec c;
        char err[200] = "";
        if (cron_parse(bad[i].spec, &c, err, sizeof err) != -1)
            ck_abort_msg("'%s' parsed", bad[i].spec);
        ck_assert_str_eq(err, bad[i].err);
    }
}
END_TEST

START_TEST(overdue_after_two_intervals_without_success)
{
    cron_spec c;
    char err[200];
    ck_assert_int_eq(cron_parse("0 1 * * *", &c, err, sizeof err), 0);
    double created = ts("2026-01-01T00:00:00Z"), ok = ts("2026-06-01T01:00:00Z");
    cron_due d;
    /* fired 06-03 01:00 (that run failed): the next is 06-04 01:00, daily */
    cron_due_eval(&c, 0, ts("2026-06-03T01:00:00Z"), created, ok, 3600, ts("2026-06-03T01:59:00Z"),
                  &d);
    ck_assert_double_eq(d.next, ts("2026-06-04T01:00:00Z"));
    ck_assert_double_eq(d.interval, 86400);
    ck_assert_double_eq(d.due_by, ts("2026-06-03T02:00:00Z")); /* 2nd firing + typical run */
    ck_assert_int_eq(d.overdue, 0);
    cron_due_eval(&c, 0, ts("2026-06-03T01:00:00Z"), created, ok, 3600, ts("2026-06-03T02:00:01Z"),
                  &d);
    ck_assert_int_eq(d.overdue, 1);
    cron_due_eval(&c, 1, ts("2026-06-03T01:00:00Z"), created, ok, 3600, ts("2026-06-09T00:00:00Z"),
                  &d);
    ck_assert_int_eq(d.overdue, 0); /* paused: never overdue */
    /* never succeeded: counted from creation; never fired: next from creation */
    cron_due_eval(&c, 0, 0, created, 0, 0, ts("2026-01-02T00:59:00Z"), &d);
    ck_assert_double_eq(d.next, ts("2026-01-01T01:00:00Z"));
    ck_assert_int_eq(d.overdue, 0);
    cron_due_eval(&c, 0, 0, created, 0, 0, ts("2026-01-02T01:00:01Z"), &d);
    ck_assert_int_eq(d.overdue, 1);
    /* @every 1h */
    ck_assert_int_eq(cron_parse("@every 1h", &c, err, sizeof err), 0);
    double t = ts("2026-06-01T10:17:00Z");
    cron_due_eval(&c, 0, t, created, t, 60, t + 7260, &d);
    ck_assert_double_eq(d.next, t + 3600);
    ck_assert_double_eq(d.interval, 3600);
    ck_assert_int_eq(d.overdue, 0);
    cron_due_eval(&c, 0, t, created, t, 60, t + 7261, &d);
    ck_assert_int_eq(d.overdue, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cron");
    TCase *tc = tcase_create("cron");
    tcase_add_test(tc, next_run_matches_robfig);
    tcase_add_test(tc, bad_specs_say_why);
    tcase_add_test(tc, overdue_after_two_intervals_without_success);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
