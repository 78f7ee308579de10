/* test_clockskew.c: a cluster whose clock is off ours. The offset is estimated honestly from the
 * API server's Date headers (1 s resolution, stamped somewhere in the request's span: slow
 * answers and a proxy's own Date outvoted), and every judgement that meets a cluster timestamp
 * with our clock -- seeding, durations, the history's ETA, diagnosis, schedules -- is made on the
 * cluster's clock. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "format.h"
#include "health.h"
#include "runeta.h"
#include "kubeclient/clockoff.h"
#include "kubeclient/pod.h"
#include "kubeclient/util.h"
#include "testutil.h"
#include "vsim.h"

#define NOW  1780308000.0 /* 2026-06-01T10:00:00Z: our wall clock */
#define MONO 5000.0       /* monotonic seconds at NOW */

#define ck_assert_near(x, want, tol)                                                               \
    do {                                                                                           \
        double x_ = (x), w_ = (want), t_ = (tol);                                                  \
        ck_assert_msg(fabs(x_ - w_) <= t_, "%s = %.9g, want %.9g +- %g", #x, x_, w_, t_);          \
    } while (0)

/* ---- the estimate ---- */

START_TEST(one_answer_is_the_midpoint_and_half_a_second)
{
    kc_clockoff c = {0};
    int known = 1;
    ck_assert_double_eq(kc_clockoff_get(&c, &known), 0);
    ck_assert_int_eq(known, 0);
    /* sent at NOW, headers at NOW + 0.2: the server stamped NOW - 600 + [0, 1) somewhere then */
    kc_clockoff_add(&c, NOW, NOW + 0.2, NOW - 600);
    ck_assert_near(kc_clockoff_get(&c, &known), -600 + 0.5 - 0.1, 1e-6);
    ck_assert_int_eq(known, 1);
    /* a negative span (our clock stepped back) or no Date says nothing */
    kc_clockoff_add(&c, NOW + 5, NOW + 4, NOW + 1000);
    kc_clockoff_add(&c, NOW, NOW + 0.1, 0);
    ck_assert_near(kc_clockoff_get(&c, NULL), -599.6, 1e-6);
}
END_TEST

START_TEST(slow_answers_do_not_swing_it)
{
    kc_clockoff c = {0};
    /* four fast answers of a clock 600 s ahead (Date truncated: .3 past the second) */
    for (int i = 0; i < 4; i++) {
        double t = NOW + i * 10;
        kc_clockoff_add(&c, t, t + 0.02, floor(t + 600.3));
    }
    /* four slow ones (a list that took 8 s, the server stamping at its start): their midpoints
     * are seconds off */
    for (int i = 0; i < 4; i++) {
        double t = NOW + 100 + i * 10;
        kc_clockoff_add(&c, t, t + 8, floor(t + 600.3));
    }
    /* the fast ones' median (true 600.3: within the half second a Date cannot say) */
    ck_assert_near(kc_clockoff_get(&c, NULL), 600.49, 1e-6);
}
END_TEST

START_TEST(a_proxys_date_and_one_outlier_are_outvoted)
{
    kc_clockoff c = {0};
    for (int i = 0; i < 5; i++) {
        double t = NOW + i;
        kc_clockoff_add(&c, t, t + 0.05, floor(t - 600));
    }
    /* the fastest answer of all is a proxy's, on its own (right) clock */
    kc_clockoff_add(&c, NOW + 10, NOW + 10.001, NOW + 10);
    ck_assert_near(kc_clockoff_get(&c, NULL), -599.5, 0.1);
    /* one wild Date (a broken middlebox) */
    kc_clockoff_add(&c, NOW + 11, NOW + 11.01, NOW + 86400);
    ck_assert_near(kc_clockoff_get(&c, NULL), -599.5, 0.1);
}
END_TEST

START_TEST(a_clock_that_was_set_is_followed)
{
    kc_clockoff c = {0};
    for (int i = 0; i < KC_CLOCKOFF_SAMPLES; i++)
        kc_clockoff_add(&c, NOW + i, NOW + i + 0.05, floor(NOW + i - 600));
    ck_assert_near(kc_clockoff_get(&c, NULL), -600, 0.6);
    /* the cluster's clock was corrected: once the recent samples say so, so does the estimate */
    for (int i = 0; i < KC_CLOCKOFF_SAMPLES; i++)
        kc_clockoff_add(&c, NOW + 100 + i, NOW + 100 + i + 0.05, floor(NOW + 100 + i));
    ck_assert_near(kc_clockoff_get(&c, NULL), 0, 0.6);
}
END_TEST

static int got_answer(void *arg)
{
    return *(int *)arg;
}

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    (void)err;
    *(int *)arg = 1;
}

