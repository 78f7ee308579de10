/* test_health.c: pods are told apart by their labels (velero install, Helm, node-agents,
 * data movers), restarts keep their reason and time, and the health picture flags an overdue
 * schedule, an Unavailable location, a restarted server and a node-agent that is not ready. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "kubeclient/daemonset.h"
#include "kubeclient/pod.h"
#include "kubeclient/util.h"
#include "testutil.h"

static kc_pod *pod(const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    kc_pod *p = kc_pod_decode(o);
    cJSON_Delete(o);
    return p;
}

START_TEST(pods_are_told_apart_by_labels)
{
    static const struct {
        const char *labels;
        kc_pod_role role;
    } cases[] = {
        {"{\"deploy\":\"velero\",\"component\":\"velero\"}", KC_POD_SERVER},
        {"{\"name\":\"velero\",\"app.kubernetes.io/name\":\"velero\"}", KC_POD_SERVER},
        {"{\"app.kubernetes.io/name\":\"velero\",\"app.kubernetes.io/instance\":\"v\"}",
         KC_POD_SERVER},
        {"{\"name\":\"node-agent\",\"role\":\"node-agent\",\"component\":\"velero\"}",
         KC_POD_NODE_AGENT},
        {"{\"name\":\"node-agent\",\"app.kubernetes.io/name\":\"velero\"}", KC_POD_NODE_AGENT},
        {"{\"role\":\"node-agent\"}", KC_POD_NODE_AGENT},
        {"{\"velero.io/data-upload\":\"b1-x7k2q\",\"app.kubernetes.io/name\":\"velero\"}",
         KC_POD_OTHER},
        {"{\"component\":\"velero\"}", KC_POD_OTHER},
        {"{}", KC_POD_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"metadata\":{\"name\":\"p\",\"labels\":%s}}",
                 cases[i].labels);
        kc_pod *p = pod(json);
        ck_assert_msg(p->role == cases[i].role, "%s: role %d", cases[i].labels, p->role);
        kc_pod_free(p);
    }
}
END_TEST

START_TEST(restarts_keep_reason_time_and_version)
{
    kc_pod *p = pod(
        "{\"metadata\":{\"name\":\"velero-1\",\"labels\":{\"deploy\":\"velero\"},"
        "\"creationTimestamp\":\"2026-06-01T00:00:00Z\"},"
        "\"spec\":{\"nodeName\":\"w1\",\"containers\":[{\"name\":\"init\",\"image\":\"busybox\"},"
        "{\"name\":\"velero\",\"image\":\"registry:5000/velero/velero:v1.18.1@sha256:ab\"}]},"
        "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
        "\"False\"}],\"containerStatuses\":[{\"name\":\"velero\",\"restartCount\":3,"
        "\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
        "\"lastState\":{\"terminated\":{\"reason\":\"OOMKilled\",\"exitCode\":137,"
        "\"finishedAt\":\"2026-06-01T10:00:00Z\"}}}]}}");
    ck_assert_int_eq(p->role, KC_POD_SERVER);
    ck_assert_int_eq(p->ready, 0);
    ck_assert_int_eq(p->restarts, 3);
    ck_assert_str_eq(p->last_reason, "OOMKilled");
    ck_assert_int_eq(p->last_exit_code, 137);
    ck_assert_double_eq(p->last_restart, 1780308000.0);
    ck_assert_str_eq(p->waiting_reason, "CrashLoopBackOff");
    ck_assert_str_eq(p->version, "v1.18.1");
    ck_assert_str_eq(p->node, "w1");
    kc_pod_free(p);
    p = pod("{\"spec\":{\"containers\":[{\"image\":\"localhost:5000/velero\"}]}}");
    ck_assert_ptr_null(p->version); /* a registry port is not a tag */
    kc_pod_free(p);
    ck_assert_ptr_null(kc_pod_decode(NULL));
}
END_TEST

