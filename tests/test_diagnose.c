/* test_diagnose.c: each "why is it stuck?" rule fires on its evidence, says what it saw, dates it,
 * and stays quiet when the evidence is missing or not old enough. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "kubeclient/pod.h"
#include "testutil.h"

#define NOW  1780308000.0 /* 2026-06-01T10:00:00Z, wall */
#define MONO 5000.0       /* monotonic "now" */

static vl_run mkrun(vl_kind kind, const char *name, const char *phase, double started)
{
    vl_run r = {0};
    r.kind = kind;
    r.meta.name = (char *)name;
    r.phase = (char *)phase;
    r.phase_id = vl_phase_parse(phase);
    r.started = started;
    r.meta.created = started > 0 ? started - 2 : NOW - 60;
    r.storage_location = "default";
    return r;
}

static vl_volume mkvol(vl_kind kind, const char *name, const char *run, const char *phase,
                       const char *node, double since)
{
    vl_volume v = {0};
    v.kind = kind;
    v.meta.name = (char *)name;
    v.run_name = (char *)run;
    v.phase = (char *)phase;
    v.phase_id = vl_phase_parse(phase);
    v.node = (char *)node;
    v.waiting_since = since;
    return v;
}

static void put(kc_store *s, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    kc_store_upsert(s, o);
    cJSON_Delete(o);
}

typedef struct fx {
    model *m;
    kc_store *bsl, *pods;
    health *h;
} fx;

static void fx_init(fx *f, const char *server_json)
{
    f->h = NULL;
    f->m = model_new();
    f->bsl = kc_store_new(vl_decode_bsl, vl_release_bsl);
    f->pods = kc_store_new(kc_pod_decode_any, kc_pod_release);
    put(f->bsl, "{\"metadata\":{\"name\":\"default\",\"namespace\":\"velero\"},\"status\":"
                "{\"phase\":\"Available\"}}");
    put(f->bsl, "{\"metadata\":{\"name\":\"offsite\",\"namespace\":\"velero\"},\"status\":"
                "{\"phase\":\"Unavailable\",\"message\":\"connection refused\","
                "\"lastValidationTime\":\"2026-06-01T09:59:30Z\"}}");
    put(f->pods, server_json
                     ? server_json
                     : "{\"metadata\":{\"name\":\"velero-1\",\"namespace\":\"velero\",\"labels\":"
                       "{\"deploy\":\"velero\"},\"creationTimestamp\":\"2026-05-01T00:00:00Z\"},"
                       "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
                       "\"status\":\"True\"}]}}");
    put(f->pods, "{\"metadata\":{\"name\":\"na-1\",\"namespace\":\"velero\",\"labels\":{\"name\":"
                 "\"node-agent\"}},\"spec\":{\"nodeName\":\"w1\"},\"status\":{\"conditions\":[{"
                 "\"type\":\"Ready\",\"status\":\"True\"}]}}");
    put(f->pods, "{\"metadata\":{\"name\":\"na-2\",\"namespace\":\"velero\",\"labels\":{\"name\":"
                 "\"node-agent\"}},\"spec\":{\"nodeName\":\"w2\"},\"status\":{\"conditions\":[{"
                 "\"type\":\"Ready\",\"status\":\"False\"}]}}");
}

static double fx_bsl_since; /* when "veltop first saw" every Unavailable location; 0 unknown */

static size_t fx_diag(fx *f, model_run *r, const diag_log *log, diag *d)
{
    health_free(f->h);
    f->h = health_build(f->m, NULL, f->bsl, NULL, f->pods, 1, NOW);
    for (size_t i = 0; i < f->h->n_bsl; i++) f->h->bsl_since[i] = fx_bsl_since;
    diag_ctx c = {f->m, f->h, MONO, NOW};
    return diag_run(&c, r, log, d, DIAG_MAX);
}

static void fx_free(fx *f)
{
    health_free(f->h);
    model_free(f->m);
    kc_store_free(f->bsl);
    kc_store_free(f->pods);
}

