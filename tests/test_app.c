/* test_app.c: the connection summary the header shows (app_connection) against the in-process
 * veltop-sim: staleness comes from what arrived, per listed resource; a resource that cannot be
 * watched for good (RBAC) does not make the runs' data stale. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
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

/* The in-flight volume lists' label selectors: "KEY in (...)" over the runs' labels in order, at
 * most max names and max bytes each (a label longer than that alone), empty labels skipped; and
 * the query the reflector sends for one (kc_url_escape, as for every selector). */
START_TEST(selector_batches_are_bounded)
{
    const char *names[] = {"a", "bb", "", "ccc", "dddd", "e"};
    char **sel = NULL;
    size_t n = app_selector_batches("k", names, 6, 2, 4096, &sel);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(sel[0], "k in (a,bb)");
    ck_assert_str_eq(sel[1], "k in (ccc,dddd)");
    ck_assert_str_eq(sel[2], "k in (e)");
    for (size_t i = 0; i < n; i++) free(sel[i]);
    free(sel);
    /* by bytes: "k in (a,bb)" is 11, with ",ccc" 15 > 14; "k in (ccc,dddd)" 15 */
    n = app_selector_batches("k", names, 6, 50, 14, &sel);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(sel[0], "k in (a,bb)");
    ck_assert_str_eq(sel[1], "k in (ccc)");
    ck_assert_str_eq(sel[2], "k in (dddd,e)");
    for (size_t i = 0; i < n; i++) free(sel[i]);
    free(sel);
    const char *longer[] = {"x", "a-name-longer-than-the-bound", "y"};
    n = app_selector_batches("k", longer, 3, 50, 12, &sel);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(sel[1], "k in (a-name-longer-than-the-bound)");
    for (size_t i = 0; i < n; i++) free(sel[i]);
    free(sel);
    ck_assert_uint_eq(app_selector_batches("k", names + 2, 1, 50, 4096, &sel), 0);
    ck_assert_ptr_null(sel);
    /* 120 runs in flight: 50, 50, 20 */
    char *many[120];
    for (int i = 0; i < 120; i++) many[i] = xasprintf("nightly-%03d", i);
    n = app_selector_batches("velero.io/backup-name", (const char *const *)many, 120,
                             APP_FLIGHT_MAX_NAMES, APP_FLIGHT_MAX_BYTES, &sel);
    ck_assert_uint_eq(n, 3);
    ck_assert(!strncmp(sel[1], "velero.io/backup-name in (nightly-050,nightly-051,", 49));
    ck_assert(strlen(sel[0]) <= APP_FLIGHT_MAX_BYTES);
    ck_assert_str_eq(sel[2] + strlen(sel[2]) - 12, "nightly-119)");
    char *q = kc_url_escape("velero.io/backup-name in (a,b)");
    ck_assert_str_eq(q, "velero.io%2Fbackup-name%20in%20%28a%2Cb%29");
    free(q);
    for (size_t i = 0; i < n; i++) free(sel[i]);
    free(sel);
    for (int i = 0; i < 120; i++) free(many[i]);
}
END_TEST

static int phase_at_least(void *arg)
{
    void **p = arg;
    return ((app *)p[0])->load_phase >= *(int *)p[1];
}

static int synced(void *arg)
{
    return app_synced(arg);
}

static size_t run_vols(app *a, const char *name)
{
    model_refresh_volumes(a->model);
    model_run *r = model_find_run(a->model, VL_BACKUP, name);
    ck_assert_msg(r != NULL, "no run %s", name);
    return model_run_volumes(a->model, r, NULL, 0);
}

/* In flight first: with the history's volume lists 3 s late, the run in flight's volume is in the
 * model (its lists are whole) while the finished run's is not and the history says loading; then
 * every list is in, the in-flight lists are gone and the whole lists watch alone. */
