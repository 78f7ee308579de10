/* test_simserver.c: the sim's API server over HTTP, in-process (vsim, scenario empty): watch
 * resume, 410 for an expired resourceVersion, bookmarks, selectors, pagination, merge-patch, 409,
 * 415, Status shapes, faults and their counters. */
#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "vsim.h"
#include "testutil.h"

static vsim *sim;
static char base[256];

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    kc_buf_append(ud, p, sz * n);
    return sz * n;
}

/* One request; returns the body (malloc'd) and the status in *code. */
static char *http(const char *method, const char *path, const char *ctype, const char *body,
                  long *code, char **headers)
{
    CURL *c = curl_easy_init();
    char url[1024];
    snprintf(url, sizeof url, "%s%s", base, path);
    kc_buf out = {0}, hdr = {0};
    struct curl_slist *h = NULL;
    if (ctype) {
        char line[256];
        snprintf(line, sizeof line, "Content-Type: %s", ctype);
        h = curl_slist_append(h, line);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &hdr);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (headers)
        *headers = kc_buf_cstr(&hdr);
    else
        kc_buf_free(&hdr);
    return kc_buf_cstr(&out);
}

static cJSON *http_json(const char *method, const char *path, const char *ctype, const char *body,
                        long *code)
{
    char *s = http(method, path, ctype, body, code, NULL);
    cJSON *j = cJSON_Parse(s);
    ck_assert_msg(j != NULL, "not JSON: %s", s);
    free(s);
    return j;
}

static const char *str_at(const cJSON *j, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItem(j, a);
    if (b) v = cJSON_GetObjectItem(v, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

#define NSP "/apis/velero.io/v1/namespaces/velero/backups"

static char *create_backup(const char *name, const char *labels)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"%s\","
             "\"labels\":%s},\"spec\":{}}",
             name, labels ? labels : "{}");
    long code;
    cJSON *j = http_json("POST", NSP, "application/json", body, &code);
    ck_assert_int_eq(code, 201);
    char *rv = strdup(str_at(cJSON_GetObjectItem(j, "metadata"), "resourceVersion", NULL));
    cJSON_Delete(j);
    return rv;
}

static void setup(void)
{
    char err[256];
    vsim_opts o = {.scenario = "empty", .quiet = 1, .passive = 1};
    sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(sim != NULL, "%s", err);
    snprintf(base, sizeof base, "%s", vsim_url(sim));
}

static void teardown(void)
{
    vsim_stop(sim);
    sim = NULL;
}

/* Lines of a watch body as "TYPE name" (or "TYPE code" for ERROR), comma-joined. */
static char *watch_summary(const char *body)
{
    kc_buf b = {0};
    const char *p = body;
    while (*p) {
        const char *nl = strchr(p, '\n');
        ck_assert_ptr_nonnull(nl);
        char *line = strndup(p, (size_t)(nl - p));
        cJSON *ev = cJSON_Parse(line);
        ck_assert_msg(ev != NULL, "bad line %s", line);
        const char *type = str_at(ev, "type", NULL);
        const cJSON *obj = cJSON_GetObjectItem(ev, "object");
        if (b.len) kc_buf_append(&b, ",", 1);
        if (!strcmp(type, "ERROR"))
            kc_buf_printf(&b, "ERROR %d", cJSON_GetObjectItem(obj, "code")->valueint);
        else if (!strcmp(type, "BOOKMARK"))
            kc_buf_printf(&b, "BOOKMARK");
        else
            kc_buf_printf(&b, "%s %s", type,
                          str_at(cJSON_GetObjectItem(obj, "metadata"), "name", NULL));
        cJSON_Delete(ev);
        free(line);
        p = nl + 1;
    }
    return kc_buf_cstr(&b);
}

START_TEST(watch_resumes_from_a_resource_version)
{
    char *rv1 = create_backup("a", NULL);
    free(create_backup("b", NULL));
    long code;
    char *s = http("PATCH", NSP "/a", "application/merge-patch+json",
                   "{\"status\":{\"phase\":\"InProgress\"}}", &code, NULL);
    ck_assert_int_eq(code, 200);
    free(s);
    char path[256];
    snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=1", rv1);
    char *body = http("GET", path, NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 200);
    char *sum = watch_summary(body);
    ck_assert_str_eq(sum, "ADDED b,MODIFIED a");
    free(sum);
    free(body);
    /* resourceVersion unset: the current state as synthetic ADDED events */
    body = http("GET", NSP "?watch=1&timeoutSeconds=1", NULL, NULL, &code, NULL);
    sum = watch_summary(body);
    ck_assert_str_eq(sum, "ADDED a,ADDED b");
    free(sum);
    free(body);
    /* as apimachinery reads a bool: any value but 0 or false (any case) is a watch, even empty
     * (python3-kubernetes sends watch=True) */
    static const char *yes[] = {"watch=True", "watch=TRUE", "watch=yes", "watch=", "watch"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        snprintf(path, sizeof path, NSP "?%s&timeoutSeconds=1", yes[i]);
        body = http("GET", path, NULL, NULL, &code, NULL);
        ck_assert_int_eq(code, 200);
        sum = watch_summary(body);
        ck_assert_msg(!strcmp(sum, "ADDED a,ADDED b"), "%s: %s", yes[i], sum);
        free(sum);
        free(body);
    }
    static const char *no[] = {"watch=false", "watch=False", "watch=0"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        snprintf(path, sizeof path, NSP "?%s", no[i]);
        cJSON *l = http_json("GET", path, NULL, NULL, &code);
        ck_assert_int_eq(code, 200);
        ck_assert_str_eq(str_at(l, "kind", NULL), "BackupList");
        cJSON_Delete(l);
    }
    free(rv1);
}
END_TEST

