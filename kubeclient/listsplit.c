/* listsplit.c: a List answer's items one by one as the bytes arrive (listsplit.h). A scanner of
 * JSON structure only: depth, strings and their escapes, the top-level keys; each item's text is
 * handed out as it is (from the received chunk when whole in it, else from a buffer). */
#include "kubeclient/listsplit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/jsonarena.h"
#include "kubeclient/util.h"

#define HEAD_MAX (1u << 20) /* the members besides items: kind, apiVersion, metadata */

enum { ITEMS_BEFORE, ITEMS_ARMED, ITEMS_IN, ITEMS_AFTER };

struct kc_listsplit {
    size_t max_item;
    kc_listsplit_item_fn fn;
    void *arg;
    int depth;  /* of objects and arrays; the list object is depth 1 */
    int in_str; /* inside a string */
    int esc;    /* the chunk ended on a backslash inside a string */
    int key_next, in_key;
    char key[8];
    size_t key_len;
    int items; /* ITEMS_* */
    int in_item;
    kc_buf item; /* an item begun in an earlier chunk */
    kc_buf head;
    size_t count;
    int bad, done;
    int lean; /* items parsed lean (kc_listsplit_set_lean) */
};

kc_listsplit *kc_listsplit_new(size_t max_item, kc_listsplit_item_fn fn, void *arg)
{
    kc_listsplit *s = xcalloc(1, sizeof *s);
    s->max_item = max_item ? max_item : 16u << 20;
    s->fn = fn;
    s->arg = arg;
    return s;
}

void kc_listsplit_free(kc_listsplit *s)
{
    if (!s) return;
    kc_buf_free(&s->item);
    kc_buf_free(&s->head);
    free(s);
}

void kc_listsplit_set_lean(kc_listsplit *s, int lean)
{
    s->lean = lean;
}

size_t kc_listsplit_items(const kc_listsplit *s)
{
    return s->count;
}

/* Index of the first '"' or '\\' in p[i..n), or n: eight bytes at a time, the first match of a
 * word found from its lowest flagged byte (the zero-byte test may flag bytes above a true match,
 * never below it). */
static inline size_t scan_string(const char *p, size_t i, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t quote = ones * '"', bslash = ones * '\\';
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t a = w ^ quote, b = w ^ bslash;
        uint64_t hit = ((a - ones) & ~a & highs) | ((b - ones) & ~b & highs);
        if (hit) return i + (size_t)(__builtin_ctzll(hit) >> 3);
        i += 8;
    }
#endif
    while (i < n && p[i] != '"' && p[i] != '\\') i++;
    return i;
}

/* Inside an item only strings and brackets matter. */
static const unsigned char item_stop[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};

/* The hot path: from p[i] inside an item (not in a string), to just past the '}' that ends it
 * (*ended set) or to n (the state kept for the next chunk). */
static size_t skip_item(kc_listsplit *s, const char *p, size_t i, size_t n, int *ended)
{
    for (;;) {
        while (i < n && !item_stop[(unsigned char)p[i]]) i++;
        if (i == n) return n;
        char c = p[i++];
        if (c == '"') {
            for (;;) {
                i = scan_string(p, i, n);
                if (i == n) {
                    s->in_str = 1;
                    return n;
                }
                if (p[i] == '"') {
                    i++;
                    break;
                }
                if (i + 1 >= n) { /* a backslash, the chunk's last byte */
                    s->in_str = 1;
                    s->esc = 1;
                    return n;
                }
                i += 2;
            }
        } else if (c == '{' || c == '[') {
            s->depth++;
        } else if (--s->depth == 2) {
            *ended = 1;
            return i;
        }
    }
}

static int fail(kc_listsplit *s)
{
    s->bad = 1;
    return -1;
}

/* Hands out one item's tree and text; nonzero (the list is bad) when the caller said stop. */
static int hand_out(kc_listsplit *s, const cJSON *it, const char *text, size_t n)
{
    s->count++;
    return s->fn(s->arg, it, text, n) ? fail(s) : 0;
}

/* An item the scanner followed ended at p[end-1]; it began at p[start] in this chunk, or in
 * s->item: parsed now. */
static int emit(kc_listsplit *s, const char *p, size_t start, size_t end)
{
    const char *text = p + start;
    size_t n = end - start;
    if (s->item.len) {
        kc_buf_append(&s->item, p, end);
        text = s->item.data;
        n = s->item.len;
    }
    s->in_item = 0;
    s->item.len = 0; /* the text stays readable until the next append */
    if (n > s->max_item) return fail(s);
    kc_json_arena *a;
    cJSON *it = (s->lean ? kc_json_parse_lean : kc_json_parse)(text, n, &a);
    int rc = it ? hand_out(s, it, text, n) : fail(s);
    kc_json_arena_free(a);
    return rc;
}

