/* test_format.c: durations, ETAs, bytes, rates and counts read the way the screens promise. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "testutil.h"

START_TEST(durations_pick_two_units)
{
    char b[32];
    ck_assert_str_eq(fmt_duration(b, sizeof b, -1), "-");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 0), "0s");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 45.2), "45s");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 192), "3m12s");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 3840), "1h04m");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 2 * 86400 + 3 * 3600 + 59), "2d03h");
}
END_TEST

/* An ETA is its projection however long (days, then years), never a cap such as "> 2d". */
START_TEST(eta_is_never_capped_and_unknown_is_a_dash)
{
    char b[32];
    ck_assert_str_eq(fmt_eta(b, sizeof b, -1), "-");
    ck_assert_str_eq(fmt_eta(b, sizeof b, NAN), "-");
    ck_assert_str_eq(fmt_eta(b, sizeof b, INFINITY), "-");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 90), "1m30s");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 3 * 86400 + 4 * 3600), "3d04h");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 172801), "2d00h");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 99 * 86400.0 + 23 * 3600), "99d23h");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 345.5 * 86400), "345d");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 31 * 365.25 * 86400), "31y");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 998 * 365.25 * 86400), "998y");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 1.8e18), "6e10y");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 9.7 * 365.25 * 86400 * 1e3), "1e4y");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 1.8e25), "6e17y");
    /* its end past year 9999: no date, and no time_t cast of it */
    ck_assert_str_eq(fmt_clock_since(b, sizeof b, 1.8e25, 1.7e9), "-");
}
END_TEST

START_TEST(bytes_in_binary_units)
{
    char b[32];
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 0), "0 B");
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 512), "512 B");
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 1024), "1.0 KiB");
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 2147483648LL), "2.0 GiB");
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 10737418240LL), "10.0 GiB");
    ck_assert_str_eq(fmt_bytes(b, sizeof b, 1048575), "1.0 MiB");
    ck_assert_str_eq(fmt_byte_rate(b, sizeof b, 12582912), "12.0 MiB/s");
    ck_assert_str_eq(fmt_byte_rate(b, sizeof b, -1), "-");
}
END_TEST

START_TEST(rates_and_counts_are_compact)
{
    char b[32];
    ck_assert_str_eq(fmt_rate(b, sizeof b, -1), "-");
    ck_assert_str_eq(fmt_rate(b, sizeof b, 0.44), "0.4/s");
    /* slow, not stopped: 0.012/s is 0.7 a minute, one an hour is 1.0/h */
    ck_assert_str_eq(fmt_rate(b, sizeof b, 0.012), "0.7/m");
    ck_assert_str_eq(fmt_rate(b, sizeof b, 1.0 / 3600), "1.0/h");
    ck_assert_str_eq(fmt_rate(b, sizeof b, 0), "0.0/s");
    ck_assert_str_eq(fmt_rate(b, sizeof b, 12.4), "12/s");
    ck_assert_str_eq(fmt_rate(b, sizeof b, 1234), "1.2k/s");
    ck_assert_str_eq(fmt_count(b, sizeof b, 987), "987");
    ck_assert_str_eq(fmt_count(b, sizeof b, 12345), "12.3k");
    ck_assert_str_eq(fmt_count(b, sizeof b, 4500000), "4.5M");
    ck_assert_str_eq(fmt_ago(b, sizeof b, 4), "4s ago");
    ck_assert_str_eq(fmt_ago(b, sizeof b, 180), "3m00s ago");
}
END_TEST

START_TEST(clock_times_are_local_and_dash_when_absent)
{
    char b[32];
    setenv("TZ", "UTC", 1);
    ck_assert_str_eq(fmt_clock(b, sizeof b, 0, 0), "-");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 0), "11:21:59");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 1), "2024-01-07 11:21:59");
    ck_assert_str_eq(fmt_started(b, sizeof b, 1704626519.0, 1704626519.0 + 60), "11:21:59");
    ck_assert_str_eq(fmt_started(b, sizeof b, 1704626519.0, 1704626519.0 + 3 * 86400),
                     "01-07 11:21");
}
END_TEST

