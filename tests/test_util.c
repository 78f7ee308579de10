/* test_util.c: time parsing, base64 and buffers behave as the rest of the code expects. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

START_TEST(parses_rfc3339_utc_and_offsets)
{
    double t;
    ck_assert_int_eq(kc_parse_time("2024-01-07T11:21:59Z", &t), 0);
    ck_assert_double_eq(t, 1704626519.0);
    ck_assert_int_eq(kc_parse_time("2024-01-07T12:21:59+01:00", &t), 0);
    ck_assert_double_eq(t, 1704626519.0);
    ck_assert_int_eq(kc_parse_time("2024-01-07T11:21:59.5Z", &t), 0);
    ck_assert_double_eq(t, 1704626519.5);
    ck_assert_int_eq(kc_parse_time("yesterday", &t), -1);
    ck_assert_int_eq(kc_parse_time("", &t), -1);
    char buf[32];
    kc_format_time(1704626519.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "2024-01-07T11:21:59Z");
}
END_TEST

START_TEST(base64_round_trip_and_rejects_garbage)
{
    size_t n;
    unsigned char *d = kc_base64_decode("aGVsbG8gd29ybGQ=", &n);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(n, 11);
    ck_assert_mem_eq(d, "hello world", 11);
    free(d);
    d = kc_base64_decode("aGVsbG8g\nd29ybGQ=\n", &n);
    ck_assert_ptr_nonnull(d);
    ck_assert_mem_eq(d, "hello world", 11);
    free(d);
    ck_assert_ptr_null(kc_base64_decode("!!!not base64!!!", &n));
    char *e = kc_base64_encode((const unsigned char *)"hello world", 11);
    ck_assert_str_eq(e, "aGVsbG8gd29ybGQ=");
    free(e);
}
END_TEST

START_TEST(url_escape_encodes_selector_characters)
{
    char *s = kc_url_escape("velero.io/backup-name=a b");
    ck_assert_str_eq(s, "velero.io%2Fbackup-name%3Da%20b");
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");
    tcase_add_test(tc, parses_rfc3339_utc_and_offsets);
    tcase_add_test(tc, base64_round_trip_and_rejects_garbage);
    tcase_add_test(tc, url_escape_encodes_selector_characters);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
