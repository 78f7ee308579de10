/* test_podpick.c: which pod's log is the Velero server's: `velero install` and Helm layouts, never
 * a node-agent pod nor a data-mover pod, the newest Running and Ready one of several. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/podlog.h"
#include "kubeclient/util.h"
#include "testutil.h"

/* One pod: name, labels (JSON object body), phase, Ready status ("True"/"False"/NULL: no
 * conditions), created, deleting. */
static char *pod(const char *name, const char *labels, const char *phase, const char *ready,
                 const char *created, int deleting)
{
    char cond[160] = "";
    if (ready)
        snprintf(cond, sizeof cond,
                 ",\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"},{\"type\":"
                 "\"Ready\",\"status\":\"%s\"}]",
                 ready);
    return xasprintf("{\"metadata\":{\"name\":\"%s\",\"namespace\":\"velero\","
                     "\"creationTimestamp\":\"%s\"%s,\"labels\":{%s}},\"spec\":{\"containers\":"
                     "[{\"name\":\"velero\"}]},\"status\":{\"phase\":\"%s\"%s}}",
                     name, created,
                     deleting ? ",\"deletionTimestamp\":\"2026-12-01T03:00:00Z\"" : "", labels,
                     phase, cond);
}

/* The name of the pod picked out of the pods (NULL-terminated, freed), or "-" for none. */
static char picked[128];
static const char *pick(char *pods[])
{
    kc_buf b = {0};
    kc_buf_printf(&b, "[");
    for (int i = 0; pods[i]; i++) {
        kc_buf_printf(&b, "%s%s", i ? "," : "", pods[i]);
        free(pods[i]);
    }
    kc_buf_printf(&b, "]");
    cJSON *a = cJSON_Parse(kc_buf_cstr(&b));
    ck_assert_ptr_nonnull(a);
    int at = kc_podlog_pick_server(a);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(a, at), "metadata");
    snprintf(picked, sizeof picked, "%s",
             at < 0 ? "-" : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name")));
    cJSON_Delete(a);
    kc_buf_free(&b);
    return picked;
}

#define INSTALL_SERVER "\"component\":\"velero\",\"deploy\":\"velero\""
#define INSTALL_AGENT  "\"component\":\"velero\",\"name\":\"node-agent\""
#define HELM_SERVER                                                                                \
    "\"name\":\"velero\",\"app.kubernetes.io/name\":\"velero\",\"app.kubernetes.io/instance\":"    \
    "\"velero\""
#define HELM_AGENT                                                                                 \
    "\"name\":\"node-agent\",\"role\":\"node-agent\",\"app.kubernetes.io/name\":\"velero\","       \
    "\"app.kubernetes.io/instance\":\"velero\""

START_TEST(velero_install_layout_never_a_node_agent)
{
    /* node-agent pods carry component=velero too, and may be newer */
    char *pods[] = {
        pod("node-agent-x7k2p", INSTALL_AGENT, "Running", "True", "2026-12-01T02:10:00Z", 0),
        pod("velero-7d8f9c6b54-abcde", INSTALL_SERVER, "Running", "True", "2026-12-01T01:00:00Z",
            0),
        pod("node-agent-q9w8e", INSTALL_AGENT, "Running", "True", "2026-12-01T02:11:00Z", 0), NULL};
    ck_assert_str_eq(pick(pods), "velero-7d8f9c6b54-abcde");
}
END_TEST

START_TEST(helm_layout_never_a_node_agent)
{
    char *pods[] = {
        pod("node-agent-5fz2m", HELM_AGENT, "Running", "True", "2026-12-01T02:10:00Z", 0),
        pod("velero-6c9b8d7f5-zx8wq", HELM_SERVER, "Running", "True", "2026-12-01T01:00:00Z", 0),
        NULL};
    ck_assert_str_eq(pick(pods), "velero-6c9b8d7f5-zx8wq");
    char *agents[] = {
        pod("node-agent-5fz2m", HELM_AGENT, "Running", "True", "2026-12-01T02:10:00Z", 0),
        pod("node-agent-8kq1p", HELM_AGENT, "Running", "True", "2026-12-01T02:10:01Z", 0), NULL};
    ck_assert_str_eq(pick(agents), "-");
}
END_TEST