START_TEST(times_show_their_zone_and_utc_on_request)
{
    char b[32];
    setenv("TZ", "XYZ-2", 1); /* a zone two hours east of UTC, no tzdata needed */
    tzset();
    fmt_set_utc(0);
    ck_assert_str_eq(fmt_zone(b, sizeof b, 1704626519.0), "XYZ");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 0), "13:21:59");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 1), "2024-01-07 13:21:59");
    ck_assert_str_eq(fmt_clock_since(b, sizeof b, 1704626519.0 + 99, 1704626519.0), "13:23:38");
    ck_assert_str_eq(fmt_clock_since(b, sizeof b, 1704626519.0 + 86400, 1704626519.0),
                     "2024-01-08 13:21:59");
    ck_assert_str_eq(fmt_started(b, sizeof b, 1704626519.0, 1704626519.0 + 60), "13:21:59");
    /* 23:30 UTC is the next day two hours east: the day changes with the zone */
    ck_assert_str_eq(fmt_clock_since(b, sizeof b, 1704670200.0 + 3600, 1704670200.0), "02:30:00");
    fmt_set_utc(1);
    ck_assert_str_eq(fmt_zone(b, sizeof b, 1704626519.0), "UTC");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 0), "11:21:59");
    ck_assert_str_eq(fmt_clock(b, sizeof b, 1704626519.0, 1), "2024-01-07 11:21:59");
    ck_assert_str_eq(fmt_started(b, sizeof b, 1704626519.0, 1704626519.0 + 3 * 86400),
                     "01-07 11:21");
    ck_assert_str_eq(fmt_clock_since(b, sizeof b, 1704670200.0 + 3600, 1704670200.0),
                     "2024-01-08 00:30:00");
    fmt_set_utc(0);
    setenv("TZ", "IST-5:30", 1); /* still a name; an offset-only zone shows the offset */
    tzset();
    ck_assert_str_eq(fmt_zone(b, sizeof b, 1704626519.0), "IST");
    setenv("TZ", "<+0530>-5:30", 1);
    tzset();
    ck_assert_str_eq(fmt_zone(b, sizeof b, 1704626519.0), "+0530");
}
END_TEST

/* Values past the int64 range (a byte rate from a counter jumping by 2^64, a duration of inf)
 * print as the largest value instead of through an overflowing cast (UBSan aborts on one). */
START_TEST(huge_values_saturate)
{
    char b[64];
    ck_assert_str_eq(fmt_byte_rate(b, sizeof b, 1.8e19), "8.0 EiB/s");
    ck_assert_str_eq(fmt_byte_rate(b, sizeof b, 1.0 / 0.0), "8.0 EiB/s");
    ck_assert_str_eq(fmt_byte_rate(b, sizeof b, 0.0 / 0.0), "-");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 1.0 / 0.0), "-");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 1e300), "-");
    ck_assert_str_eq(fmt_duration(b, sizeof b, 3e11), "3472222d05h");
}
END_TEST

/* Every pair at every width: the widest form that fits, each number whole with its unit; a
 * width no form fits gets the shortest, wider than asked, never a number cut. */
