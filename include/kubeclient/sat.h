/* sat.h: integer arithmetic on numbers that come from outside (the cluster's objects, log lines,
 * artifacts). Signed overflow is undefined behaviour in C; these saturate at the int64 range
 * instead, so a hostile or broken counter (bytesDone 1e19, a value jumping between -2^63 and
 * 2^63) shows as a huge number, never as a crash or a wrapped negative. The one place such
 * arithmetic lives: sums, differences and double->int64 conversions of outside numbers use it. */
#pragma once
#include <math.h>
#include <stdint.h>

static inline int64_t kc_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t kc_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a - b as a double: exact (to double precision) whatever the operands, for rates and slopes
 * where a saturated difference would distort the result. */
static inline double kc_i64_diff(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return (double)a - (double)b;
    return (double)r;
}

/* A double as an int64, truncated toward zero; NaN is 0, values past the range saturate (the
 * plain cast is undefined there). */
static inline int64_t kc_sat_from_double(double d)
{
    if (isnan(d)) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX; /* 2^63: the first double past the range */
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}
