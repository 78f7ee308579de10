/* jsonarena.c: JSON text to a read-only cJSON tree allocated in an arena (LIST pages and watch
 * events). Written by hand, though cJSON parses JSON, because cJSON makes two or three mallocs per
 * value and its free walks them all again: 60 000 objects of ~1 KB (10 000 backups and 50 000
 * volumes) spent more than half of veltop's first-frame CPU in malloc, free and cJSON_Delete.
 * Here a page is one bump allocation per node or string and one free for all; the result is the
 * tree cJSON_ParseWithLength builds (same node types, links, numbers and strings). */
#include "kubeclient/jsonarena.h"

#include <limits.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[]; /* cap bytes */
} chunk;

struct kc_json_arena {
    chunk *head;
    size_t next_cap;
};

enum { JA_MIN_CHUNK = 8 * 1024, JA_NESTING = CJSON_NESTING_LIMIT };

static void *ja_alloc(kc_json_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = a->next_cap > n ? a->next_cap : n;
        c = xmalloc(sizeof *c + cap);
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
        a->next_cap = cap * 2;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

void kc_json_arena_free(kc_json_arena *a)
{
    if (!a) return;
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

typedef struct {
    const char *p, *end;
    kc_json_arena *a;
    char point; /* the locale's decimal point, as cJSON hands numbers to strtod */
    int lean;   /* skim fieldsV1 (kc_json_parse_lean) */
} ja_parser;

static void ja_ws(ja_parser *ps)
{
    while (ps->p < ps->end && (unsigned char)*ps->p <= 32) ps->p++;
}

static cJSON *ja_node(ja_parser *ps, int type)
{
    cJSON *n = ja_alloc(ps->a, sizeof *n);
    memset(n, 0, sizeof *n);
    n->type = type;
    return n;
}

/* Four hex digits; anything else reads as 0, as cJSON's parse_hex4 does (so "\u12zz" is U+0000). */
static unsigned ja_hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    return v;
}

/* The first '"' or '\\' in [p, end), or NULL. Strings are most of a page's bytes and most are
 * short (keys, names, timestamps): eight bytes at a time, with the classic test for a zero byte
 * (exact for the lowest one, which is the first in memory on a little-endian machine), instead of
 * two memchr calls per string. */
static const char *ja_quote_or_backslash(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const uint64_t quotes = ones * (unsigned char)'"', slashes = ones * (unsigned char)'\\';
    while (end - p >= 8) {
        uint64_t w, a, b;
        memcpy(&w, p, 8);
        a = w ^ quotes;
        b = w ^ slashes;
        uint64_t hit = ((a - ones) & ~a & highs) | ((b - ones) & ~b & highs);
        if (hit) return p + (__builtin_ctzll(hit) >> 3);
        p += 8;
    }
#endif
    for (; p < end; p++)
        if (*p == '"' || *p == '\\') return p;
    return NULL;
}

/* A string at ps->p (on its opening quote), unescaped into the arena; NULL if malformed. The same
 * escapes as cJSON: \" \\ \/ \b \f \n \r \t and \uXXXX (surrogate pairs joined) to UTF-8. */
static char *ja_string(ja_parser *ps)
{
    const char *s = ps->p + 1, *q = ja_quote_or_backslash(s, ps->end);
    if (!q) return NULL;
    /* most strings have no escape: the first '"' or '\\' ends them; otherwise walk the string
     * escape by escape */
    int escaped = *q == '\\';
    if (escaped) {
        q = s;
        while (q < ps->end && *q != '"') {
            if (*q == '\\' && ++q >= ps->end) return NULL;
            q++;
        }
        if (q >= ps->end) return NULL;
    }
    size_t raw = (size_t)(q - s);
    char *out = ja_alloc(ps->a, raw + 1), *o = out;
    if (!escaped) {
        memcpy(out, s, raw);
        out[raw] = '\0';
        ps->p = q + 1;
        return out;
    }
    for (const char *r = s; r < q;) {
        if (*r != '\\') {
            *o++ = *r++;
            continue;
        }
        r++;
        switch (*r) {
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case '"':
        case '\\':
        case '/':
            *o++ = *r;
            break;
        case 'u': {
            unsigned c, lo;
            if (q - r < 5) return NULL;
            c = ja_hex4(r + 1);
            r += 4;
            if (c >= 0xDC00 && c <= 0xDFFF) return NULL; /* a low surrogate on its own */
            if (c >= 0xD800 && c <= 0xDBFF) {
                if (q - r < 7 || r[1] != '\\' || r[2] != 'u') return NULL;
                lo = ja_hex4(r + 3);
                if (lo < 0xDC00 || lo > 0xDFFF) return NULL;
                r += 6;
                c = 0x10000 + (((c & 0x3FF) << 10) | (lo & 0x3FF));
            }
            if (c < 0x80) {
                *o++ = (char)c;
            } else if (c < 0x800) {
                *o++ = (char)(0xC0 | (c >> 6));
                *o++ = (char)(0x80 | (c & 0x3F));
            } else if (c < 0x10000) {
                *o++ = (char)(0xE0 | (c >> 12));
                *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
                *o++ = (char)(0x80 | (c & 0x3F));
            } else {
                *o++ = (char)(0xF0 | (c >> 18));
                *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
                *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
                *o++ = (char)(0x80 | (c & 0x3F));
            }
            break;
        }
        default:
            return NULL;
        }
        r++;
    }
    *o = '\0';
    ps->p = q + 1;
    return out;
}

static void ja_set_number(cJSON *n, double d)
{
    n->valuedouble = d;
    if (d >= INT_MAX)
        n->valueint = INT_MAX;
    else if (d <= (double)INT_MIN)
        n->valueint = INT_MIN;
    else
        n->valueint = (int)d;
}

/* A number as cJSON reads one: the run of [0-9+-.eE] given to strtod (with the locale's decimal
 * point); plain integers of up to 15 digits, exact in a double, are converted directly. */
static cJSON *ja_number(ja_parser *ps)
{
    const char *s = ps->p, *q = s;
    int plain = 1;
    while (q < ps->end) {
        char c = *q;
        if (c >= '0' && c <= '9') {
        } else if (c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E') {
            if (!(c == '-' && q == s)) plain = 0;
        } else {
            break;
        }
        q++;
    }
    size_t len = (size_t)(q - s);
    cJSON *n = ja_node(ps, cJSON_Number);
    int neg = len && *s == '-';
    if (plain && len > (size_t)neg && len - (size_t)neg <= 15) {
        int64_t v = 0;
        for (const char *r = s + neg; r < q; r++) v = v * 10 + (*r - '0');
        ja_set_number(n, neg ? -(double)v : (double)v);
        ps->p = q;
        return n;
    }
    char local[64], *buf = len < sizeof local ? local : xmalloc(len + 1);
    for (size_t i = 0; i < len; i++) buf[i] = s[i] == '.' ? ps->point : s[i];
    buf[len] = '\0';
    char *end;
    double d = strtod(buf, &end);
    size_t used = (size_t)(end - buf);
    if (buf != local) free(buf);
    if (used == 0) return NULL;
    ja_set_number(n, d);
    ps->p = s + used;
    return n;
}

/* Skips the container at ps->p (on its '{' or '['), whose values nobody reads, without building
 * it: a scan for brackets and whole strings, no allocation, no recursion. What is checked is what
 * keeps the rest of the text in step: every string ends, every bracket closes with its own kind,
 * nesting stays under the limit (a bit per level); the grammar between them (commas, colons,
 * literals) is not. Returns 0, or -1 when the text ends first or is not balanced. */
static int ja_skip(ja_parser *ps, int depth)
{
    unsigned char kinds[(JA_NESTING + 7) / 8]; /* 1: '{', 0: '[' per open level */
    int level = 0;
    const char *p = ps->p, *end = ps->end;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            p++;
            for (;;) {
                const char *q = ja_quote_or_backslash(p, end);
                if (!q) return -1;
                if (*q == '"') {
                    p = q + 1;
                    break;
                }
                if (q + 1 >= end) return -1; /* a backslash escapes the next byte */
                p = q + 2;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth + level >= JA_NESTING) return -1;
            if (c == '{')
                kinds[level / 8] |= (unsigned char)(1u << (level % 8));
            else
                kinds[level / 8] &= (unsigned char)~(1u << (level % 8));
            level++;
        } else if (c == '}' || c == ']') {
            if (level == 0) return -1;
            level--;
            if (((kinds[level / 8] >> (level % 8)) & 1u) != (c == '}')) return -1;
            if (level == 0) {
                ps->p = p + 1;
                return 0;
            }
        }
        p++;
    }
    return -1;
}