START_TEST(expired_resource_version_gets_410_error_event)
{
    char *rv1 = create_backup("a", NULL);
    free(create_backup("b", NULL));
    simstore_expire_history(vsim_store(sim));
    char path[256];
    snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=5", rv1);
    long code;
    char *body = http("GET", path, NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 200);
    char *sum = watch_summary(body);
    ck_assert_str_eq(sum, "ERROR 410");
    ck_assert_ptr_nonnull(strstr(body, "\"reason\":\"Expired\""));
    ck_assert_ptr_nonnull(strstr(body, "too old resource version: "));
    free(sum);
    free(body);
    free(rv1);
}
END_TEST

START_TEST(bookmarks_when_allowed)
{
    vsim_set_bookmark_ms(sim, 200);
    char *rv = create_backup("a", NULL);
    char path[256];
    snprintf(path, sizeof path,
             NSP "?watch=true&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=1", rv);
    long code;
    char *body = http("GET", path, NULL, NULL, &code, NULL);
    char *sum = watch_summary(body);
    ck_assert_msg(!strncmp(sum, "BOOKMARK,BOOKMARK", 17), "got %s", sum);
    ck_assert_ptr_nonnull(strstr(body, "\"kind\":\"Backup\""));
    char want[64];
    snprintf(want, sizeof want, "\"resourceVersion\":\"%s\"", rv);
    ck_assert_ptr_nonnull(strstr(body, want));
    free(sum);
    free(body);
    /* not asked for: none */
    snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=1", rv);
    body = http("GET", path, NULL, NULL, &code, NULL);
    ck_assert_str_eq(body, "");
    free(body);
    free(rv);
}
END_TEST

START_TEST(selectors_on_list_and_watch)
{
    free(create_backup("a", "{\"velero.io/schedule-name\":\"daily\"}"));
    free(create_backup("b", "{\"velero.io/schedule-name\":\"hourly\"}"));
    free(create_backup("c", NULL));
    struct {
        const char *q, *want;
    } cases[] = {
        {"labelSelector=velero.io%2Fschedule-name%3Ddaily", "ADDED a"},
        {"labelSelector=velero.io%2Fschedule-name%20in%20(daily%2Chourly)", "ADDED a,ADDED b"},
        {"labelSelector=!velero.io%2Fschedule-name", "ADDED c"},
        {"labelSelector=velero.io%2Fschedule-name!%3Ddaily", "ADDED b,ADDED c"},
        {"labelSelector=velero.io%2Fschedule-name%3D%3Dhourly", "ADDED b"},
        {"labelSelector=velero.io%2Fschedule-name%20notin%20(daily)", "ADDED b,ADDED c"},
        {"labelSelector=velero.io%2Fschedule-name", "ADDED a,ADDED b"},
        {"labelSelector=velero.io%2Fschedule-name%2Cvelero.io%2Fschedule-name!%3Dhourly",
         "ADDED a"},
        {"fieldSelector=metadata.name!%3Db", "ADDED a,ADDED c"},
        {"fieldSelector=metadata.namespace%3Dvelero%2Cmetadata.name%3Dc", "ADDED c"},
        {"fieldSelector=metadata.name%3Db", "ADDED b"},
        {"fieldSelector=metadata.namespace%3Dother", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, NSP "?watch=true&timeoutSeconds=1&%s", cases[i].q);
        long code;
        char *body = http("GET", path, NULL, NULL, &code, NULL);
        char *sum = watch_summary(body);
        ck_assert_msg(!strcmp(sum, cases[i].want), "%s: got %s", cases[i].q, sum);
        free(sum);
        free(body);
    }
    long code;
    cJSON *j = http_json("GET", NSP "?fieldSelector=status.phase%3DNew", NULL, NULL, &code);
    ck_assert_int_eq(code, 400);
    ck_assert_str_eq(str_at(j, "message", NULL), "field label not supported: status.phase");
    ck_assert_str_eq(str_at(j, "reason", NULL), "BadRequest");
    cJSON_Delete(j);
    /* the same on a watch, before any event */
    j = http_json("GET", NSP "?watch=1&fieldSelector=spec.ttl%3D1h", NULL, NULL, &code);
    ck_assert_int_eq(code, 400);
    ck_assert_str_eq(str_at(j, "message", NULL), "field label not supported: spec.ttl");
    cJSON_Delete(j);
    j = http_json("GET", NSP "?labelSelector=a%20in%20(b", NULL, NULL, &code);
    ck_assert_int_eq(code, 400);
    ck_assert_str_eq(str_at(j, "reason", NULL), "BadRequest");
    cJSON_Delete(j);
    j = http_json("GET", "/apis/velero.io/v1/backups?labelSelector=velero.io%2Fschedule-name", NULL,
                  NULL, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "kind", NULL), "BackupList");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "items")), 2);
    cJSON_Delete(j);
}
END_TEST

