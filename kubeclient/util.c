/* util.c: allocation wrappers, error messages, buffers, clocks, time and base64 helpers. */
#include "kubeclient/util.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void oom(size_t n)
{
    fprintf(stderr, "veltop: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    char *p = xmalloc(n + 1);
    memcpy(p, s, n + 1);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) n = 0;
    char *p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}

void kc_err_set(kc_err *e, const char *fmt, ...)
{
    if (!e) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

void kc_err_clear(kc_err *e)
{
    if (!e) return;
    e->code = 0;
    e->msg[0] = '\0';
}

void kc_buf_append(kc_buf *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void kc_buf_printf(kc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    kc_buf_append(b, s, strlen(s));
    free(s);
}

void kc_buf_free(kc_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *kc_buf_cstr(kc_buf *b)
{
    if (!b->data) kc_buf_append(b, "", 0);
    return b->data;
}

int64_t kc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double kc_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n decimal digits at s as a number, or -1 when one of them is not a digit. */
static int util_digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days in month mo (1-12) of year y, leap years as the Gregorian calendar (Go's daysIn). */
int kc_days_in_month(int y, int mo)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12) return 0;
    if (mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) return 29;
    return days[mo - 1];
}

/* RFC3339 as metav1.Time reads it: Go's time.Parse(time.RFC3339, s), which tries its strict
 * RFC3339 reader (src/time/format_rfc3339.go parseRFC3339) and then the layout parser
 * (src/time/format.go parse), accepting what either accepts: "YYYY-MM-DDTHH:MM:SS" with 'T'
 * upper case, the hour of one or two digits (the layout's "15"), seconds 0-59 (no leap second),
 * the day within its month (2010-02-29 and 04-31 are refused, not rolled over), an optional
 * '.' or ',' and digits (past 9 digits truncated to the nanosecond, as parseNanoseconds does),
 * then "Z" or "+HH:MM"/"-HH:MM" (offsets up to 24:60, the layout parser's range), nothing
 * after. Every byte is checked before the next is read (the string may end anywhere), and the
 * year has four digits, so an accepted time always fits time_t. */
int kc_parse_time(const char *s, double *out)
{
    if (!s) return -1;
    int y = util_digits(s, 4);
    if (y < 0 || s[4] != '-') return -1;
    int mo = util_digits(s + 5, 2);
    if (mo < 1 || mo > 12 || s[7] != '-') return -1;
    int d = util_digits(s + 8, 2);
    if (d < 1 || d > kc_days_in_month(y, mo) || s[10] != 'T') return -1;
    const char *p = s + 11;
    if (*p < '0' || *p > '9') return -1;
    int hh = *p++ - '0';
    if (*p >= '0' && *p <= '9') hh = hh * 10 + (*p++ - '0');
    if (hh > 23 || *p != ':') return -1;
    int mi = util_digits(p + 1, 2);
    if (mi < 0 || mi > 59 || p[3] != ':') return -1;
    int ss = util_digits(p + 4, 2);
    if (ss < 0 || ss > 59) return -1;
    p += 6;
    long nsec = 0;
    if ((*p == '.' || *p == ',') && p[1] >= '0' && p[1] <= '9') {
        p++;
        long scale = 100000000;
        for (; *p >= '0' && *p <= '9'; p++) {
            nsec += (*p - '0') * scale; /* digits past the 9th: read and dropped */
            scale /= 10;
        }
    }
    long off = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh = util_digits(p + 1, 2);
        if (oh < 0 || p[3] != ':') return -1;
        int om = util_digits(p + 4, 2);
        if (om < 0 || oh > 24 || om > 60) return -1;
        off = (oh * 3600L + om * 60L) * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return -1;
    }
    if (*p) return -1;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = hh;
    tm.tm_min = mi;
    tm.tm_sec = ss;
    double whole = (double)timegm(&tm) - (double)off;
    double t = whole + (double)nsec / 1e9;
    /* a double holds ~0.2 us at today's times: .999999999 would round up into the next second,
     * which Go's truncation never reaches; keep the largest double still inside this one */
    if (t >= whole + 1) t = nextafter(whole + 1, whole);
    *out = t;
    return 0;
}

void kc_format_time(double t, char *buf, size_t n)
{
    /* outside years 0001-9999 (or NaN) it is no date: "?" rather than an overflowing cast */
    if (!(t >= KC_TIME_START && t < KC_TIME_END)) {
        snprintf(buf, n, "?");
        return;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

unsigned char *kc_base64_decode(const char *in, size_t *outlen)
{
    /* EVP_DecodeUpdate tolerates line breaks (PEM-style), as kubeconfig data fields may carry. */
    size_t n = strlen(in);
    unsigned char *out = xmalloc(n / 4 * 3 + 4);
    EVP_ENCODE_CTX *ctx = EVP_ENCODE_CTX_new();
    if (!ctx) oom(sizeof(void *));
    int len = 0, fin = 0;
    EVP_DecodeInit(ctx);
    if (EVP_DecodeUpdate(ctx, out, &len, (const unsigned char *)in, (int)n) < 0 ||
        EVP_DecodeFinal(ctx, out + len, &fin) < 0) {
        EVP_ENCODE_CTX_free(ctx);
        free(out);
        return NULL;
    }
    EVP_ENCODE_CTX_free(ctx);
    *outlen = (size_t)(len + fin);
    out[*outlen] = '\0';
    return out;
}

char *kc_base64_encode(const unsigned char *in, size_t len)
{
    char *out = xmalloc(4 * ((len + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, in, (int)len);
    return out;
}

char *kc_url_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = xmalloc(n * 3 + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

char *kc_read_file(const char *path, size_t cap, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
    kc_buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0) {
        if (n > cap - b.len) { /* one byte past the cap is enough to know */
            fclose(fp);
            kc_buf_free(&b);
            errno = EFBIG;
            return NULL;
        }
        kc_buf_append(&b, tmp, n);
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        kc_buf_free(&b);
        errno = EIO;
        return NULL;
    }
    if (len) *len = b.len;
    return kc_buf_cstr(&b);
}

const char *kc_read_file_strerror(int e, size_t cap, const char *what, char *buf, size_t n)
{
    if (e != EFBIG) return strerror(e);
    snprintf(buf, n, "larger than %zu MiB, veltop's limit for %s", cap >> 20, what);
    return buf;
}

char *kc_url_redact(const char *url)
{
    if (!url) return NULL;
    const char *sch = strstr(url, "://");
    const char *auth = sch ? sch + 3 : url;
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *p = auth; p < auth + alen; p++)
        if (*p == '@') at = p; /* the last '@' of the authority ends the userinfo */
    if (!at) return xstrdup(url);
    return xasprintf("%.*sxxxxx%s", (int)(auth - url), url, at);
}

char *kc_path_segment(const char *s)
{
    if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") || strchr(s, '/') || strchr(s, '%'))
        return NULL;
    return kc_url_escape(s);
}