static cJSON *ja_value(ja_parser *ps, int depth);
static cJSON *ja_fieldsv1(ja_parser *ps, int depth);

/* The elements of an array or members of an object after its opening bracket. */
static cJSON *ja_container(ja_parser *ps, int depth, int object)
{
    if (depth >= JA_NESTING) return NULL;
    cJSON *c = ja_node(ps, object ? cJSON_Object : cJSON_Array), *last = NULL;
    char close = object ? '}' : ']';
    ps->p++;
    ja_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return c;
    }
    for (;;) {
        char *key = NULL;
        if (object) {
            ja_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"' || !(key = ja_string(ps))) return NULL;
            ja_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') return NULL;
            ps->p++;
        }
        cJSON *v = ps->lean && object && key[0] == 'f' && !strcmp(key, "fieldsV1")
                       ? ja_fieldsv1(ps, depth + 1)
                       : ja_value(ps, depth + 1);
        if (!v) return NULL;
        v->string = key;
        if (last) {
            last->next = v;
            v->prev = last;
        } else {
            c->child = v;
        }
        last = v;
        ja_ws(ps);
        if (ps->p >= ps->end) return NULL;
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p != close) return NULL;
        ps->p++;
        c->child->prev = last; /* as cJSON: the first element's prev is the last one */
        return c;
    }
}

