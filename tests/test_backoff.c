/* test_backoff.c: the one retry policy (backoff.h): client-go's figures, jitter bounds, the cap,
 * the reset after sustained success, Retry-After obeyed but capped. */
#include <check.h>
#include <limits.h>
#include <stdlib.h>

#include "kubeclient/backoff.h"
#include "testutil.h"

START_TEST(client_go_defaults_double_with_jitter_to_the_cap)
{
    kc_backoff b;
    kc_backoff_init(&b, 0, 0, 0);
    ck_assert_int_eq(b.base_ms, 800);
    ck_assert_int_eq(b.max_ms, 30000);
    ck_assert_int_eq(b.reset_ms, 120000);
    int64_t now = 1000, lo = 800;
    for (int i = 0; i < 12; i++) {
        int64_t d = kc_backoff_next(&b, now, -1);
        int64_t want_lo = lo < 30000 ? lo : 30000, want_hi = 2 * lo < 30000 ? 2 * lo : 30000;
        ck_assert_msg(d >= want_lo && d <= want_hi, "step %d: %lld not in [%lld, %lld]", i,
                      (long long)d, (long long)want_lo, (long long)want_hi);
        now += d;
        lo *= 2;
    }
    ck_assert_int_eq(kc_backoff_steps(&b, now), 12);
}
END_TEST

START_TEST(jitter_varies)
{
    kc_backoff b;
    kc_backoff_init(&b, 1000, 100000, 1000000);
    int64_t first = -1;
    int differs = 0;
    for (int i = 0; i < 20; i++) {
        b.steps = 0;
        int64_t d = kc_backoff_next(&b, 1000 + i, -1);
        ck_assert_int_ge(d, 1000);
        ck_assert_int_le(d, 2000);
        if (first < 0) first = d;
        if (d != first) differs = 1;
    }
    ck_assert(differs);
}
END_TEST

START_TEST(resets_after_sustained_success)
{
    kc_backoff b;
    kc_backoff_init(&b, 100, 1000, 5000);
    int64_t now = 10;
    for (int i = 0; i < 6; i++) now += kc_backoff_next(&b, now, -1);
    /* failures keep coming: the last one 4999 ms after the one before, still capped */
    ck_assert_int_eq(kc_backoff_steps(&b, now), 6);
    int64_t d = kc_backoff_next(&b, now, -1);
    ck_assert_int_eq(d, 1000);
    ck_assert_int_eq(kc_backoff_steps(&b, now + 4999), 7);
    ck_assert_int_eq(kc_backoff_next(&b, now + 4999, -1), 1000);
    now += 4999;
    /* 5 s without a failure: back to the start */
    ck_assert_int_eq(kc_backoff_steps(&b, now + 5000), 0);
    d = kc_backoff_next(&b, now + 5000, -1);
    ck_assert_int_ge(d, 100);
    ck_assert_int_le(d, 200);
}
END_TEST

START_TEST(retry_after_obeyed_but_capped)
{
    kc_backoff b;
    kc_backoff_init(&b, 0, 0, 0);
    ck_assert_int_eq(kc_backoff_next(&b, 1, 5), 5000);
    ck_assert_int_eq(kc_backoff_next(&b, 2, 999999999999L), 30000);
    ck_assert_int_eq(kc_backoff_next(&b, 3, LONG_MAX), 30000);
    ck_assert_int_eq(kc_backoff_next(&b, 4, 30), 30000);
    /* a Retry-After shorter than the backoff does not shorten it */
    int64_t d = kc_backoff_next(&b, 5, 1);
    ck_assert_int_ge(d, 12800);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("backoff");
    TCase *tc = tcase_create("backoff");
    tcase_add_test(tc, client_go_defaults_double_with_jitter_to_the_cap);
    tcase_add_test(tc, jitter_varies);
    tcase_add_test(tc, resets_after_sustained_success);
    tcase_add_test(tc, retry_after_obeyed_but_capped);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