START_TEST(server_restart_after_start_orphans_the_run)
{
    fx f;
    fx_init(&f, "{\"metadata\":{\"name\":\"velero-1\",\"namespace\":\"velero\",\"labels\":{"
                "\"deploy\":\"velero\"},\"creationTimestamp\":\"2026-05-01T00:00:00Z\"},\"status\":"
                "{\"phase\":\"Running\",\"containerStatuses\":[{\"restartCount\":1,\"lastState\":{"
                "\"terminated\":{\"reason\":\"OOMKilled\",\"exitCode\":137,\"finishedAt\":"
                "\"2026-06-01T09:55:00Z\"}}}]}}");
    setenv("TZ", "UTC", 1);
    vl_run a = mkrun(VL_BACKUP, "a", "InProgress", NOW - 600);
    vl_run b = mkrun(VL_BACKUP, "b", "InProgress", NOW - 60); /* started after the restart */
    vl_run c = mkrun(VL_BACKUP, "c", "Failed", NOW - 900);
    c.failure_reason = "found a backup with status \"InProgress\" during the server starting, "
                       "mark it as \"Failed\"";
    c.completed = NOW - 240;
    model_run *ra = model_upsert_run(f.m, &a, MONO, NOW);
    model_run *rb = model_upsert_run(f.m, &b, MONO, NOW);
    model_run *rc = model_upsert_run(f.m, &c, MONO, NOW);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, ra, NULL, d), 1);
    ck_assert_str_eq(d[0].code, "server-restarted");
    ck_assert_str_eq(d[0].message, "the Velero server restarted at 09:55:00 (OOMKilled, exit 137) "
                                   "after this backup started: Velero marks it Failed when it "
                                   "starts again");
    ck_assert_double_eq(d[0].since, NOW - 300);
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 0);
    ck_assert_uint_eq(fx_diag(&f, rc, NULL, d), 1);
    ck_assert_str_eq(d[0].code, "server-restarted");
    ck_assert_str_eq(d[0].message, "orphaned by a Velero server restart (it restarted: OOMKilled, "
                                   "exit 137): marked Failed when the server started again");
    ck_assert_double_eq(d[0].since, NOW - 240);
    fx_free(&f);
}
END_TEST

START_TEST(queued_behind_the_run_in_progress)
{
    fx f;
    fx_init(&f, NULL);
    vl_run run = mkrun(VL_BACKUP, "big", "InProgress", NOW - 3600);
    vl_run q1 = mkrun(VL_BACKUP, "q1", "Queued", 0), q2 = mkrun(VL_BACKUP, "q2", "New", 0);
    q1.meta.created = NOW - 300;
    q2.meta.created = NOW - 200;
    vl_run lone = mkrun(VL_RESTORE, "r1", "New", 0); /* no restore in progress */
    model_upsert_run(f.m, &run, MONO, NOW);
    model_run *r1 = model_upsert_run(f.m, &q1, MONO, NOW);
    model_run *r2 = model_upsert_run(f.m, &q2, MONO, NOW);
    model_run *r3 = model_upsert_run(f.m, &lone, MONO, NOW);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, r2, NULL, d), 1);
    ck_assert_str_eq(d[0].code, "queued");
    ck_assert_str_eq(d[0].message, "New at position 2, behind backup big (InProgress for 1h00m)");
    ck_assert_double_eq(d[0].since, NOW - 200);
    q1.queue_position = 4; /* Velero's own position wins */
    ck_assert_uint_eq(fx_diag(&f, r1, NULL, d), 1);
    ck_assert_str_eq(d[0].message,
                     "Queued at position 4, behind backup big (InProgress for 1h00m)");
    ck_assert_uint_eq(fx_diag(&f, r3, NULL, d), 0);
    fx_free(&f);
}
END_TEST

