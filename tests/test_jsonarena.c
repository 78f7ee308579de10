/* test_jsonarena.c: kc_json_parse builds exactly the tree cJSON_ParseWithLength builds (types,
 * keys, strings with every escape, numbers, links) and refuses what cJSON refuses. */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/jsonarena.h"
#include "kubeclient/util.h"
#include "testutil.h"

/* Same shape, node by node: types, keys, values, valueint and the links cJSON maintains. */
static void same_tree(const cJSON *a, const cJSON *b)
{
    ck_assert_int_eq(a->type & 0xff, b->type & 0xff);
    if (a->string || b->string) ck_assert_str_eq(a->string, b->string);
    if (cJSON_IsString(a)) ck_assert_str_eq(a->valuestring, b->valuestring);
    if (cJSON_IsNumber(a)) {
        ck_assert(a->valuedouble == b->valuedouble ||
                  (a->valuedouble != a->valuedouble && b->valuedouble != b->valuedouble));
        ck_assert_int_eq(a->valueint, b->valueint);
    }
    if (cJSON_IsTrue(a)) ck_assert_int_eq(a->valueint, b->valueint);
    const cJSON *x = a->child, *y = b->child;
    if (x) ck_assert_ptr_eq(x->prev->next, NULL); /* first->prev is the last element */
    for (; x && y; x = x->next, y = y->next) {
        if (x != a->child) ck_assert_ptr_eq(x->prev->next, x);
        same_tree(x, y);
    }
    ck_assert_ptr_eq(x, NULL);
    ck_assert_ptr_eq(y, NULL);
}

/* Parses text both ways; both succeed with the same tree or both fail. */
static void check_text(const char *text, size_t len)
{
    cJSON *want = cJSON_ParseWithLength(text, len);
    kc_json_arena *a = NULL;
    cJSON *got = kc_json_parse(text, len, &a);
    ck_assert_ptr_nonnull(a);
    if (!want) {
        ck_assert_msg(got == NULL, "kc_json_parse accepted what cJSON refuses: %.*s", (int)len,
                      text);
    } else {
        ck_assert_msg(got != NULL, "kc_json_parse refused what cJSON accepts: %.*s", (int)len,
                      text);
        same_tree(got, want);
        /* as cJSON compares two of its own parses (false for duplicate keys and infinities) */
        cJSON *again = cJSON_ParseWithLength(text, len);
        ck_assert_int_eq(cJSON_Compare(got, want, 1), cJSON_Compare(again, want, 1));
        cJSON_Delete(again);
        char *pg = cJSON_PrintUnformatted(got), *pw = cJSON_PrintUnformatted(want);
        ck_assert_str_eq(pg, pw);
        free(pg);
        free(pw);
    }
    cJSON_Delete(want);
    kc_json_arena_free(a);
}

static void check(const char *text)
{
    check_text(text, strlen(text));
}

START_TEST(values_of_every_type)
{
    check("{\"a\":1,\"b\":-2,\"c\":true,\"d\":false,\"e\":null,\"f\":\"x\",\"g\":[],\"h\":{}}");
    check("[1,2,3]");
    check("[[[]],{\"a\":[{\"b\":{}}]}]");
    check("\"just a string\"");
    check("42");
    check("  \t\r\n {  \"k\" : [ 1 , 2 ] }  \n");
    check("{\"dup\":1,\"dup\":2}"); /* both kept, the first found first */
    check("\xEF\xBB\xBF{\"bom\":1}");
    check("{\"trailing\":1} and then garbage"); /* cJSON ignores what follows the value */
}
END_TEST

START_TEST(numbers_as_cjson_reads_them)
{
    check("[0,-0,7,007,123456789012345,1234567890123456,12345678901234567890,-9007199254740993]");
    check("[1.5,-0.25,1e3,1E-3,2.5e+10,6.02214076e23,1e308,1e400,-1e400]");
    check("[2147483647,2147483648,-2147483648,-2147483649,4503599627370497]");
    check("[246913578,10737418240,1704626521]");
    check("[-]");
    check("[1.]");
    check("[.5]");
    check("[+1]");
    check("[1e]");
    check("[0x10]");
}
END_TEST

START_TEST(strings_with_every_escape)
{
    check("[\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"]");
    check("[\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"]"); /* 1, 2, 3 and 4 UTF-8 bytes */
    check("[\"\\uD83D\\uDE00 upper case hex\"]");
    check("[\"caf\xc3\xa9 raw UTF-8\"]");
    check("[\"\\u001b[31m escape sequences stay text\"]");
    check("{\"\\u006bey\":\"escaped key\"}");
    check("[\"\\ude00 lone low surrogate\"]");
    check("[\"\\ud83d lone high surrogate\"]");
    check("[\"\\ud83d\\u0041 high then not low\"]");
    check("[\"\\x bad escape\"]");
    check("[\"\\u12 short\"]");
    check("[\"\\u12zz bad hex\"]");
    check("[\"unterminated]");
    check("[\"ends in a backslash\\");
}
END_TEST