START_TEST(server_pick_prefers_newest_running_ready)
{
    kc_pod *a = pod("{\"metadata\":{\"name\":\"old\",\"labels\":{\"deploy\":\"velero\"},"
                    "\"creationTimestamp\":\"2026-06-01T00:00:00Z\"},\"status\":{\"phase\":"
                    "\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    kc_pod *b = pod("{\"metadata\":{\"name\":\"new\",\"labels\":{\"deploy\":\"velero\"},"
                    "\"creationTimestamp\":\"2026-06-02T00:00:00Z\"},\"status\":{\"phase\":"
                    "\"Pending\"}}");
    kc_pod *c = pod("{\"metadata\":{\"name\":\"na\",\"labels\":{\"name\":\"node-agent\"},"
                    "\"creationTimestamp\":\"2026-06-03T00:00:00Z\"},\"status\":{\"phase\":"
                    "\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    const kc_pod *all[] = {b, c, a};
    ck_assert_str_eq(kc_pod_pick_server(all, 3)->name, "old");
    const kc_pod *two[] = {b, c};
    ck_assert_str_eq(kc_pod_pick_server(two, 2)->name, "new");
    ck_assert_ptr_null(kc_pod_pick_server(&all[1], 1));
    kc_pod_free(a);
    kc_pod_free(b);
    kc_pod_free(c);
}
END_TEST

/* The one rule the live log (kc_podlog_pick_server) uses too: a Running pod not Ready (or being
 * deleted) beats a Pending one, and velero install's deploy=velero beats a Helm-labelled pod. */
#define READY ",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]"
START_TEST(server_pick_is_the_live_logs_rule)
{
    kc_pod *running = pod("{\"metadata\":{\"name\":\"running\",\"labels\":{\"deploy\":\"velero\"},"
                          "\"creationTimestamp\":\"2026-06-01T00:00:00Z\",\"deletionTimestamp\":"
                          "\"2026-06-03T00:00:00Z\"},\"status\":{\"phase\":\"Running\"" READY "}}");
    kc_pod *pending = pod("{\"metadata\":{\"name\":\"pending\",\"labels\":{\"deploy\":\"velero\"},"
                          "\"creationTimestamp\":\"2026-06-02T00:00:00Z\"},"
                          "\"status\":{\"phase\":\"Pending\"}}");
    kc_pod *helm = pod("{\"metadata\":{\"name\":\"helm\",\"labels\":{\"name\":\"velero\","
                       "\"app.kubernetes.io/name\":\"velero\"},\"creationTimestamp\":"
                       "\"2026-06-04T00:00:00Z\"},\"status\":{\"phase\":\"Running\"" READY "}}");
    kc_pod *mover = pod("{\"metadata\":{\"name\":\"mover\",\"labels\":{\"deploy\":\"velero\","
                        "\"velero.io/data-upload\":\"b1-x\"},\"creationTimestamp\":"
                        "\"2026-06-05T00:00:00Z\"},\"status\":{\"phase\":\"Running\"" READY "}}");
    const kc_pod *two[] = {pending, running};
    ck_assert_str_eq(kc_pod_pick_server(two, 2)->name, "running");
    const kc_pod *all[] = {helm, mover, pending, running};
    ck_assert_str_eq(kc_pod_pick_server(all, 4)->name, "running");
    const kc_pod *helm_only[] = {mover, helm};
    ck_assert_str_eq(kc_pod_pick_server(helm_only, 2)->name, "helm");
    /* the same pods as a list's items: the same pick, by index */
    cJSON *items = cJSON_Parse("[{\"metadata\":{\"name\":\"helm\",\"labels\":{\"name\":\"velero\"},"
                               "\"creationTimestamp\":\"2026-06-04T00:00:00Z\"},"
                               "\"status\":{\"phase\":\"Running\"" READY "}},"
                               "{\"metadata\":{\"name\":\"pending\",\"labels\":{\"deploy\":"
                               "\"velero\"},\"creationTimestamp\":\"2026-06-02T00:00:00Z\"},"
                               "\"status\":{\"phase\":\"Pending\"}}]");
    ck_assert_ptr_nonnull(items);
    ck_assert_int_eq(kc_pod_pick_server_json(items), 1);
    cJSON_Delete(items);
    ck_assert_int_eq(kc_pod_pick_server_json(NULL), -1);
    kc_pod_free(running);
    kc_pod_free(pending);
    kc_pod_free(helm);
    kc_pod_free(mover);
}
END_TEST

static void put(kc_store *s, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    kc_store_upsert(s, o);
    cJSON_Delete(o);
}

#define T_NOW 1780308000.0 /* 2026-06-01T10:00:00Z */

START_TEST(health_flags_what_needs_attention)
{
    kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    kc_store *bsl = kc_store_new(vl_decode_bsl, vl_release_bsl);
    kc_store *pods = kc_store_new(kc_pod_decode_any, kc_pod_release);
    /* daily at 01:00, created long ago, last fired 2 days ago: its runs since then failed */
    put(sch, "{\"metadata\":{\"name\":\"nightly\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"0 1 * * *\"},\"status\":"
             "{\"lastBackup\":\"2026-06-01T01:00:00Z\"}}");
    put(sch, "{\"metadata\":{\"name\":\"a-paused\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-01-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 1h\",\"paused\":true}}");
    put(sch, "{\"metadata\":{\"name\":\"broken\",\"namespace\":\"velero\"},\"spec\":{\"schedule\":"
             "\"61 * * * *\"}}");
    put(bsl, "{\"metadata\":{\"name\":\"default\",\"namespace\":\"velero\"},\"spec\":{\"default\":"
             "true},\"status\":{\"phase\":\"Available\"}}");
    put(bsl, "{\"metadata\":{\"name\":\"offsite\",\"namespace\":\"velero\"},\"status\":{\"phase\":"
             "\"Unavailable\",\"message\":\"403\"}}");
    put(pods,
        "{\"metadata\":{\"name\":\"velero-1\",\"namespace\":\"velero\",\"labels\":"
        "{\"deploy\":\"velero\"}},\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":"
        "\"Ready\",\"status\":\"True\"}],\"containerStatuses\":[{\"restartCount\":2}]}}");
    put(pods, "{\"metadata\":{\"name\":\"na-1\",\"namespace\":\"velero\",\"labels\":{\"name\":"
              "\"node-agent\"}},\"spec\":{\"nodeName\":\"w2\"},\"status\":{\"conditions\":[{"
              "\"type\":\"Ready\",\"status\":\"False\"}]}}");
    put(pods, "{\"metadata\":{\"name\":\"na-0\",\"namespace\":\"velero\",\"labels\":{\"name\":"
              "\"node-agent\"}},\"spec\":{\"nodeName\":\"w1\"},\"status\":{\"conditions\":[{"
              "\"type\":\"Ready\",\"status\":\"True\"}]}}");
    model *m = model_new();
    /* the schedule's runs: one Completed 3 days ago (10 min, 1 GiB of volumes), one Failed */
    vl_run ok = {0}, bad = {0};
    ok.kind = bad.kind = VL_BACKUP;
    ok.meta.name = "nightly-20260529010000";
    bad.meta.name = "nightly-20260601010000";
    ok.schedule = bad.schedule = "nightly";
    ok.phase = "Completed";
    ok.phase_id = VL_PH_COMPLETED;
    ok.started = T_NOW - 3 * 86400 - 9 * 3600;
    ok.completed = ok.started + 600;
    ok.items_total = 300;
    bad.phase = "Failed";
    bad.phase_id = VL_PH_FAILED;
    bad.started = T_NOW - 9 * 3600;
    bad.completed = bad.started + 60;
    bad.items_total = 10;
    model_upsert_run(m, &ok, 1, T_NOW);
    model_upsert_run(m, &bad, 1, T_NOW);

    health *h = health_build(m, sch, bsl, NULL, pods, 1, T_NOW);
    ck_assert_uint_eq(h->n_sch, 3);
    const health_schedule *pa = &h->sch[0], *br = &h->sch[1], *ni = &h->sch[2];
    ck_assert_str_eq(pa->s->meta.name, "a-paused");
    ck_assert_int_eq(pa->due.overdue, 0);
    ck_assert_int_eq(br->cron_ok, 0);
    ck_assert_str_eq(br->cron_err, "end of range (61) above maximum (59): 61");
    ck_assert_ptr_eq(ni->last, &bad);
    ck_assert_double_eq(ni->last_success, ok.started);
    ck_assert_double_eq(ni->due.next, T_NOW + 15 * 3600); /* tomorrow 01:00 */
    ck_assert_int_eq(ni->due.overdue, 1);
    ck_assert_int_eq(ni->n_trend, 2);
    ck_assert_double_eq(ni->dur[0], 600);
    ck_assert_double_eq(ni->dur[1], 60);
    ck_assert_int_eq(ni->items[0], 300);
    ck_assert_int_eq(ni->phase[1], VL_PH_FAILED);
    ck_assert_int_eq(ni->n_recent, 2);
    ck_assert_int_eq(ni->n_ok, 1);
    ck_assert_int_eq(ni->n_failed, 1);
    ck_assert_ptr_eq(ni->last_finished, &bad);
    ck_assert_int_eq(h->n_sched_failing, 1);
    ck_assert_int_eq(h->n_overdue, 1);
    ck_assert_int_eq(h->n_bsl_unavailable, 1);
    ck_assert_ptr_eq(health_bsl(h, "offsite"), h->bsl[1]);
    ck_assert_str_eq(h->server->name, "velero-1");
    ck_assert_uint_eq(h->n_agents, 2);
    ck_assert_str_eq(h->agents[0].node, "w1");
    ck_assert_int_eq(h->n_agents_ready, 1);
    ck_assert_ptr_null(health_agent_on(h, "w3"));
    ck_assert_int_eq(health_agent_on(h, "w2")->ready, 0);
    char buf[256];
    health_verdict v;
    v = health_judge(h, buf, sizeof buf);
    ck_assert_str_eq(buf, "schedules 3 (1 overdue)  nightly: last 2: 1 ok, 1 failed  BSL 1/2 "
                          "available  server ready (2 restarts)  node-agents 1/2 ready");
    ck_assert_int_eq(v, HEALTH_ATTENTION);
    ck_assert_int_eq(ni->bytes_loading, 0);
    health_free(h);

    /* the history's volumes still arriving (in flight first): the trend's bytes say so */
    m->vols_partial = 1;
    h = health_build(m, sch, bsl, NULL, pods, 1, T_NOW);
    ck_assert_int_eq(h->sch[2].n_trend, 2);
    ck_assert_int_eq(h->sch[2].bytes_loading, 1);
    health_free(h);
    m->vols_partial = 0;

    /* nothing listed: nothing needs attention, but the pods are unknown, so health is unknown
     * (not OK) */
    h = health_build(NULL, NULL, NULL, NULL, NULL, 0, T_NOW);
    v = health_judge(h, buf, sizeof buf);
    ck_assert_str_eq(buf, "schedules 0  BSL 0/0 available");
    ck_assert_int_eq(v, HEALTH_UNKNOWN);
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf), "cannot read pods: not listed");
    health_free(h);
    model_free(m);
    kc_store_free(sch);
    kc_store_free(bsl);
    kc_store_free(pods);
}
END_TEST

