/* util.h: allocation wrappers that abort on failure, errors as messages, small string helpers. */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Allocation failure aborts here (as tmux's xmalloc), so callers never check for NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s); /* xstrdup(NULL) returns NULL */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* An error: library code never prints, it fills one of these. Messages are lowercase, what went
 * wrong first (as git's). */
typedef struct kc_err {
    int code;       /* HTTP status when from the server, 0 otherwise */
    char msg[1024]; /* empty when no error */
} kc_err;
void kc_err_set(kc_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kc_err_clear(kc_err *e);

/* A growable byte buffer. */
typedef struct kc_buf {
    char *data;
    size_t len, cap;
} kc_buf;
void kc_buf_append(kc_buf *b, const void *data, size_t n);
void kc_buf_printf(kc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kc_buf_free(kc_buf *b);
char *kc_buf_cstr(kc_buf *b); /* NUL-terminates and returns data (never NULL) */

/* Monotonic and wall clocks. */
int64_t kc_now_ms(void);  /* CLOCK_MONOTONIC in ms */
double kc_wall_now(void); /* CLOCK_REALTIME in seconds */

/* RFC3339 <-> unix seconds (UTC). Returns 0 on success, -1 on a string Go's
 * time.Parse(time.RFC3339) refuses (metav1.Time's rule; see util.c). */
int kc_parse_time(const char *s, double *out);
/* Days in month mo (1-12) of year y (0 for another month). */
int kc_days_in_month(int y, int mo);
/* "2024-01-07T11:21:59Z"; "?" outside [KC_TIME_START, KC_TIME_END) (years 0001-9999) and for NaN */
void kc_format_time(double t, char *buf, size_t n);
#define KC_TIME_START (-62135596800.0) /* 0001-01-01T00:00:00Z */
#define KC_TIME_END   253402300800.0   /* 10000-01-01T00:00:00Z */

/* Base64 with OpenSSL's routines. Returns a malloc'd buffer, or NULL on bad input. */
unsigned char *kc_base64_decode(const char *in, size_t *outlen);
char *kc_base64_encode(const unsigned char *in, size_t len);

/* Reads a whole file of at most cap bytes (caps.h) into a malloc'd, NUL-terminated buffer; *len
 * (may be NULL) gets its size. NULL with errno set when it cannot: EFBIG past the cap, EISDIR for
 * a directory (a device such as /dev/zero stops at the cap). */
char *kc_read_file(const char *path, size_t cap, size_t *len);
/* The reason for kc_read_file's errno: strerror, or for EFBIG "larger than 4 MiB, veltop's limit
 * for <what>" (in buf). */
const char *kc_read_file_strerror(int e, size_t cap, const char *what, char *buf, size_t n);

/* URL-encodes a query parameter value (malloc'd). */
char *kc_url_escape(const char *s);
/* A URL for showing (messages, screen): userinfo ("user:password@") replaced by "xxxxx@"
 * (malloc'd; NULL for NULL). */
char *kc_url_redact(const char *url);
/* A name from the cluster as one escaped path segment (malloc'd), or NULL when it cannot be one:
 * empty, ".", "..", or holding '/' or '%' (Kubernetes' IsValidPathSegmentName). */
char *kc_path_segment(const char *s);