/* Strings are scanned eight bytes at a time: every length across a few words, with the closing
 * quote, an escape or a raw UTF-8 byte at every offset, and texts cut at every byte (no read
 * past the length, unterminated strings refused). */
START_TEST(strings_at_every_offset_and_length)
{
    char body[64], text[160];
    for (int len = 0; len <= 40; len++) {
        for (int pos = 0; pos <= len; pos++) {
            for (int variant = 0; variant < 4; variant++) {
                memset(body, 'a' + len % 26, (size_t)len);
                body[len] = '\0';
                if (pos < len) {
                    if (variant == 1) body[pos] = '\\'; /* followed by a letter: "\a" is bad */
                    if (variant == 2) body[pos] = (char)0xe9;
                    if (variant == 3) body[pos] = '"'; /* ends the string early: bad */
                }
                int n = snprintf(text, sizeof text, "{\"k%d\":\"%s\",\"x\":\"%s\\n\"}", pos, body,
                                 variant ? "t" : body);
                ck_assert_int_lt(n, (int)sizeof text);
                check_text(text, (size_t)n);
                /* cut: "{"kN":"<body>  and every shorter prefix */
                for (int cut = n - 1; cut > n - 12 && cut > 0; cut--) check_text(text, (size_t)cut);
            }
        }
        /* an escape at the end of each length: "aaa\n", "aaa\"" */
        memset(body, 'q', (size_t)len);
        int n = snprintf(text, sizeof text, "[\"%.*s\\n\",\"%.*s\\\"\"]", len, body, len, body);
        check_text(text, (size_t)n);
        for (int cut = 1; cut < n; cut++) check_text(text, (size_t)cut);
    }
}
END_TEST

START_TEST(malformed_text_is_refused)
{
    const char *bad[] = {"",          "   ",       "{",         "[",         "{\"a\"}",
                         "{\"a\":}",  "{a:1}",     "[1,]",      "[1 2]",     "{\"a\":1,}",
                         "nul",       "tru",       "fals",      "[nulls]",   "}",
                         "{\"a\" 1}", "[\"a\":1]", "{\"a\":1]", "[{\"a\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check(bad[i]);
}
END_TEST

START_TEST(length_bounds_the_text)
{
    /* not NUL-terminated: the length ends the text (a watch line inside a bigger buffer) */
    const char buf[] = "{\"a\":[1,2]}{\"b\":2}";
    check_text(buf, 11);
    check_text(buf, 10); /* cut inside the value */
    check_text("12345", 3);
    check_text("\"abc\"", 4);
    kc_json_arena *a = NULL;
    ck_assert_ptr_null(kc_json_parse(NULL, 0, &a));
    kc_json_arena_free(a);
    kc_json_arena_free(NULL);
}
END_TEST

START_TEST(prefix_parse_says_where_the_value_ends)
{
    struct {
        const char *text;
        long used; /* -1: no whole value */
    } cases[] = {
        {"{\"a\":1} ,{\"b\":2}]}", 7}, {"  [1,{\"x\":\"}\"}]]", 15},
        {"{\"a\":\"x\\\"}\"}", 12},    {"{\"a\":1", -1},
        {"{\"a\":\"1}", -1},           {"", -1},
        {"{\"a\":tru}", -1},           {"\"s\"x", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        kc_json_arena *a;
        size_t used = 99;
        cJSON *v = kc_json_parse_prefix(cases[i].text, strlen(cases[i].text), &a, &used);
        if (cases[i].used < 0) {
            ck_assert_msg(v == NULL, "%s", cases[i].text);
            ck_assert_uint_eq(used, 0);
        } else {
            ck_assert_msg(v != NULL, "%s", cases[i].text);
            ck_assert_uint_eq(used, (size_t)cases[i].used);
            /* the same tree as a parse of just those bytes */
            kc_json_arena *b;
            cJSON *w = kc_json_parse(cases[i].text, used, &b);
            ck_assert(cJSON_Compare(v, w, 1));
            kc_json_arena_free(b);
        }
        kc_json_arena_free(a);
    }
}
END_TEST

START_TEST(nesting_is_bounded)
{
    size_t n = 5000;
    char *deep = xmalloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    kc_json_arena *a = NULL;
    ck_assert_ptr_null(kc_json_parse(deep, 2 * n, &a)); /* as cJSON: no stack overflow */
    kc_json_arena_free(a);
    check_text(deep + n - 100, 200);
    free(deep);
}
END_TEST

/* Every real-shaped fixture, and a LIST page of 500 of them (a page spans several chunks). */
START_TEST(fixtures_and_a_big_page)
{
    char *dir = xasprintf("%s/velero", FIXTURES_DIR);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    kc_buf page = {0};
    kc_buf_append(&page, "{\"kind\":\"PodVolumeBackupList\",\"items\":[", 39);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 5, ".json")) continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        size_t len = 0;
        char *text = tu_read(path, &len);
        ck_assert_ptr_nonnull(text);
        check_text(text, len);
        if (files) kc_buf_append(&page, ",", 1);
        kc_buf_append(&page, text, len);
        files++;
        free(text);
        free(path);
    }
    closedir(d);
    free(dir);
    ck_assert_int_gt(files, 5);
    char *items = xstrdup(kc_buf_cstr(&page) + 39);
    for (int i = 0; i < 500 / files; i++) {
        kc_buf_append(&page, ",", 1);
        kc_buf_append(&page, items, strlen(items));
    }
    free(items);
    kc_buf_append(&page, "]}", 2);
    check_text(page.data, page.len);
    kc_buf_free(&page);
}
END_TEST

