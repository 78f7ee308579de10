/* logparse.c: parses Velero's logrus lines (TextFormatter key=value, or JSONFormatter objects). */
#include "logparse.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static const char *lp_names[] = {"",        "trace", "debug", "info",
                                 "warning", "error", "fatal", "panic"};

const char *lp_level_name(lp_level l)
{
    if ((int)l < 0 || (size_t)l >= sizeof lp_names / sizeof lp_names[0]) return "";
    return lp_names[l];
}

lp_level lp_level_parse(const char *s, size_t n)
{
    if (n == 0) return LP_UNKNOWN;
    switch (s[0]) {
    case 't':
        return n == 5 && !memcmp(s, "trace", 5) ? LP_TRACE : LP_UNKNOWN;
    case 'd':
        return n == 5 && !memcmp(s, "debug", 5) ? LP_DEBUG : LP_UNKNOWN;
    case 'i':
        return n == 4 && !memcmp(s, "info", 4) ? LP_INFO : LP_UNKNOWN;
    case 'w':
        if (n == 7 && !memcmp(s, "warning", 7)) return LP_WARNING;
        return n == 4 && !memcmp(s, "warn", 4) ? LP_WARNING : LP_UNKNOWN;
    case 'e':
        if (n == 5 && !memcmp(s, "error", 5)) return LP_ERROR;
        return n == 3 && !memcmp(s, "err", 3) ? LP_ERROR : LP_UNKNOWN;
    case 'f':
        return n == 5 && !memcmp(s, "fatal", 5) ? LP_FATAL : LP_UNKNOWN;
    case 'p':
        return n == 5 && !memcmp(s, "panic", 5) ? LP_PANIC : LP_UNKNOWN;
    }
    return LP_UNKNOWN;
}

lp_level lp_level_of(const char *line, size_t len)
{
    /* logrus puts level second (after time), so the first hit is nearly always near the start */
    const char *p = line, *end = line + len;
    while (p < end) {
        const char *q = memchr(p, 'l', (size_t)(end - p));
        if (!q) break;
        if (end - q >= 6 && !memcmp(q, "level=", 6) && (q == line || q[-1] == ' ')) {
            const char *v = q + 6, *e = v;
            if (e < end && *e == '"') v = ++e;
            while (e < end && *e >= 'a' && *e <= 'z') e++;
            return lp_level_parse(v, (size_t)(e - v));
        }
        if (end - q >= 8 && !memcmp(q, "level\":", 7) && q > line && q[-1] == '"') {
            const char *v = q + 7;
            while (v < end && *v == ' ') v++;
            if (v < end && *v == '"') {
                const char *e = ++v;
                while (e < end && *e >= 'a' && *e <= 'z') e++;
                return lp_level_parse(v, (size_t)(e - v));
            }
        }
        p = q + 1;
    }
    return LP_UNKNOWN;
}

/* Appends to the line's store; returns the offset of the appended bytes. */
static size_t lp_store(lp_line *l, size_t *used, const char *s, size_t n)
{
    if (*used + n + 1 > l->store_cap) {
        size_t cap = l->store_cap ? l->store_cap : 256;
        while (cap < *used + n + 1) cap *= 2;
        l->store = xrealloc(l->store, cap);
        l->store_cap = cap;
    }
    size_t off = *used;
    memcpy(l->store + off, s, n);
    l->store[off + n] = '\0';
    *used += n + 1;
    return off;
}

static void lp_add(lp_line *l, size_t koff, size_t voff)
{
    if (l->nfields == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->fields = xrealloc(l->fields, l->cap * sizeof *l->fields);
    }
    /* offsets for now: the store may still move; lp_fixup turns them into pointers */
    l->fields[l->nfields].key = (const char *)(uintptr_t)koff;
    l->fields[l->nfields].value = (const char *)(uintptr_t)voff;
    l->nfields++;
}

static int lp_fixup(lp_line *l)
{
    int seen = 0;
    for (size_t i = 0; i < l->nfields; i++) {
        l->fields[i].key = l->store + (uintptr_t)l->fields[i].key;
        l->fields[i].value = l->store + (uintptr_t)l->fields[i].value;
        const char *k = l->fields[i].key, *v = l->fields[i].value;
        if (!strcmp(k, "level")) {
            l->level = lp_level_parse(v, strlen(v));
            seen = 1;
        } else if (!strcmp(k, "msg")) {
            l->msg = v;
            seen = 1;
        } else if (!strcmp(k, "time")) {
            l->time = v;
            seen = 1;
        }
    }
    return seen;
}

static void lp_utf8(char *out, size_t *o, unsigned long cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xc0 | (cp >> 6));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xe0 | (cp >> 12));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*o)++] = (char)(0xf0 | (cp >> 18));
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int lp_hex(const char *s, size_t n, unsigned long *out)
{
    unsigned long v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + (unsigned long)d;
    }
    *out = v;
    return 0;
}

