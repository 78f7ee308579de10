/* test_logprogress.c: per-resource progress derived from a real-format Velero log, and totals from
 * resource-list artifacts. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "logprogress.h"
#include "testutil.h"

static lprog *feed_file(const char *name, int is_restore, const char *ref)
{
    char *path = xasprintf("%s/logs/%s", FIXTURES_DIR, name);
    size_t len;
    char *text = tu_read(path, &len);
    ck_assert_ptr_nonnull(text);
    lprog *p = lprog_new(is_restore, ref);
    for (char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl) {
            lprog_feed_raw(p, s, strlen(s));
            break;
        }
        lprog_feed_raw(p, s, (size_t)(nl - s));
    }
    free(text);
    free(path);
    return p;
}

START_TEST(backup_log_gives_totals_and_processed_per_resource)
{
    lprog *p = feed_file("backup-nginx.log", 0, "velero/nginx-backup");
    const vl_res_progress *r;
    size_t n = lprog_resources(p, &r);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(r[0].resource, "pods"); /* 2 + 3 over two namespaces; the other run ignored */
    ck_assert_int_eq(r[0].total, 5);
    ck_assert_int_eq(r[0].processed, 2);
    ck_assert_str_eq(r[1].resource, "namespaces");
    ck_assert_int_eq(r[1].total, 2);
    ck_assert_int_eq(r[1].processed, 1);
    ck_assert_str_eq(r[2].resource, "deployments.apps"); /* bare "deployments" matched */
    ck_assert_int_eq(r[2].total, 2);
    ck_assert_int_eq(r[2].processed, 2);
    ck_assert_str_eq(r[3].resource, "ingresses.networking.k8s.io");
    ck_assert_int_eq(r[3].total, 4);
    ck_assert_int_eq(r[3].processed, 1);
    ck_assert_uint_eq(lprog_lines(p), 34);
    lprog_reset(p);
    ck_assert_uint_eq(lprog_resources(p, &r), 0);
    lprog_free(p);
}
END_TEST

START_TEST(other_run_sees_only_its_lines)
{
    lprog *p = feed_file("backup-nginx.log", 0, "velero/other");
    const vl_res_progress *r;
    ck_assert_uint_eq(lprog_resources(p, &r), 1);
    ck_assert_str_eq(r[0].resource, "pods");
    ck_assert_int_eq(r[0].total, 40);
    ck_assert_int_eq(r[0].processed, 1);
    lprog_free(p);
    lprog_free(NULL);
}
END_TEST

START_TEST(restore_lines_count_processed_per_resource)
{
    lprog *p = lprog_new(1, "velero/r1");
    const char *lines[] = {
        "time=\"2024-06-03T02:00:00Z\" level=info msg=\"Restored 1 items out of an estimated "
        "total of 3 (estimate will change throughout the restore)\" logSource=\"pkg/restore/"
        "restore.go:846\" name=shop namespace= progress= resource=namespaces restore=velero/r1",
        "time=\"2024-06-03T02:00:01Z\" level=info msg=\"Restored 2 items out of an estimated "
        "total of 3 (estimate will change throughout the restore)\" name=cart namespace=shop "
        "progress= resource=deployments.apps restore=velero/r1",
        "time=\"2024-06-03T02:00:01Z\" level=info msg=\"Restored 2 items out of an estimated "
        "total of 9 (estimate will change throughout the restore)\" name=cart namespace=shop "
        "progress= resource=deployments.apps restore=velero/r2",
        "time=\"2024-06-03T02:00:02Z\" level=info msg=\"Restored 3 items out of an estimated "
        "total of 3 (estimate will change throughout the restore)\" name=web namespace=shop "
        "progress= resource=deployments.apps restore=velero/r1",
    };
    for (size_t i = 0; i < 4; i++) lprog_feed_raw(p, lines[i], strlen(lines[i]));
    vl_res_progress tot[] = {{"deployments", 0, 5}};
    lprog_set_totals(p, tot, 1);
    const vl_res_progress *r;
    ck_assert_uint_eq(lprog_resources(p, &r), 2);
    ck_assert_str_eq(r[0].resource, "namespaces");
    ck_assert_int_eq(r[0].processed, 1);
    ck_assert_int_eq(r[0].total, 1); /* unknown total: never below processed */
    ck_assert_str_eq(r[1].resource, "deployments.apps");
    ck_assert_int_eq(r[1].processed, 2);
    ck_assert_int_eq(r[1].total, 5);
    lprog_free(p);
}
END_TEST