START_TEST(in_flight_volumes_come_before_the_history)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/inflight_first.yaml",
                                  .faults = "slow-history=3000"});
    tu_sim_connect(&ts);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    ck_assert_int_eq(a->load_phase, APP_LOAD_RUNS);
    int want = APP_LOAD_HISTORY;
    void *p[2] = {a, &want};
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 10000));
    ck_assert_uint_eq(a->n_flight, 2); /* podvolumebackups and datauploads of live-1 */
    ck_assert_uint_eq(a->n_flight_runs[0], 1);
    ck_assert_str_eq(a->flight_runs[0][0], "live-1");
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    ck_assert_uint_eq(run_vols(a, "old-1"), 0);
    ck_assert_int_eq(app_run_volumes_listed(a, model_find_run(a->model, VL_BACKUP, "live-1")), 1);
    ck_assert_int_eq(app_run_volumes_listed(a, model_find_run(a->model, VL_BACKUP, "old-1")), 0);
    ck_assert_int_eq(app_history_loading(a, NULL), 1);
    ck_assert_int_eq(a->model->vols_partial, 1);
    ck_assert_int_eq(app_synced(a), 0); /* --once waits for the history */
    want = APP_LOAD_DONE;
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 15000));
    ck_assert_uint_eq(run_vols(a, "old-1"), 1);
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    ck_assert_uint_eq(a->n_flight, 0);
    ck_assert_int_eq(app_history_loading(a, NULL), 0);
    ck_assert_int_eq(a->model->vols_partial, 0);
    ck_assert_int_eq(app_run_volumes_listed(a, model_find_run(a->model, VL_BACKUP, "old-1")), 1);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* Every loop pass until the runs in flight are whole: has anything of the history been read?
 * p[2]: the whole podvolumebackups list's first_headers_ms then (-1: not asked for yet). */
static int flight_whole_watching_history(void *arg)
{
    void **p = arg;
    app *a = p[0];
    long listed = 0;
    app_history_loading(a, &listed);
    model_refresh_volumes(a->model);
    model_run *old = model_find_run(a->model, VL_BACKUP, "old-1");
    if (a->load_phase < APP_LOAD_HISTORY &&
        (listed || (old && model_run_volumes(a->model, old, NULL, 0))))
        *(int *)p[1] = 1;
    *(int64_t *)p[2] = kc_reflector_status(a->refl[APP_R_PVBS])->first_headers_ms;
    return a->load_phase >= APP_LOAD_HISTORY;
}

/* Over a slow link the history's lists go out with the runs list's answer, but are read only
 * when the runs in flight are whole. The sim's link has a 15 ms one-way delay (30 ms round trip:
 * APP_SLOW_LINK_MS 20 is under it), and every datauploads list answers 1.5 s late (slow=), the
 * in-flight one too, so the runs in flight are whole after 1.5 s; the whole podvolumebackups
 * list (the finished run's volume) has answered long before, and is not read until then. The
 * history is in soon after the runs in flight, not 1.5 s later: its slow datauploads list was
 * asked for with the runs, not only then (its bytes travel meanwhile). (This test ran on an
 * unslowed loopback before the link decided the order; there the history now waits.) */
START_TEST(history_lists_go_out_first_but_are_read_after_the_runs_in_flight)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/inflight_first.yaml",
                                  .faults = "slow=datauploads",
                                  .latency_ms = 15});
    tu_sim_connect(&ts);
    int64_t t0 = kc_now_ms();
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    int early = 0;
    int64_t pvb_headers = -1;
    void *q[3] = {a, &early, &pvb_headers};
    ck_assert(kc_loop_run_until(ts.loop, flight_whole_watching_history, q, 10000));
    int64_t t_flight = kc_now_ms();
    ck_assert_int_eq(a->link, APP_LINK_SLOW);
    ck_assert_msg(t_flight - t0 >= 1400, "the runs in flight whole after %lld ms",
                  (long long)(t_flight - t0));
    ck_assert_msg(!early, "history read before the runs in flight were whole");
    ck_assert_msg(pvb_headers >= 0, "the history's list was not asked for with the runs");
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    int want = APP_LOAD_DONE;
    void *p[2] = {a, &want};
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 10000));
    int64_t waited = kc_now_ms() - t_flight;
    ck_assert_msg(waited < 1000, "the history came %lld ms after the runs in flight",
                  (long long)waited);
    ck_assert_uint_eq(run_vols(a, "old-1"), 1);
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* Over a fast link (loopback, no delay: the runs list answers within APP_SLOW_LINK_MS) the
 * history's lists, asked for with the runs, are withdrawn as soon as the runs list's answer
 * begins, and asked for again only once a frame showed the runs in flight whole (a screen:
 * hold_for_frame, app_frame_drawn): the server does not encode them beside the lists that matter
 * first. So none is under way at that frame (its first_headers_ms is -1 again), and the
 * history's slow datauploads list (1.5 s, slow=) answers 1.5 s after the frame. */