/* The last 10 finished runs of a schedule by start (an older one and one in progress do not
 * count); a schedule whose newest finished run failed needs attention even when nothing else
 * does, and one whose runs all completed says nothing in the summary. */
START_TEST(schedule_outcomes_count_the_last_ten)
{
    kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    put(sch, "{\"metadata\":{\"name\":\"nightly\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-05-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 24h\"},\"status\":"
             "{\"lastBackup\":\"2026-06-01T09:00:00Z\"}}");
    put(sch, "{\"metadata\":{\"name\":\"fine\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-05-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 24h\"},\"status\":"
             "{\"lastBackup\":\"2026-06-01T09:00:00Z\"}}");
    /* oldest first: C (not counted: 11th), then C P P F P C P F P F, then one InProgress */
    static const vl_phase outs[] = {
        VL_PH_COMPLETED, VL_PH_COMPLETED,        VL_PH_PARTIALLY_FAILED,  VL_PH_PARTIALLY_FAILED,
        VL_PH_FAILED,    VL_PH_PARTIALLY_FAILED, VL_PH_COMPLETED,         VL_PH_PARTIALLY_FAILED,
        VL_PH_FAILED,    VL_PH_PARTIALLY_FAILED, VL_PH_FAILED_VALIDATION, VL_PH_IN_PROGRESS};
    enum { N = sizeof outs / sizeof outs[0] };
    vl_run runs[N + 1];
    char names[N + 1][32];
    memset(runs, 0, sizeof runs);
    model *m = model_new();
    for (int i = 0; i < N; i++) {
        vl_run *r = &runs[i];
        snprintf(names[i], sizeof names[i], "nightly-%02d", i);
        r->kind = VL_BACKUP;
        r->meta.name = names[i];
        r->schedule = "nightly";
        r->phase_id = outs[i];
        r->phase = "x"; /* the phase id counts */
        r->started = T_NOW - (N - i) * 86400.0;
        if (vl_phase_terminal(outs[i])) r->completed = r->started + 60;
        if (outs[i] == VL_PH_FAILED_VALIDATION) r->started = 0; /* never started */
        r->meta.created = T_NOW - (N - i) * 86400.0;
        model_upsert_run(m, r, 1, T_NOW);
    }
    vl_run *f = &runs[N];
    f->kind = VL_BACKUP;
    f->meta.name = "fine-1";
    f->schedule = "fine";
    f->phase = "Completed";
    f->phase_id = VL_PH_COMPLETED;
    f->started = T_NOW - 3600;
    f->completed = T_NOW - 3000;
    model_upsert_run(m, f, 1, T_NOW);
    health *h = health_build(m, sch, NULL, NULL, NULL, 0, T_NOW);
    const health_schedule *fi = &h->sch[0], *ni = &h->sch[1];
    ck_assert_str_eq(ni->s->meta.name, "nightly");
    ck_assert_int_eq(ni->n_recent, 10);
    ck_assert_int_eq(ni->n_ok, 2);
    ck_assert_int_eq(ni->n_partial, 5);
    ck_assert_int_eq(ni->n_failed, 3);
    ck_assert_ptr_eq(ni->last_finished, &runs[N - 2]);
    ck_assert_int_eq(fi->n_recent, 1);
    char oc[96];
    ck_assert_str_eq(health_outcomes(ni, oc, sizeof oc), "last 10: 2 ok, 5 partial, 3 failed");
    ck_assert_str_eq(health_outcomes(fi, oc, sizeof oc), "last 1: 1 ok");
    ck_assert_int_eq(h->n_sched_failing, 1);
    char buf[256];
    health_verdict v;
    v = health_judge(h, buf, sizeof buf);
    ck_assert_str_eq(
        buf, "schedules 2 (1 overdue)  nightly: last 10: 2 ok, 5 partial, 3 failed  BSL 0/0 "
             "available");
    ck_assert_int_eq(v, HEALTH_ATTENTION);
    health_free(h);
    model_free(m);
    kc_store_free(sch);
}
END_TEST

