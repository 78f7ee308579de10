/* test_logparse.c: logrus text and JSON lines parse into level, time, msg and exact field values.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "logparse.h"
#include "testutil.h"

static lp_line L;

static void teardown(void)
{
    lp_line_free(&L);
}

START_TEST(text_line_with_quoted_values_and_empty_keys)
{
    const char *s = "time=\"2021-09-09T10:41:59Z\" level=info msg=\"Processing item\" "
                    "backup=velero/ns-panda-05 logSource=\"pkg/backup/backup.go:354\" "
                    "name=frontend namespace=ns-panda progress= resource=deployments.apps";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), 0);
    ck_assert_int_eq(L.level, LP_INFO);
    ck_assert_str_eq(L.time, "2021-09-09T10:41:59Z");
    ck_assert_str_eq(L.msg, "Processing item");
    ck_assert_uint_eq(L.nfields, 9);
    ck_assert_str_eq(lp_get(&L, "backup"), "velero/ns-panda-05");
    ck_assert_str_eq(lp_get(&L, "logSource"), "pkg/backup/backup.go:354");
    ck_assert_str_eq(lp_get(&L, "progress"), "");
    ck_assert_str_eq(lp_get(&L, "resource"), "deployments.apps");
    ck_assert_str_eq(L.fields[8].key, "resource");
    ck_assert_ptr_null(lp_get(&L, "kind"));
}
END_TEST

START_TEST(escaped_quotes_backslashes_and_unicode)
{
    const char *s = "time=\"2024-06-03T01:25:56Z\" level=error msg=\"Error backing up item\" "
                    "error=\"pods \\\"cart-0\\\" not found\" path=\"C:\\\\tmp\\\\x\" "
                    "note=\"caf\\u00e9\\ttab\\nnl\" trailing=";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), 0);
    ck_assert_int_eq(L.level, LP_ERROR);
    ck_assert_str_eq(lp_get(&L, "error"), "pods \"cart-0\" not found");
    ck_assert_str_eq(lp_get(&L, "path"), "C:\\tmp\\x");
    ck_assert_str_eq(lp_get(&L, "note"), "caf\xc3\xa9\ttab\nnl");
    ck_assert_str_eq(lp_get(&L, "trailing"), "");
}
END_TEST

START_TEST(levels_warning_and_unterminated_quote)
{
    const char *s = "level=warning msg=\"Skipping item because";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), 0);
    ck_assert_int_eq(L.level, LP_WARNING);
    ck_assert_str_eq(L.msg, "Skipping item because");
    ck_assert_str_eq(L.time, "");
    ck_assert_int_eq(lp_level_of(s, strlen(s)), LP_WARNING);
}
END_TEST

START_TEST(json_line_with_non_string_values)
{
    const char *s = "{\"backup\":\"velero/b1\",\"level\":\"debug\",\"msg\":\"Retrieved 3 items\","
                    "\"n\":42,\"ok\":true,\"none\":null,\"resource\":\"pods\","
                    "\"time\":\"2024-06-03T01:25:54Z\",\"quote\":\"a \\\"b\\\"\"}\n";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), 0);
    ck_assert_int_eq(L.level, LP_DEBUG);
    ck_assert_str_eq(L.msg, "Retrieved 3 items");
    ck_assert_str_eq(L.time, "2024-06-03T01:25:54Z");
    ck_assert_str_eq(lp_get(&L, "n"), "42");
    ck_assert_str_eq(lp_get(&L, "ok"), "true");
    ck_assert_str_eq(lp_get(&L, "none"), "");
    ck_assert_str_eq(lp_get(&L, "quote"), "a \"b\"");
    ck_assert_int_eq(lp_level_of(s, strlen(s)), LP_DEBUG);
}
END_TEST

START_TEST(plain_text_is_not_logrus)
{
    const char *s = "panic: runtime error: invalid memory address";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), -1);
    ck_assert_int_eq(L.level, LP_UNKNOWN);
    ck_assert_uint_eq(L.nfields, 0);
    ck_assert_int_eq(lp_level_of(s, strlen(s)), LP_UNKNOWN);
    ck_assert_int_eq(lp_parse(&L, "{not json", 9), -1);
    ck_assert_int_eq(lp_parse(&L, "", 0), -1);
    /* a parsed line can be reused for another */
    ck_assert_int_eq(lp_parse(&L, "level=fatal msg=x", 17), 0);
    ck_assert_int_eq(L.level, LP_FATAL);
    ck_assert_str_eq(lp_level_name(L.level), "fatal");
}
END_TEST

/* restore.go:1113 logs a field whose key has a space; logrus writes the key as it is. */
START_TEST(key_with_a_space_is_one_key)
{
    const char *s = "time=\"2026-12-01T02:00:12Z\" level=info msg=\"Attempting to restore Pod: "
                    "db-0.\" groupResource=pods logSource=\"pkg/restore/restore.go:1506\" "
                    "namespace=shop original name=db-0 restore=velero/r1";
    ck_assert_int_eq(lp_parse(&L, s, strlen(s)), 0);
    ck_assert_uint_eq(L.nfields, 8);
    ck_assert_str_eq(L.fields[6].key, "original name");
    ck_assert_str_eq(lp_get(&L, "original name"), "db-0");
    ck_assert_ptr_null(lp_get(&L, "name")); /* not read out of "original name" */
    ck_assert_ptr_null(lp_get(&L, "original"));
    ck_assert_str_eq(lp_get(&L, "namespace"), "shop");
    ck_assert_str_eq(lp_get(&L, "restore"), "velero/r1");
    /* empty value before it, and two spaces in a key */
    const char *t = "level=info msg=x namespace= a b c=\"q v\" d=1";
    ck_assert_int_eq(lp_parse(&L, t, strlen(t)), 0);
    ck_assert_str_eq(lp_get(&L, "namespace"), "");
    ck_assert_str_eq(lp_get(&L, "a b c"), "q v");
    ck_assert_str_eq(lp_get(&L, "d"), "1");
    /* words before the first field are no key (a prefix some log shippers add) */
    const char *u = "2026-12-01T02:00:12.1Z stdout level=warning msg=y";
    ck_assert_int_eq(lp_parse(&L, u, strlen(u)), 0);
    ck_assert_str_eq(L.fields[0].key, "level");
    ck_assert_int_eq(L.level, LP_WARNING);
}
END_TEST

START_TEST(level_of_ignores_lookalike_keys)
{
    const char *s = "time=\"x\" loglevel=debug level=error msg=\"level=info\"";
    ck_assert_int_eq(lp_level_of(s, strlen(s)), LP_ERROR);
    ck_assert_int_eq(lp_level_parse("warn", 4), LP_WARNING);
    ck_assert_int_eq(lp_level_parse("bogus", 5), LP_UNKNOWN);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("logparse");
    TCase *tc = tcase_create("logparse");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, text_line_with_quoted_values_and_empty_keys);
    tcase_add_test(tc, escaped_quotes_backslashes_and_unicode);
    tcase_add_test(tc, levels_warning_and_unterminated_quote);
    tcase_add_test(tc, json_line_with_non_string_values);
    tcase_add_test(tc, plain_text_is_not_logrus);
    tcase_add_test(tc, level_of_ignores_lookalike_keys);
    tcase_add_test(tc, key_with_a_space_is_one_key);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
