/* test_util.c: time parsing, base64 and buffers behave as the rest of the code expects. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/sat.h"
#include "kubeclient/util.h"
#include "testutil.h"

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

/* Timestamps come from the cluster, logs and exec plugins: a malformed one is rejected without
 * reading past its end, and only 4-digit years with in-range fields are accepted (so every
 * accepted time fits time_t and prints as itself). */
START_TEST(parse_time_rejects_malformed_without_overreading)
{
    double t = 42;
    /* a short offset: sscanf("%2d:%2d") used to accept it and the parser stepped past the NUL */
    char *s = xstrdup("2030-01-01T00:00:00+1:2");
    ck_assert_int_eq(kc_parse_time(s, &t), -1);
    free(s);
    s = xstrdup("2030-01-01T00:00:00+01");
    ck_assert_int_eq(kc_parse_time(s, &t), -1);
    free(s);
    /* a fraction that strtod would read as 0.9e300 */
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00.9e300Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00.Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00.-5Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("+2030-01-01T00:00:00Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("99999999-01-01T00:00:00Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-13-01T00:00:00Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-01-01T24:00:00Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00+25:00", &t), -1);
    ck_assert_int_eq(kc_parse_time(" 2030-01-01T00:00:00Z", &t), -1);
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00Zjunk", &t), -1);
    ck_assert_double_eq(t, 42); /* untouched on failure */
    /* what Kubernetes, Go and logrus write still parses */
    ck_assert_int_eq(kc_parse_time("2030-01-01T00:00:00.123456789Z", &t), 0);
    ck_assert_double_eq_tol(t, 1893456000.123456789, 1e-6);
    ck_assert_int_eq(kc_parse_time("2030-01-01T05:30:00+05:30", &t), 0);
    ck_assert_double_eq(t, 1893456000.0);
    ck_assert_int_eq(kc_parse_time("2029-12-31T23:00:00-01:00", &t), 0);
    ck_assert_double_eq(t, 1893456000.0);
    ck_assert_int_eq(kc_parse_time("0001-01-01T00:00:00Z", &t), 0); /* Go's zero time */
    ck_assert_double_eq(t, -62135596800.0);
}
END_TEST

/* metav1.Time is Go's time.Parse(time.RFC3339): its answers, row by row (src/time/
 * format_rfc3339.go parseRFC3339, then format.go parse; parseNanoseconds truncates past 9
 * digits). A refused string leaves the field unset. */
START_TEST(parse_time_answers_as_go_rfc3339)
{
    static const struct {
        const char *in;
        int ok;
        long long sec;  /* whole seconds since the epoch */
        const char *hh; /* what kc_format_time shows */
    } rows[] = {
        {"2021-09-29T16:04:33.999999999Z", 1, 1632931473, "2021-09-29T16:04:33Z"},
        {"2021-09-29T16:04:33.9999999999999Z", 1, 1632931473, "2021-09-29T16:04:33Z"},
        {"2021-09-29T16:04:33.999999Z", 1, 1632931473, "2021-09-29T16:04:33Z"},
        {"2021-09-29T16:04:33.1234567891234Z", 1, 1632931473, "2021-09-29T16:04:33Z"},
        {"2021-09-29T16:04:33Z", 1, 1632931473, "2021-09-29T16:04:33Z"},
        {"2016-12-31T23:59:59Z", 1, 1483228799, "2016-12-31T23:59:59Z"},
        {"2016-12-31T23:59:60Z", 0, 0, NULL}, /* Go has no leap second */
        {"2021-09-29T21:00:60Z", 0, 0, NULL},
        {"2012-02-29T00:00:00Z", 1, 1330473600, "2012-02-29T00:00:00Z"}, /* leap year */
        {"2000-02-29T00:00:00Z", 1, 951782400, "2000-02-29T00:00:00Z"},  /* 400 rule */
        {"1900-02-29T00:00:00Z", 0, 0, NULL},                            /* 100 rule */
        {"2010-02-29T00:00:00Z", 0, 0, NULL},
        {"2010-02-30T00:00:00Z", 0, 0, NULL},
        {"2010-04-31T00:00:00Z", 0, 0, NULL},
        {"2010-06-31T00:00:00Z", 0, 0, NULL},
        {"2010-09-31T00:00:00Z", 0, 0, NULL},
        {"2010-11-31T00:00:00Z", 0, 0, NULL},
        {"2010-12-31T00:00:00Z", 1, 1293753600, "2010-12-31T00:00:00Z"},
        {"2010-01-00T00:00:00Z", 0, 0, NULL},
        {"2021-09-29t16:04:33Z", 0, 0, NULL}, /* 'T' and 'Z' are upper case in Go's layout */
        {"2021-09-29T16:04:33z", 0, 0, NULL},
        {"2021-09-29T16:04:33.5+02:00", 1, 1632924273, "2021-09-29T14:04:33Z"},
        /* what the layout parser (format.go parse) adds when the strict reader refuses: */
        {"2021-09-29T6:04:33Z", 1, 1632895473, "2021-09-29T06:04:33Z"},       /* "15": 1 digit */
        {"2021-09-29T16:04:33,5Z", 1, 1632931473, "2021-09-29T16:04:33Z"},    /* commaOrPeriod */
        {"2021-09-29T16:04:33+24:00", 1, 1632845073, "2021-09-28T16:04:33Z"}, /* hr > 24 */
        {"2021-09-29T16:04:33+01:60", 1, 1632924273, "2021-09-29T14:04:33Z"}, /* mm > 60 */
        {"2021-09-29T16:04:33+25:00", 0, 0, NULL},
        {"2021-09-29T16:04:33+01:61", 0, 0, NULL},
        {"2021-09-29T16:4:33Z", 0, 0, NULL}, /* minutes and seconds: two digits */
        {"2021-9-29T16:04:33Z", 0, 0, NULL}, /* "01" and "02": two digits */
        {"2021-09-29T16:04:33.Z", 0, 0, NULL},
        {"2021-09-29T24:00:00Z", 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double t = -1;
        int rc = kc_parse_time(rows[i].in, &t);
        ck_assert_msg(rc == (rows[i].ok ? 0 : -1), "%s: rc %d", rows[i].in, rc);
        if (!rows[i].ok) {
            ck_assert_msg(t == -1, "%s: touched on failure", rows[i].in);
            continue;
        }
        ck_assert_msg((long long)floor(t) == rows[i].sec, "%s: %.9f", rows[i].in, t);
        char buf[32];
        kc_format_time(t, buf, sizeof buf);
        ck_assert_str_eq(buf, rows[i].hh);
    }
    /* the fraction is kept below the second, as far as a double can */
    double t;
    ck_assert_int_eq(kc_parse_time("2021-09-29T16:04:33.5Z", &t), 0);
    ck_assert_double_eq(t, 1632931473.5);
    ck_assert_int_eq(kc_parse_time("2021-09-29T16:04:33.999999999Z", &t), 0);
    ck_assert_double_lt(t, 1632931474.0);
    ck_assert_double_gt(t, 1632931473.999999);
}
END_TEST

/* A time that is not a date (NaN, past year 9999) prints as "?" rather than through a cast to
 * time_t that overflows. */
START_TEST(format_time_out_of_range_is_unknown)
{
    char buf[32];
    kc_format_time(1e300, buf, sizeof buf);
    ck_assert_str_eq(buf, "?");
    kc_format_time(-1e300, buf, sizeof buf);
    ck_assert_str_eq(buf, "?");
    kc_format_time(0.0 / 0.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "?");
    kc_format_time(253402300799.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "9999-12-31T23:59:59Z");
}
END_TEST

/* Numbers from outside saturate instead of overflowing (undefined behaviour). */
START_TEST(saturating_arithmetic)
{
    ck_assert_int_eq(kc_sat_add(INT64_MAX, 1), INT64_MAX);
    ck_assert_int_eq(kc_sat_add(INT64_MAX, INT64_MAX), INT64_MAX);
    ck_assert_int_eq(kc_sat_add(INT64_MIN, -1), INT64_MIN);
    ck_assert_int_eq(kc_sat_add(40, 2), 42);
    ck_assert_int_eq(kc_sat_sub(INT64_MAX, INT64_MIN), INT64_MAX);
    ck_assert_int_eq(kc_sat_sub(INT64_MIN, INT64_MAX), INT64_MIN);
    ck_assert_int_eq(kc_sat_sub(44, 2), 42);
    ck_assert_double_eq(kc_i64_diff(INT64_MAX, INT64_MIN), 18446744073709551615.0);
    ck_assert_double_eq(kc_i64_diff(9007199254740993, 9007199254740992), 1.0); /* exact */
    ck_assert_int_eq(kc_sat_from_double(1e19), INT64_MAX);
    ck_assert_int_eq(kc_sat_from_double(-1e300), INT64_MIN);
    ck_assert_int_eq(kc_sat_from_double(0.0 / 0.0), 0);
    ck_assert_int_eq(kc_sat_from_double(-42.9), -42);
    ck_assert_int_eq(kc_sat_from_double(9223372036854775807.0), INT64_MAX);
    ck_assert_int_eq(kc_sat_from_double(-9223372036854775808.0), INT64_MIN);
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

/* Userinfo in a URL (a kubeconfig's server, a downloadURL) never reaches a message or the screen.
 */
START_TEST(url_redact_hides_userinfo)
{
    const char *cases[][2] = {
        {"https://admin:S3cretPass@host:6443/api?x=1", "https://xxxxx@host:6443/api?x=1"},
        {"http://token@h/p", "http://xxxxx@h/p"},
        {"https://host:6443", "https://host:6443"},
        {"https://host/a@b", "https://host/a@b"}, /* an @ in the path is not userinfo */
        {"https://u:p@h?q=a@b", "https://xxxxx@h?q=a@b"},
        {"https://a@b:c@h/", "https://xxxxx@h/"},
        {"user:pass@host/x", "xxxxx@host/x"}, /* no scheme */
        {"/api/v1/namespaces/kube-system/secrets", "/api/v1/namespaces/kube-system/secrets"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *r = kc_url_redact(cases[i][0]);
        ck_assert_str_eq(r, cases[i][1]);
        free(r);
    }
}
END_TEST

/* A name from the cluster put into a request path is one escaped segment, and never ".", ".." or
 * one with a slash (Kubernetes' own rule for names in paths). */
START_TEST(path_segment_escapes_and_refuses_traversal)
{
    char *s = kc_path_segment("velero-7d9f-abc.x_y");
    ck_assert_str_eq(s, "velero-7d9f-abc.x_y");
    free(s);
    s = kc_path_segment("a b?c#d&e");
    ck_assert_str_eq(s, "a%20b%3Fc%23d%26e");
    free(s);
    ck_assert_ptr_null(kc_path_segment("x/../../../api/v1/secrets"));
    ck_assert_ptr_null(kc_path_segment(".."));
    ck_assert_ptr_null(kc_path_segment("."));
    ck_assert_ptr_null(kc_path_segment(""));
    ck_assert_ptr_null(kc_path_segment("a%2Fb"));
    ck_assert_ptr_null(kc_path_segment(NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");
    tcase_add_test(tc, parses_rfc3339_utc_and_offsets);
    tcase_add_test(tc, parse_time_rejects_malformed_without_overreading);
    tcase_add_test(tc, parse_time_answers_as_go_rfc3339);
    tcase_add_test(tc, format_time_out_of_range_is_unknown);
    tcase_add_test(tc, saturating_arithmetic);
    tcase_add_test(tc, base64_round_trip_and_rejects_garbage);
    tcase_add_test(tc, url_escape_encodes_selector_characters);
    tcase_add_test(tc, url_redact_hides_userinfo);
    tcase_add_test(tc, path_segment_escapes_and_refuses_traversal);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