static void head_add(kc_listsplit *s, const char *p, size_t n)
{
    if (s->head.len + n > HEAD_MAX) {
        s->bad = 1;
        return;
    }
    kc_buf_append(&s->head, p, n);
}

int kc_listsplit_feed(kc_listsplit *s, const char *p, size_t n)
{
    if (s->bad) return -1;
    size_t i = 0;
    size_t item_start = 0; /* in this chunk, when in_item and s->item is empty */
    size_t head_start = 0; /* the span of this chunk still to copy into head */
    size_t key_start = 0;
    int head_on = s->items != ITEMS_IN;
    while (i < n) {
        if (s->in_item && !s->in_str) {
            int ended = 0;
            i = skip_item(s, p, i, n, &ended);
            if (ended && emit(s, p, item_start, i)) return -1;
            continue;
        }
        if (s->in_str) {
            if (s->esc) {
                s->esc = 0;
                i++;
                continue;
            }
            size_t j = scan_string(p, i, n);
            if (s->in_key && j > key_start) {
                size_t k = j - key_start;
                if (s->key_len + k > sizeof s->key) k = sizeof s->key - s->key_len;
                memcpy(s->key + s->key_len, p + key_start, k);
                s->key_len += k;
            }
            if (j == n) break;
            if (p[j] == '\\') {
                if (j + 1 < n) {
                    i = j + 2;
                    key_start = i; /* an escaped key is not "items": its text no longer matters */
                } else {
                    s->esc = 1;
                    i = n;
                }
                continue;
            }
            s->in_str = 0;
            s->in_key = 0;
            i = j + 1;
            continue;
        }
        char c = p[i];
        if (s->done) {
            if ((unsigned char)c > ' ') return fail(s);
            i++;
            continue;
        }
        switch (c) {
        case '"':
            if (s->items == ITEMS_IN && s->depth == 2) return fail(s); /* an item not an object */
            s->in_str = 1;
            if (s->depth == 1 && s->key_next) {
                s->in_key = 1;
                s->key_next = 0;
                s->key_len = 0;
                key_start = i + 1;
            }
            break;
        case '{':
        case '[':
            if (s->depth == 0 && c != '{') return fail(s);
            s->depth++;
            if (s->depth == 1) s->key_next = 1;
            if (s->items == ITEMS_ARMED && s->depth == 2) {
                if (c != '[') return fail(s);
                s->items = ITEMS_IN;
                head_add(s, p + head_start, i + 1 - head_start); /* up to and with '[' */
                head_on = 0;
            } else if (s->items == ITEMS_IN && s->depth == 3) {
                if (c != '{') return fail(s);
                /* most items are whole in the chunk: parsed straight away, their bytes scanned
                 * once; one cut by the chunk's end is followed by the scanner, parsed at its end */
                kc_json_arena *a;
                size_t used;
                cJSON *it = (s->lean ? kc_json_parse_prefix_lean
                                     : kc_json_parse_prefix)(p + i, n - i, &a, &used);
                if (it) {
                    int rc = used > s->max_item ? fail(s) : hand_out(s, it, p + i, used);
                    kc_json_arena_free(a);
                    if (rc) return -1;
                    s->depth = 2;
                    i += used;
                    continue;
                }
                kc_json_arena_free(a);
                s->in_item = 1;
                item_start = i;
            }
            break;
        case '}':
        case ']':
            if (s->depth == 0) return fail(s);
            s->depth--;
            if (s->in_item && s->depth == 2) {
                if (emit(s, p, item_start, i + 1)) return -1;
            } else if (s->items == ITEMS_IN && s->depth == 1) {
                s->items = ITEMS_AFTER;
                head_on = 1;
                head_start = i; /* the ']' */
            } else if (s->depth == 0) {
                s->done = 1;
            }
            break;
        case ':':
            if (s->depth == 1 && s->items == ITEMS_BEFORE && s->key_len == 5 &&
                !memcmp(s->key, "items", 5))
                s->items = ITEMS_ARMED;
            break;
        case ',':
            if (s->depth == 1) {
                s->key_next = 1;
                if (s->items == ITEMS_ARMED) return fail(s); /* "items": not an array */
            }
            break;
        default:
            if (s->items == ITEMS_IN && s->depth == 2 && (unsigned char)c > ' ')
                return fail(s); /* an item that is not an object */
            break;
        }
        i++;
    }
    if (s->in_item) {
        size_t from = s->item.len ? 0 : item_start;
        kc_buf_append(&s->item, p + from, n - from);
        if (s->item.len > s->max_item) return fail(s);
    }
    if (head_on && head_start < n) head_add(s, p + head_start, n - head_start);
    return s->bad ? -1 : 0;
}

const char *kc_listsplit_head(kc_listsplit *s, size_t *len)
{
    if (s->bad || !s->done || s->items == ITEMS_ARMED || s->items == ITEMS_IN) return NULL;
    *len = s->head.len;
    return kc_buf_cstr(&s->head);
}
