/* store.c: objects of one resource keyed by namespace/name (a hash table), held decoded. */
#include "kubeclient/store.h"
#include "kubeclient/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Chained hash table written by hand (FNV-1a): one allocation per entry with the key inline, so
 * 60 000 objects cost a few MB beyond their decoded form. */
typedef struct entry {
    struct entry *next;
    void *obj;
    uint32_t hash;
    uint32_t gen; /* replace generation that last saw it */
    char key[];
} entry;

typedef struct {
    kc_store_fn fn;
    void *arg;
} listener;

struct kc_store {
    kc_decode_fn decode;
    void *(*decode_with)(void *arg, const cJSON *obj); /* kc_store_set_decoder, else decode */
    void *decode_arg;
    kc_release_fn release;
    entry **buckets;
    size_t nbuckets, len;
    uint32_t gen;
    int replacing;
    listener *ls;
    size_t nls;
    int (*keep)(void *arg, const cJSON *obj); /* kc_store_set_filter */
    void *keep_arg;
    unsigned long dropped;
};

kc_store *kc_store_new(kc_decode_fn decode, kc_release_fn release)
{
    kc_store *s = xcalloc(1, sizeof *s);
    s->decode = decode;
    s->release = release;
    s->nbuckets = 64;
    s->buckets = xcalloc(s->nbuckets, sizeof *s->buckets);
    return s;
}

static void release_obj(kc_store *s, void *obj)
{
    if (obj && s->release) s->release(obj);
}

void kc_store_free(kc_store *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        entry *e = s->buckets[i];
        while (e) {
            entry *next = e->next;
            release_obj(s, e->obj);
            free(e);
            e = next;
        }
    }
    free(s->buckets);
    free(s->ls);
    free(s);
}

void kc_store_on_change(kc_store *s, kc_store_fn fn, void *arg)
{
    s->ls = xrealloc(s->ls, (s->nls + 1) * sizeof *s->ls);
    s->ls[s->nls++] = (listener){fn, arg};
}

void kc_store_off_change(kc_store *s, kc_store_fn fn, void *arg)
{
    size_t j = 0;
    for (size_t i = 0; i < s->nls; i++)
        if (s->ls[i].fn != fn || s->ls[i].arg != arg) s->ls[j++] = s->ls[i];
    s->nls = j;
}

static void notify(kc_store *s, kc_event_type type, const char *key, void *obj)
{
    for (size_t i = 0; i < s->nls; i++) s->ls[i].fn(s->ls[i].arg, type, key, obj);
}

static uint32_t hash_key(const char *ns, size_t nslen, const char *name)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < nslen; i++) h = (h ^ (unsigned char)ns[i]) * 16777619u;
    if (nslen) h = (h ^ '/') * 16777619u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static int key_eq(const char *key, const char *ns, size_t nslen, const char *name)
{
    if (nslen) {
        if (strncmp(key, ns, nslen) != 0 || key[nslen] != '/') return 0;
        key += nslen + 1;
    }
    return strcmp(key, name) == 0;
}

/* The slot pointing at the entry for ns/name (or at the NULL ending its chain). */
static entry **find(kc_store *s, const char *ns, const char *name, uint32_t *hash)
{
    size_t nslen = ns ? strlen(ns) : 0;
    uint32_t h = hash_key(ns, nslen, name);
    if (hash) *hash = h;
    entry **pp = &s->buckets[h & (s->nbuckets - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && key_eq((*pp)->key, ns, nslen, name)) break;
    return pp;
}

static void grow(kc_store *s)
{
    size_t n = s->nbuckets * 2;
    entry **b = xcalloc(n, sizeof *b);
    for (size_t i = 0; i < s->nbuckets; i++) {
        entry *e = s->buckets[i];
        while (e) {
            entry *next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nbuckets = n;
}

void *kc_store_get(kc_store *s, const char *ns, const char *name)
{
    if (!name) return NULL;
    entry *e = *find(s, ns, name, NULL);
    return e ? e->obj : NULL;
}

size_t kc_store_len(const kc_store *s)
{
    return s->len;
}

void kc_store_foreach(kc_store *s, void (*fn)(void *arg, const char *key, void *obj), void *arg)
{
    for (size_t i = 0; i < s->nbuckets; i++)
        for (entry *e = s->buckets[i]; e; e = e->next) fn(arg, e->key, e->obj);
}

static int obj_key(const cJSON *obj, const char **ns, const char **name)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name"));
    if (!n || !*n) return -1;
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "namespace"));
    *ns = s && *s ? s : NULL;
    *name = n;
    return 0;
}