/* Unquotes a Go %q string starting after the opening quote. Writes into out (room for n bytes),
 * sets *consumed to the bytes read including the closing quote (or to the end when unterminated).
 */
static size_t lp_unquote(const char *s, size_t n, char *out, size_t *consumed)
{
    size_t i = 0, o = 0;
    while (i < n && s[i] != '"') {
        if (s[i] != '\\' || i + 1 >= n) {
            out[o++] = s[i++];
            continue;
        }
        char c = s[i + 1];
        unsigned long cp;
        i += 2;
        switch (c) {
        case 'n':
            out[o++] = '\n';
            break;
        case 't':
            out[o++] = '\t';
            break;
        case 'r':
            out[o++] = '\r';
            break;
        case 'a':
            out[o++] = '\a';
            break;
        case 'b':
            out[o++] = '\b';
            break;
        case 'f':
            out[o++] = '\f';
            break;
        case 'v':
            out[o++] = '\v';
            break;
        case 'x':
            if (i + 2 <= n && !lp_hex(s + i, 2, &cp)) {
                out[o++] = (char)cp;
                i += 2;
            } else {
                out[o++] = 'x';
            }
            break;
        case 'u':
        case 'U': {
            size_t w = c == 'u' ? 4 : 8;
            if (i + w <= n && !lp_hex(s + i, w, &cp) && cp <= 0x10ffff) {
                lp_utf8(out, &o, cp);
                i += w;
            } else {
                out[o++] = c;
            }
            break;
        }
        default:
            out[o++] = c;
            break; /* \" \\ and anything unknown: the character itself */
        }
    }
    *consumed = i < n ? i + 1 : i;
    return o;
}

static int lp_parse_text(lp_line *l, const char *s, size_t len)
{
    size_t used = 0, i = 0, pending = SIZE_MAX;
    char *tmp = xmalloc(len + 1);
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) i++;
        if (i >= len) break;
        size_t ks = i;
        while (i < len && s[i] != '=' && s[i] != ' ' && s[i] != '"') i++;
        if (i < len && s[i] == ' ' && i > ks && l->nfields > 0) {
            /* logrus writes a key as it is, spaces included (`original name=x`, restore.go):
             * a bare word after a field starts the key of the next one */
            if (pending == SIZE_MAX) pending = ks;
            continue;
        }
        if (i >= len || s[i] != '=' || i == ks) {
            /* not key=value: skip this word */
            while (i < len && s[i] != ' ') i++;
            pending = SIZE_MAX;
            continue;
        }
        if (pending != SIZE_MAX) ks = pending;
        pending = SIZE_MAX;
        size_t koff = lp_store(l, &used, s + ks, i - ks);
        i++; /* '=' */
        size_t voff;
        if (i < len && s[i] == '"') {
            size_t consumed, n = lp_unquote(s + i + 1, len - i - 1, tmp, &consumed);
            voff = lp_store(l, &used, tmp, n);
            i += 1 + consumed;
        } else {
            size_t vs = i;
            while (i < len && s[i] != ' ') i++;
            voff = lp_store(l, &used, s + vs, i - vs);
        }
        lp_add(l, koff, voff);
    }
    free(tmp);
    return lp_fixup(l) ? 0 : -1;
}

static int lp_parse_json(lp_line *l, const char *s, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(s, len);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return -1;
    }
    size_t used = 0;
    for (cJSON *c = o->child; c; c = c->next) {
        if (!c->string) continue;
        size_t koff = lp_store(l, &used, c->string, strlen(c->string)), voff;
        if (cJSON_IsString(c)) {
            voff = lp_store(l, &used, c->valuestring, strlen(c->valuestring));
        } else if (cJSON_IsNull(c)) {
            voff = lp_store(l, &used, "", 0);
        } else {
            char *p = cJSON_PrintUnformatted(c);
            voff = lp_store(l, &used, p ? p : "", p ? strlen(p) : 0);
            cJSON_free(p);
        }
        lp_add(l, koff, voff);
    }
    cJSON_Delete(o);
    lp_fixup(l);
    return 0;
}

int lp_parse(lp_line *l, const char *line, size_t len)
{
    l->nfields = 0;
    l->level = LP_UNKNOWN;
    l->time = l->msg = "";
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    size_t i = 0;
    while (i < len && line[i] == ' ') i++;
    int rc = i < len && line[i] == '{' ? lp_parse_json(l, line + i, len - i)
                                       : lp_parse_text(l, line, len);
    if (rc) {
        l->nfields = 0;
        l->level = LP_UNKNOWN;
        l->time = l->msg = "";
    }
    return rc;
}

void lp_line_free(lp_line *l)
{
    if (!l) return;
    free(l->fields);
    free(l->store);
    memset(l, 0, sizeof *l);
}

const char *lp_get(const lp_line *l, const char *key)
{
    for (size_t i = 0; i < l->nfields; i++)
        if (!strcmp(l->fields[i].key, key)) return l->fields[i].value;
    return NULL;
}