START_TEST(pagination_with_continue)
{
    const char *names[] = {"e", "d", "c", "b", "a"};
    for (int i = 0; i < 5; i++) free(create_backup(names[i], NULL));
    long code;
    cJSON *j = http_json("GET", NSP "?limit=2", NULL, NULL, &code);
    const cJSON *md = cJSON_GetObjectItem(j, "metadata");
    ck_assert_int_eq(cJSON_GetObjectItem(md, "remainingItemCount")->valueint, 3);
    char *rv = strdup(str_at(md, "resourceVersion", NULL));
    char seen[64] = "";
    for (int page = 0; page < 3; page++) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "items"))
            strcat(seen, str_at(cJSON_GetObjectItem(it, "metadata"), "name", NULL));
        strcat(seen, "|");
        const char *cont = str_at(cJSON_GetObjectItem(j, "metadata"), "continue", NULL);
        ck_assert_str_eq(str_at(cJSON_GetObjectItem(j, "metadata"), "resourceVersion", NULL), rv);
        if (page == 2) {
            ck_assert_ptr_null(cont);
            break;
        }
        ck_assert_ptr_nonnull(cont);
        char *esc = kc_url_escape(cont);
        char path[512];
        snprintf(path, sizeof path, NSP "?limit=2&continue=%s", esc);
        free(esc);
        cJSON_Delete(j);
        j = http_json("GET", path, NULL, NULL, &code);
        ck_assert_int_eq(code, 200);
    }
    ck_assert_str_eq(seen, "ab|cd|e|");
    cJSON_Delete(j);
    free(rv);
    j = http_json("GET", NSP "?limit=2&continue=%21%21", NULL, NULL, &code);
    ck_assert_int_eq(code, 400);
    cJSON_Delete(j);
    /* a continue token older than the history kept: 410 Expired */
    j = http_json("GET", NSP "?limit=2", NULL, NULL, &code);
    char *esc = kc_url_escape(str_at(cJSON_GetObjectItem(j, "metadata"), "continue", NULL));
    cJSON_Delete(j);
    free(create_backup("f", NULL));
    simstore_expire_history(vsim_store(sim));
    char path[512];
    snprintf(path, sizeof path, NSP "?limit=2&continue=%s", esc);
    free(esc);
    j = http_json("GET", path, NULL, NULL, &code);
    ck_assert_int_eq(code, 410);
    ck_assert_str_eq(str_at(j, "reason", NULL), "Expired");
    cJSON_Delete(j);
}
END_TEST

START_TEST(merge_patch_conflict_and_unsupported_patch)
{
    char *rv = create_backup("a", "{\"x\":\"1\"}");
    long code;
    cJSON *j = http_json(
        "PATCH", NSP "/a", "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"x\":null,\"y\":\"2\"}},\"spec\":{\"ttl\":\"1h\"}}", &code);
    ck_assert_int_eq(code, 200);
    char *labels =
        cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "labels"));
    ck_assert_str_eq(labels, "{\"y\":\"2\"}");
    free(labels);
    cJSON_Delete(j);
    /* PUT with the old resourceVersion: 409 Conflict */
    char body[256];
    snprintf(body, sizeof body,
             "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"%s\"},\"spec\":{}}", rv);
    j = http_json("PUT", NSP "/a", "application/json", body, &code);
    ck_assert_int_eq(code, 409);
    ck_assert_str_eq(str_at(j, "reason", NULL), "Conflict");
    ck_assert_str_eq(str_at(j, "message", NULL),
                     "Operation cannot be fulfilled on backups.velero.io \"a\": the object has "
                     "been modified; please apply your changes to the latest version and try "
                     "again");
    ck_assert_str_eq(str_at(j, "details", "name"), "a");
    ck_assert_str_eq(str_at(j, "details", "kind"), "backups");
    cJSON_Delete(j);
    j = http_json("PATCH", NSP "/a", "application/strategic-merge-patch+json", "{}", &code);
    ck_assert_int_eq(code, 415);
    ck_assert_str_eq(str_at(j, "reason", NULL), "UnsupportedMediaType");
    cJSON_Delete(j);
    j = http_json("GET", NSP "/zzz", NULL, NULL, &code);
    ck_assert_int_eq(code, 404);
    ck_assert_str_eq(str_at(j, "message", NULL), "backups.velero.io \"zzz\" not found");
    cJSON_Delete(j);
    j = http_json("DELETE", NSP "/a", "application/json", "{\"propagationPolicy\":\"Background\"}",
                  &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "status", NULL), "Success");
    ck_assert_str_eq(str_at(j, "details", "name"), "a");
    cJSON_Delete(j);
    free(rv);
}
END_TEST

