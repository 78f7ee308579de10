/* test_format.c: durations, ETAs, bytes, rates and counts read the way the screens promise. */
#include <check.h>
#include <stdlib.h>
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

START_TEST(eta_is_capped_and_unknown_is_a_dash)
{
    char b[32];
    ck_assert_str_eq(fmt_eta(b, sizeof b, -1), "-");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 90), "1m30s");
    ck_assert_str_eq(fmt_eta(b, sizeof b, 3 * 86400), "> 2d");
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

int main(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, durations_pick_two_units);
    tcase_add_test(tc, eta_is_capped_and_unknown_is_a_dash);
    tcase_add_test(tc, bytes_in_binary_units);
    tcase_add_test(tc, rates_and_counts_are_compact);
    tcase_add_test(tc, clock_times_are_local_and_dash_when_absent);
    tcase_add_test(tc, times_show_their_zone_and_utc_on_request);
    tcase_add_test(tc, huge_values_saturate);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
