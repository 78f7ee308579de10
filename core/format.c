/* format.c: short human forms of durations, byte counts, rates and times (see format.h). */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kubeclient/sat.h"
#include "kubeclient/util.h"

char *fmt_duration(char *buf, size_t n, double s)
{
    if (!(s >= 0 && s < 1e15)) { /* unknown, NaN, or past any long long (inf): no duration */
        snprintf(buf, n, "-");
        return buf;
    }
    long long t = (long long)(s + 0.5);
    if (t < 60)
        snprintf(buf, n, "%llds", t);
    else if (t < 3600)
        snprintf(buf, n, "%lldm%02llds", t / 60, t % 60);
    else if (t < 86400)
        snprintf(buf, n, "%lldh%02lldm", t / 3600, (t % 3600) / 60);
    else
        snprintf(buf, n, "%lldd%02lldh", t / 86400, (t % 86400) / 3600);
    return buf;
}

char *fmt_eta(char *buf, size_t n, double s)
{
    if (!(s >= 0 && isfinite(s))) {
        snprintf(buf, n, "-");
        return buf;
    }
    if (s < 100 * 86400.0) return fmt_duration(buf, n, s);
    /* a real projection of months or years (a crawling run): the number, never a cap standing
     * in for it, in at most 5 cells as the list's ETA column has them */
    if (s < 1000 * 86400.0) {
        snprintf(buf, n, "%lldd", (long long)(s / 86400));
        return buf;
    }
    double y = s / (365.25 * 86400);
    if (y < 999.5) {
        snprintf(buf, n, "%.0fy", y);
        return buf;
    }
    int e = (int)floor(log10(y));
    double mant = y / pow(10, e);
    if (mant >= 9.5) mant = 1, e++;
    snprintf(buf, n, "%.0fe%dy", mant, e);
    return buf;
}

char *fmt_bytes(char *buf, size_t n, int64_t bytes)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, n, "%lld B", (long long)(bytes < 0 ? 0 : bytes));
        return buf;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1023.95 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, n, "%.1f %s", v, units[u]);
    return buf;
}

char *fmt_rate(char *buf, size_t n, double r)
{
    if (r < 0 || isnan(r))
        snprintf(buf, n, "-");
    else if (r > 0 && r < 0.05) /* a slow rate per minute or hour: "0.0/s" reads as stopped */
        snprintf(buf, n, r * 60 >= 0.05 ? "%.1f/m" : "%.1f/h", r * 60 >= 0.05 ? r * 60 : r * 3600);
    else if (r < 9.95)
        snprintf(buf, n, "%.1f/s", r);
    else if (r < 999.5)
        snprintf(buf, n, "%.0f/s", r);
    else if (r < 999500)
        snprintf(buf, n, "%.1fk/s", r / 1000);
    else
        snprintf(buf, n, "%.1fM/s", r / 1e6);
    return buf;
}

char *fmt_byte_rate(char *buf, size_t n, double r)
{
    if (r < 0 || isnan(r)) {
        snprintf(buf, n, "-");
        return buf;
    }
    char b[32];
    fmt_bytes(b, sizeof b, kc_sat_from_double(r + 0.5));
    snprintf(buf, n, "%s/s", b);
    return buf;
}

/* A count at a level of fmt_count_pair's: 0 exact, 1 one decimal from 10 000 on ("12.3k"), 2 at
 * most three digits and a unit ("4.3k", "99k", "123k", "1.2M"). */
static void fmt_num(char *buf, size_t n, int64_t v, int level)
{
    static const char units[] = "kMGTPE";
    /* the magnitude as a double: exact enough for an abbreviation, and no overflow at INT64_MIN */
    double a = v < 0 ? -(double)v : (double)v;
    const char *sign = v < 0 ? "-" : "";
    if (level == 0 || a < (level == 1 ? 10000 : 1000)) {
        snprintf(buf, n, "%lld", (long long)v);
        return;
    }
    int u = 0;
    a /= 1000;
    double top = level == 1 ? 999.95 : 999.5; /* what would round to 1000 of a unit */
    while (a >= top && units[u + 1]) {
        a /= 1000;
        u++;
    }
    if (level == 1 || a < 9.95)
        snprintf(buf, n, "%s%.1f%c", sign, a, units[u]);
    else
        snprintf(buf, n, "%s%.0f%c", sign, a, units[u]);
}

char *fmt_count_pair(char *buf, size_t n, int64_t done, int64_t total, int est, int width)
{
    char a[32], b[32];
    for (int level = 0; level <= 2; level++) {
        fmt_num(a, sizeof a, done, level);
        fmt_num(b, sizeof b, total, level);
        snprintf(buf, n, "%s/%s%s", a, est ? "~" : "", b);
        if ((int)strlen(buf) <= width) break;
    }
    return buf;
}

