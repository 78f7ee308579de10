/* format.h: short human forms of durations, ETAs, byte counts, rates and times for the screens
 * and --once. Every function writes a NUL-terminated string into buf and returns buf. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* "0s", "45s", "3m12s", "1h04m", "2d03h"; "-" when s < 0. */
char *fmt_duration(char *buf, size_t n, double s);
/* As fmt_duration, but "> 2d" beyond two days and "-" when unknown (< 0). */
char *fmt_eta(char *buf, size_t n, double s);
/* Binary units: "0 B", "512 B", "1.0 KiB", "2.0 GiB" (one decimal from KiB up). */
char *fmt_bytes(char *buf, size_t n, int64_t bytes);
/* Items per second: "0.4/s", "12/s", "1.2k/s"; "-" when unknown (< 0). */
char *fmt_rate(char *buf, size_t n, double per_s);
/* Bytes per second: "12.0 MiB/s"; "-" when unknown. */
char *fmt_byte_rate(char *buf, size_t n, double bytes_per_s);
/* Counts: "987", "12.3k", "4.5M" (compact, for narrow columns). */
char *fmt_count(char *buf, size_t n, int64_t v);
/* Local wall clock "14:03:22"; with_date: "2024-01-07 14:03". "-" when t <= 0. */
char *fmt_clock(char *buf, size_t n, double t, int with_date);
/* Start time for a list column: "14:03:22" when within 24h of now, else "01-07 14:03". */
char *fmt_started(char *buf, size_t n, double t, double now);
/* "4s ago", "3m ago"; "-" when s < 0. */
char *fmt_ago(char *buf, size_t n, double s);
