/* cron.c: robfig/cron v3's standard parser and SpecSchedule.Next, line for line in behaviour
 * (github.com/robfig/cron/v3 parser.go, spec.go, constantdelay.go), which Velero uses for
 * Schedule.spec.schedule. Written by hand: no C library implements Go's cron semantics (the
 * DST handling of Next in particular). Zone rules come from the system tz database through
 * localtime_r with TZ switched for the length of one computation. */
#include "cron.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kubeclient/util.h"

static int cron_err(char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cron_err(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

typedef struct cron_bounds {
    int min, max;
    const char *const *names; /* index = value; NULL-terminated list starting at min */
} cron_bounds;

static const char *const cron_month_names[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                               "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const cron_dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};
static const cron_bounds cron_fields[5] = {
    {0, 59, NULL}, {0, 23, NULL}, {1, 31, NULL}, {1, 12, cron_month_names}, {0, 6, cron_dow_names}};

/* mustParseInt / parseIntOrName of robfig's parser. */
static int cron_int(const char *s, size_t n, const cron_bounds *b, int *out, const char *expr,
                    char *err, size_t errlen)
{
    if (b->names)
        for (int i = 0; b->names[i]; i++)
            if (strlen(b->names[i]) == n && !strncasecmp(s, b->names[i], n)) {
                *out = b->min + i;
                return 0;
            }
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return cron_err(err, errlen, "failed to parse int from %.*s: invalid syntax", (int)n, s);
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || end == buf || isspace((unsigned char)buf[0]))
        return cron_err(err, errlen, "failed to parse int from %s: invalid syntax", buf);
    if (v < 0) return cron_err(err, errlen, "negative number (%ld) not allowed: %s", v, expr);
    if (v > 1000) v = 1000; /* out of range anyway; keeps the shift below defined */
    *out = (int)v;
    return 0;
}

/* getRange: one comma-separated element: number, name, a-b, *, ?, with /step. */
static int cron_range(const char *expr, size_t n, const cron_bounds *b, uint64_t *bits, char *err,
                      size_t errlen)
{
    char ex[128];
    snprintf(ex, sizeof ex, "%.*s", (int)n, expr);
    const char *slash = memchr(expr, '/', n);
    size_t rlen = slash ? (size_t)(slash - expr) : n;
    if (slash && memchr(slash + 1, '/', n - rlen - 1))
        return cron_err(err, errlen, "too many slashes: %s", ex);
    const char *dash = memchr(expr, '-', rlen);
    if (dash && memchr(dash + 1, '-', rlen - (size_t)(dash - expr) - 1))
        return cron_err(err, errlen, "too many hyphens: %s", ex);
    int start, end, step = 1, single = 0;
    uint64_t extra = 0;
    if (rlen == 1 && (expr[0] == '*' || expr[0] == '?')) {
        start = b->min;
        end = b->max;
        extra = CRON_STAR;
    } else {
        if (cron_int(expr, dash ? (size_t)(dash - expr) : rlen, b, &start, ex, err, errlen))
            return -1;
        if (dash) {
            if (cron_int(dash + 1, rlen - (size_t)(dash - expr) - 1, b, &end, ex, err, errlen))
                return -1;
        } else {
            end = start;
            single = 1;
        }
    }
    if (slash) {
        if (cron_int(slash + 1, n - rlen - 1, &(cron_bounds){0, 0, NULL}, &step, ex, err, errlen))
            return -1;
        if (single) end = b->max; /* "N/step" means "N-max/step" */
        if (step > 1) extra = 0;
    }
    if (start < b->min)
        return cron_err(err, errlen, "beginning of range (%d) below minimum (%d): %s", start,
                        b->min, ex);
    if (end > b->max)
        return cron_err(err, errlen, "end of range (%d) above maximum (%d): %s", end, b->max, ex);
    if (start > end)
        return cron_err(err, errlen, "beginning of range (%d) beyond end of range (%d): %s", start,
                        end, ex);
    if (step == 0)
        return cron_err(err, errlen, "step of range should be a positive number: %s", ex);
    for (int v = start; v <= end; v += step) *bits |= 1ULL << v;
    *bits |= extra;
    return 0;
}

static int cron_field(const char *f, size_t n, const cron_bounds *b, uint64_t *bits, char *err,
                      size_t errlen)
{
    *bits = 0;
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && f[j] != ',') j++;
        if (cron_range(f + i, j - i, b, bits, err, errlen)) return -1;
        i = j + 1;
    }
    return 0;
}