START_TEST(discovery_table_and_headers)
{
    long code;
    char *hdr = NULL;
    char *s = http("GET", "/apis/velero.io/v1", NULL, NULL, &code, &hdr);
    ck_assert_int_eq(code, 200);
    ck_assert_ptr_nonnull(strstr(hdr, "Cache-Control: no-cache, private"));
    /* Velero's CRDs have no status subresource; pods have status and log */
    ck_assert_ptr_null(strstr(s, "/status\""));
    free(s);
    s = http("GET", "/api/v1", NULL, NULL, &code, NULL);
    ck_assert_ptr_nonnull(strstr(s, "\"name\":\"pods/status\""));
    ck_assert_ptr_nonnull(strstr(s, "\"name\":\"pods/log\""));
    free(s);
    free(hdr);
    s = http("GET", "/openapi/v2", NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 404);
    free(s);
    /* the cluster's other resources (simkinds.c): named as a 1.30 apiserver names them */
    cJSON *d = http_json("GET", "/apis/apps/v1", NULL, NULL, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(d, "groupVersion", NULL), "apps/v1");
    const cJSON *dep = NULL, *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(d, "resources"))
    {
        if (!strcmp(str_at(e, "name", NULL), "deployments")) dep = e;
    }
    ck_assert_ptr_nonnull(dep);
    ck_assert_str_eq(str_at(dep, "kind", NULL), "Deployment");
    ck_assert_str_eq(str_at(dep, "singularName", NULL), "deployment");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(dep, "namespaced")));
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(dep, "shortNames"), 0)->valuestring,
                     "deploy");
    cJSON_Delete(d);
    d = http_json("GET", "/apis/rbac.authorization.k8s.io", NULL, NULL, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(cJSON_GetObjectItem(d, "preferredVersion"), "groupVersion", NULL),
                     "rbac.authorization.k8s.io/v1");
    cJSON_Delete(d);
    s = http("GET", "/apis/apps/v2", NULL, NULL, &code, NULL); /* no such version */
    ck_assert_int_eq(code, 404);
    free(s);
    s = http("GET", "/api/v1", NULL, NULL, &code, NULL); /* core: ConfigMap, once each */
    ck_assert_ptr_nonnull(strstr(s, "{\"name\":\"configmaps\",\"singularName\":\"configmap\","
                                    "\"namespaced\":true,\"kind\":\"ConfigMap\""));
    const char *pods = strstr(s, "\"name\":\"pods\"");
    ck_assert_ptr_nonnull(pods);
    ck_assert_ptr_null(strstr(pods + 1, "\"name\":\"pods\""));
    free(s);
    /* the sim holds none of them: a list is empty, a watch or a name is not found */
    d = http_json("GET", "/apis/apps/v1/namespaces/shop/deployments", NULL, NULL, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(d, "kind", NULL), "DeploymentList");
    ck_assert_str_eq(str_at(d, "apiVersion", NULL), "apps/v1");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d, "items")), 0);
    cJSON_Delete(d);
    d = http_json("GET", "/api/v1/nodes", NULL, NULL, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(d, "kind", NULL), "NodeList");
    cJSON_Delete(d);
    s = http("GET", "/apis/apps/v1/deployments?watch=true", NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 404);
    free(s);
    s = http("GET", "/apis/apps/v1/namespaces/shop/deployments/web", NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 404);
    free(s);
    cJSON *j = http_json("GET", "/version", NULL, NULL, &code);
    ck_assert_str_eq(str_at(j, "minor", NULL), "30");
    cJSON_Delete(j);
    j = http_json("GET", "/version/", NULL, NULL, &code); /* as the apiserver, with a slash too */
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "gitVersion", NULL), "v1.30.0");
    cJSON_Delete(j);
    j = http_json("GET", "/api/v1/namespaces/velero/pods?labelSelector=deploy%3Dvelero", NULL, NULL,
                  &code);
    const cJSON *pod = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "items"), 0);
    ck_assert_str_eq(str_at(cJSON_GetObjectItem(pod, "metadata"), "name", NULL),
                     sim_velero_pod_name());
    /* a ContainerStatus' fields without omitempty are always there */
    const cJSON *cs = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(pod, "status"), "containerStatuses"), 0);
    static const char *always[] = {"name",         "state", "lastState", "ready",
                                   "restartCount", "image", "imageID"};
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        ck_assert_msg(cJSON_GetObjectItem(cs, always[i]) != NULL, "no %s", always[i]);
    ck_assert_int_eq(strncmp(str_at(cs, "imageID", NULL), "docker.io/velero/velero@sha256:", 31),
                     0);
    cJSON_Delete(j);
    simstore_log_append(vsim_store(sim), sim_velero_pod_name(), 1704626519.0, "hello");
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/velero/pods/%s/log?timestamps=true",
             sim_velero_pod_name());
    s = http("GET", path, NULL, NULL, &code, NULL);
    ck_assert_str_eq(s, "2024-01-07T11:21:59.000000000Z hello\n");
    free(s);
}
END_TEST

START_TEST(faults_fire_and_are_counted)
{
    vsim_stop(sim);
    char err[256];
    vsim_opts o = {
        .scenario = "empty", .quiet = 1, .passive = 1, .faults = "error500=2,forbid=restores"};
    sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(sim != NULL, "%s", err);
    snprintf(base, sizeof base, "%s", vsim_url(sim));
    long c1, c2;
    free(http("GET", NSP, NULL, NULL, &c1, NULL));
    free(http("GET", NSP, NULL, NULL, &c2, NULL));
    ck_assert_int_eq(c1, 200);
    ck_assert_int_eq(c2, 500);
    cJSON *j = http_json("GET", "/apis/velero.io/v1/namespaces/velero/restores", NULL, NULL, &c1);
    ck_assert_int_eq(c1, 403);
    ck_assert_str_eq(str_at(j, "message", NULL),
                     "restores.velero.io is forbidden: User "
                     "\"system:serviceaccount:velero:veltop\" cannot list resource \"restores\" in "
                     "API group \"velero.io\" in the namespace \"velero\"");
    cJSON_Delete(j);
    j = http_json("GET", "/debug/stats", NULL, NULL, &c1);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "faults"), "error500")->valueint,
                     1);
    ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "faults"), "forbid")->valueint, 1);
    ck_assert_int_eq(cJSON_GetObjectItem(j, "requests")->valueint, 4);
    cJSON_Delete(j);
    char e[256];
    vsim_opts bad = {.scenario = "empty", .quiet = 1, .faults = "error500=x"};
    ck_assert_ptr_null(vsim_start(&bad, e, sizeof e));
    ck_assert_int_eq(strncmp(e, "bad fault 'error500=x'", 22), 0);
}
END_TEST