/* The client reads the sim's Date headers: a sim 600 s behind is seen so. */
static void client_sees(double skew)
{
    tu_sim t;
    tu_sim_start(&t, (vsim_opts){.scenario = "empty", .clock_skew = skew});
    tu_sim_connect(&t);
    int known = 1;
    ck_assert_double_eq(kc_client_clock_offset(t.client, &known), 0);
    ck_assert_int_eq(known, 0);
    for (int i = 0; i < 3; i++) {
        int done = 0;
        kc_request_opts o = {.path = "/version"};
        kc_client_request(t.client, &o, NULL, on_done, &done);
        ck_assert_int_eq(kc_loop_run_until(t.loop, got_answer, &done, 10000), 1);
    }
    ck_assert_near(kc_client_clock_offset(t.client, &known), skew, 0.6);
    ck_assert_int_eq(known, 1);
    tu_sim_stop(&t);
}

START_TEST(the_client_reads_the_servers_date)
{
    client_sees(-600);
    client_sees(600);
}
END_TEST

/* ---- its use ---- */

static vl_run mkrun(const char *name, const char *phase, double started, int64_t done,
                    int64_t total)
{
    vl_run r = {0};
    r.kind = VL_BACKUP;
    r.meta.name = (char *)name;
    r.phase = (char *)phase;
    r.phase_id = vl_phase_parse(phase);
    r.started = started;
    r.meta.created = started - 1;
    r.has_progress = 1;
    r.items_done = done;
    r.items_total = total;
    r.storage_location = "default";
    return r;
}

START_TEST(the_models_clock_carries_the_offset)
{
    model *m = model_new();
    ck_assert_double_eq(model_cluster_now(m, NOW), NOW);
    model_set_clock_offset(m, -600, 1);
    int known;
    ck_assert_double_eq(model_clock_offset(m, &known), -600);
    ck_assert_int_eq(known, 1);
    ck_assert_double_eq(model_cluster_now(m, NOW), NOW - 600);
    ck_assert_double_eq(model_local_time(m, NOW - 700), NOW - 100);
    ck_assert_double_eq(model_local_time(m, 0), 0); /* unknown stays unknown */
    /* the demo's scaled clock is known exactly: no offset on top */
    model_set_clock(m, NOW, NOW + 50, 10);
    ck_assert_double_eq(model_clock_offset(m, &known), 0);
    ck_assert_int_eq(known, 0);
    ck_assert_double_eq(model_cluster_now(m, NOW + 1), NOW + 60);
    ck_assert_double_eq(model_local_time(m, NOW + 60), NOW + 1);
    model_free(m);
    char b[64];
    ck_assert_str_eq(fmt_clock_offset(b, sizeof b, -600.3), "cluster clock 10m00s behind");
    ck_assert_str_eq(fmt_clock_offset(b, sizeof b, 7384), "cluster clock 2h03m ahead");
    ck_assert_str_eq(fmt_clock_offset(b, sizeof b, 9.9), "");
    ck_assert_str_eq(fmt_clock_offset(b, sizeof b, -2), "");
}
END_TEST

/* Attached to a run 100 s into its 1000 items, on a cluster 600 s behind: 10 items/s, not 1000
 * in 700 s; and its duration is 100 s. */