/* Go's time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+ with ns us µs ms s m h; "0". */
int cron_parse_duration(const char *s, double *out)
{
    double total = 0;
    int neg = 0;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    if (!strcmp(s, "0")) {
        *out = 0;
        return 0;
    }
    if (!*s) return -1;
    while (*s) {
        const char *p = s;
        double v = 0, frac = 0, scale = 1;
        int digits = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0'), digits++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9') frac = frac * 10 + (*p++ - '0'), scale *= 10, digits++;
        }
        if (!digits) return -1;
        v += frac / scale;
        static const struct {
            const char *u;
            double s;
        } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"\xce\xbcs", 1e-6},
                     {"ms", 1e-3}, {"s", 1},     {"m", 60},           {"h", 3600}};
        size_t best = 0, bestlen = 0;
        for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
            size_t l = strlen(units[k].u);
            if (!strncmp(p, units[k].u, l) && l > bestlen) best = k, bestlen = l;
        }
        if (!bestlen) return -1;
        total += v * units[best].s;
        s = p + bestlen;
    }
    *out = neg ? -total : total;
    return 0;
}

/* The system tz database's directory ($TZDIR, else /usr/share/zoneinfo). */
static int cron_zone_ok(const char *name)
{
    if (!*name || !strcmp(name, "UTC")) return 1;
    if (name[0] == '/' || strstr(name, "..")) return 0;
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char magic[4] = {0};
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    return got == 4 && !memcmp(magic, "TZif", 4);
}