/* Node-agents are counted against the node-agent DaemonSet's desired number; a node where a
 * volume waits and no node-agent runs is named; without the pods nothing is claimed. */
START_TEST(node_agents_count_against_the_daemonset)
{
    kc_store *pods = kc_store_new(kc_pod_decode_any, kc_pod_release);
    kc_store *ds = kc_store_new(kc_daemonset_decode_any, kc_daemonset_release);
    put(pods, "{\"metadata\":{\"name\":\"na-0\",\"namespace\":\"velero\",\"labels\":{\"name\":"
              "\"node-agent\"}},\"spec\":{\"nodeName\":\"w1\"},\"status\":{\"conditions\":[{"
              "\"type\":\"Ready\",\"status\":\"True\"}]}}");
    put(pods, "{\"metadata\":{\"name\":\"na-1\",\"namespace\":\"velero\",\"labels\":{\"name\":"
              "\"node-agent\"}},\"spec\":{\"nodeName\":\"w2\"},\"status\":{\"conditions\":[{"
              "\"type\":\"Ready\",\"status\":\"True\"}]}}");
    put(ds, "{\"metadata\":{\"name\":\"other\",\"namespace\":\"velero\"},\"status\":"
            "{\"desiredNumberScheduled\":9}}");
    put(ds, "{\"metadata\":{\"name\":\"node-agent\",\"namespace\":\"velero\"},\"status\":"
            "{\"currentNumberScheduled\":2,\"desiredNumberScheduled\":4,\"numberReady\":2,"
            "\"numberAvailable\":2}}");
    model *m = model_new();
    vl_volume v = {0};
    v.kind = VL_PVB;
    v.meta.name = "b-x1";
    v.node = "w3";
    v.phase = "New";
    v.phase_id = VL_PH_NEW;
    model_upsert_volume(m, &v, 1);
    vl_volume done = v;
    done.meta.name = "b-x2";
    done.node = "w9"; /* finished: it needs no node-agent now */
    done.phase = "Completed";
    done.phase_id = VL_PH_COMPLETED;
    model_upsert_volume(m, &done, 1);
    health *h = health_build(m, NULL, NULL, NULL, pods, 1, T_NOW);
    health_set_daemonsets(h, ds, 1);
    ck_assert_str_eq(h->agent_ds->name, "node-agent");
    ck_assert_int_eq(health_agents_wanted(h), 4);
    ck_assert_uint_eq(h->n_nodes_without, 1);
    ck_assert_str_eq(h->nodes_without[0], "w3");
    char buf[256];
    health_verdict hv;
    hv = health_judge(h, buf, sizeof buf);
    ck_assert_str_eq(buf, "schedules 0  BSL 0/0 available  server: no pod  node-agents 2/4 ready "
                          "(w3 has none)");
    ck_assert_int_eq(hv, HEALTH_ATTENTION);
    health_free(h);
    /* no DaemonSet listed: the pods seen are the count */
    h = health_build(m, NULL, NULL, NULL, pods, 1, T_NOW);
    ck_assert_int_eq(health_agents_wanted(h), 2);
    health_free(h);
    /* pods not listed: nothing said about node-agents, whatever the DaemonSet: unknown */
    h = health_build(m, NULL, NULL, NULL, NULL, 0, T_NOW);
    health_set_daemonsets(h, ds, 1);
    hv = health_judge(h, buf, sizeof buf);
    ck_assert_str_eq(buf, "schedules 0  BSL 0/0 available");
    ck_assert_int_eq(hv, HEALTH_UNKNOWN);
    health_free(h);
    model_free(m);
    kc_store_free(pods);
    kc_store_free(ds);
}
END_TEST

