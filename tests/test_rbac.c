/* test_rbac.c: veltop-sim's --rbac (sim/rbac.h): a request's attributes as kube-apiserver derives
 * them (verb from method, watch and name; group, namespace, resource, subresource, a name from
 * fieldSelector=metadata.name), the RBAC rule match (verbs, apiGroups, resources with
 * subresources and wildcards, resourceNames, a Role's namespace), the Role files it refuses,
 * and a sim started with a Role: what it does not allow answers 403 with kube's Status and
 * message, what it allows answers, discovery always does, and GET /debug/stats counts the 403s. */
#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "rbac.h"
#include "testutil.h"
#include "vsim.h"

static sim_rbac_req info(const char *method, const char *path, int watch, const char *sel)
{
    sim_rbac_req q;
    sim_rbac_request_info(method, path, watch, sel, &q);
    return q;
}

START_TEST(request_attributes_as_kube_apiserver_derives_them)
{
    sim_rbac_req q = info("GET", "/api/v1/namespaces/velero/pods", 0, NULL);
    ck_assert_int_eq(q.resource_request, 1);
    ck_assert_str_eq(q.verb, "list");
    ck_assert_str_eq(q.group, "");
    ck_assert_str_eq(q.ns, "velero");
    ck_assert_str_eq(q.resource, "pods");
    ck_assert_str_eq(q.name, "");

    q = info("GET", "/api/v1/namespaces/velero/pods", 1, NULL);
    ck_assert_str_eq(q.verb, "watch");

    q = info("GET", "/api/v1/namespaces/velero/pods/velero-1/log", 0, NULL);
    ck_assert_str_eq(q.verb, "get");
    ck_assert_str_eq(q.resource, "pods");
    ck_assert_str_eq(q.sub, "log");
    ck_assert_str_eq(q.name, "velero-1");

    /* a watch of one object by field selector is a watch of that name */
    q = info("GET", "/apis/velero.io/v1/namespaces/velero/downloadrequests", 1,
             "metadata.name=dr-1");
    ck_assert_str_eq(q.verb, "watch");
    ck_assert_str_eq(q.group, "velero.io");
    ck_assert_str_eq(q.version, "v1");
    ck_assert_str_eq(q.resource, "downloadrequests");
    ck_assert_str_eq(q.name, "dr-1");
    q = info("GET", "/apis/velero.io/v1/namespaces/velero/backups", 0, "status.phase=Failed");
    ck_assert_str_eq(q.name, "");

    q = info("POST", "/apis/velero.io/v1/namespaces/velero/downloadrequests", 0, NULL);
    ck_assert_str_eq(q.verb, "create");
    q = info("DELETE", "/apis/velero.io/v1/namespaces/velero/downloadrequests/dr-1", 0, NULL);
    ck_assert_str_eq(q.verb, "delete");
    q = info("DELETE", "/apis/velero.io/v1/namespaces/velero/downloadrequests", 0, NULL);
    ck_assert_str_eq(q.verb, "deletecollection");
    q = info("PATCH", "/apis/velero.io/v1/namespaces/velero/backups/b/status", 0, NULL);
    ck_assert_str_eq(q.verb, "patch");
    ck_assert_str_eq(q.sub, "status");
    q = info("PUT", "/apis/apps/v1/namespaces/velero/daemonsets/node-agent", 0, NULL);
    ck_assert_str_eq(q.verb, "update");

    /* cluster scope, and the namespace object itself */
    q = info("GET", "/apis/velero.io/v1/backupstoragelocations", 0, NULL);
    ck_assert_str_eq(q.verb, "list");
    ck_assert_str_eq(q.ns, "");
    q = info("GET", "/api/v1/namespaces/velero", 0, NULL);
    ck_assert_str_eq(q.resource, "namespaces");
    ck_assert_str_eq(q.name, "velero");
    ck_assert_str_eq(q.ns, "velero");
    q = info("PUT", "/api/v1/namespaces/velero/finalize", 0, NULL);
    ck_assert_str_eq(q.resource, "namespaces");
    ck_assert_str_eq(q.sub, "finalize");

    /* discovery is not a resource request */
    const char *nonres[] = {
        "/api",     "/api/v1",    "/apis", "/apis/velero.io", "/apis/velero.io/v2alpha1",
        "/version", "/openapi/v2"};
    for (size_t i = 0; i < sizeof nonres / sizeof *nonres; i++)
        ck_assert_msg(!info("GET", nonres[i], 0, NULL).resource_request, "%s", nonres[i]);
}
END_TEST