int cron_parse(const char *spec, cron_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!spec) spec = "";
    while (isspace((unsigned char)*spec)) spec++;
    if (!*spec) return cron_err(err, errlen, "empty spec string");
    if (!strncmp(spec, "TZ=", 3) || !strncmp(spec, "CRON_TZ=", 8)) {
        const char *eq = strchr(spec, '=');
        const char *sp = strchr(spec, ' ');
        if (!sp) sp = spec + strlen(spec);
        size_t zl = (size_t)(sp - eq - 1);
        if (zl >= sizeof out->tz) return cron_err(err, errlen, "provided bad location: too long");
        memcpy(out->tz, eq + 1, zl);
        out->tz[zl] = 0;
        if (!strcmp(out->tz, "UTC") || !strcmp(out->tz, "Local")) out->tz[0] = 0;
        if (!cron_zone_ok(out->tz))
            return cron_err(err, errlen, "provided bad location %s: unknown time zone %s", out->tz,
                            out->tz);
        spec = sp;
        while (isspace((unsigned char)*spec)) spec++;
    }
    if (*spec == '@') {
        static const struct {
            const char *name, *expr;
        } desc[] = {{"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
                    {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
                    {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
                    {"@hourly", "0 * * * *"}};
        for (size_t i = 0; i < sizeof desc / sizeof desc[0]; i++)
            if (!strcmp(spec, desc[i].name)) {
                char tz[64];
                memcpy(tz, out->tz, sizeof tz);
                int rc = cron_parse(desc[i].expr, out, err, errlen);
                memcpy(out->tz, tz, sizeof tz);
                return rc;
            }
        if (!strncmp(spec, "@every ", 7)) {
            double d;
            if (cron_parse_duration(spec + 7, &d))
                return cron_err(err, errlen,
                                "failed to parse duration %s: time: invalid duration \"%s\"", spec,
                                spec + 7);
            out->every = d < 1 ? 1 : floor(d); /* Every(): at least 1 s, whole seconds */
            return 0;
        }
        return cron_err(err, errlen, "unrecognized descriptor: %s", spec);
    }
    const char *f[6];
    size_t fl[6], nf = 0;
    const char *p = spec;
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *q = p;
        while (*q && !isspace((unsigned char)*q)) q++;
        if (nf < 6) f[nf] = p, fl[nf] = (size_t)(q - p);
        nf++;
        p = q;
    }
    if (nf != 5) return cron_err(err, errlen, "expected exactly 5 fields, found %zu: %s", nf, spec);
    uint64_t *bits[5] = {&out->minute, &out->hour, &out->dom, &out->month, &out->dow};
    for (int i = 0; i < 5; i++)
        if (cron_field(f[i], fl[i], &cron_fields[i], bits[i], err, errlen)) return -1;
    return 0;
}

/* ---- Next: Go's time arithmetic over unix seconds in one zone ---- */

typedef struct cron_tm {
    int64_t u; /* unix seconds */
    int year, mon, day, hour, min, sec, wday;
} cron_tm;

static int cron_utc; /* 1: the zone is UTC (gmtime_r), else the TZ set for this computation */

static cron_tm cron_at(int64_t u)
{
    time_t tt = (time_t)u;
    struct tm tm;
    if (cron_utc)
        gmtime_r(&tt, &tm);
    else
        localtime_r(&tt, &tm);
    return (cron_tm){u,          tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min,         tm.tm_sec,     tm.tm_wday};
}

static long cron_offset(int64_t u)
{
    if (cron_utc) return 0;
    time_t tt = (time_t)u;
    struct tm tm;
    localtime_r(&tt, &tm);
    return tm.tm_gmtoff;
}

/* time.Date(y, m, d, h, mi, s, 0, loc): normalises overflowing fields, then resolves the local
 * time as Go does (a time in a DST gap or overlap takes the offset in force before it). */
static cron_tm cron_date(int y, int mon, int d, int h, int mi, int s)
{
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    int64_t local = (int64_t)timegm(&tm);
    long off = cron_offset(local);
    int64_t utc = local - off;
    long off2 = cron_offset(utc);
    if (off2 != off) utc = local - off2;
    return cron_at(utc);
}

static int cron_day_matches(const cron_spec *c, const cron_tm *t)
{
    int dom = (c->dom >> t->day) & 1, dow = (c->dow >> t->wday) & 1;
    if ((c->dom & CRON_STAR) || (c->dow & CRON_STAR)) return dom && dow;
    return dom || dow;
}

static double cron_next_spec(const cron_spec *c, int64_t t0)
{
    cron_tm t = cron_at(t0 + 1); /* the upcoming second */
    int added = 0, year_limit = t.year + 5;
wrap:
    if (t.year > year_limit) return 0;
    while (!((c->month >> t.mon) & 1)) {
        if (!added) {
            added = 1;
            t = cron_date(t.year, t.mon, 1, 0, 0, 0);
        }
        t = cron_date(t.year, t.mon + 1, t.day, t.hour, t.min, t.sec);
        if (t.mon == 1) goto wrap;
    }
    while (!cron_day_matches(c, &t)) {
        if (!added) {
            added = 1;
            t = cron_date(t.year, t.mon, t.day, 0, 0, 0);
        }
        t = cron_date(t.year, t.mon, t.day + 1, t.hour, t.min, t.sec);
        /* midnight moved by DST: back to it */
        if (t.hour != 0)
            t = cron_at(t.hour > 12 ? t.u + (24 - t.hour) * 3600 : t.u - t.hour * 3600);
        if (t.day == 1) goto wrap;
    }
    while (!((c->hour >> t.hour) & 1)) {
        if (!added) {
            added = 1;
            t = cron_date(t.year, t.mon, t.day, t.hour, 0, 0);
        }
        t = cron_at(t.u + 3600);
        if (t.hour == 0) goto wrap;
    }
    while (!((c->minute >> t.min) & 1)) {
        if (!added) {
            added = 1;
            t = cron_at(t.u - (t.u % 60 + 60) % 60);
        }
        t = cron_at(t.u + 60);
        if (t.min == 0) goto wrap;
    }
    if (t.sec != 0) { /* the seconds field is always 0: step to the next whole minute */
        t = cron_at(t.u - (t.u % 60 + 60) % 60 + 60);
        goto wrap;
    }
    return (double)t.u;
}

double cron_next(const cron_spec *c, double t)
{
    int64_t t0 = (int64_t)floor(t);
    if (c->every > 0) return (double)t0 + c->every; /* ConstantDelaySchedule, whole seconds */
    if (!c->tz[0]) {
        cron_utc = 1;
        return cron_next_spec(c, t0);
    }
    /* one zone switch for the whole computation, restored after it */
    const char *old = getenv("TZ");
    char *saved = old ? xstrdup(old) : NULL;
    char tzv[80];
    snprintf(tzv, sizeof tzv, ":%s", c->tz);
    setenv("TZ", tzv, 1);
    tzset();
    cron_utc = 0;
    double r = cron_next_spec(c, t0);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
    return r;
}

void cron_due_eval(const cron_spec *c, int paused, double last_fire, double created,
                   double last_success, double grace, double now, cron_due *out)
{
    memset(out, 0, sizeof *out);
    double base = last_fire > 0 ? last_fire : created > 0 ? created : now;
    out->next = cron_next(c, base);
    if (out->next > 0) {
        double n2 = cron_next(c, out->next);
        if (n2 > 0) out->interval = n2 - out->next;
    }
    double s = last_success > 0 ? last_success : created;
    if (s <= 0) return;
    double f1 = cron_next(c, s), f2 = f1 > 0 ? cron_next(c, f1) : 0;
    if (f2 <= 0) return;
    out->due_by = f2 + (grace > 0 ? grace : 0);
    out->overdue = !paused && now > out->due_by;
}