START_TEST(create_generate_name_and_errors)
{
    long code;
    cJSON *j = http_json("POST", NSP, "application/json",
                         "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":"
                         "{\"generateName\":\"nightly-\"},\"spec\":{}}",
                         &code);
    ck_assert_int_eq(code, 201);
    const cJSON *md = cJSON_GetObjectItem(j, "metadata");
    const char *name = str_at(md, "name", NULL);
    ck_assert_ptr_nonnull(name);
    ck_assert_uint_eq(strlen(name), 13);
    ck_assert_int_eq(strncmp(name, "nightly-", 8), 0);
    ck_assert_uint_eq(strspn(name + 8, "bcdfghjklmnpqrstvwxz2456789"), 5);
    ck_assert_str_eq(str_at(md, "generateName", NULL), "nightly-");
    ck_assert_str_eq(str_at(md, "namespace", NULL), "velero");
    ck_assert_int_eq(cJSON_GetObjectItem(md, "generation")->valueint, 1);
    ck_assert_ptr_nonnull(str_at(md, "uid", NULL));
    ck_assert_ptr_nonnull(str_at(md, "creationTimestamp", NULL));
    ck_assert_ptr_nonnull(str_at(md, "resourceVersion", NULL));
    cJSON_Delete(j);
    /* a taken name: 409 AlreadyExists */
    free(create_backup("taken", NULL));
    j = http_json("POST", NSP, "application/json",
                  "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                  "\"taken\"}}",
                  &code);
    ck_assert_int_eq(code, 409);
    ck_assert_str_eq(str_at(j, "reason", NULL), "AlreadyExists");
    ck_assert_str_eq(str_at(j, "message", NULL), "backups.velero.io \"taken\" already exists");
    cJSON_Delete(j);
    /* a body namespace that differs from the URL: 400 */
    j = http_json("POST", NSP, "application/json",
                  "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                  "\"x\",\"namespace\":\"other\"}}",
                  &code);
    ck_assert_int_eq(code, 400);
    ck_assert_str_eq(str_at(j, "reason", NULL), "BadRequest");
    cJSON_Delete(j);
    /* not JSON: 400 with a Status */
    j = http_json("POST", NSP, "application/json", "{nope", &code);
    ck_assert_int_eq(code, 400);
    ck_assert_str_eq(str_at(j, "kind", NULL), "Status");
    cJSON_Delete(j);
    /* an unknown path: 404 with the apiserver's message */
    j = http_json("GET", "/apis/velero.io/v1/namespaces/velero/widgets", NULL, NULL, &code);
    ck_assert_int_eq(code, 404);
    ck_assert_str_eq(str_at(j, "message", NULL),
                     "the server could not find the requested resource");
    ck_assert_str_eq(str_at(j, "reason", NULL), "NotFound");
    cJSON_Delete(j);
}
END_TEST

static int generation_of(const cJSON *j)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "generation")->valueint;
}

/* As Velero's CRDs: no /status subresource (404, as an unknown path), status written through the
 * main resource, and generation bumped by any change but to metadata. */
START_TEST(no_status_subresource_and_generation)
{
    free(create_backup("a", NULL));
    long code;
    cJSON *j =
        http_json("PATCH", NSP "/a/status", "application/merge-patch+json",
                  "{\"spec\":{\"ttl\":\"9h\"},\"status\":{\"phase\":\"InProgress\"}}", &code);
    ck_assert_int_eq(code, 404);
    ck_assert_str_eq(str_at(j, "message", NULL),
                     "the server could not find the requested resource");
    cJSON_Delete(j);
    j = http_json("PUT", NSP "/a/status", "application/json",
                  "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Completed\"}}", &code);
    ck_assert_int_eq(code, 404);
    cJSON_Delete(j);
    j = http_json("GET", NSP "/a/status", NULL, NULL, &code);
    ck_assert_int_eq(code, 404);
    cJSON_Delete(j);
    /* the main resource takes status; it is a change, so generation moves */
    j = http_json("PATCH", NSP "/a", "application/merge-patch+json",
                  "{\"status\":{\"phase\":\"Completed\"}}", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "status", "phase"), "Completed");
    ck_assert_int_eq(generation_of(j), 2);
    cJSON_Delete(j);
    /* labels are metadata: generation stays */
    j = http_json("PATCH", NSP "/a", "application/merge-patch+json",
                  "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}", &code);
    ck_assert_int_eq(code, 200);
    ck_assert_int_eq(generation_of(j), 2);
    cJSON_Delete(j);
    j = http_json("PATCH", NSP "/a", "application/merge-patch+json", "{\"spec\":{\"ttl\":\"1h\"}}",
                  &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "spec", "ttl"), "1h");
    ck_assert_str_eq(str_at(j, "status", "phase"), "Completed");
    ck_assert_int_eq(generation_of(j), 3);
    cJSON_Delete(j);
    /* PUT with the current resourceVersion succeeds */
    j = http_json("GET", NSP "/a", NULL, NULL, &code);
    char body[256];
    snprintf(body, sizeof body,
             "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"%s\"},\"spec\":{\"ttl\":\"2h\"}}",
             str_at(cJSON_GetObjectItem(j, "metadata"), "resourceVersion", NULL));
    cJSON_Delete(j);
    j = http_json("PUT", NSP "/a", "application/json", body, &code);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(str_at(j, "spec", "ttl"), "2h");
    ck_assert_int_eq(generation_of(j), 4); /* spec changed and status gone */
    cJSON_Delete(j);
    /* the patched object of a missing name: 404 */
    j = http_json("PATCH", NSP "/zzz", "application/merge-patch+json", "{}", &code);
    ck_assert_int_eq(code, 404);
    ck_assert_str_eq(str_at(j, "reason", NULL), "NotFound");
    cJSON_Delete(j);
}
END_TEST

