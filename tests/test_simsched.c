/* test_simsched.c: the sim's schedules fire as Velero v1.18.1's schedule controller does. A firing
 * missed before the start (the server was away) is not caught up at its cron time: the first
 * reconcile finds the schedule due and makes ONE backup at once, named for that moment
 * (schedule_controller.go submitBackup: getBackup(schedule, c.clock.Now()), "20060102150405"),
 * and lastBackup is that moment; later firings come at their cron times. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

static const char *field(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, b));
}

/* The names of the backups labelled with a schedule, sorted, joined by spaces. */
static void names_of(simstore *s, const char *schedule, char *out, size_t len)
{
    char sel[100];
    snprintf(sel, sizeof sel, "velero.io/schedule-name=%s", schedule);
    cJSON *l = simstore_list(s, "backups", "velero", sel, NULL, NULL, NULL, NULL);
    int n = cJSON_GetArraySize(l);
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; i < n; i++) v[i] = (char *)field(cJSON_GetArrayItem(l, i), "metadata", "name");
    for (int i = 1; i < n; i++) /* insertion sort: a handful */
        for (int k = i; k > 0 && strcmp(v[k - 1], v[k]) > 0; k--) {
            char *t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", v[i]);
    free(v);
    cJSON_Delete(l);
}

static const char *schedule_last(simstore *s, const char *name, char *buf, size_t len)
{
    cJSON *o = simstore_get(s, "schedules", "velero", name);
    const char *v = field(o, "status", "lastBackup");
    snprintf(buf, len, "%s", v ? v : "(none)");
    cJSON_Delete(o);
    return buf;
}

START_TEST(missed_firing_makes_one_backup_now)
{
    /* the start: 05:43:20. nightly (01:00) last ran 3 days ago: the 01:00 firings of the last two
     * days were missed. hourly last ran at 05:00: its next firing, 06:00, is still ahead. */
    char *dir = tu_mkdtemp();
    char *path =
        tu_write(dir, "sched.yaml",
                 "epoch: \"2026-12-01T05:43:20Z\"\n"
                 "runs:\n"
                 "  - {kind: backup, name: nightly-20261128010000, schedule: nightly,\n"
                 "     start: -276200, rate: 10, resources: [{name: pods, items: 5}]}\n"
                 "  - {kind: backup, name: hourly-20261201050000, schedule: hourly,\n"
                 "     start: -2600, rate: 10, resources: [{name: pods, items: 5}]}\n"
                 "schedules:\n"
                 "  - {name: nightly, schedule: \"0 1 * * *\", template: {rate: 10, resources: "
                 "[{name: pods, items: 5}]}}\n"
                 "  - {name: hourly, schedule: \"0 * * * *\", template: {rate: 10, resources: "
                 "[{name: pods, items: 5}]}}\n");
    simstore *s = simstore_new(1 << 14);
    simctl_opts o = {
        .scenario = path, .speed = 1, .seed = 1, .ns = "velero", .quiet = 1, .manual = 1};
    char err[512] = "", names[512], last[64];
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    double e = simctl_epoch(c);
    ck_assert_double_eq(e, 1796103800.0); /* 2026-12-01T05:43:20Z */

    /* at the start: one catch-up backup, named and started now, not two backdated to 01:00 */
    names_of(s, "nightly", names, sizeof names);
    ck_assert_str_eq(names, "nightly-20261128010000 nightly-20261201054320");
    cJSON *b = simstore_get(s, "backups", "velero", "nightly-20261201054320");
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(field(b, "metadata", "creationTimestamp"), "2026-12-01T05:43:20Z");
    cJSON_Delete(b);
    ck_assert_str_eq(schedule_last(s, "nightly", last, sizeof last), "2026-12-01T05:43:20Z");
    /* nothing missed: no backup at the start */
    names_of(s, "hourly", names, sizeof names);
    ck_assert_str_eq(names, "hourly-20261201050000");
    ck_assert_str_eq(schedule_last(s, "hourly", last, sizeof last), "2026-12-01T05:00:00Z");

    /* a day later (minute ticks): every later firing at its cron time, the catch-up once */
    for (double t = e + 60; t <= e + 70000; t += 60) simctl_advance(c, t);
    names_of(s, "nightly", names, sizeof names);
    ck_assert_str_eq(names, "nightly-20261128010000 nightly-20261201054320 nightly-20261202010000");
    ck_assert_str_eq(schedule_last(s, "nightly", last, sizeof last), "2026-12-02T01:00:00Z");
    names_of(s, "hourly", names, sizeof names);
    ck_assert_msg(strstr(names, "hourly-20261201050000 hourly-20261201060000 "
                                "hourly-20261201070000 ") == names,
                  "%s", names);
    ck_assert_ptr_null(strstr(names, "054320"));
    simctl_stop(c);
    simstore_free(s);
    free(path);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simsched");
    TCase *tc = tcase_create("simsched");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, missed_firing_makes_one_backup_now);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
