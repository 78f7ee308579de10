/* test_logprogress.c: per-resource progress derived from a real-format Velero log, and totals from
 * resource-list artifacts. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "logprogress.h"
#include "testutil.h"

/* Feeds the lines of fixture name up to and including the first containing stop (all if NULL). */
static lprog *feed_until(const char *name, int is_restore, const char *ref, const char *stop)
{
    char *path = xasprintf("%s/logs/%s", FIXTURES_DIR, name);
    size_t len;
    char *text = tu_read(path, &len);
    ck_assert_ptr_nonnull(text);
    lprog *p = lprog_new(is_restore, ref);
    for (char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        lprog_feed_raw(p, s, n);
        if (!nl || (stop && memmem(s, n, stop, strlen(stop)))) break;
    }
    free(text);
    free(path);
    return p;
}

typedef struct row {
    const char *resource;
    int64_t done, total;
    unsigned flags;
} row;

static void check_rows(lprog *p, const row *want, size_t n)
{
    const vl_res_progress *r;
    const unsigned char *f;
    size_t got = lprog_resources(p, &r, &f);
    for (size_t i = 0; i < got && i < n; i++) {
        ck_assert_msg(!strcmp(r[i].resource, want[i].resource), "row %zu: %s, want %s", i,
                      r[i].resource, want[i].resource);
        ck_assert_msg(r[i].processed == want[i].done && r[i].total == want[i].total &&
                          f[i] == want[i].flags,
                      "%s: %lld of %lld flags %u, want %lld of %lld flags %u", r[i].resource,
                      (long long)r[i].processed, (long long)r[i].total, f[i],
                      (long long)want[i].done, (long long)want[i].total, want[i].flags);
    }
    ck_assert_uint_eq(got, n);
}

#define B_REF "velero/nightly-20261201020000"
#define R_REF "velero/nightly-20261201020000-20261201030000"
#define A     LPROG_ACTIVE
#define E     LPROG_ESTIMATE
#define N     LPROG_NO_TOTAL

/* v1.18.1's backup lines (tests/fixtures/logs/v1.18.1-backup.log): totals are the Retrieved sums
 * (core group bare, apps/v1 -> .apps); "Backing up item" counts, "Processing item" only makes a
 * row active; the PV the PVC plugin adds has no total (no Retrieved line for it: "1 of ?", not
 * "1 of ~1", a total that only followed the count); an excluded configmap leaves
 * its row's total; namespaces (no Retrieved line) get Collected 11 - Retrieved 9 = 2. */
static const row backup_end[] = {
    {"pods", 3, 3, 0},
    {"persistentvolumeclaims", 1, 1, 0},
    {"configmaps", 2, 2, 0},
    {"deployments.apps", 0, 2, 0},
    {"persistentvolumes", 1, 0, N},
    {"namespaces", 1, 2, A},
};

START_TEST(v1181_backup_rows_text_and_json)
{
    const char *files[] = {"v1.18.1-backup.log", "v1.18.1-backup.json.log"};
    for (int i = 0; i < 2; i++) {
        lprog *p = feed_until(files[i], 0, B_REF, NULL);
        check_rows(p, backup_end, sizeof backup_end / sizeof backup_end[0]);
        ck_assert_uint_eq(lprog_lines(p), 46);      /* 49 lines, 3 of another backup */
        ck_assert_uint_eq(lprog_item_lines(p), 18); /* 9 queued, 8 backed up, 1 excluded */
        lprog_free(p);
    }
}
END_TEST

START_TEST(v1181_backup_queued_is_not_done)
{
    /* after the three pods are queued, before any is backed up: active, nothing done */
    lprog *p = feed_until("v1.18.1-backup.log", 0, B_REF, "name=front-0 namespace=web progress=");
    const row queued[] = {{"pods", 0, 3, A},
                          {"persistentvolumeclaims", 0, 1, 0},
                          {"configmaps", 0, 3, 0},
                          {"deployments.apps", 0, 2, 0}};
    check_rows(p, queued, 4); /* no line about a namespace yet: no row */
    lprog_free(p);
    /* the first namespace queued: its row's total is Collected 11 - Retrieved 9 */
    p = feed_until("v1.18.1-backup.log", 0, B_REF, "name=shop namespace= progress=");
    const vl_res_progress *r;
    const unsigned char *f;
    size_t n = lprog_resources(p, &r, &f);
    ck_assert_uint_eq(n, 6);
    ck_assert_str_eq(r[5].resource, "namespaces");
    ck_assert_int_eq(r[5].total, 2);
    ck_assert_int_eq(r[5].processed, 0);
    ck_assert_uint_eq(f[5], A);
    lprog_free(p);
}
END_TEST

