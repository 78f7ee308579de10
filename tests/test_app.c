/* test_app.c: the connection summary the header shows (app_connection) against the in-process
 * veltop-sim: staleness comes from what arrived, per listed resource; a resource that cannot be
 * watched for good (RBAC) does not make the runs' data stale. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "kubeclient/kubeconfig.h"
#include "testutil.h"
#include "vsim.h"

static tu_sim ts;

static void start(const char *faults)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = "empty", .faults = faults});
    tu_sim_connect(&ts);
}

static int runs_live(void *arg)
{
    app *a = arg;
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++)
        if (kc_reflector_status(a->refl[i])->state != KC_REFL_LIVE) return 0;
    return 1;
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

/* Schedules cannot be listed (403) for good: the lamp says forbidden with the server's reason, but
 * the runs' data is current. It used to be called stale, for ever longer ("data stale for 3m+"):
 * staleness was "since not every reflector was live at once". */
START_TEST(a_resource_never_watched_does_not_make_the_data_stale)
{
    start("forbid=schedules");
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    ck_assert(kc_loop_run_until(ts.loop, runs_live, a, 10000));
    app_conn c;
    for (int i = 0; i < 6; i++) {
        kc_loop_run_until(ts.loop, never, NULL, 500);
        app_connection(a, (double)kc_now_ms() / 1000.0, &c);
        ck_assert_msg(c.stale_since == 0, "stale since %.1f s ago",
                      (double)kc_now_ms() / 1000.0 - c.stale_since);
    }
    ck_assert_int_eq(c.live, 0);
    ck_assert_int_eq(c.retrying, 1);
    ck_assert_msg(strncmp(c.error, "forbidden: schedules.velero.io is forbidden", 43) == 0, "%s",
                  c.error);
    ck_assert_int_eq(c.refused, 403); /* the lamp says forbidden, not an outage */
    ck_assert(c.silent_s == 0);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* Live: nothing is stale, nothing silent. */
START_TEST(live_is_current)
{
    start(NULL);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    ck_assert(kc_loop_run_until(ts.loop, runs_live, a, 10000));
    kc_loop_run_until(ts.loop, never, NULL, 300);
    app_conn c;
    app_connection(a, (double)kc_now_ms() / 1000.0, &c);
    ck_assert_int_eq(c.live, 1);
    ck_assert(c.stale_since == 0);
    ck_assert(c.silent_s == 0);
    ck_assert_str_eq(c.error, "");
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("app");
    TCase *tc = tcase_create("app");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_resource_never_watched_does_not_make_the_data_stale);
    tcase_add_test(tc, live_is_current);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