START_TEST(pod_volume_waits_on_a_node_without_a_ready_agent)
{
    fx f;
    fx_init(&f, NULL);
    vl_run b = mkrun(VL_BACKUP, "b", "InProgress", NOW - 600);
    model_run *rb = model_upsert_run(f.m, &b, MONO, NOW);
    vl_volume ok = mkvol(VL_PVB, "b-ok", "b", "New", "w1", NOW - 300);      /* agent ready */
    vl_volume young = mkvol(VL_PVB, "b-young", "b", "New", "w3", NOW - 59); /* < 1 min */
    vl_volume notready = mkvol(VL_PVB, "b-nr", "b", "Accepted", "w2", NOW - 120);
    vl_volume missing = mkvol(VL_PVB, "b-miss", "b", "New", "w3", NOW - 61);
    vl_volume going = mkvol(VL_PVB, "b-go", "b", "InProgress", "w3", NOW - 600);
    model_upsert_volume(f.m, &ok, MONO);
    model_upsert_volume(f.m, &young, MONO);
    model_upsert_volume(f.m, &notready, MONO);
    model_upsert_volume(f.m, &missing, MONO);
    model_upsert_volume(f.m, &going, MONO);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 2);
    int nr = strstr(d[0].message, "b-nr") ? 0 : 1;
    ck_assert_str_eq(d[nr].code, "node-agent-not-ready");
    ck_assert_str_eq(d[nr].message,
                     "PodVolumeBackup b-nr Accepted for 2m00s on node w2, whose node-agent na-2 is "
                     "not ready");
    ck_assert_double_eq(d[nr].since, NOW - 120);
    ck_assert_str_eq(
        d[!nr].message,
        "PodVolumeBackup b-miss New for 1m01s on node w3, which has no node-agent pod");
    /* pods not listed (forbidden): no verdict */
    health_free(f.h);
    f.h = health_build(f.m, NULL, f.bsl, NULL, NULL, 0, NOW);
    diag_ctx c = {f.m, f.h, MONO, NOW};
    ck_assert_uint_eq(diag_run(&c, rb, NULL, d, DIAG_MAX), 0);
    fx_free(&f);
}
END_TEST

START_TEST(data_mover_stuck_in_accepted_or_prepared)
{
    fx f;
    fx_init(&f, NULL);
    vl_run b = mkrun(VL_BACKUP, "b", "WaitingForPluginOperations", NOW - 900);
    model_run *rb = model_upsert_run(f.m, &b, MONO, NOW);
    vl_volume acc = mkvol(VL_DU, "b-du1", "b", "Accepted", NULL, NOW - 301);
    vl_volume prep = mkvol(VL_DU, "b-du2", "b", "Prepared", "w1", NOW - 420);
    vl_volume fresh = mkvol(VL_DU, "b-du3", "b", "Accepted", NULL, NOW - 299);
    model_upsert_volume(f.m, &acc, MONO);
    model_upsert_volume(f.m, &prep, MONO);
    model_upsert_volume(f.m, &fresh, MONO);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 2);
    int a = strstr(d[0].message, "b-du1") ? 0 : 1;
    ck_assert_str_eq(d[a].code, "exposer-stuck");
    ck_assert_str_eq(
        d[a].message,
        "DataUpload b-du1 Accepted for 5m01s: its data-mover pod has not become ready");
    ck_assert_str_eq(
        d[!a].message,
        "DataUpload b-du2 Prepared for 7m00s on node w1: the data path has not started");
    ck_assert_double_eq(d[!a].since, NOW - 420);
    fx_free(&f);
}
END_TEST

START_TEST(storage_location_unavailable)
{
    fx f;
    fx_init(&f, NULL);
    vl_run b = mkrun(VL_BACKUP, "b", "InProgress", NOW - 60);
    b.storage_location = "offsite";
    vl_run r = mkrun(VL_RESTORE, "r", "InProgress", NOW - 30);
    r.backup_name = "b";
    vl_run done = mkrun(VL_BACKUP, "old", "Completed", NOW - 6000);
    done.storage_location = "offsite";
    vl_run fine = mkrun(VL_BACKUP, "fine", "InProgress", NOW - 60);
    model_run *rb = model_upsert_run(f.m, &b, MONO, NOW);
    model_run *rr = model_upsert_run(f.m, &r, MONO, NOW);
    model_run *rd = model_upsert_run(f.m, &done, MONO, NOW);
    model_run *rf = model_upsert_run(f.m, &fine, MONO, NOW);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 1);
    ck_assert_str_eq(d[0].code, "bsl-unavailable");
    /* the last validation beside it (a clock time in the zone in use) */
    const char *pre = "storage location offsite is Unavailable (last validated ";
    ck_assert_msg(!strncmp(d[0].message, pre, strlen(pre)), "%s", d[0].message);
    ck_assert_str_eq(d[0].message + strlen(pre) + 8, "): connection refused");
    ck_assert_double_eq(d[0].since, NOW - 30); /* not seen before: the validation that said so */
    fx_bsl_since = NOW - 600; /* first seen Unavailable 10 minutes ago: since then */
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 1);
    ck_assert_double_eq(d[0].since, NOW - 600);
    fx_bsl_since = 0;
    ck_assert_uint_eq(fx_diag(&f, rr, NULL, d), 1); /* a restore reads its backup's location */
    ck_assert_str_eq(d[0].code, "bsl-unavailable");
    ck_assert_uint_eq(fx_diag(&f, rd, NULL, d), 0);
    ck_assert_uint_eq(fx_diag(&f, rf, NULL, d), 0);
    fx_free(&f);
}
END_TEST