START_TEST(seeding_and_durations_on_the_clusters_clock)
{
    for (int skew = -600; skew <= 600; skew += 1200) {
        model *m = model_new();
        model_set_clock_offset(m, skew, 1);
        vl_run r = mkrun("b", "InProgress", NOW + skew - 100, 1000, 4000);
        model_run *mr = model_upsert_run(m, &r, MONO, NOW);
        ck_assert_near(model_run_rate(mr, MONO), 10, 1e-6);
        ck_assert_near(model_run_eta(mr, MONO), 300, 1e-6);
        ck_assert_near(model_run_duration(mr, NOW), 100, 1e-6);
        model_free(m);
    }
}
END_TEST

/* Seven earlier runs of 300 s; the run now is 30 s old on a cluster 600 s ahead: the history's
 * ETA is 270 s, not 870. */
START_TEST(history_eta_on_the_clusters_clock)
{
    model *m = model_new();
    model_set_clock_offset(m, 600, 1);
    double cnow = NOW + 600;
    vl_run h[7];
    char names[7][32];
    for (int i = 0; i < 7; i++) {
        snprintf(names[i], sizeof names[i], "nightly-%d", i);
        h[i] = mkrun(names[i], "Completed", cnow - 86400.0 * (i + 1), 500, 500);
        h[i].completed = h[i].started + 300;
        h[i].schedule = (char *)"nightly";
        model_upsert_run(m, &h[i], MONO, NOW);
    }
    vl_run r = mkrun("nightly-now", "InProgress", cnow - 30, 0, 0);
    r.has_progress = 0;
    r.schedule = (char *)"nightly";
    model_run *mr = model_upsert_run(m, &r, MONO, NOW);
    runeta e;
    runeta_compute(m, mr, MONO, NOW, &e);
    ck_assert_int_eq(e.from_history, 1);
    ck_assert_near(e.eta, 270, 1e-6);
    model_free(m);
}
END_TEST

static void put(kc_store *s, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    kc_store_upsert(s, o);
    cJSON_Delete(o);
}

/* A cluster 600 s behind, where everything is young on its own clock: a DataUpload Accepted 100 s
 * ago, a last log line 30 s ago, the last volume done 60 s ago. No rule may fire; without the
 * offset each of them would. */
START_TEST(no_false_diagnosis_on_a_clock_behind)
{
    for (int with_offset = 0; with_offset <= 1; with_offset++) {
        model *m = model_new();
        if (with_offset) model_set_clock_offset(m, -600, 1);
        double cnow = NOW - 600;
        vl_run b = mkrun("b", "WaitingForPluginOperations", cnow - 200, 20, 20);
        model_run *rb = model_upsert_run(m, &b, MONO, NOW);
        vl_volume du = {0};
        du.kind = VL_DU;
        du.meta.name = "b-du";
        du.run_name = "b";
        du.phase = "Accepted";
        du.phase_id = VL_PH_ACCEPTED;
        du.waiting_since = cnow - 100;
        model_upsert_volume(m, &du, MONO);
        vl_run c = mkrun("c", "InProgress", cnow - 200, 20, 20);
        model_run *rc = model_upsert_run(m, &c, MONO - 1, NOW - 1);
        vl_volume pv = {0};
        pv.kind = VL_PVB;
        pv.meta.name = "c-v";
        pv.run_name = "c";
        pv.phase = "Completed";
        pv.phase_id = VL_PH_COMPLETED;
        pv.started = cnow - 150;
        pv.completed = cnow - 60;
        model_upsert_volume(m, &pv, MONO);
        diag_ctx ctx = {m, NULL, MONO, NOW};
        diag d[DIAG_MAX];
        diag_log log = {cnow - 30, "level=info msg=\"Processing item\""};
        size_t nb = diag_run(&ctx, rb, NULL, d, DIAG_MAX);
        size_t nc = diag_run(&ctx, rc, &log, d, DIAG_MAX);
        if (with_offset) {
            ck_assert_uint_eq(nb, 0);
            ck_assert_uint_eq(nc, 0);
        } else { /* the mistake the offset prevents */
            ck_assert_uint_eq(nb, 1);
            ck_assert_uint_eq(nc, 2); /* log-silent and all-done-phase-stuck */
        }
        model_free(m);
    }
    /* and a real one is still found, and dated on the cluster's clock */
    model *m = model_new();
    model_set_clock_offset(m, -600, 1);
    vl_run b = mkrun("b", "WaitingForPluginOperations", NOW - 600 - 900, 20, 20);
    model_run *rb = model_upsert_run(m, &b, MONO, NOW);
    vl_volume du = {0};
    du.kind = VL_DU;
    du.meta.name = "b-du";
    du.run_name = "b";
    du.phase = "Accepted";
    du.phase_id = VL_PH_ACCEPTED;
    du.waiting_since = NOW - 600 - 301;
    model_upsert_volume(m, &du, MONO);
    diag_ctx ctx = {m, NULL, MONO, NOW};
    diag d[DIAG_MAX];
    ck_assert_uint_eq(diag_run(&ctx, rb, NULL, d, DIAG_MAX), 1);
    ck_assert_str_eq(d[0].code, "exposer-stuck");
    ck_assert_str_eq(d[0].message,
                     "DataUpload b-du Accepted for 5m01s: its data-mover pod has not become ready");
    ck_assert_double_eq(d[0].since, NOW - 600 - 301);
    model_free(m);
}
END_TEST

