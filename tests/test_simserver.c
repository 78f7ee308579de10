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
    ck_assert_ptr_nonnull(strstr(s, "\"name\":\"backups/status\""));
    free(s);
    free(hdr);
    s = http("GET", "/openapi/v2", NULL, NULL, &code, NULL);
    ck_assert_int_eq(code, 404);
    free(s);
    cJSON *j = http_json("GET", "/version", NULL, NULL, &code);
    ck_assert_str_eq(str_at(j, "minor", NULL), "30");
    cJSON_Delete(j);
    j = http_json("GET", "/api/v1/namespaces/velero/pods?labelSelector=deploy%3Dvelero", NULL, NULL,
                  &code);
    const cJSON *pod = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "items"), 0);
    ck_assert_str_eq(str_at(cJSON_GetObjectItem(pod, "metadata"), "name", NULL),
                     sim_velero_pod_name());
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
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    curl_global_cleanup();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
