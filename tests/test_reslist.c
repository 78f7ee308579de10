/* test_reslist.c: the resource-list scanner: a list of a million resource types is cut at the row
 * cap (and says how many were left out) in one linear pass fed in slices; slices of any size give
 * the same rows as the whole text; escapes, odd entries and broken JSON. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "app.h"
#include "kubeclient/util.h"
#include "reslist.h"
#include "testutil.h"

/* {"g0.example.com/v1/Kind0":["ns/a","ns/b"], ...} with keys keys */
static char *many_keys(size_t keys, size_t *len)
{
    kc_buf b = {0};
    kc_buf_append(&b, "{", 1);
    for (size_t i = 0; i < keys; i++)
        kc_buf_printf(&b, "%s\"g%zu.example.com/v1/Kind%zu\":[\"ns/a\",\"ns/b\"]", i ? "," : "", i,
                      i);
    kc_buf_append(&b, "}", 1);
    *len = b.len;
    return kc_buf_cstr(&b);
}

static void check_capped(size_t keys)
{
    size_t len;
    char *json = many_keys(keys, &len);
    reslist *l = reslist_new(NULL);
    kc_err err = {0};
    /* in slices of 1 MiB, as logderive feeds it from the loop */
    for (size_t off = 0; off < len; off += 1u << 20) {
        size_t n = len - off < (1u << 20) ? len - off : 1u << 20;
        ck_assert_int_eq(reslist_feed(l, json + off, n, &err), 0);
    }
    ck_assert_int_eq(reslist_finish(l, &err), 0);
    ck_assert_uint_eq(reslist_keys(l), KC_CAP_RESOURCE_ROWS);
    ck_assert_uint_eq(reslist_dropped(l), keys - KC_CAP_RESOURCE_ROWS);
    ck_assert_uint_eq(reslist_offset(l), len);
    vl_res_progress *r;
    size_t n;
    reslist_rows(l, NULL, NULL, NULL, &r, &n, NULL);
    ck_assert_uint_eq(n, KC_CAP_RESOURCE_ROWS);
    /* sorted by name, each with its two entries */
    ck_assert_str_eq(r[0].resource, "kind0s.g0.example.com");
    ck_assert_str_eq(r[1].resource, "kind1000s.g1000.example.com");
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(r[i].total, 2);
        ck_assert_int_eq(r[i].processed, 2);
        if (i) ck_assert_int_lt(strcmp(r[i - 1].resource, r[i].resource), 0);
    }
    lprog_res_free(r, n);
    reslist_free(l);
    free(json);
}

START_TEST(hundred_thousand_keys_capped)
{
    check_capped(100000);
}
END_TEST

START_TEST(million_keys_capped)
{
    check_capped(1000000);
}
END_TEST