#define TABLE_ACCEPT                                                                               \
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/"                                    \
    "json;as=Table;v=v1beta1;g=meta.k8s.io,"                                                       \
    "application/json"

/* GET with an Accept header; body and code. */
static char *http_accept(const char *path, const char *accept, long *code)
{
    CURL *c = curl_easy_init();
    char url[1024], line[512];
    snprintf(url, sizeof url, "%s%s", base, path);
    snprintf(line, sizeof line, "Accept: %s", accept);
    struct curl_slist *h = curl_slist_append(NULL, line);
    kc_buf out = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return kc_buf_cstr(&out);
}

static char *column_names(const cJSON *table)
{
    kc_buf b = {0};
    const cJSON *col;
    cJSON_ArrayForEach(col, cJSON_GetObjectItem(table, "columnDefinitions"))
    {
        if (b.len) kc_buf_append(&b, ",", 1);
        kc_buf_printf(&b, "%s", str_at(col, "name", NULL));
    }
    return kc_buf_cstr(&b);
}

START_TEST(tables_for_kubectl)
{
    free(create_backup("a", NULL));
    long code;
    cJSON *j = http_json("PATCH", NSP "/a", "application/merge-patch+json",
                         "{\"status\":{\"phase\":\"InProgress\",\"errors\":2,\"progress\":{"
                         "\"totalItems\":10,\"itemsBackedUp\":3}}}",
                         &code);
    cJSON_Delete(j);
    char *s = http_accept(NSP, TABLE_ACCEPT, &code);
    ck_assert_int_eq(code, 200);
    j = cJSON_Parse(s);
    free(s);
    ck_assert_str_eq(str_at(j, "kind", NULL), "Table");
    ck_assert_str_eq(str_at(j, "apiVersion", NULL), "meta.k8s.io/v1");
    ck_assert_ptr_nonnull(str_at(j, "metadata", "resourceVersion"));
    char *cols = column_names(j);
    ck_assert_str_eq(cols, "Name,Phase,Items,Started,Errors,Warnings,Age");
    free(cols);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0);
    cJSON *cellv = cJSON_GetObjectItem(row, "cells");
    const char *age = cJSON_GetStringValue(cJSON_GetArrayItem(cellv, 6));
    ck_assert_ptr_nonnull(age);
    ck_assert_msg(!strcmp(age, "0s") || !strcmp(age, "1s") || !strcmp(age, "2s"), "age %s", age);
    cJSON_DeleteItemFromArray(cellv, 6);
    char *cells = cJSON_PrintUnformatted(cellv);
    ck_assert_str_eq(cells, "[\"a\",\"InProgress\",\"3/10\",null,2,0]");
    free(cells);
    ck_assert_str_eq(str_at(cJSON_GetObjectItem(row, "object"), "kind", NULL),
                     "PartialObjectMetadata");
    ck_assert_str_eq(
        str_at(cJSON_GetObjectItem(cJSON_GetObjectItem(row, "object"), "metadata"), "name", NULL),
        "a");
    cJSON_Delete(j);
    /* a watch of Tables: column definitions in the first event only */
    free(create_backup("b", NULL));
    s = http_accept(NSP "?watch=true&timeoutSeconds=1", TABLE_ACCEPT, &code);
    char *nl = strchr(s, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    cJSON *e1 = cJSON_Parse(s), *e2 = cJSON_Parse(nl + 1);
    ck_assert_ptr_nonnull(e1);
    ck_assert_ptr_nonnull(e2);
    ck_assert_str_eq(str_at(e1, "type", NULL), "ADDED");
    cols = column_names(cJSON_GetObjectItem(e1, "object"));
    ck_assert_str_eq(cols, "Name,Phase,Items,Started,Errors,Warnings,Age");
    free(cols);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(e2, "object"),
                                                            "columnDefinitions")),
                     0);
    ck_assert_int_eq(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(e2, "object"), "rows")), 1);
    ck_assert_ptr_nonnull(str_at(cJSON_GetObjectItem(e2, "object"), "metadata", "resourceVersion"));
    cJSON_Delete(e1);
    cJSON_Delete(e2);
    free(s);
    /* volumes: bytes and node */
    s = http_accept("/apis/velero.io/v2alpha1/namespaces/velero/datauploads", TABLE_ACCEPT, &code);
    j = cJSON_Parse(s);
    free(s);
    cols = column_names(j);
    ck_assert_str_eq(cols, "Name,Phase,Bytes Done,Total Bytes,Node,Age");
    free(cols);
    cJSON_Delete(j);
}
END_TEST

START_TEST(watch_timeout_seconds_is_honoured)
{
    int64_t t0 = kc_now_ms();
    long code;
    char *body = http("GET", NSP "?watch=true&timeoutSeconds=1", NULL, NULL, &code, NULL);
    int64_t took = kc_now_ms() - t0;
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(body, "");
    free(body);
    ck_assert_msg(took >= 950 && took < 3000, "a 1 s watch took %lld ms", (long long)took);
    t0 = kc_now_ms();
    body = http("GET", NSP "?watch=true&timeoutSeconds=2", NULL, NULL, &code, NULL);
    took = kc_now_ms() - t0;
    free(body);
    ck_assert_msg(took >= 1950 && took < 4000, "a 2 s watch took %lld ms", (long long)took);
}
END_TEST

/* ---- pod logs ---- */