START_TEST(bare_names_shown_qualified_before_their_first_item)
{
    lprog *p = lprog_new(0, "velero/b");
    const char *l1 = "level=info msg=\"Retrieved 7 items\" backup=velero/b namespace=shop "
                     "resource=deployments";
    const char *l2 = "level=info msg=\"Retrieved 3 items\" backup=velero/b namespace=shop "
                     "resource=widgets";
    const char *l3 = "level=info msg=\"Processing item\" backup=velero/b name=w1 namespace=shop "
                     "progress= resource=widgets.example.com";
    ck_assert_int_eq(lprog_feed_raw(p, l1, strlen(l1)), 1);
    ck_assert_int_eq(lprog_feed_raw(p, l2, strlen(l2)), 1);
    const vl_res_progress *r;
    ck_assert_uint_eq(lprog_resources(p, &r), 2);
    ck_assert_str_eq(r[0].resource, "deployments.apps");
    ck_assert_int_eq(r[0].total, 7);
    ck_assert_str_eq(r[1].resource, "widgets");
    ck_assert_int_eq(lprog_feed_raw(p, l3, strlen(l3)), 1);
    ck_assert_uint_eq(lprog_resources(p, &r), 2);
    ck_assert_str_eq(r[1].resource, "widgets.example.com");
    ck_assert_int_eq(r[1].total, 3);
    ck_assert_int_eq(r[1].processed, 1);
    lprog_free(p);
}
END_TEST

/* The server's --log-format=json writes the same fields as JSON objects. */
START_TEST(json_format_log_derives_the_same)
{
    lprog *p = lprog_new(0, "velero/j1");
    const char *lines[] = {
        "{\"backup\":\"velero/j1\",\"level\":\"info\",\"logSource\":\"pkg/backup/"
        "item_collector.go:356\",\"msg\":\"Retrieved 4 items\",\"namespace\":\"shop\","
        "\"resource\":\"pods\",\"time\":\"2024-06-03T01:25:54Z\"}",
        "{\"backup\":\"velero/j1\",\"level\":\"info\",\"msg\":\"Retrieved 2 items\","
        "\"namespace\":\"web\",\"resource\":\"pods\",\"time\":\"2024-06-03T01:25:54Z\"}",
        "{\"backup\":\"velero/other\",\"level\":\"info\",\"msg\":\"Retrieved 9 items\","
        "\"namespace\":\"web\",\"resource\":\"pods\",\"time\":\"2024-06-03T01:25:54Z\"}",
        "{\"backup\":\"velero/j1\",\"level\":\"info\",\"msg\":\"Processing item\","
        "\"name\":\"a\",\"namespace\":\"shop\",\"progress\":\"\",\"resource\":\"pods\","
        "\"time\":\"2024-06-03T01:25:55Z\"}",
    };
    int changed = 0;
    for (size_t i = 0; i < 4; i++) changed += lprog_feed_raw(p, lines[i], strlen(lines[i]));
    ck_assert_int_eq(changed, 3);
    const vl_res_progress *r;
    ck_assert_uint_eq(lprog_resources(p, &r), 1);
    ck_assert_str_eq(r[0].resource, "pods");
    ck_assert_int_eq(r[0].total, 6);
    ck_assert_int_eq(r[0].processed, 1);
    ck_assert_uint_eq(lprog_lines(p), 3);
    lprog_free(p);
}
END_TEST