/* Keys naming one row add up (merged after sorting), whichever order they come in. */
START_TEST(keys_of_one_row_merge)
{
    const char *j = "{\"v1/Pod\":[\"a/x\"],\"apps/v1/Deployment\":[\"a/d\"],"
                    "\"v1/pod\":[\"b/y\",\"b/z\"]}";
    vl_res_progress *r;
    size_t n;
    kc_err err = {0};
    ck_assert_int_eq(lprog_from_resource_list(j, strlen(j), &r, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(r[0].resource, "deployments.apps");
    ck_assert_int_eq(r[0].total, 1);
    ck_assert_str_eq(r[1].resource, "pods");
    ck_assert_int_eq(r[1].total, 3);
    lprog_res_free(r, n);
}
END_TEST

static size_t rows_of(const char *j, size_t slice, const lprog_filter *f, vl_res_progress **r,
                      kc_err *err)
{
    reslist *l = reslist_new(f);
    size_t len = strlen(j), n = 0;
    int bad = 0;
    for (size_t off = 0; off < len && !bad; off += slice)
        bad = reslist_feed(l, j + off, len - off < slice ? len - off : slice, err);
    if (!bad) bad = reslist_finish(l, err);
    *r = NULL;
    if (!bad) reslist_rows(l, f, NULL, NULL, r, &n, NULL);
    reslist_free(l);
    return bad ? (size_t)-1 : n;
}

/* One byte at a time gives what the whole text gives: strings, escapes and skipped values
 * across slice boundaries. */
START_TEST(slices_of_any_size_agree)
{
    const char *j = " { \"v1/Pod\" : [ \"shop/a\" , \"shop\\/b\", \"web/\\u0063\" ] ,\n"
                    "\"v1/Namespace\":[\"shop\",\"web\"], \"v1/Odd\": [1, {\"k\": [\"]\"]}, "
                    "[2, \"x\"], null, \"c\\\"q\"], \"v1/Empty\": [] } ";
    for (size_t slice = 1; slice <= strlen(j); slice++) {
        vl_res_progress *r;
        kc_err err = {0};
        size_t n = rows_of(j, slice, NULL, &r, &err);
        ck_assert_msg(n == 4, "slice %zu: %zu rows (%s)", slice, n, err.msg);
        ck_assert_str_eq(r[0].resource, "empties");
        ck_assert_int_eq(r[0].total, 0);
        ck_assert_str_eq(r[1].resource, "namespaces");
        ck_assert_int_eq(r[1].total, 2);
        ck_assert_str_eq(r[2].resource, "odds");
        ck_assert_int_eq(r[2].total, 5);
        ck_assert_str_eq(r[3].resource, "pods");
        ck_assert_int_eq(r[3].total, 3);
        lprog_res_free(r, n);
    }
}
END_TEST

/* A restore's filter: namespaces decided per entry while scanning ("shop\/b" is in shop). */
START_TEST(filter_counts_namespaces_while_scanning)
{
    const char *j = "{\"v1/Pod\":[\"shop/a\",\"shop\\/b\",\"web/c\"],\"v1/Namespace\":[\"shop\","
                    "\"web\"],\"v1/Node\":[\"n1\"]}";
    char *inc[] = {"shop"};
    lprog_filter f = {.inc_ns = inc, .n_inc_ns = 1, .include_cluster = -1};
    for (size_t slice = 1; slice <= strlen(j); slice += 7) {
        vl_res_progress *r;
        kc_err err = {0};
        size_t n = rows_of(j, slice, &f, &r, &err);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(r[0].resource, "namespaces");
        ck_assert_int_eq(r[0].total, 0); /* cluster-scoped: not with includedNamespaces */
        ck_assert_str_eq(r[1].resource, "nodes");
        ck_assert_int_eq(r[1].total, 0); /* never restored */
        ck_assert_str_eq(r[2].resource, "pods");
        ck_assert_int_eq(r[2].total, 2);
        ck_assert_int_eq(r[2].processed, 0);
        lprog_res_free(r, n);
    }
}
END_TEST

/* What is wrong, and where. */
START_TEST(broken_lists_say_what_is_wrong)
{
    static const char *cases[][2] = {
        {"", "resource list is not a JSON object"},
        {"[1]", "resource list is not a JSON object"},
        {"<html>", "resource list is not a JSON object"},
        {"{\"v1/Pod\":[\"a/b\"]", "resource list ends early (after 17 bytes)"},
        {"{\"v1/Pod\":5}", "resource list: the entry of \"v1/Pod\" is not an array (at byte 10)"},
        {"{\"v1/Pod\":[\"a\"]}x",
         "resource list is not valid JSON: bytes after the end at byte 16"},
        {"{\"v1/Pod\" [\"a\"]}", "resource list is not valid JSON: ':' expected at byte 10"},
        {"{\"v1/Pod\":[\"a\",]}", "resource list is not valid JSON: a value expected at byte 15"},
        {"{\"v1/Pod\":[\"\\q\"]}", "resource list is not valid JSON: a bad escape in a string at "
                                   "byte 14"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vl_res_progress *r;
        kc_err err = {0};
        ck_assert_uint_eq(rows_of(cases[i][0], 3, NULL, &r, &err), (size_t)-1);
        ck_assert_str_eq(err.msg, cases[i][1]);
    }
}
END_TEST

/* The capped rows into the model: found by name (sorted), not by a search per row; new names in
 * input order, a name given twice updates one row, rows no longer given go. */
START_TEST(capped_rows_set_into_the_model)
{
    model *m = model_new();
    vl_run run = {.kind = VL_BACKUP,
                  .meta.name = (char *)"big",
                  .phase = (char *)"Completed",
                  .phase_id = VL_PH_COMPLETED};
    model_run *mr = model_upsert_run(m, &run, 100, 1e9);
    size_t n = KC_CAP_RESOURCE_ROWS;
    vl_res_progress *in = xcalloc(n + 1, sizeof *in);
    for (size_t i = 0; i < n; i++)
        in[i] = (vl_res_progress){xasprintf("r%05zu.example.com", n - i), 1, 1};
    in[n] = (vl_res_progress){xstrdup("r00001.example.com"), 7, 9}; /* again: the last wins */
    model_run_set_derived(m, mr, in, n + 1, NULL, 100);
    size_t got;
    const model_res *rows = model_run_resources(mr, &got, NULL);
    ck_assert_uint_eq(got, n);
    ck_assert_str_eq(rows[0].resource, "r04096.example.com"); /* input order */
    ck_assert_str_eq(rows[n - 1].resource, "r00001.example.com");
    ck_assert_int_eq(rows[n - 1].done, 7);
    ck_assert_int_eq(rows[n - 1].total, 9);
    /* again with half of them: the others go, the kept ones keep their place */
    model_run_set_derived(m, mr, in + n / 2, n / 2 + 1, NULL, 101);
    rows = model_run_resources(mr, &got, NULL);
    ck_assert_uint_eq(got, n / 2);
    ck_assert_str_eq(rows[0].resource, "r02048.example.com");
    ck_assert_int_eq(rows[got - 1].done, 7);
    lprog_res_free(in, n + 1);
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reslist");
    TCase *tc = tcase_create("reslist");
    tcase_set_timeout(tc, 120); /* a million keys under the sanitisers */
    tcase_add_test(tc, hundred_thousand_keys_capped);
    tcase_add_test(tc, million_keys_capped);
    tcase_add_test(tc, keys_of_one_row_merge);
    tcase_add_test(tc, slices_of_any_size_agree);
    tcase_add_test(tc, filter_counts_namespaces_while_scanning);
    tcase_add_test(tc, broken_lists_say_what_is_wrong);
    tcase_add_test(tc, capped_rows_set_into_the_model);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