/* cJSON's tree of the same text with the lean parse's cut made by hand: every member of an object
 * value of a "fieldsV1" member keeps its name, and its value, when an object or array, its kind
 * and nothing else. */
static void cut_fieldsv1(cJSON *n)
{
    for (cJSON *c = n ? n->child : NULL; c; c = c->next) {
        if (c->string && !strcmp(c->string, "fieldsV1") && cJSON_IsObject(c)) {
            for (cJSON *f = c->child; f; f = f->next) {
                if (!cJSON_IsObject(f) && !cJSON_IsArray(f)) continue;
                cJSON_Delete(f->child);
                f->child = NULL;
            }
            continue;
        }
        cut_fieldsv1(c);
    }
}

/* The lean parse of text is cJSON's tree cut as above (or both refuse it). */
static void check_lean(const char *text, size_t len)
{
    cJSON *want = cJSON_ParseWithLength(text, len);
    kc_json_arena *a = NULL;
    cJSON *got = kc_json_parse_lean(text, len, &a);
    if (!want) {
        ck_assert_msg(got == NULL, "lean parse accepted what cJSON refuses: %.*s", (int)len, text);
    } else {
        ck_assert_msg(got != NULL, "lean parse refused what cJSON accepts: %.*s", (int)len, text);
        cut_fieldsv1(want);
        same_tree(got, want);
    }
    cJSON_Delete(want);
    kc_json_arena_free(a);
}

static void check_lean_s(const char *text)
{
    check_lean(text, strlen(text));
}

/* Exactly the fields veltop reads are kept: fieldsV1's top-level names (f:status, f:metadata ...)
 * and everything outside fieldsV1, in real-shaped objects with managedFields. */
START_TEST(lean_keeps_fieldsv1_names_and_the_rest)
{
    const char *dirs[] = {"managedfields", "velero"};
    int with_mf = 0;
    for (int k = 0; k < 2; k++) {
        char *dir = xasprintf("%s/%s", FIXTURES_DIR, dirs[k]);
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));) {
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 5, ".json")) continue;
            char *path = xasprintf("%s/%s", dir, e->d_name);
            size_t len = 0;
            char *text = tu_read(path, &len);
            ck_assert_ptr_nonnull(text);
            check_lean(text, len);
            with_mf += strstr(text, "\"fieldsV1\"") != NULL;
            free(text);
            free(path);
        }
        closedir(d);
        free(dir);
    }
    ck_assert_int_ge(with_mf, 2); /* the cut was exercised */
    kc_json_arena *a = NULL;
    const char *t = "{\"metadata\":{\"managedFields\":[{\"manager\":\"m\",\"fieldsV1\":"
                    "{\"f:status\":{\"f:progress\":{\"f:bytesDone\":{}}},\"f:spec\":[1,{\"x\":2}],"
                    "\"n\":7,\"s\":\"v\"},\"time\":\"2026-01-01T00:00:00Z\"}]}}";
    cJSON *o = kc_json_parse_lean(t, strlen(t), &a);
    ck_assert_ptr_nonnull(o);
    char *out = cJSON_PrintUnformatted(o);
    ck_assert_str_eq(out, "{\"metadata\":{\"managedFields\":[{\"manager\":\"m\",\"fieldsV1\":"
                          "{\"f:status\":{},\"f:spec\":[],\"n\":7,\"s\":\"v\"},"
                          "\"time\":\"2026-01-01T00:00:00Z\"}]}}");
    free(out);
    kc_json_arena_free(a);
    /* a fieldsV1 that is no object, and the name elsewhere than in managedFields: the same cut */
    check_lean_s("{\"fieldsV1\":[{\"a\":{}}],\"x\":{\"fieldsV1\":{\"f:a\":{\"b\":1}}}}");
    check_lean_s("{\"fieldsV1\":\"text\",\"fieldsV1x\":{\"f:a\":{\"b\":1}}}");
    check_lean_s("{\"fieldsV1\":{}}");
}
END_TEST