START_TEST(kind_keys_become_resources)
{
    const char *cases[][2] = {
        {"apps/v1/Deployment", "deployments.apps"},
        {"v1/Pod", "pods"},
        {"v1/Endpoints", "endpoints"},
        {"networking.k8s.io/v1/Ingress", "ingresses.networking.k8s.io"},
        {"storage.k8s.io/v1/StorageClass", "storageclasses.storage.k8s.io"},
        {"v1/PersistentVolumeClaim", "persistentvolumeclaims"},
        {"networking.k8s.io/v1/NetworkPolicy", "networkpolicies.networking.k8s.io"},
        {"kubeflow.org/v1/Notebook", "notebooks.kubeflow.org"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = lprog_key_to_resource(cases[i][0]);
        ck_assert_str_eq(r, cases[i][1]);
        free(r);
    }
}
END_TEST

START_TEST(resource_list_counts_entries)
{
    const char *j = "{\"v1/Pod\":[\"shop/a\",\"shop/b\",\"web/c\"],\"apps/v1/Deployment\":"
                    "[\"shop/cart\"],\"v1/Namespace\":[\"shop\",\"web\"],"
                    "\"v1/Service\":[\"shop/s(created)\",\"shop/t(skipped)\"]}";
    vl_res_progress *r;
    size_t n;
    kc_err err = {0};
    ck_assert_int_eq(lprog_from_resource_list(j, strlen(j), &r, &n, &err), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(r[0].resource, "deployments.apps");
    ck_assert_int_eq(r[0].total, 1);
    ck_assert_str_eq(r[1].resource, "namespaces");
    ck_assert_int_eq(r[1].total, 2);
    ck_assert_str_eq(r[2].resource, "pods");
    ck_assert_int_eq(r[2].total, 3);
    ck_assert_int_eq(r[2].processed, 3);
    ck_assert_str_eq(r[3].resource, "services");
    ck_assert_int_eq(r[3].total, 2);
    lprog_res_free(r, n);
    ck_assert_int_eq(lprog_from_resource_list("[1]", 3, &r, &n, &err), -1);
    ck_assert_str_eq(err.msg, "resource list is not a JSON object");
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* "Retrieved N items" with N at the int64 limit, twice for one resource: the total saturates
 * instead of overflowing; a count past the range saturates too. */
START_TEST(huge_counts_saturate)
{
    lprog *p = lprog_new(0, "velero/b");
    const char *line = "time=\"2024-06-03T02:00:00Z\" level=info msg=\"Retrieved "
                       "9223372036854775807 items\" backup=velero/b resource=pods namespace=a";
    for (int i = 0; i < 3; i++) lprog_feed_raw(p, line, strlen(line));
    line = "time=\"2024-06-03T02:00:00Z\" level=info msg=\"Retrieved "
           "99999999999999999999999 items\" backup=velero/b resource=secrets namespace=a";
    lprog_feed_raw(p, line, strlen(line));
    const vl_res_progress *r;
    ck_assert_uint_eq(lprog_resources(p, &r), 2);
    ck_assert_str_eq(r[0].resource, "pods");
    ck_assert_int_eq(r[0].total, INT64_MAX);
    ck_assert_str_eq(r[1].resource, "secrets");
    ck_assert_int_eq(r[1].total, INT64_MAX);
    lprog_free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("logprogress");
    TCase *tc = tcase_create("logprogress");
    tcase_add_test(tc, backup_log_gives_totals_and_processed_per_resource);
    tcase_add_test(tc, other_run_sees_only_its_lines);
    tcase_add_test(tc, restore_lines_count_processed_per_resource);
    tcase_add_test(tc, bare_names_shown_qualified_before_their_first_item);
    tcase_add_test(tc, json_format_log_derives_the_same);
    tcase_add_test(tc, kind_keys_become_resources);
    tcase_add_test(tc, resource_list_counts_entries);
    tcase_add_test(tc, huge_counts_saturate);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