START_TEST(count_pairs_fit_without_losing_digits)
{
    static const struct {
        int64_t a, b;
        int est, width;
        const char *want;
    } cases[] = {
        {123456, 150000, 1, 14, "123456/~150000"},
        {123456, 150000, 1, 13, "123k/~150k"}, /* "123.5k/~150.0k" is 14 too */
        {123456, 150000, 1, 10, "123k/~150k"},
        {123456, 150000, 1, 9, "123k/~150k"}, /* nothing fits: the shortest, whole */
        {123456, 150000, 1, 0, "123k/~150k"},
        {4321, 98765, 1, 11, "4321/~98765"},
        {4321, 98765, 1, 10, "4.3k/~99k"}, /* "4321/~98.8k" is 11 */
        {4321, 98765, 1, 9, "4.3k/~99k"},
        {12345, 678901, 0, 12, "12345/678901"},
        {12345, 678901, 0, 11, "12k/679k"}, /* "12.3k/678.9k" is 12 */
        {12345, 678901, 0, 6, "12k/679k"},
        {12345, 67890, 0, 11, "12345/67890"},
        {12345, 67890, 0, 10, "12k/68k"},
        {12345, 6789, 0, 9, "12k/6.8k"},
        {0, 0, 0, 5, "0/0"},
        {999, 1000, 0, 3, "999/1.0k"},
        {9949, 9950, 0, 0, "9.9k/10k"},
        {999499, 999500, 0, 0, "999k/1.0M"},
        {999949, 999950, 0, 11, "999.9k/1.0M"},
        {1234567890, 9876543210LL, 1, 0, "1.2G/~9.9G"},
        {-5, 12, 0, 9, "-5/12"},
        {-123456, 0, 0, 0, "-123k/0"},
        {INT64_MAX, INT64_MIN, 0, 0, "9.2E/-9.2E"},
    };
    char b[96];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fmt_count_pair(b, sizeof b, cases[i].a, cases[i].b, cases[i].est, cases[i].width);
        ck_assert_msg(!strcmp(b, cases[i].want), "%lld/%lld at %d: '%s', want '%s'",
                      (long long)cases[i].a, (long long)cases[i].b, cases[i].width, b,
                      cases[i].want);
    }
    /* at every width from the shortest form up, the result fits */
    for (int w = 10; w <= 20; w++)
        ck_assert_int_le((int)strlen(fmt_count_pair(b, sizeof b, 123456, 150000, 1, w)), w);
}
END_TEST

START_TEST(byte_pairs_fit_without_losing_digits)
{
    static const struct {
        int64_t a, b;
        const char *sep;
        int width;
        const char *want;
    } cases[] = {
        {1610612736, 4294967296LL, " / ", 21, "1.5 GiB / 4.0 GiB"},
        {1610612736, 4294967296LL, " / ", 15, "1.5 GiB/4.0 GiB"},
        {1610612736, 4294967296LL, " / ", 14, "2 GiB/4 GiB"},
        {744413801922560LL, 744413801922560LL, "/", 18, "677 TiB/677 TiB"},
        {744413801922560LL, 744413801922560LL, "/", 19, "677.0 TiB/677.0 TiB"},
        {1125350151028736LL, 1151795604700004352LL, " / ", 21, "1023.5 TiB/1023.0 PiB"},
        {1125350151028736LL, 1151795604700004352LL, " / ", 23, "1023.5 TiB / 1023.0 PiB"},
        {0, 512, "/", 0, "0 B/512 B"},
    };
    char b[96];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fmt_bytes_pair(b, sizeof b, cases[i].a, cases[i].b, cases[i].sep, cases[i].width);
        ck_assert_msg(!strcmp(b, cases[i].want), "%lld/%lld at %d: '%s', want '%s'",
                      (long long)cases[i].a, (long long)cases[i].b, cases[i].width, b,
                      cases[i].want);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, durations_pick_two_units);
    tcase_add_test(tc, eta_is_never_capped_and_unknown_is_a_dash);
    tcase_add_test(tc, bytes_in_binary_units);
    tcase_add_test(tc, rates_and_counts_are_compact);
    tcase_add_test(tc, clock_times_are_local_and_dash_when_absent);
    tcase_add_test(tc, times_show_their_zone_and_utc_on_request);
    tcase_add_test(tc, huge_values_saturate);
    tcase_add_test(tc, count_pairs_fit_without_losing_digits);
    tcase_add_test(tc, byte_pairs_fit_without_losing_digits);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