/* Health is never OK on what veltop cannot see: a list not read makes it unknown, with which and
 * why; a schedule whose backups cannot be read is not overdue ("none yet"), its last success is
 * unknown; something read that needs attention still says so. */
START_TEST(unread_inputs_make_health_unknown)
{
    kc_store *sch = kc_store_new(vl_decode_schedule, vl_release_schedule);
    kc_store *bsl = kc_store_new(vl_decode_bsl, vl_release_bsl);
    kc_store *pods = kc_store_new(kc_pod_decode_any, kc_pod_release);
    kc_store *ds = kc_store_new(kc_daemonset_decode_any, kc_daemonset_release);
    /* hourly, created a day ago, never a backup: overdue while the backups are read */
    put(sch, "{\"metadata\":{\"name\":\"hourly\",\"namespace\":\"velero\",\"creationTimestamp\":"
             "\"2026-06-01T00:00:00Z\"},\"spec\":{\"schedule\":\"@every 1h\"}}");
    put(bsl, "{\"metadata\":{\"name\":\"default\",\"namespace\":\"velero\"},\"status\":"
             "{\"phase\":\"Available\"}}");
    put(pods,
        "{\"metadata\":{\"name\":\"velero-1\",\"namespace\":\"velero\",\"labels\":"
        "{\"deploy\":\"velero\"}},\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":"
        "\"Ready\",\"status\":\"True\"}]}}");
    put(ds, "{\"metadata\":{\"name\":\"node-agent\",\"namespace\":\"velero\"},\"status\":"
            "{\"desiredNumberScheduled\":3}}");
    model *m = model_new();
    char buf[512];

    health *h = health_build(m, sch, bsl, NULL, pods, 1, T_NOW);
    ck_assert_int_eq(h->sch[0].due.overdue, 1);
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_ATTENTION);
    ck_assert_str_eq(buf, "schedules 1 (1 overdue)  BSL 1/1 available  server ready");
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf), "");
    health_free(h);

    /* backups forbidden: the schedule is not overdue, its runs are unknown, health unknown */
    h = health_build(m, sch, bsl, NULL, pods, 1, T_NOW);
    health_set_unread(h, HEALTH_IN_BACKUPS, "forbidden");
    ck_assert_int_eq(h->sch[0].runs_unknown, 1);
    ck_assert_int_eq(h->sch[0].due.overdue, 0);
    ck_assert_int_eq(h->n_overdue, 0);
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_UNKNOWN);
    ck_assert_str_eq(buf, "schedules 1  BSL 1/1 available  server ready");
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf), "cannot read backups: forbidden");
    ck_assert_str_eq(health_verdict_name(HEALTH_UNKNOWN), "unknown");
    health_free(h);

    /* pods forbidden with a DaemonSet wanting 3: not "0/3 ready", not OK: unknown */
    h = health_build(m, sch, bsl, NULL, pods, 1, T_NOW);
    health_set_daemonsets(h, ds, 1);
    health_set_unread(h, HEALTH_IN_BACKUPS, "forbidden");
    health_set_unread(h, HEALTH_IN_PODS, "forbidden");
    ck_assert_int_eq(h->pods_known, 0);
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_UNKNOWN);
    ck_assert_str_eq(buf, "schedules 1  BSL 1/1 available");
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf), "cannot read pods, backups: forbidden");
    health_free(h);

    /* schedules and locations not read: not "schedules 0", not "BSL 0/0" */
    h = health_build(m, NULL, NULL, NULL, pods, 1, T_NOW);
    health_set_unread(h, HEALTH_IN_SCHEDULES, "connection refused");
    health_set_unread(h, HEALTH_IN_BSLS, "not listed yet");
    health_set_unread(h, HEALTH_IN_BACKUPS, "connection refused");
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_UNKNOWN);
    ck_assert_str_eq(buf, "server ready");
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf),
                     "cannot read backups, schedules: connection refused; cannot read "
                     "backupstoragelocations: not listed yet");
    health_free(h);

    /* something read needs attention: ATTENTION, whatever else is unknown */
    h = health_build(m, sch, bsl, NULL, NULL, 0, T_NOW);
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_ATTENTION);
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf), "cannot read pods: not listed");
    health_free(h);
    model_free(m);
    kc_store_free(sch);
    kc_store_free(bsl);
    kc_store_free(pods);
    kc_store_free(ds);
}
END_TEST

