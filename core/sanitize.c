/* sanitize.c: turns text from the cluster into terminal-safe text (see sanitize.h). Written by
 * hand: the rules are terminal-specific (caret notation, C1, bidi) and no library does them. */
#include "sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int san_ascii_mode;

void san_set_ascii(int ascii)
{
    san_ascii_mode = ascii ? 1 : 0;
}

int san_ascii(void)
{
    return san_ascii_mode;
}

/* Decodes one strict UTF-8 sequence at s[*i]; returns the code point or -1 (and advances by one
 * byte) when the bytes are not valid UTF-8 (overlong, surrogate, out of range, truncated). */
static long san_decode(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    size_t need;
    long cp;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        cp = c & 0x0f;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        cp = c & 0x07;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        (*i)++;
        return -1;
    }
    for (size_t k = 1; k <= need; k++) {
        if (*i + k >= n) {
            (*i)++;
            return -1;
        }
        unsigned char cc = s[*i + k];
        unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xbf;
        if (cc < l || cc > h) {
            (*i)++;
            return -1;
        }
        cp = (cp << 6) | (cc & 0x3f);
    }
    *i += need + 1;
    return cp;
}

static int san_forbidden(long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 || cp == 0x200e ||
           cp == 0x200f || cp == 0x061c;
}

/* Produces the next safe unit at s[*i] into out (<= 7 bytes); returns its length and sets *w to
 * its terminal width. */
static size_t san_unit(const unsigned char *s, size_t n, size_t *i, char *out, int *w)
{
    long cp = san_decode(s, n, i);
    if (cp >= 0 && cp < 0x80) {
        *w = 1;
        if (cp == '\t') {
            out[0] = ' ';
            return 1;
        }
        if (cp < 0x20 || cp == 0x7f) {
            out[0] = '^';
            out[1] = cp == 0x7f ? '?' : (char)(cp + 64);
            *w = 2;
            return 2;
        }
        out[0] = (char)cp;
        return 1;
    }
    if (san_ascii_mode) {
        *w = 1;
        out[0] = '?';
        return 1;
    }
    if (cp < 0 || san_forbidden(cp)) cp = 0xfffd;
    int cw = wcwidth((wchar_t)cp);
    if (cw < 0) cw = 1;
    *w = cw;
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

void san_append(kc_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    char unit[8];
    int w;
    while (i < n) {
        /* fast path: a run of plain printable ASCII */
        size_t j = i;
        while (j < n && u[j] >= 0x20 && u[j] < 0x7f) j++;
        if (j > i) {
            kc_buf_append(b, s + i, j - i);
            i = j;
            continue;
        }
        size_t len = san_unit(u, n, &i, unit, &w);
        kc_buf_append(b, unit, len);
    }
}

char *san_utf8(const char *s)
{
    if (!s) return NULL;
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    kc_buf b = {0};
    while (i < n) {
        size_t j = i;
        while (j < n && u[j] < 0x80) j++; /* ASCII, controls included, as it is */
        if (j > i) kc_buf_append(&b, s + i, j - i);
        if (j >= n) break;
        i = j;
        if (san_decode(u, n, &i) < 0)
            kc_buf_append(&b, "\xef\xbf\xbd", 3);
        else
            kc_buf_append(&b, s + j, i - j);
    }
    kc_buf_cstr(&b);
    return b.data;
}

char *san_json_text(const char *json)
{
    kc_buf b = {0};
    const unsigned char *u = (const unsigned char *)json;
    size_t n = strlen(json), i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && u[j] != 0x7f &&
               !(u[j] == 0xc2 && j + 1 < n && u[j + 1] >= 0x80 && u[j + 1] <= 0x9f))
            j++;
        if (j > i) kc_buf_append(&b, json + i, j - i);
        if (j >= n) break;
        unsigned cp = u[j] == 0x7f ? 0x7f : u[j + 1];
        kc_buf_printf(&b, "\\u%04x", cp);
        i = j + (u[j] == 0x7f ? 1 : 2);
    }
    kc_buf_cstr(&b);
    return b.data;
}

char *san_str(const char *s)
{
    kc_buf b = {0};
    if (s) san_append(&b, s, strlen(s));
    kc_buf_cstr(&b);
    return b.data;
}

/* san_fit's work; *cut = 1 when some of s did not fit. */
static int san_fit_cut(char *out, size_t outsz, const char *s, int cols, int *cut)
{
    size_t o = 0, i = 0, n = s ? strlen(s) : 0;
    int used = 0;
    char unit[8];
    int w;
    *cut = 0;
    if (outsz == 0) return 0;
    while (i < n) {
        size_t len = san_unit((const unsigned char *)s, n, &i, unit, &w);
        if (used + w > cols || o + len + 1 > outsz) {
            *cut = 1;
            break;
        }
        memcpy(out + o, unit, len);
        o += len;
        used += w;
    }
    out[o] = 0;
    return used;
}

int san_fit(char *out, size_t outsz, const char *s, int cols)
{
    int cut;
    return san_fit_cut(out, outsz, s, cols, &cut);
}

int san_fit_ellipsis(char *out, size_t outsz, const char *s, int cols)
{
    int cut;
    int used = san_fit_cut(out, outsz, s, cols, &cut);
    if (!cut || cols < 1 || outsz < 4) return used;
    const char *ell = san_ascii_mode ? "~" : "\u2026";
    size_t el = strlen(ell);
    used = san_fit_cut(out, outsz - el, s, cols - 1, &cut);
    memcpy(out + strlen(out), ell, el + 1);
    return used + 1;
}

int san_width(const char *safe)
{
    size_t i = 0, n = safe ? strlen(safe) : 0;
    int used = 0, w;
    char unit[8];
    while (i < n) {
        san_unit((const unsigned char *)safe, n, &i, unit, &w);
        used += w;
    }
    return used;
}

static char *san_vmessage(const char *fmt, va_list ap)
{
    char *raw = xvasprintf(fmt, ap);
    kc_buf b = {0};
    kc_buf_append(&b, "veltop: ", 8);
    san_append(&b, raw, strlen(raw));
    kc_buf_append(&b, "\n", 1);
    free(raw);
    return b.data;
}

char *san_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = san_vmessage(fmt, ap);
    va_end(ap);
    return m;
}

void san_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = san_vmessage(fmt, ap);
    va_end(ap);
    fputs(m, stderr);
    free(m);
}
