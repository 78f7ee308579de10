/* format.h: short human forms of durations, ETAs, byte counts, rates and times for the screens
 * and --once. Every function writes a NUL-terminated string into buf and returns buf. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* "0s", "45s", "3m12s", "1h04m", "2d03h"; "-" when s < 0. */
char *fmt_duration(char *buf, size_t n, double s);
/* An ETA as it is, however long, in at most 6 cells: as fmt_duration to 100 days ("3d04h",
 * "99d23h"), then days ("345d"), years ("31y") and powers of ten of years ("6e10y"); "-" when
 * unknown (< 0, NaN, infinite). Never a cap standing in for the figure. */
char *fmt_eta(char *buf, size_t n, double s);
/* Binary units: "0 B", "512 B", "1.0 KiB", "2.0 GiB" (one decimal from KiB up). */
char *fmt_bytes(char *buf, size_t n, int64_t bytes);
/* Items per second: "0.4/s", "12/s", "1.2k/s"; "-" when unknown (< 0). */
char *fmt_rate(char *buf, size_t n, double per_s);
/* Bytes per second: "12.0 MiB/s"; "-" when unknown. */
char *fmt_byte_rate(char *buf, size_t n, double bytes_per_s);
/* Counts: "987", "12.3k", "4.5M" (compact, for narrow columns). */
char *fmt_count(char *buf, size_t n, int64_t v);
/* A "done/total" pair of counts (items of ~N, errors/warnings) in at most width cells: exact when
 * that fits ("4321/~98765"); else both numbers abbreviated whole with their unit, to one decimal
 * ("4321/~98.8k"), then to at most three digits ("4.3k/~99k"). A number never loses digits
 * silently: when even the shortest form is wider than width it is returned whole, wider (size a
 * column by the width of fmt_count_pair(..., 0): the shortest form). est: "~" before the total. */
char *fmt_count_pair(char *buf, size_t n, int64_t done, int64_t total, int est, int width);
/* The same for bytes: "1.5 GiB<sep>4.0 GiB" (fmt_bytes), then with "/" for sep, then in whole
 * units ("2 GiB/4 GiB"). */
char *fmt_bytes_pair(char *buf, size_t n, int64_t done, int64_t total, const char *sep, int width);
/* Times are shown in the local zone, or in UTC after fmt_set_utc(1) (--utc). */
void fmt_set_utc(int on);
/* The zone times are shown in, as of time t (0: now): "UTC", "CET", else the offset "+0530". */
char *fmt_zone(char *buf, size_t n, double t);
/* Wall clock "14:03:22"; with_date: "2024-01-07 14:03:22". "-" when t <= 0. */
char *fmt_clock(char *buf, size_t n, double t, int with_date);
/* As fmt_clock: the time alone when t falls on the same day as ref, else with the date. */
char *fmt_clock_since(char *buf, size_t n, double t, double ref);
/* Start time for a list column (zone as fmt_clock): "14:03:22" when within 24h of now, else "01-07
 * 14:03". */
char *fmt_started(char *buf, size_t n, double t, double now);
/* The cluster's clock against ours when it is off by FMT_CLOCK_SHOWN_S or more: "cluster clock
 * 10m behind", "cluster clock 2h03m ahead"; "" when closer (offset: the cluster's minus ours). */
#define FMT_CLOCK_SHOWN_S 10.0
char *fmt_clock_offset(char *buf, size_t n, double offset);
/* "4s ago", "3m ago"; "-" when s < 0. */
char *fmt_ago(char *buf, size_t n, double s);