/* What the skip scanner must refuse: the text ending inside the skipped value, brackets that
 * do not close with their own kind, strings that do not end; and nesting past cJSON's limit.
 * Brackets and backslashes inside strings are text, not structure. */
START_TEST(lean_skip_refuses_hostile_text)
{
    const char *bad[] = {
        "{\"fieldsV1\":{\"f:a\":{",
        "{\"fieldsV1\":{\"f:a\":{}",
        "{\"fieldsV1\":{\"f:a\":{]}}",
        "{\"fieldsV1\":{\"f:a\":[}}}",
        "{\"fieldsV1\":{\"f:a\":{\"x}}}",
        "{\"fieldsV1\":{\"f:a\":{\"x\\\"}}}",
        "{\"fieldsV1\":{\"f:a\":{\"x\\",
        "{\"fieldsV1\":{\"f:a\" {}}}",
        "{\"fieldsV1\":{\"f:a\":{} \"f:b\":{}}}",
        "{\"fieldsV1\":{f:a:{}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kc_json_arena *a = NULL;
        ck_assert_msg(kc_json_parse_lean(bad[i], strlen(bad[i]), &a) == NULL, "accepted %s",
                      bad[i]);
        kc_json_arena_free(a);
    }
    check_lean_s("{\"fieldsV1\":{\"f:a\":{\"}]\\\"{[\":{\"\\\\\":[]}}},\"k\":1}");
    /* every prefix of a real entry is refused, the whole is accepted */
    const char *t = "{\"fieldsV1\":{\"f:status\":{\"f:p\":{\"f:q\":[\"}\",{\"z\":\"]\\\\\"}]}},"
                    "\"f:m\":{}},\"time\":\"t\"}";
    for (size_t n = 0; n < strlen(t); n++) {
        kc_json_arena *a = NULL;
        ck_assert_msg(kc_json_parse_lean(t, n, &a) == NULL, "accepted a prefix of %zu", n);
        kc_json_arena_free(a);
    }
    check_lean_s(t);
    /* nesting: the skipped value counts toward the limit as a parsed one would */
    size_t n = 3000;
    kc_buf deep = {0};
    kc_buf_append(&deep, "{\"fieldsV1\":{\"f:a\":", 19);
    for (size_t i = 0; i < n; i++) kc_buf_append(&deep, i % 2 ? "[" : "{\"k\":", i % 2 ? 1 : 5);
    for (size_t i = n; i-- > 0;) kc_buf_append(&deep, i % 2 ? "]" : "}", 1);
    kc_buf_append(&deep, "}}", 2);
    kc_json_arena *a = NULL;
    ck_assert_ptr_null(kc_json_parse_lean(deep.data, deep.len, &a));
    kc_json_arena_free(a);
    kc_buf_free(&deep);
    /* just under the limit, both ways */
    kc_buf ok = {0};
    kc_buf_append(&ok, "{\"fieldsV1\":{\"f:a\":", 19);
    for (int i = 0; i < 990; i++) kc_buf_append(&ok, "[", 1);
    for (int i = 0; i < 990; i++) kc_buf_append(&ok, "]", 1);
    kc_buf_append(&ok, "}}", 2);
    check_lean(ok.data, ok.len);
    kc_buf_free(&ok);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jsonarena");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, values_of_every_type);
    tcase_add_test(tc, numbers_as_cjson_reads_them);
    tcase_add_test(tc, strings_with_every_escape);
    tcase_add_test(tc, strings_at_every_offset_and_length);
    tcase_add_test(tc, malformed_text_is_refused);
    tcase_add_test(tc, length_bounds_the_text);
    tcase_add_test(tc, nesting_is_bounded);
    tcase_add_test(tc, prefix_parse_says_where_the_value_ends);
    tcase_add_test(tc, fixtures_and_a_big_page);
    tcase_add_test(tc, lean_keeps_fieldsv1_names_and_the_rest);
    tcase_add_test(tc, lean_skip_refuses_hostile_text);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