START_TEST(a_fast_link_asks_for_the_history_after_the_runs_in_flight)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/inflight_first.yaml",
                                  .faults = "slow=datauploads"});
    tu_sim_connect(&ts);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    /* valgrind slows loopback's answers past 20 ms: the rule is what is tested, not the machine */
    if (getenv("VELTOP_UNDER_VALGRIND")) a->slow_link_ms = 2000;
    a->hold_for_frame = 1;
    int early = 0;
    int64_t pvb_headers = -1;
    void *q[3] = {a, &early, &pvb_headers};
    ck_assert(kc_loop_run_until(ts.loop, flight_whole_watching_history, q, 10000));
    ck_assert_int_eq(a->link, APP_LINK_FAST);
    ck_assert_msg(!early, "history read before the runs in flight were whole");
    ck_assert_msg(pvb_headers < 0,
                  "the history's list under way before the frame (answered in %lld ms)",
                  (long long)pvb_headers);
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    ck_assert_uint_eq(run_vols(a, "old-1"), 0);
    app_frame_drawn(a);
    int64_t t_frame = kc_now_ms();
    int want = APP_LOAD_DONE;
    void *p[2] = {a, &want};
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 10000));
    int64_t waited = kc_now_ms() - t_frame;
    ck_assert_msg(waited >= 1400, "the history came %lld ms after the frame: under way before it",
                  (long long)waited);
    ck_assert_int_ge(kc_reflector_status(a->refl[APP_R_PVBS])->first_headers_ms, 0);
    ck_assert_uint_eq(run_vols(a, "old-1"), 1);
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* --once's order: every list at once (it waits for all of them anyway): no in-flight lists, and
 * the history's lists are under way from the start. */
START_TEST(once_lists_everything_at_once)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/inflight_first.yaml"});
    tu_sim_connect(&ts);
    app_set_in_flight_first(0);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    app_set_in_flight_first(1);
    ck_assert_int_eq(a->load_phase, APP_LOAD_HISTORY);
    int want = APP_LOAD_DONE;
    void *p[2] = {a, &want};
    ck_assert(kc_loop_run_until(ts.loop, synced, a, 10000));
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 10000));
    ck_assert_uint_eq(a->n_flight, 0);
    ck_assert_uint_eq(run_vols(a, "old-1"), 1);
    ck_assert_uint_eq(run_vols(a, "live-1"), 1);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* Runs in flight named over 63 characters: their volumes carry GetValidName(name) in the run-name
 * label, and the in-flight selectors ask for that value (the run's model label), not the name:
 * both runs' volumes are in before the history. */
START_TEST(in_flight_selectors_use_the_label_value)
{
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/inflight_long_name.yaml",
                                  .faults = "slow-history=3000"});
    tu_sim_connect(&ts);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    int want = APP_LOAD_HISTORY;
    void *p[2] = {a, &want};
    ck_assert(kc_loop_run_until(ts.loop, phase_at_least, p, 10000));
    ck_assert_int_eq(app_history_loading(a, NULL), 1);
    const char *names[2] = {
        "nightly-cluster-wide-backup-of-the-production-namespaces-2026120102000",
        "nightly-cluster-wide-backup-of-the-production-namespaces-2026120102000-"
        "restore"};
    for (int k = 0; k < 2; k++) {
        model_refresh_volumes(a->model);
        model_run *r = model_find_run(a->model, k ? VL_RESTORE : VL_BACKUP, names[k]);
        ck_assert_msg(r != NULL, "no run %s", names[k]);
        ck_assert_uint_eq(strlen(r->label), 63);
        ck_assert_uint_eq(a->n_flight_runs[k], 1);
        ck_assert_str_eq(a->flight_runs[k][0], r->label);
        ck_assert_uint_eq(model_run_volumes(a->model, r, NULL, 0), 1);
        ck_assert_int_eq(app_run_volumes_listed(a, r), 1);
    }
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
    tcase_add_test(tc, selector_batches_are_bounded);
    tcase_add_test(tc, in_flight_volumes_come_before_the_history);
    tcase_add_test(tc, once_lists_everything_at_once);
    tcase_add_test(tc, history_lists_go_out_first_but_are_read_after_the_runs_in_flight);
    tcase_add_test(tc, a_fast_link_asks_for_the_history_after_the_runs_in_flight);
    tcase_add_test(tc, in_flight_selectors_use_the_label_value);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