START_TEST(never_a_data_mover_pod)
{
    /* v1.17+ data path pods are named after their DataUpload and labelled with it; one made from
     * the server's template would match deploy=velero */
    char *pods[] = {
        pod("velero-7d8f9c6b54-abcde", INSTALL_SERVER, "Running", "True", "2026-12-01T01:00:00Z",
            0),
        pod("nightly-20261201020000-x7k2p",
            INSTALL_SERVER ",\"velero.io/data-upload\":\"nightly-20261201020000-x7k2p\"", "Running",
            "True", "2026-12-01T02:05:00Z", 0),
        pod("r1-20261201-abcd1", "\"deploy\":\"velero\",\"velero.io/data-download\":\"r1-abcd1\"",
            "Running", "True", "2026-12-01T02:06:00Z", 0),
        pod("nightly-pvb-9z8y7", "\"deploy\":\"velero\",\"velero.io/pod-volume-backup\":\"x\"",
            "Running", "True", "2026-12-01T02:07:00Z", 0),
        NULL};
    ck_assert_str_eq(pick(pods), "velero-7d8f9c6b54-abcde");
}
END_TEST

START_TEST(newest_running_and_ready_of_several)
{
    /* a rollout: the new pod is not Ready yet, a newer one still Pending, the old one leaving */
    char *rollout[] = {
        pod("velero-old", INSTALL_SERVER, "Running", "True", "2026-12-01T01:00:00Z", 0),
        pod("velero-new", INSTALL_SERVER, "Running", "False", "2026-12-01T02:00:00Z", 0),
        pod("velero-pending", INSTALL_SERVER, "Pending", NULL, "2026-12-01T02:01:00Z", 0), NULL};
    ck_assert_str_eq(pick(rollout), "velero-old");
    char *ready[] = {
        pod("velero-old", INSTALL_SERVER, "Running", "True", "2026-12-01T01:00:00Z", 1),
        pod("velero-new", INSTALL_SERVER, "Running", "True", "2026-12-01T02:00:00Z", 0),
        pod("velero-older", INSTALL_SERVER, "Running", "True", "2026-12-01T00:00:00Z", 0), NULL};
    ck_assert_str_eq(pick(ready), "velero-new");
    /* a terminating Ready pod ranks below a Running and Ready one, even newer */
    char *leaving[] = {
        pod("velero-leaving", INSTALL_SERVER, "Running", "True", "2026-12-01T03:00:00Z", 1),
        pod("velero-staying", INSTALL_SERVER, "Running", "True", "2026-12-01T01:00:00Z", 0), NULL};
    ck_assert_str_eq(pick(leaving), "velero-staying");
    /* none Ready: the newest Running; none Running: the newest */
    char *running[] = {pod("velero-a", INSTALL_SERVER, "Running", NULL, "2026-12-01T01:00:00Z", 0),
                       pod("velero-b", INSTALL_SERVER, "Failed", NULL, "2026-12-01T02:00:00Z", 0),
                       NULL};
    ck_assert_str_eq(pick(running), "velero-a");
    char *pending[] = {pod("velero-a", INSTALL_SERVER, "Pending", NULL, "2026-12-01T01:00:00Z", 0),
                       pod("velero-b", INSTALL_SERVER, "Pending", NULL, "2026-12-01T02:00:00Z", 0),
                       NULL};
    ck_assert_str_eq(pick(pending), "velero-b");
    char *none[] = {NULL};
    ck_assert_str_eq(pick(none), "-");
    ck_assert_int_eq(kc_podlog_pick_server(NULL), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("podpick");
    TCase *tc = tcase_create("podpick");
    tcase_add_test(tc, velero_install_layout_never_a_node_agent);
    tcase_add_test(tc, helm_layout_never_a_node_agent);
    tcase_add_test(tc, never_a_data_mover_pod);
    tcase_add_test(tc, newest_running_and_ready_of_several);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
