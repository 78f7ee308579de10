/* test_simpods.c: the sim's cluster around Velero, object by object: the server and node-agent
 * pods with the labels of `velero install` and of the Helm chart, a node without a node-agent
 * (its pod volumes stay New), a stuck exposer (DataUpload Accepted, its data-mover pod Pending),
 * queued backups, a run whose phase hangs, an Unavailable location, and a server restart
 * (OOMKilled) after which Velero marks the run that was InProgress Failed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

#define SCN(f) FIXTURES_DIR "/scenarios/" f

static cJSON *jpath(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && cur;
         k = strtok_r(NULL, ".", &save)) {
        if (cJSON_IsArray(cur))
            cur = cJSON_GetArrayItem(cur, atoi(k));
        else
            cur = cJSON_GetObjectItemCaseSensitive(cur, k);
    }
    return (cJSON *)cur;
}

static const char *jstr(const cJSON *o, const char *path)
{
    const char *s = cJSON_GetStringValue(jpath(o, path));
    return s ? s : "";
}

static double jnum(const cJSON *o, const char *path)
{
    cJSON *v = jpath(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static simctl *start(simstore *s, const char *scenario, double speed, int helm)
{
    simctl_opts o = {.scenario = scenario,
                     .speed = speed,
                     .seed = 7,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1,
                     .helm = helm};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "simctl_start: %s", err);
    return c;
}

static cJSON *list(simstore *s, const char *plural, const char *selector)
{
    uint64_t rv;
    int st;
    char *msg = NULL;
    cJSON *l = simstore_list(s, plural, "velero", selector, NULL, &rv, &st, &msg);
    free(msg);
    ck_assert_ptr_nonnull(l);
    return l;
}

/* The one object a selector matches. */
static cJSON *one(simstore *s, const char *plural, const char *selector)
{
    cJSON *l = list(s, plural, selector);
    ck_assert_msg(cJSON_GetArraySize(l) == 1, "%s %s: %d objects", plural, selector,
                  cJSON_GetArraySize(l));
    cJSON *o = cJSON_DetachItemFromArray(l, 0);
    cJSON_Delete(l);
    return o;
}

static int ready_of(const cJSON *pod)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, jpath(pod, "status.conditions"))
    {
        if (!strcmp(jstr(c, "type"), "Ready")) return !strcmp(jstr(c, "status"), "True");
    }
    return -1;
}