/* Every list the app reads is named when it cannot be read: a health input (each exactly once,
 * "incomplete" then says it unless the runs or the answers do), or an answer's own list. */
START_TEST(every_list_is_named_when_unread)
{
    int seen[HEALTH_NIN] = {0};
    for (int i = 0; i < APP_NREFL; i++) {
        int in = health_input_of_list(i);
        ck_assert_msg(in != -2, "list %d (APP_R_*) is neither a health input nor an answer's", i);
        if (in >= 0) seen[in]++;
    }
    for (int in = 0; in < HEALTH_NIN; in++) ck_assert_int_eq(seen[in], 1);
    ck_assert_int_eq(health_input_of_list(APP_R_VSLS), HEALTH_IN_VSLS);
    ck_assert_int_eq(health_input_of_list(APP_R_DAEMONSETS), HEALTH_IN_DAEMONSETS);
    ck_assert_int_eq(health_input_of_list(APP_R_RESTORES), -1);
    ck_assert_int_eq(health_input_of_list(APP_R_PVBS), -1);
    ck_assert_int_eq(health_input_of_list(APP_NREFL), -2);

    model *m = model_new();
    health *h = health_build(m, NULL, NULL, NULL, NULL, 1, T_NOW);
    char buf[256];
    health_set_unread(h, HEALTH_IN_DAEMONSETS, "forbidden");
    health_set_unread(h, HEALTH_IN_VSLS, "connection refused");
    ck_assert_str_eq(health_incomplete(h, HEALTH_IN_DAEMONSETS, buf, sizeof buf),
                     "daemonsets forbidden");
    ck_assert_str_eq(health_incomplete(h, HEALTH_IN_VSLS, buf, sizeof buf),
                     "volumesnapshotlocations: connection refused");
    ck_assert_ptr_null(health_incomplete(h, HEALTH_IN_JOBS, buf, sizeof buf));
    health_set_unread(h, HEALTH_IN_PODS, "forbidden"); /* the answers say "pods forbidden" */
    ck_assert_ptr_null(health_incomplete(h, HEALTH_IN_PODS, buf, sizeof buf));
    ck_assert_int_eq(health_judge(h, buf, sizeof buf), HEALTH_UNKNOWN);
    ck_assert_str_eq(health_unknown(h, buf, sizeof buf),
                     "cannot read pods, daemonsets: forbidden; cannot read "
                     "volumesnapshotlocations: connection refused");
    health_free(h);
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("health");
    TCase *tc = tcase_create("health");
    tcase_add_test(tc, pods_are_told_apart_by_labels);
    tcase_add_test(tc, restarts_keep_reason_time_and_version);
    tcase_add_test(tc, server_pick_prefers_newest_running_ready);
    tcase_add_test(tc, server_pick_is_the_live_logs_rule);
    tcase_add_test(tc, health_flags_what_needs_attention);
    tcase_add_test(tc, schedule_outcomes_count_the_last_ten);
    tcase_add_test(tc, node_agents_count_against_the_daemonset);
    tcase_add_test(tc, unread_inputs_make_health_unknown);
    tcase_add_test(tc, every_list_is_named_when_unread);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