static const char role_yaml[] = "# a manifest as kubectl kustomize builds it\n"
                                "apiVersion: v1\n"
                                "kind: ServiceAccount\n"
                                "metadata: {name: veltop, namespace: velero}\n"
                                "---\n"
                                "apiVersion: rbac.authorization.k8s.io/v1\n"
                                "kind: Role\n"
                                "metadata: {name: veltop, namespace: velero}\n"
                                "rules:\n"
                                "  - apiGroups: [velero.io]\n"
                                "    resources: [backups, restores]\n"
                                "    verbs: [list, watch]\n"
                                "  - apiGroups: ['']\n"
                                "    resources: [pods/log]\n"
                                "    verbs: [get]\n"
                                "  - apiGroups: [apps]\n"
                                "    resources: [daemonsets]\n"
                                "    resourceNames: [node-agent]\n"
                                "    verbs: [get]\n"
                                "---\n"
                                "apiVersion: rbac.authorization.k8s.io/v1\n"
                                "kind: ClusterRole\n"
                                "metadata: {name: veltop-bsl}\n"
                                "rules:\n"
                                "  - apiGroups: [velero.io]\n"
                                "    resources: [backupstoragelocations]\n"
                                "    verbs: [list]\n"
                                "  - apiGroups: ['']\n"
                                "    resources: ['*/status']\n"
                                "    verbs: ['*']\n"
                                "  - nonResourceURLs: [/metrics]\n"
                                "    verbs: [get]\n";

static int allows(const sim_rbac *r, const char *method, const char *path, int watch)
{
    sim_rbac_req q = info(method, path, watch, NULL);
    return sim_rbac_allows(r, &q);
}

START_TEST(rules_allow_exactly_what_they_name)
{
    char err[256] = "";
    sim_rbac *r = sim_rbac_parse(role_yaml, strlen(role_yaml), err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_uint_eq(sim_rbac_nrules(r), 6);
    const char *ns = "/apis/velero.io/v1/namespaces/velero/";
    char p[256];
    snprintf(p, sizeof p, "%sbackups", ns);
    ck_assert(allows(r, "GET", p, 0));
    ck_assert(allows(r, "GET", p, 1));
    ck_assert(!allows(r, "POST", p, 0)); /* create: not a verb of the rule */
    snprintf(p, sizeof p, "%sbackups/b1", ns);
    ck_assert(!allows(r, "GET", p, 0)); /* get: not granted, list is not get */
    snprintf(p, sizeof p, "%sschedules", ns);
    ck_assert(!allows(r, "GET", p, 0)); /* a resource not named */
    ck_assert(
        !allows(r, "GET", "/apis/velero.io/v1/namespaces/other/backups", 0)); /* Role: own ns */
    ck_assert(!allows(r, "GET", "/apis/velero.io/v1/backups", 0)); /* Role: not cluster scope */
    ck_assert(!allows(r, "GET", "/apis/other.io/v1/namespaces/velero/backups", 0)); /* group */

    /* a subresource is its own resource: pods/log allows the log, not the pods */
    ck_assert(allows(r, "GET", "/api/v1/namespaces/velero/pods/velero-1/log", 0));
    ck_assert(!allows(r, "GET", "/api/v1/namespaces/velero/pods/velero-1", 0));
    ck_assert(!allows(r, "GET", "/api/v1/namespaces/velero/pods", 0));

    /* resourceNames: that name only, and never a list */
    ck_assert(allows(r, "GET", "/apis/apps/v1/namespaces/velero/daemonsets/node-agent", 0));
    ck_assert(!allows(r, "GET", "/apis/apps/v1/namespaces/velero/daemonsets/other", 0));

    /* a ClusterRole's rules hold in every namespace and at the cluster scope; a star-slash-status
     * rule: that subresource of every resource */
    ck_assert(allows(r, "GET", "/apis/velero.io/v1/backupstoragelocations", 0));
    ck_assert(allows(r, "GET", "/apis/velero.io/v1/namespaces/x/backupstoragelocations", 0));
    ck_assert(allows(r, "PATCH", "/api/v1/namespaces/x/pods/p/status", 0));
    ck_assert(!allows(r, "PATCH", "/api/v1/namespaces/x/pods/p", 0));

    /* discovery, always */
    ck_assert(allows(r, "GET", "/apis/velero.io/v1", 0));
    ck_assert(allows(r, "GET", "/version", 0));
    sim_rbac_free(r);
    sim_rbac_free(NULL);
}
END_TEST

START_TEST(the_forbidden_message_is_kube_apiservers)
{
    sim_rbac_req q = info("GET", "/api/v1/namespaces/velero/pods", 0, NULL);
    char *m = sim_rbac_forbidden_message(&q, "system:serviceaccount:velero:veltop");
    ck_assert_str_eq(m, "pods is forbidden: User \"system:serviceaccount:velero:veltop\" cannot "
                        "list resource \"pods\" in API group \"\" in the namespace \"velero\"");
    free(m);
    q = info("GET", "/api/v1/namespaces/velero/pods/v-1/log", 0, NULL);
    m = sim_rbac_forbidden_message(&q, "u");
    ck_assert_str_eq(m, "pods \"v-1\" is forbidden: User \"u\" cannot get resource \"pods/log\" in "
                        "API group \"\" in the namespace \"velero\"");
    free(m);
    q = info("GET", "/apis/velero.io/v1/backupstoragelocations", 0, NULL);
    m = sim_rbac_forbidden_message(&q, "u");
    ck_assert_str_eq(m, "backupstoragelocations.velero.io is forbidden: User \"u\" cannot list "
                        "resource \"backupstoragelocations\" in API group \"velero.io\" at the "
                        "cluster scope");
    free(m);
}
END_TEST

START_TEST(files_it_refuses)
{
    char err[256];
    static const char *bad[][2] = {
        {"kind: ServiceAccount\nmetadata: {name: x}\n", "no Role or ClusterRole in it"},
        {"kind: Role\nrules: [{apiGroups: [''], resources: pods, verbs: [get]}]\n",
         "document 1 (Role): rule 1: apiGroups, resources, verbs and resourceNames must be lists "
         "of strings"},
        {"kind: Role\nrules:\n  - resources: [pods]\n", "document 1 (Role): rule 1: no verbs"},
        {"kind: Role\nrules: {}\n", "document 1 (Role): rules is not a list"},
        {"kind: [Role\n", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        sim_rbac *r = sim_rbac_parse(bad[i][0], strlen(bad[i][0]), err, sizeof err);
        ck_assert_msg(r == NULL, "accepted: %s", bad[i][0]);
        if (bad[i][1])
            ck_assert_str_eq(err, bad[i][1]);
        else
            ck_assert_msg(!strncmp(err, "not YAML: ", 10), "%s", err);
    }
    ck_assert_ptr_null(sim_rbac_load("/nonexistent/role.yaml", err, sizeof err));
    ck_assert_str_eq(err, "/nonexistent/role.yaml: No such file or directory");
}
END_TEST

/* ---- a sim with a Role ---- */

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    kc_buf_append(ud, p, sz * n);
    return sz * n;
}

static cJSON *http_json(const char *base, const char *method, const char *path, long *code)
{
    CURL *c = curl_easy_init();
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, path);
    kc_buf out = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
    curl_easy_cleanup(c);
    cJSON *j = cJSON_Parse(kc_buf_cstr(&out));
    ck_assert_msg(j != NULL, "not JSON: %s", kc_buf_cstr(&out));
    kc_buf_free(&out);
    return j;
}