/* The namespaces row without a Collected line (a log read from after it): nothing says how many
 * there are, so no total ("1 of ?"; it was the queued count, "1 of ~2", following the lines). */
START_TEST(backup_namespaces_counted_as_they_appear)
{
    lprog *p = lprog_new(0, "velero/b");
    const char *l[] = {
        "level=info msg=\"Processing item\" backup=velero/b name=a namespace= progress= "
        "resource=namespaces",
        "level=info msg=\"Processing item\" backup=velero/b name=b namespace= progress= "
        "resource=namespaces",
        "level=info msg=\"Backing up item\" backup=velero/b name=a namespace= resource=namespaces",
    };
    for (int i = 0; i < 3; i++) ck_assert_int_eq(lprog_feed_raw(p, l[i], strlen(l[i])), 1);
    const row want[] = {{"namespaces", 1, 0, A | N}};
    check_rows(p, want, 1);
    lprog_free(p);
}
END_TEST

/* An older log (pre-1.18 lines, backup-nginx.log, a Retrieved line for namespaces) under the
 * v1.18.1 rules: done counts only "Backing up item" lines (2 in it); "Processing item" made pods
 * and ingresses active. (Before, queued items counted as done: pods 2, ingresses 1.) */
START_TEST(older_log_counts_backed_up_items_only)
{
    lprog *p = feed_until("backup-nginx.log", 0, "velero/nginx-backup", "Error backing up item");
    const row want[] = {{"pods", 0, 5, A},
                        {"namespaces", 1, 2, A},
                        {"deployments.apps", 1, 2, A},
                        {"ingresses.networking.k8s.io", 0, 4, A}};
    check_rows(p, want, 4);
    ck_assert_uint_eq(lprog_lines(p), 33);
    lprog_free(p);
    /* "Backed up a total of 12 items" with 2 item lines seen: the pass is over but the lines of
     * 10 items are missing, so each type's retrieved count stands for it, as an estimate */
    p = feed_until("backup-nginx.log", 0, "velero/nginx-backup", NULL);
    const row passed[] = {{"pods", 5, 5, E},
                          {"namespaces", 2, 2, E},
                          {"deployments.apps", 2, 2, E},
                          {"ingresses.networking.k8s.io", 4, 4, E}};
    check_rows(p, passed, 4);
    ck_assert_uint_eq(lprog_lines(p), 34);
    lprog_reset(p);
    ck_assert_uint_eq(lprog_resources(p, NULL, NULL), 0);
    lprog_free(p);
    p = feed_until("backup-nginx.log", 0, "velero/other", NULL);
    const row other[] = {{"pods", 0, 40, A}};
    check_rows(p, other, 1);
    lprog_free(p);
    lprog_free(NULL);
}
END_TEST

/* Velero v1.15.0 (v1.15.0-backup.log, gen_v1.15.0.py): the collector logs "Retrieved 0 items" for
 * 57 of the 64 resources it lists; 12 items of 7 types are backed up. While the pass runs those
 * are 0-of-0 rows; "Backed up a total of 12 items" (backup.go:546) ends the item pass: every type
 * that was backed up is done (its count is the total), the empty ones are no rows at all.
 * (Before: 65 rows, 58 of them "0 of 0", shown as pending under "7 of 65 types done".) */