static cJSON *ja_value(ja_parser *ps, int depth)
{
    ja_ws(ps);
    if (ps->p >= ps->end) return NULL;
    size_t left = (size_t)(ps->end - ps->p);
    switch (*ps->p) {
    case '{':
        return ja_container(ps, depth, 1);
    case '[':
        return ja_container(ps, depth, 0);
    case '"': {
        char *s = ja_string(ps);
        if (!s) return NULL;
        cJSON *n = ja_node(ps, cJSON_String);
        n->valuestring = s;
        return n;
    }
    case 'n':
        if (left < 4 || memcmp(ps->p, "null", 4)) return NULL;
        ps->p += 4;
        return ja_node(ps, cJSON_NULL);
    case 't':
        if (left < 4 || memcmp(ps->p, "true", 4)) return NULL;
        ps->p += 4;
        cJSON *t = ja_node(ps, cJSON_True);
        t->valueint = 1;
        return t;
    case 'f':
        if (left < 5 || memcmp(ps->p, "false", 5)) return NULL;
        ps->p += 5;
        return ja_node(ps, cJSON_False);
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) return ja_number(ps);
        return NULL;
    }
}

/* A fieldsV1 value, lean: its members' names are kept, each member's value that is an object or
 * array is skipped (ja_skip) and kept as an empty one of its kind. veltop reads only which
 * top-level fields a manager wrote (velero.c, vl_status_write): the rest is most of an object's
 * managedFields bytes, and building it was most of their parse. Anything else is parsed. */
static cJSON *ja_fieldsv1(ja_parser *ps, int depth)
{
    ja_ws(ps);
    if (ps->p >= ps->end || *ps->p != '{' || depth >= JA_NESTING) return ja_value(ps, depth);
    cJSON *c = ja_node(ps, cJSON_Object), *last = NULL;
    ps->p++;
    ja_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return c;
    }
    for (;;) {
        char *key;
        ja_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"' || !(key = ja_string(ps))) return NULL;
        ja_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') return NULL;
        ps->p++;
        ja_ws(ps);
        cJSON *v;
        if (ps->p < ps->end && (*ps->p == '{' || *ps->p == '[')) {
            v = ja_node(ps, *ps->p == '{' ? cJSON_Object : cJSON_Array);
            if (ja_skip(ps, depth + 1)) return NULL;
        } else {
            v = ja_value(ps, depth + 1);
            if (!v) return NULL;
        }
        v->string = key;
        if (last) {
            last->next = v;
            v->prev = last;
        } else {
            c->child = v;
        }
        last = v;
        ja_ws(ps);
        if (ps->p >= ps->end) return NULL;
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p != '}') return NULL;
        ps->p++;
        c->child->prev = last;
        return c;
    }
}

static cJSON *ja_parse_prefix(const char *text, size_t len, kc_json_arena **arena, size_t *used,
                              int lean)
{
    kc_json_arena *a = xcalloc(1, sizeof *a);
    a->next_cap = JA_MIN_CHUNK;
    *arena = a;
    *used = 0;
    if (!text) return NULL;
    const struct lconv *lc = localeconv();
    ja_parser ps = {text, text + len, a, lc && lc->decimal_point ? lc->decimal_point[0] : '.',
                    lean};
    cJSON *v = ja_value(&ps, 0);
    if (v) *used = (size_t)(ps.p - text);
    return v;
}

static cJSON *ja_parse(const char *text, size_t len, kc_json_arena **arena, int lean)
{
    kc_json_arena *a = xcalloc(1, sizeof *a);
    /* a tree takes about twice its text: one chunk for most pages */
    a->next_cap = len * 2 + 1024 > JA_MIN_CHUNK ? len * 2 + 1024 : JA_MIN_CHUNK;
    *arena = a;
    if (!text) return NULL;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) { /* a UTF-8 BOM, skipped as cJSON does */
        text += 3;
        len -= 3;
    }
    const struct lconv *lc = localeconv();
    ja_parser ps = {text, text + len, a, lc && lc->decimal_point ? lc->decimal_point[0] : '.',
                    lean};
    return ja_value(&ps, 0);
}

cJSON *kc_json_parse_prefix(const char *text, size_t len, kc_json_arena **arena, size_t *used)
{
    return ja_parse_prefix(text, len, arena, used, 0);
}

cJSON *kc_json_parse(const char *text, size_t len, kc_json_arena **arena)
{
    return ja_parse(text, len, arena, 0);
}

cJSON *kc_json_parse_lean(const char *text, size_t len, kc_json_arena **arena)
{
    return ja_parse(text, len, arena, 1);
}

cJSON *kc_json_parse_prefix_lean(const char *text, size_t len, kc_json_arena **arena, size_t *used)
{
    return ja_parse_prefix(text, len, arena, used, 1);
}