START_TEST(stuck_scenario_objects)
{
    simstore *s = simstore_new(100000);
    simctl *c = start(s, SCN("stuck.yaml"), 1, 0);
    /* velero install's labels */
    cJSON *srv = one(s, "pods", "deploy=velero");
    ck_assert_str_eq(jstr(srv, "metadata.labels.component"), "velero");
    ck_assert_int_eq(ready_of(srv), 1);
    ck_assert_str_eq(jstr(srv, "status.containerStatuses.0.imageID"),
                     "docker.io/velero/velero@sha256:"
                     "6f3c1be5b8f2c9a4d7e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6");
    ck_assert_double_eq(jnum(srv, "status.containerStatuses.0.restartCount"), 0);
    cJSON_Delete(srv);
    /* node-agents on worker-1 and worker-2, none on worker-3 */
    cJSON *agents = list(s, "pods", "name=node-agent,role=node-agent");
    ck_assert_int_eq(cJSON_GetArraySize(agents), 2);
    ck_assert_str_eq(jstr(agents, "0.spec.nodeName"), "worker-1");
    ck_assert_str_eq(jstr(agents, "1.spec.nodeName"), "worker-2");
    ck_assert_str_eq(jstr(agents, "0.metadata.labels.component"), "velero");
    cJSON_Delete(agents);
    /* queued behind 'running' */
    cJSON *q = simstore_get(s, "backups", "velero", "queued-1");
    ck_assert_str_eq(jstr(q, "status.phase"), "Queued");
    ck_assert_double_eq(jnum(q, "status.queuePosition"), 1);
    ck_assert_ptr_null(jpath(q, "status.startTimestamp"));
    cJSON_Delete(q);
    q = simstore_get(s, "backups", "velero", "queued-2");
    ck_assert_double_eq(jnum(q, "status.queuePosition"), 2);
    cJSON_Delete(q);
    /* no node-agent on worker-3: nobody accepts the PodVolumeBackup */
    cJSON *pvb = one(s, "podvolumebackups", "velero.io/backup-name=no-agent");
    ck_assert_str_eq(jstr(pvb, "status.phase"), "New");
    ck_assert_str_eq(jstr(pvb, "spec.node"), "worker-3");
    ck_assert_ptr_null(jpath(pvb, "status.acceptedTimestamp"));
    cJSON_Delete(pvb);
    /* stuck exposer: the DataUpload stays Accepted, its pod (named after it) Pending */
    cJSON *du = one(s, "datauploads", "velero.io/backup-name=exposer");
    ck_assert_str_eq(jstr(du, "status.phase"), "Accepted");
    ck_assert_str_eq(jstr(du, "status.acceptedByNode"), "worker-1");
    char sel[200];
    snprintf(sel, sizeof sel, "velero.io/data-upload=%s", jstr(du, "metadata.name"));
    cJSON *mover = one(s, "pods", sel);
    ck_assert_str_eq(jstr(mover, "metadata.name"), jstr(du, "metadata.name"));
    ck_assert_str_eq(jstr(mover, "status.phase"), "Pending");
    ck_assert_int_eq(ready_of(mover), 0);
    cJSON_Delete(mover);
    cJSON_Delete(du);
    /* hung: everything done, still InProgress */
    cJSON *h = simstore_get(s, "backups", "velero", "hung");
    ck_assert_str_eq(jstr(h, "status.phase"), "InProgress");
    ck_assert_double_eq(jnum(h, "status.progress.totalItems"), 20);
    ck_assert_double_eq(jnum(h, "status.progress.itemsBackedUp"), 20);
    cJSON_Delete(h);
    pvb = one(s, "podvolumebackups", "velero.io/backup-name=hung");
    ck_assert_str_eq(jstr(pvb, "status.phase"), "Completed");
    cJSON_Delete(pvb);
    /* the offsite location: Unavailable with its message; default untouched */
    cJSON *b = simstore_get(s, "backupstoragelocations", "velero", "offsite");
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(jstr(b, "status.phase"), "Unavailable");
    ck_assert_str_eq(jstr(b, "status.message"),
                     "rpc error: code = Unknown desc = dial tcp 10.0.0.9:9000: connect: "
                     "connection refused");
    ck_assert_ptr_null(jpath(b, "spec.default"));
    cJSON_Delete(b);
    b = simstore_get(s, "backupstoragelocations", "velero", "default");
    ck_assert_str_eq(jstr(b, "status.phase"), "Available");
    cJSON_Delete(b);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

START_TEST(helm_layout_and_server_restart)
{
    simstore *s = simstore_new(100000);
    /* health.yaml: OOMKilled at 2 s, down 10 min: 100x makes that 6 s */
    simctl *c = start(s, SCN("health.yaml"), 100, 1);
    cJSON *srv = one(s, "pods", "app.kubernetes.io/name=velero,name=velero");
    const cJSON *labels = jpath(srv, "metadata.labels");
    ck_assert_str_eq(cJSON_GetStringValue(
                         cJSON_GetObjectItemCaseSensitive(labels, "app.kubernetes.io/instance")),
                     "velero");
    ck_assert_ptr_null(jpath(srv, "metadata.labels.deploy"));
    char name[128];
    snprintf(name, sizeof name, "%s", jstr(srv, "metadata.name"));
    cJSON_Delete(srv);
    cJSON *l = list(s, "pods", "deploy=velero");
    ck_assert_int_eq(cJSON_GetArraySize(l), 0);
    cJSON_Delete(l);
    /* Helm node-agents carry app.kubernetes.io/name=velero too, and name=node-agent */
    l = list(s, "pods", "name=node-agent,app.kubernetes.io/name=velero");
    ck_assert_int_eq(cJSON_GetArraySize(l), 2);
    ck_assert_int_eq(ready_of(cJSON_GetArrayItem(l, 0)), 1);
    ck_assert_int_eq(ready_of(cJSON_GetArrayItem(l, 1)), 0); /* worker-2 */
    ck_assert_str_eq(jstr(l, "1.status.containerStatuses.0.state.waiting.reason"),
                     "CrashLoopBackOff");
    cJSON_Delete(l);
    /* wait (bounded) for the server to be back and the orphaned run Failed */
    int64_t deadline = kc_now_ms() + 30000;
    cJSON *run = NULL;
    while (kc_now_ms() < deadline) {
        cJSON_Delete(run);
        run = simstore_get(s, "backups", "velero", "orphaned");
        if (!strcmp(jstr(run, "status.phase"), "Failed")) break;
        int gone;
        simstore_watch *w =
            simstore_watch_open(s, "backups", "velero", NULL, NULL, simstore_rv(s), &gone);
        const char *type;
        uint64_t rv;
        cJSON_Delete(simstore_watch_next(w, 100, &type, &rv));
        simstore_watch_close(w);
    }
    ck_assert_str_eq(jstr(run, "status.phase"), "Failed");
    ck_assert_str_eq(jstr(run, "status.failureReason"),
                     "found a backup with status \"InProgress\" during the server starting, mark "
                     "it as \"Failed\"");
    cJSON_Delete(run);
    srv = simstore_get(s, "pods", "velero", name);
    ck_assert_double_eq(jnum(srv, "status.containerStatuses.0.restartCount"), 1);
    ck_assert_str_eq(jstr(srv, "status.containerStatuses.0.lastState.terminated.reason"),
                     "OOMKilled");
    ck_assert_double_eq(jnum(srv, "status.containerStatuses.0.lastState.terminated.exitCode"), 137);
    ck_assert_int_eq(ready_of(srv), 1);
    cJSON_Delete(srv);
    /* the never-run schedule was made three days before the start */
    cJSON *sch = simstore_get(s, "schedules", "velero", "nightly");
    double created, epoch;
    ck_assert_int_eq(kc_parse_time(jstr(sch, "metadata.creationTimestamp"), &created), 0);
    cJSON_Delete(sch);
    sch = simstore_get(s, "schedules", "velero", "hourly");
    ck_assert_int_eq(kc_parse_time(jstr(sch, "metadata.creationTimestamp"), &epoch), 0);
    cJSON_Delete(sch);
    ck_assert_double_eq(epoch - created, 3 * 86400.0);
    simctl_stop(c);
    simstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simpods");
    TCase *tc = tcase_create("simpods");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stuck_scenario_objects);
    tcase_add_test(tc, helm_layout_and_server_restart);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