START_TEST(v1150_finished_pass_every_type_done)
{
    lprog *p = feed_until("v1.15.0-backup.log", 0, "velero/demo-app-20261201",
                          "Backed up 12 items out of");
    ck_assert_uint_eq(lprog_resources(p, NULL, NULL), 65);
    lprog_free(p);
    p = feed_until("v1.15.0-backup.log", 0, "velero/demo-app-20261201", NULL);
    const row want[] = {{"pods", 3, 3, 0},
                        {"configmaps", 3, 3, 0},
                        {"secrets", 2, 2, 0},
                        {"serviceaccounts", 1, 1, 0},
                        {"deployments.apps", 1, 1, 0},
                        {"replicasets.apps", 1, 1, 0},
                        {"namespaces", 1, 1, 0}};
    check_rows(p, want, 7);
    lprog_free(p);
    /* the pass ends before the namespace's item line: a type with nothing backed up is no row,
     * one with fewer items than listed shows what was backed up as its total */
    p = feed_until("v1.15.0-backup.log", 0, "velero/demo-app-20261201",
                   "Backed up 10 items out of");
    const char *end =
        "time=\"2026-12-01T04:05:00Z\" level=info msg=\"Backed up a total of 10 items\" "
        "backup=velero/demo-app-20261201 logSource=\"pkg/backup/backup.go:546\" progress=";
    ck_assert_int_eq(lprog_feed_raw(p, end, strlen(end)), 1);
    const row cut[] = {{"pods", 3, 3, 0},
                       {"configmaps", 3, 3, 0},
                       {"secrets", 2, 2, 0},
                       {"serviceaccounts", 1, 1, 0},
                       {"deployments.apps", 1, 1, 0}};
    check_rows(p, cut, 5);
    lprog_reset(p); /* a new log from its start: the pass runs again */
    ck_assert_uint_eq(lprog_resources(p, NULL, NULL), 0);
    lprog_free(p);
}
END_TEST

/* v1.18.1's restore lines (v1.18.1-restore.log): one Restored line per item, none for namespaces;
 * the totals come from elsewhere (the backup's resource list, narrowed). */
static void restore_totals(lprog *p)
{
    vl_res_progress tot[] = {{"customresourcedefinitions.apiextensions.k8s.io", 0, 1},
                             {"namespaces", 0, 1},
                             {"persistentvolumeclaims", 0, 1},
                             {"pods", 0, 2},
                             {"deployments.apps", 0, 2},
                             {"gateways.gateway.networking.k8s.io", 0, 1},
                             {"services", 0, 0}}; /* its filters leave none: no row */
    lprog_set_totals(p, tot, 7, NULL);
}

START_TEST(v1181_restore_rows_text_and_json)
{
    const char *files[] = {"v1.18.1-restore.log", "v1.18.1-restore.json.log"};
    for (int i = 0; i < 2; i++) {
        lprog *p = feed_until(files[i], 1, R_REF, NULL);
        restore_totals(p);
        const row want[] = {
            {"customresourcedefinitions.apiextensions.k8s.io", 1, 1, 0},
            {"persistentvolumeclaims", 1, 1, 0},
            {"pods", 2, 2, 0},
            {"deployments.apps", 1, 2, A},
            {"namespaces", 1, 1, 0}, /* past it: done, though no line says so */
            {"gateways.gateway.networking.k8s.io", 0, 1, 0},
        };
        check_rows(p, want, 6);
        ck_assert_uint_eq(lprog_item_lines(p), 5);
        lprog_free(p);
    }
}
END_TEST