static char *log_path(const char *query)
{
    static char p[512];
    snprintf(p, sizeof p, "/api/v1/namespaces/velero/pods/%s/log%s", sim_velero_pod_name(), query);
    return p;
}

START_TEST(pod_log_tail_and_since)
{
    simstore *st = vsim_store(sim);
    const char *pod = sim_velero_pod_name();
    simstore_log_append(st, pod, 1704626519.0, "one");   /* 11:21:59 */
    simstore_log_append(st, pod, 1704626529.0, "two");   /* 11:22:09 */
    simstore_log_append(st, pod, 1704626539.5, "three"); /* 11:22:19.5 */
    long code;
    char *s = http("GET", log_path(""), NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 200);
    ck_assert_str_eq(s, "one\ntwo\nthree\n");
    free(s);
    s = http("GET", log_path("?tailLines=2"), NULL, NULL, &code, NULL);
    ck_assert_str_eq(s, "two\nthree\n");
    free(s);
    s = http("GET", log_path("?tailLines=0"), NULL, NULL, &code, NULL);
    ck_assert_str_eq(s, "");
    free(s);
    s = http("GET", log_path("?tailLines=10"), NULL, NULL, &code, NULL);
    ck_assert_str_eq(s, "one\ntwo\nthree\n");
    free(s);
    s = http("GET", log_path("?sinceTime=2024-01-07T11%3A22%3A09Z"), NULL, NULL, &code, NULL);
    ck_assert_str_eq(s, "two\nthree\n");
    free(s);
    s = http("GET", log_path("?sinceTime=2024-01-07T11%3A22%3A10Z&timestamps=true"), NULL, NULL,
             &code, NULL);
    ck_assert_str_eq(s, "2024-01-07T11:22:19.500000000Z three\n");
    free(s);
    cJSON *j = http_json("GET", log_path("?sinceTime=yesterday"), NULL, NULL, &code);
    ck_assert_int_eq(code, 400);
    cJSON_Delete(j);
    j = http_json("GET", "/api/v1/namespaces/velero/pods/nope/log", NULL, NULL, &code);
    ck_assert_int_eq(code, 404);
    ck_assert_str_eq(str_at(j, "message", NULL), "pods \"nope\" not found");
    cJSON_Delete(j);
}
END_TEST

typedef struct follow_state {
    kc_buf got;
    int lines;
} follow_state;

/* Each line that arrives makes the next one: the stream must carry lines written after the
 * request started. Stops the transfer after the third line. */
static size_t on_follow(char *p, size_t sz, size_t n, void *ud)
{
    follow_state *f = ud;
    kc_buf_append(&f->got, p, sz * n);
    for (size_t i = 0; i < sz * n; i++)
        if (p[i] == '\n') f->lines++;
    if (f->lines >= 3) return 0;
    if (f->lines == 1 && !strstr(f->got.data, "two"))
        simstore_log_append(vsim_store(sim), sim_velero_pod_name(), kc_wall_now(), "two");
    if (f->lines == 2 && !strstr(f->got.data, "three"))
        simstore_log_append(vsim_store(sim), sim_velero_pod_name(), kc_wall_now(), "three");
    return sz * n;
}

START_TEST(pod_log_follow_streams_new_lines)
{
    simstore_log_append(vsim_store(sim), sim_velero_pod_name(), kc_wall_now(), "zero");
    simstore_log_append(vsim_store(sim), sim_velero_pod_name(), kc_wall_now(), "one");
    CURL *c = curl_easy_init();
    char url[1024];
    snprintf(url, sizeof url, "%s%s", base, log_path("?follow=true&tailLines=1"));
    follow_state f = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_follow);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_WRITE_ERROR); /* we stopped it */
    curl_easy_cleanup(c);
    char *got = kc_buf_cstr(&f.got);
    ck_assert_str_eq(got, "one\ntwo\nthree\n");
    free(got);
}
END_TEST

/* ---- faults ---- */

static void restart_with_faults(const char *faults)
{
    vsim_stop(sim);
    char err[256];
    vsim_opts o = {.scenario = "empty", .quiet = 1, .passive = 1, .faults = faults};
    sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(sim != NULL, "%s", err);
    snprintf(base, sizeof base, "%s", vsim_url(sim));
}

static int fault_count(const char *name)
{
    long code;
    cJSON *j = http_json("GET", "/debug/stats", NULL, NULL, &code);
    ck_assert_int_eq(code, 200);
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "faults"), name);
    ck_assert_msg(cJSON_IsNumber(v), "no counter %s", name);
    int n = v->valueint;
    cJSON_Delete(j);
    return n;
}

START_TEST(fault_error429_with_retry_after)
{
    restart_with_faults("error429=2");
    long c1, c2, c3;
    free(http("GET", NSP, NULL, NULL, &c1, NULL));
    char *hdr = NULL;
    char *s = http("GET", NSP, NULL, NULL, &c2, &hdr);
    free(http("GET", NSP, NULL, NULL, &c3, NULL));
    ck_assert_int_eq(c1, 200);
    ck_assert_int_eq(c2, 429);
    ck_assert_int_eq(c3, 200);
    ck_assert_ptr_nonnull(strstr(hdr, "Retry-After: 1\r\n"));
    cJSON *j = cJSON_Parse(s);
    ck_assert_str_eq(str_at(j, "reason", NULL), "TooManyRequests");
    ck_assert_int_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "details"), "retryAfterSeconds")->valueint, 1);
    ck_assert_int_eq(cJSON_GetObjectItem(j, "code")->valueint, 429);
    cJSON_Delete(j);
    free(s);
    free(hdr);
    ck_assert_int_eq(fault_count("error429"), 1);
}
END_TEST