void kc_store_set_filter(kc_store *s, int (*keep)(void *arg, const cJSON *obj), void *arg)
{
    s->keep = keep;
    s->keep_arg = arg;
}

void kc_store_set_decoder(kc_store *s, void *(*decode)(void *arg, const cJSON *obj), void *arg)
{
    s->decode_with = decode;
    s->decode_arg = arg;
}

char kc_store_skip[1];

static void delete_at(kc_store *s, entry **pp, void *last);

static void *store_decode(kc_store *s, const cJSON *obj)
{
    return s->decode_with ? s->decode_with(s->decode_arg, obj) : s->decode ? s->decode(obj) : NULL;
}

unsigned long kc_store_dropped(const kc_store *s)
{
    return s->dropped;
}

void kc_store_upsert(kc_store *s, const cJSON *obj)
{
    const char *ns, *name;
    if (obj_key(obj, &ns, &name) < 0) return;
    uint32_t h;
    entry **pp = find(s, ns, name, &h);
    entry *e = *pp;
    if (s->keep && !s->keep(s->keep_arg, obj)) {
        if (e) e->gen = s->gen; /* listed, if older: a re-list keeps it */
        s->dropped++;
        return;
    }
    void *dec = store_decode(s, obj);
    if (dec == KC_STORE_SKIP) { /* not held, not even its key: gone if it was */
        if (e) delete_at(s, pp, NULL);
        return;
    }
    if (e) {
        void *old = e->obj;
        e->obj = dec;
        e->gen = s->gen;
        notify(s, KC_EV_MODIFIED, e->key, dec);
        release_obj(s, old);
        return;
    }
    size_t nslen = ns ? strlen(ns) : 0, namelen = strlen(name);
    e = xmalloc(sizeof *e + nslen + 1 + namelen + 1);
    char *k = e->key;
    if (nslen) {
        memcpy(k, ns, nslen);
        k[nslen] = '/';
        k += nslen + 1;
    }
    memcpy(k, name, namelen + 1);
    e->obj = dec;
    e->hash = h;
    e->gen = s->gen;
    e->next = NULL;
    *pp = e;
    s->len++;
    if (s->len > s->nbuckets) grow(s);
    notify(s, KC_EV_ADDED, e->key, dec);
}

/* Unlinks *pp, tells the listeners (with last, the object's final state) and frees it. */
static void delete_at(kc_store *s, entry **pp, void *last)
{
    entry *e = *pp;
    *pp = e->next;
    s->len--;
    notify(s, KC_EV_DELETED, e->key, last ? last : e->obj);
    if (last) release_obj(s, last);
    release_obj(s, e->obj);
    free(e);
}

void kc_store_remove(kc_store *s, const cJSON *obj)
{
    const char *ns, *name;
    if (obj_key(obj, &ns, &name) < 0) return;
    entry **pp = find(s, ns, name, NULL);
    if (!*pp) return;
    /* The DELETED event carries the object's final state: listeners see that one. */
    void *last = store_decode(s, obj);
    delete_at(s, pp, last == KC_STORE_SKIP ? NULL : last);
}

void kc_store_replace_begin(kc_store *s)
{
    s->gen++;
    s->replacing = 1;
}

void kc_store_replace_end(kc_store *s)
{
    if (!s->replacing) return;
    s->replacing = 0;
    for (size_t i = 0; i < s->nbuckets; i++) {
        entry **pp = &s->buckets[i];
        while (*pp) {
            if ((*pp)->gen != s->gen)
                delete_at(s, pp, NULL);
            else
                pp = &(*pp)->next;
        }
    }
}