START_TEST(v1181_restore_namespaces_pending_during_crds)
{
    /* only the CRD pass so far: namespaces are next, not done */
    lprog *p = feed_until("v1.18.1-restore.log", 1, R_REF, "resource=customresourcedefinitions");
    restore_totals(p);
    const row want[] = {
        {"customresourcedefinitions.apiextensions.k8s.io", 1, 1, 0},
        {"namespaces", 0, 1, 0},
        {"persistentvolumeclaims", 0, 1, 0},
        {"pods", 0, 2, 0},
        {"deployments.apps", 0, 2, 0},
        {"gateways.gateway.networking.k8s.io", 0, 1, 0},
    };
    check_rows(p, want, 6);
    lprog_free(p);
    /* estimated totals say so; a row past its total has none left ("2 of ?", not "2 of ~2") */
    p = lprog_new(1, "velero/r");
    vl_res_progress tot[] = {{"pods", 0, 1}};
    const unsigned char est[] = {1};
    lprog_set_totals(p, tot, 1, est);
    const char *l =
        "level=info msg=\"Restored 1 items out of an estimated total of 2 (estimate will "
        "change throughout the restore)\" name=a namespace=x progress= resource=pods "
        "restore=velero/r";
    lprog_feed_raw(p, l, strlen(l));
    lprog_feed_raw(p, l, strlen(l));
    const row grown[] = {{"pods", 2, 0, A | N}};
    check_rows(p, grown, 1);
    lprog_free(p);
    /* an older server that did log namespaces: done as counted; the list gave them no entry,
     * so nothing says how many (no total: "2 of ?", not "2 of 2" copied from the count); pods
     * have no entry either */
    p = lprog_new(1, "velero/r");
    const char *ns =
        "level=info msg=\"Restored 1 items out of an estimated total of 9 (estimate will "
        "change throughout the restore)\" name=shop namespace= progress= "
        "resource=namespaces restore=velero/r";
    lprog_feed_raw(p, ns, strlen(ns));
    lprog_feed_raw(p, ns, strlen(ns));
    vl_res_progress none[] = {{"namespaces", 0, 0}};
    lprog_set_totals(p, none, 1, NULL); /* its filters leave no namespace entry */
    lprog_feed_raw(p, l, strlen(l));
    const row older[] = {{"namespaces", 2, 0, N}, {"pods", 1, 0, A | N}};
    check_rows(p, older, 2);
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
    ck_assert_uint_eq(lprog_resources(p, &r, NULL), 2);
    ck_assert_str_eq(r[0].resource, "deployments.apps");
    ck_assert_int_eq(r[0].total, 7);
    ck_assert_str_eq(r[1].resource, "widgets");
    ck_assert_int_eq(lprog_feed_raw(p, l3, strlen(l3)), 1);
    ck_assert_uint_eq(lprog_resources(p, &r, NULL), 2);
    ck_assert_str_eq(r[1].resource, "widgets.example.com");
    ck_assert_int_eq(r[1].total, 3);
    ck_assert_int_eq(r[1].processed, 0); /* queued, not backed up */
    lprog_free(p);
}
END_TEST
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
    ck_assert_uint_eq(lprog_resources(p, &r, NULL), 1);
    ck_assert_str_eq(r[0].resource, "pods");
    ck_assert_int_eq(r[0].total, 6);
    ck_assert_int_eq(r[0].processed, 0); /* "Processing item": queued only */
    ck_assert_uint_eq(lprog_lines(p), 3);
    lprog_free(p);
}
END_TEST

/* ---- a restore's totals: its backup's resource list narrowed by its spec ---- */

/* The API server's discovery, as a test table (the real one: kubeclient/discovery.c). */
static const char *test_resolve(void *arg, const char *gv, const char *kind)
{
    (void)arg;
    static const char *const t[][3] = {
        {"apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions"},
        {"apps/v1", "Deployment", "deployments"},
        {"gateway.networking.k8s.io/v1", "Gateway", "gateways"},
        {"v1", "ConfigMap", "configmaps"},
        {"v1", "Event", "events"},
        {"v1", "Namespace", "namespaces"},
        {"v1", "PersistentVolume", "persistentvolumes"},
        {"v1", "PersistentVolumeClaim", "persistentvolumeclaims"},
        {"v1", "Pod", "pods"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i][0], gv) && !strcmp(t[i][1], kind)) return t[i][2];
    return NULL;
}

/* The same server before the Gateway CRD exists. */
static const char *no_gateway(void *arg, const char *gv, const char *kind)
{
    return strcmp(kind, "Gateway") ? test_resolve(arg, gv, kind) : NULL;
}

typedef struct tot {
    const char *resource;
    int64_t total;
} tot;