/* An @every 5m schedule that last fired 100 s ago on the cluster's clock: next run in 200 s,
 * not overdue, whichever way the clock is off. */
START_TEST(schedules_fire_on_the_clusters_clock)
{
    for (int skew = -600; skew <= 600; skew += 1200) {
        kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
        char last[40], created[40], json[512];
        kc_format_time(NOW + skew - 100, last, sizeof last);
        kc_format_time(NOW + skew - 86400, created, sizeof created);
        snprintf(json, sizeof json,
                 "{\"metadata\":{\"name\":\"frequent\",\"namespace\":\"velero\","
                 "\"creationTimestamp\":\"%s\"},\"spec\":{\"schedule\":\"@every 5m\"},"
                 "\"status\":{\"lastBackup\":\"%s\"}}",
                 created, last);
        put(sch, json);
        model *m = model_new();
        model_set_clock_offset(m, skew, 1);
        vl_run ok = mkrun("frequent-1", "Completed", NOW + skew - 100, 20, 20);
        ok.completed = ok.started + 10;
        ok.schedule = (char *)"frequent";
        model_upsert_run(m, &ok, MONO, NOW);
        health *h = health_build(m, sch, NULL, NULL, NULL, 0, NOW);
        ck_assert_uint_eq(h->n_sch, 1);
        ck_assert_double_eq(h->now, NOW + skew);
        ck_assert_int_eq(h->sch[0].due.overdue, 0);
        ck_assert_int_eq(h->n_overdue, 0);
        ck_assert_near(h->sch[0].due.next - h->now, 200, 1e-6);
        health_free(h);
        /* without the offset: OVERDUE when behind, "in 13m20s" when ahead */
        model_set_clock_offset(m, 0, 0);
        h = health_build(m, sch, NULL, NULL, NULL, 0, NOW);
        if (skew < 0)
            ck_assert_int_eq(h->sch[0].due.overdue, 1);
        else
            ck_assert_near(h->sch[0].due.next - h->now, 800, 1e-6);
        health_free(h);
        model_free(m);
        kc_store_free(sch);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clockskew");
    TCase *tc = tcase_create("estimate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, one_answer_is_the_midpoint_and_half_a_second);
    tcase_add_test(tc, slow_answers_do_not_swing_it);
    tcase_add_test(tc, a_proxys_date_and_one_outlier_are_outvoted);
    tcase_add_test(tc, a_clock_that_was_set_is_followed);
    tcase_add_test(tc, the_client_reads_the_servers_date);
    suite_add_tcase(s, tc);
    tc = tcase_create("use");
    tcase_add_test(tc, the_models_clock_carries_the_offset);
    tcase_add_test(tc, seeding_and_durations_on_the_clusters_clock);
    tcase_add_test(tc, history_eta_on_the_clusters_clock);
    tcase_add_test(tc, no_false_diagnosis_on_a_clock_behind);
    tcase_add_test(tc, schedules_fire_on_the_clusters_clock);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