/* fmt_bytes in whole units: "2 GiB" */
static void fmt_bytes_whole(char *buf, size_t n, int64_t bytes)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, n, "%lld B", (long long)(bytes < 0 ? 0 : bytes));
        return;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1023.5 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, n, "%.0f %s", v, units[u]);
}

char *fmt_bytes_pair(char *buf, size_t n, int64_t done, int64_t total, const char *sep, int width)
{
    char a[32], b[32];
    for (int level = 0; level <= 2; level++) {
        if (level < 2) {
            fmt_bytes(a, sizeof a, done);
            fmt_bytes(b, sizeof b, total);
        } else {
            fmt_bytes_whole(a, sizeof a, done);
            fmt_bytes_whole(b, sizeof b, total);
        }
        snprintf(buf, n, "%s%s%s", a, level ? "/" : sep, b);
        if ((int)strlen(buf) <= width) break;
    }
    return buf;
}

char *fmt_count(char *buf, size_t n, int64_t v)
{
    if (v < 10000)
        snprintf(buf, n, "%lld", (long long)v);
    else if (v < 999500)
        snprintf(buf, n, "%.1fk", (double)v / 1000);
    else if (v < 999500000)
        snprintf(buf, n, "%.1fM", (double)v / 1e6);
    else
        snprintf(buf, n, "%.1fG", (double)v / 1e9);
    return buf;
}

static int fmt_utc_on;

void fmt_set_utc(int on)
{
    fmt_utc_on = on;
}

/* Broken-down time in the zone times are shown in (local, or UTC with --utc). */
static void fmt_tm(double t, struct tm *tm)
{
    time_t tt = (time_t)t;
    if (fmt_utc_on)
        gmtime_r(&tt, tm);
    else
        localtime_r(&tt, tm);
}

char *fmt_zone(char *buf, size_t n, double t)
{
    struct tm tm;
    if (fmt_utc_on) {
        snprintf(buf, n, "UTC");
        return buf;
    }
    fmt_tm(t > 0 ? t : (double)time(NULL), &tm);
    /* an abbreviation when the zone has one ("CET"), else the offset ("+0530") */
    if (!strftime(buf, n, "%Z", &tm) || !buf[0] || buf[0] == '+' || buf[0] == '-')
        strftime(buf, n, "%z", &tm);
    return buf;
}

char *fmt_clock(char *buf, size_t n, double t, int with_date)
{
    if (!(t > 0 && t < KC_TIME_END)) { /* unknown, or past year 9999: no date */
        snprintf(buf, n, "-");
        return buf;
    }
    struct tm tm;
    fmt_tm(t, &tm);
    strftime(buf, n, with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
    return buf;
}

char *fmt_clock_since(char *buf, size_t n, double t, double ref)
{
    struct tm a, b;
    /* past year 9999 (an ETA of ages) no time_t cast: fmt_clock says "-" */
    if (t > 0 && t < KC_TIME_END && ref > 0 && ref < KC_TIME_END) {
        fmt_tm(t, &a);
        fmt_tm(ref, &b);
        if (a.tm_year == b.tm_year && a.tm_yday == b.tm_yday) return fmt_clock(buf, n, t, 0);
    }
    return fmt_clock(buf, n, t, 1);
}

char *fmt_started(char *buf, size_t n, double t, double now)
{
    if (!(t > 0 && t < KC_TIME_END)) { /* unknown, or past year 9999: no date */
        snprintf(buf, n, "-");
        return buf;
    }
    struct tm tm;
    fmt_tm(t, &tm);
    strftime(buf, n, fabs(now - t) < 86400 ? "%H:%M:%S" : "%m-%d %H:%M", &tm);
    return buf;
}

char *fmt_clock_offset(char *buf, size_t n, double offset)
{
    buf[0] = 0;
    if (!(fabs(offset) >= FMT_CLOCK_SHOWN_S)) return buf;
    char d[32];
    snprintf(buf, n, "cluster clock %s %s", fmt_duration(d, sizeof d, round(fabs(offset))),
             offset > 0 ? "ahead" : "behind");
    return buf;
}

char *fmt_ago(char *buf, size_t n, double s)
{
    if (s < 0 || isnan(s)) {
        snprintf(buf, n, "-");
        return buf;
    }
    char d[32];
    snprintf(buf, n, "%s ago", fmt_duration(d, sizeof d, s));
    return buf;
}