/* Totals of a restore with spec (JSON of its "spec") over the backup's resource list. */
static void check_totals(const char *spec, lprog_resolve_fn resolve, const tot *want, size_t nw,
                         int want_est)
{
    char *path = xasprintf("%s/logs/v1.18.1-backup-resource-list.json", FIXTURES_DIR);
    size_t len;
    char *brl = tu_read(path, &len);
    ck_assert_ptr_nonnull(brl);
    char *rj = xasprintf("{\"kind\":\"Restore\",\"spec\":%s}", spec);
    cJSON *o = cJSON_Parse(rj);
    ck_assert_ptr_nonnull(o);
    lprog_filter f;
    lprog_filter_from_restore(&f, o);
    vl_res_progress *r;
    size_t n;
    unsigned char *est;
    kc_err err = {0};
    ck_assert_int_eq(lprog_rows_from_list(brl, len, &f, resolve, NULL, &r, &n, &est, &err), 0);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(r[i].processed, 0);
        if (!r[i].total) continue;
        ck_assert_msg(k < nw, "%s: extra row %s %lld", spec, r[i].resource, (long long)r[i].total);
        ck_assert_msg(!strcmp(r[i].resource, want[k].resource) && r[i].total == want[k].total,
                      "%s: row %zu is %s %lld, want %s %lld", spec, k, r[i].resource,
                      (long long)r[i].total, want[k].resource, (long long)want[k].total);
        /* want_est: 1 every row, 0 none, 2 only the rows of a guessed kind ("gatewaies") */
        int want_row = want_est == 2 ? strstr(r[i].resource, "gatewaies") != NULL : want_est;
        ck_assert_msg(est[i] == want_row, "%s: %s estimate %d", spec, r[i].resource, est[i]);
        k++;
    }
    ck_assert_msg(k == nw, "%s: %zu rows, want %zu", spec, k, nw);
    for (size_t i = 0; i < n && want_est == 1; i++) ck_assert_int_eq(est[i], 1);
    free(est);
    lprog_res_free(r, n);
    lprog_filter_free(&f);
    cJSON_Delete(o);
    free(rj);
    free(brl);
    free(path);
}

START_TEST(restore_totals_everything_but_what_velero_never_restores)
{
    /* events are never restored (restore_controller.go nonRestorableResources) */
    const tot all[] = {
        {"configmaps", 2},        {"customresourcedefinitions.apiextensions.k8s.io", 1},
        {"deployments.apps", 2},  {"gateways.gateway.networking.k8s.io", 1},
        {"namespaces", 2},        {"persistentvolumeclaims", 1},
        {"persistentvolumes", 1}, {"pods", 3}};
    check_totals("{\"backupName\":\"nightly-20261201020000\"}", test_resolve, all, 8, 0);
    /* includeClusterResources false: no cluster-scoped entry (CRDs, namespaces, PVs) */
    const tot ns_only[] = {{"configmaps", 2},
                           {"deployments.apps", 2},
                           {"gateways.gateway.networking.k8s.io", 1},
                           {"persistentvolumeclaims", 1},
                           {"pods", 3}};
    check_totals("{\"includeClusterResources\":false}", test_resolve, ns_only, 5, 0);
}
END_TEST

START_TEST(restore_totals_narrowed_by_namespaces_and_mapping)
{
    /* one namespace, mapped elsewhere: the mapping moves items, the count is the same; cluster
     * scope unset with a namespace filter: cluster-scoped entries are skipped */
    const tot shop[] = {{"configmaps", 1},
                        {"deployments.apps", 1},
                        {"gateways.gateway.networking.k8s.io", 1},
                        {"persistentvolumeclaims", 1},
                        {"pods", 2}};
    check_totals(
        "{\"includedNamespaces\":[\"shop\"],\"namespaceMapping\":{\"shop\":\"shop-copy\"}}",
        test_resolve, shop, 5, 0);
    /* includeClusterResources true with it: every namespace and cluster-scoped entry too */
    const tot shop_cluster[] = {
        {"configmaps", 1},        {"customresourcedefinitions.apiextensions.k8s.io", 1},
        {"deployments.apps", 1},  {"gateways.gateway.networking.k8s.io", 1},
        {"namespaces", 2},        {"persistentvolumeclaims", 1},
        {"persistentvolumes", 1}, {"pods", 2}};
    check_totals("{\"includedNamespaces\":[\"sh*\"],\"includeClusterResources\":true}",
                 test_resolve, shop_cluster, 8, 0);
    /* excluded namespace, resources by plural without group */
    const tot two[] = {{"deployments.apps", 1}, {"pods", 2}};
    check_totals("{\"excludedNamespaces\":[\"web\"],\"includedResources\":[\"pods\","
                 "\"deployments\"]}",
                 test_resolve, two, 2, 0);
    const tot no_pods[] = {
        {"configmaps", 2},       {"customresourcedefinitions.apiextensions.k8s.io", 1},
        {"deployments.apps", 2}, {"gateways.gateway.networking.k8s.io", 1},
        {"namespaces", 2},       {"persistentvolumes", 1}};
    check_totals("{\"excludedResources\":[\"pods\",\"persistentvolumeclaims\"]}", test_resolve,
                 no_pods, 6, 0);
}
END_TEST