START_TEST(log_silent_while_in_progress)
{
    fx f;
    fx_init(&f, NULL);
    vl_run b = mkrun(VL_BACKUP, "b", "InProgress", NOW - 3600);
    model_run *rb = model_upsert_run(f.m, &b, MONO, NOW);
    diag d[DIAG_MAX];
    diag_log log = {NOW - 301, "level=info msg=\"Processing item\" resource=pods"};
    ck_assert_uint_eq(fx_diag(&f, rb, &log, d), 1);
    ck_assert_str_eq(d[0].code, "log-silent");
    ck_assert_str_eq(d[0].message,
                     "the Velero server has logged nothing for this backup for 5m01s; "
                     "its last line: level=info msg=\"Processing item\" "
                     "resource=pods");
    ck_assert_double_eq(d[0].since, NOW - 301);
    log.last_time = NOW - 299;
    ck_assert_uint_eq(fx_diag(&f, rb, &log, d), 0);
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 0); /* no log evidence: no verdict */
    fx_free(&f);
}
END_TEST

START_TEST(all_done_but_phase_not_moved)
{
    fx f;
    fx_init(&f, NULL);
    vl_run b = mkrun(VL_BACKUP, "b", "InProgress", NOW - 3600);
    b.has_progress = 1;
    b.items_total = b.items_done = 20;
    /* attached 10 minutes ago (monotonic MONO - 600), nothing moved since */
    model_run *rb = model_upsert_run(f.m, &b, MONO - 600, NOW - 600);
    vl_volume v = mkvol(VL_PVB, "b-v", "b", "Completed", "w1", NOW - 900);
    v.completed = NOW - 400;
    model_upsert_volume(f.m, &v, MONO - 600);
    diag d[DIAG_MAX];
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 1);
    ck_assert_str_eq(d[0].code, "all-done-phase-stuck");
    ck_assert_str_eq(d[0].message,
                     "all 20 items and 1 volume done 6m40s ago, but the phase is still InProgress");
    ck_assert_double_eq(d[0].since, NOW - 400);
    /* a volume still running: not done */
    vl_volume w = mkvol(VL_PVB, "b-w", "b", "InProgress", "w1", NOW - 900);
    model_upsert_volume(f.m, &w, MONO);
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 0);
    model_remove_volume(f.m, VL_PVB, "b-w");
    /* the last volume finished a minute ago: too soon */
    v.completed = NOW - 60;
    model_upsert_volume(f.m, &v, MONO);
    ck_assert_uint_eq(fx_diag(&f, rb, NULL, d), 0);
    fx_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("diagnose");
    TCase *tc = tcase_create("diagnose");
    tcase_add_test(tc, server_restart_after_start_orphans_the_run);
    tcase_add_test(tc, queued_behind_the_run_in_progress);
    tcase_add_test(tc, pod_volume_waits_on_a_node_without_a_ready_agent);
    tcase_add_test(tc, data_mover_stuck_in_accepted_or_prepared);
    tcase_add_test(tc, storage_location_unavailable);
    tcase_add_test(tc, log_silent_while_in_progress);
    tcase_add_test(tc, all_done_but_phase_not_moved);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