static const char *str(const cJSON *j, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(j, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

START_TEST(a_sim_with_a_role_answers_403_for_the_rest)
{
    char err[256] = "";
    sim_rbac *r = sim_rbac_parse(role_yaml, strlen(role_yaml), err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    vsim *sim =
        vsim_start(&(vsim_opts){.scenario = "demo", .quiet = 1, .rbac = r}, err, sizeof err);
    ck_assert_msg(sim != NULL, "%s", err);
    const char *base = vsim_url(sim);
    long code;

    cJSON *j = http_json(base, "GET", "/apis/velero.io/v1/namespaces/velero/backups", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str(j, "kind"), "BackupList");
    cJSON_Delete(j);

    j = http_json(base, "GET", "/api/v1/namespaces/velero/pods?limit=500", &code);
    ck_assert_int_eq(code, 403);
    ck_assert_str_eq(str(j, "kind"), "Status");
    ck_assert_str_eq(str(j, "reason"), "Forbidden");
    ck_assert_str_eq(str(j, "message"),
                     "pods is forbidden: User \"system:serviceaccount:velero:veltop\" cannot list "
                     "resource \"pods\" in API group \"\" in the namespace \"velero\"");
    ck_assert_int_eq(cJSON_GetObjectItem(j, "code")->valueint, 403);
    ck_assert_str_eq(str(cJSON_GetObjectItem(j, "details"), "kind"), "pods");
    cJSON_Delete(j);

    j = http_json(base, "DELETE", "/apis/velero.io/v1/namespaces/velero/backups/x", &code);
    ck_assert_int_eq(code, 403);
    ck_assert_str_eq(str(cJSON_GetObjectItem(j, "details"), "name"), "x");
    ck_assert_str_eq(str(cJSON_GetObjectItem(j, "details"), "group"), "velero.io");
    cJSON_Delete(j);

    /* discovery and /version, always */
    const char *disc[] = {"/api", "/apis", "/api/v1", "/apis/velero.io/v1", "/version"};
    for (size_t i = 0; i < sizeof disc / sizeof *disc; i++) {
        j = http_json(base, "GET", disc[i], &code);
        ck_assert_msg(code == 200, "%s: %ld", disc[i], code);
        cJSON_Delete(j);
    }

    j = http_json(base, "GET", "/debug/stats", &code);
    ck_assert_int_eq(cJSON_GetObjectItem(j, "rbacDenied")->valueint, 2);
    cJSON_Delete(j);
    vsim_stop(sim);
    sim_rbac_free(r);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    Suite *s = suite_create("rbac");
    TCase *tc = tcase_create("rbac");
    tcase_add_test(tc, request_attributes_as_kube_apiserver_derives_them);
    tcase_add_test(tc, rules_allow_exactly_what_they_name);
    tcase_add_test(tc, the_forbidden_message_is_kube_apiservers);
    tcase_add_test(tc, files_it_refuses);
    tcase_add_test(tc, a_sim_with_a_role_answers_403_for_the_rest);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    curl_global_cleanup();
    return rc;
}