START_TEST(restore_totals_estimated_when_they_cannot_be_exact)
{
    const tot shop[] = {{"configmaps", 1},
                        {"deployments.apps", 1},
                        {"gateways.gateway.networking.k8s.io", 1},
                        {"persistentvolumeclaims", 1},
                        {"pods", 2}};
    /* a label selector picks items the list cannot tell: the totals are upper bounds */
    check_totals("{\"includedNamespaces\":[\"shop\"],\"labelSelector\":{\"matchLabels\":{\"app\":"
                 "\"db\"}}}",
                 test_resolve, shop, 5, 1);
    /* a short name only discovery resolves */
    const tot none[] = {{"pods", 0}};
    check_totals("{\"includedResources\":[\"deploy\"]}", test_resolve, none, 0, 1);
    /* kinds the server does not name are guessed, and those rows say so: Gateway -> "gatewaies"
     * (a CRD not installed yet: the restore creates it) */
    const tot guessed[] = {{"configmaps", 1},
                           {"deployments.apps", 1},
                           {"gatewaies.gateway.networking.k8s.io", 1},
                           {"persistentvolumeclaims", 1},
                           {"pods", 2}};
    check_totals("{\"includedNamespaces\":[\"shop\"]}", no_gateway, guessed, 5, 2);
    check_totals("{\"includedNamespaces\":[\"shop\"]}", NULL, guessed, 5, 1); /* none known */
}
END_TEST

/* A server at --log-level warning writes none of the per-item lines: items move (status), rows
 * cannot. */
START_TEST(silent_log_is_told_from_an_idle_one)
{
    lprog *p = lprog_new(0, "velero/b");
    const char *w = "time=\"2026-12-01T02:00:09Z\" level=warning msg=\"Skipping item because it "
                    "is a mirror pod\" backup=velero/b logSource=\"pkg/backup/item_backupper.go:"
                    "240\" name=static-web namespace=shop resource=pods";
    ck_assert_int_eq(lprog_feed_raw(p, w, strlen(w)), 0);
    ck_assert_uint_eq(lprog_lines(p), 1);
    ck_assert_int_eq(lprog_silent(p, 0), 0);  /* nothing moved yet: nothing to tell */
    ck_assert_int_eq(lprog_silent(p, 12), 1); /* 12 items backed up, not one line says so */
    const char *b = "level=info msg=\"Backing up item\" backup=velero/b name=a namespace=shop "
                    "resource=pods";
    lprog_feed_raw(p, b, strlen(b));
    ck_assert_int_eq(lprog_silent(p, 12), 0);
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
    ck_assert_uint_eq(lprog_resources(p, &r, NULL), 2);
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
    tcase_add_test(tc, v1181_backup_rows_text_and_json);
    tcase_add_test(tc, v1181_backup_queued_is_not_done);
    tcase_add_test(tc, backup_namespaces_counted_as_they_appear);
    tcase_add_test(tc, older_log_counts_backed_up_items_only);
    tcase_add_test(tc, v1150_finished_pass_every_type_done);
    tcase_add_test(tc, v1181_restore_rows_text_and_json);
    tcase_add_test(tc, v1181_restore_namespaces_pending_during_crds);
    tcase_add_test(tc, bare_names_shown_qualified_before_their_first_item);
    tcase_add_test(tc, json_format_log_derives_the_same);
    tcase_add_test(tc, kind_keys_become_resources);
    tcase_add_test(tc, restore_totals_everything_but_what_velero_never_restores);
    tcase_add_test(tc, restore_totals_narrowed_by_namespaces_and_mapping);
    tcase_add_test(tc, restore_totals_estimated_when_they_cannot_be_exact);
    tcase_add_test(tc, silent_log_is_told_from_an_idle_one);
    tcase_add_test(tc, resource_list_counts_entries);
    tcase_add_test(tc, huge_counts_saturate);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