START_TEST(fault_close_watch)
{
    restart_with_faults("close-watch=1");
    free(create_backup("a", NULL));
    int64_t t0 = kc_now_ms();
    long code;
    char *body = http("GET", NSP "?watch=true&timeoutSeconds=30", NULL, NULL, &code, NULL);
    int64_t took = kc_now_ms() - t0;
    ck_assert_int_eq(code, 200);
    char *sum = watch_summary(body);
    ck_assert_str_eq(sum, "ADDED a");
    free(sum);
    free(body);
    ck_assert_msg(took >= 950 && took < 5000, "closed after %lld ms", (long long)took);
    ck_assert_int_eq(fault_count("close-watch"), 1);
}
END_TEST

START_TEST(fault_expire_forces_410)
{
    restart_with_faults("expire");
    char *rv1 = create_backup("a", NULL);
    free(create_backup("b", NULL));
    char path[256];
    snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=1", rv1);
    long code;
    char *body = http("GET", path, NULL, NULL, &code, NULL);
    char *sum = watch_summary(body);
    ck_assert_str_eq(sum, "ERROR 410");
    free(sum);
    free(body);
    ck_assert_int_eq(fault_count("expire"), 1);
    /* once only: a watch resumed from now on works */
    char *rv3 = create_backup("c", NULL);
    free(create_backup("d", NULL));
    snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=1", rv3);
    body = http("GET", path, NULL, NULL, &code, NULL);
    sum = watch_summary(body);
    ck_assert_str_eq(sum, "ADDED d");
    free(sum);
    free(body);
    ck_assert_int_eq(fault_count("expire"), 1);
    free(rv1);
    free(rv3);
}
END_TEST

START_TEST(fault_expire_every)
{
    restart_with_faults("expire-every=1");
    char *rv1 = create_backup("a", NULL);
    free(create_backup("b", NULL));
    /* the history is dropped on the first API request a second or more after the last drop */
    int64_t deadline = kc_now_ms() + 10000;
    char *sum = NULL;
    while (kc_now_ms() < deadline) {
        char path[256];
        snprintf(path, sizeof path, NSP "?watch=true&resourceVersion=%s&timeoutSeconds=1", rv1);
        long code;
        char *body = http("GET", path, NULL, NULL, &code, NULL);
        free(sum);
        sum = watch_summary(body);
        free(body);
        if (!strcmp(sum, "ERROR 410")) break;
        ck_assert_str_eq(sum, "ADDED b");
    }
    ck_assert_str_eq(sum, "ERROR 410");
    free(sum);
    ck_assert_int_ge(fault_count("expire"), 1);
    free(rv1);
}
END_TEST

START_TEST(fault_malformed_event_once)
{
    restart_with_faults("malformed-event");
    free(create_backup("a", NULL));
    long code;
    char *body = http("GET", NSP "?watch=true&timeoutSeconds=1", NULL, NULL, &code, NULL);
    char *nl = strchr(body, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    cJSON *bad = cJSON_Parse(body);
    ck_assert_ptr_null(bad); /* the first line is not JSON */
    char *sum = watch_summary(nl + 1);
    ck_assert_str_eq(sum, "ADDED a");
    free(sum);
    free(body);
    body = http("GET", NSP "?watch=true&timeoutSeconds=1", NULL, NULL, &code, NULL);
    sum = watch_summary(body); /* fails on a malformed line */
    ck_assert_str_eq(sum, "ADDED a");
    free(sum);
    free(body);
    ck_assert_int_eq(fault_count("malformed-event"), 1);
}
END_TEST

START_TEST(fault_stall_delays_responses)
{
    restart_with_faults("stall=400");
    int64_t t0 = kc_now_ms();
    long code;
    free(http("GET", NSP, NULL, NULL, &code, NULL));
    int64_t took = kc_now_ms() - t0;
    ck_assert_int_eq(code, 200);
    ck_assert_msg(took >= 390, "answered after %lld ms", (long long)took);
    ck_assert_int_eq(fault_count("stall"), 1);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    Suite *s = suite_create("simserver");
    TCase *tc = tcase_create("simserver");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, watch_resumes_from_a_resource_version);
    tcase_add_test(tc, expired_resource_version_gets_410_error_event);
    tcase_add_test(tc, bookmarks_when_allowed);
    tcase_add_test(tc, selectors_on_list_and_watch);
    tcase_add_test(tc, pagination_with_continue);
    tcase_add_test(tc, merge_patch_conflict_and_unsupported_patch);
    tcase_add_test(tc, discovery_table_and_headers);
    tcase_add_test(tc, faults_fire_and_are_counted);
    tcase_add_test(tc, create_generate_name_and_errors);
    tcase_add_test(tc, no_status_subresource_and_generation);
    tcase_add_test(tc, tables_for_kubectl);
    tcase_add_test(tc, watch_timeout_seconds_is_honoured);
    tcase_add_test(tc, pod_log_tail_and_since);
    tcase_add_test(tc, pod_log_follow_streams_new_lines);
    tcase_add_test(tc, fault_error429_with_retry_after);
    tcase_add_test(tc, fault_close_watch);
    tcase_add_test(tc, fault_expire_forces_410);
    tcase_add_test(tc, fault_expire_every);
    tcase_add_test(tc, fault_malformed_event_once);
    tcase_add_test(tc, fault_stall_delays_responses);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    curl_global_cleanup();
    return rc;
}
