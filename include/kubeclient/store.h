/* store.h: objects of one resource keyed by namespace/name, held decoded, with change callbacks. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct kc_store kc_store;
typedef enum { KC_EV_ADDED, KC_EV_MODIFIED, KC_EV_DELETED } kc_event_type;

typedef void *(*kc_decode_fn)(const cJSON *obj); /* NULL = keep nothing but the key */
typedef void (*kc_release_fn)(void *decoded);
/* Called after the store changed; for DELETED, obj is the last state (freed after the call). */
typedef void (*kc_store_fn)(void *arg, kc_event_type type, const char *key, void *obj);

kc_store *kc_store_new(kc_decode_fn decode, kc_release_fn release);
void kc_store_free(kc_store *s);
void kc_store_on_change(kc_store *s, kc_store_fn fn, void *arg); /* several may be registered */
/* Unregisters fn with arg (a listener freed before the store). */
void kc_store_off_change(kc_store *s, kc_store_fn fn, void *arg);

/* While keep is set (NULL unsets it), an upsert that keep(arg, obj) refuses is dropped (the key
 * counts as listed for a re-list). For a store fed by two reflectors at once (a part watched, the
 * whole listed), where a list can bring a state older than one a watch already brought. */
void kc_store_set_filter(kc_store *s, int (*keep)(void *arg, const cJSON *obj), void *arg);
/* Decodes with decode(arg, obj) instead of the kc_store_new decoder (NULL: that one again): for a
 * store whose owner decides what to keep from what it knows besides the object. Its objects are
 * released as before. It may also return KC_STORE_SKIP: the object is not held at all, not even
 * its key (one that was is deleted, listeners told); a later event for it is decoded again. */
extern char kc_store_skip[1];
#define KC_STORE_SKIP ((void *)kc_store_skip)
void kc_store_set_decoder(kc_store *s, void *(*decode)(void *arg, const cJSON *obj), void *arg);
unsigned long kc_store_dropped(const kc_store *s); /* upserts the guard dropped */

void *kc_store_get(kc_store *s, const char *ns, const char *name);
size_t kc_store_len(const kc_store *s);
/* Visits every object (order unspecified). */
void kc_store_foreach(kc_store *s, void (*fn)(void *arg, const char *key, void *obj), void *arg);

/* For the reflector: */
void kc_store_upsert(kc_store *s, const cJSON *obj);
void kc_store_remove(kc_store *s, const cJSON *obj);
/* After a (re-)list: marks every key, upserts the listed items, then deletes unlisted keys. */
void kc_store_replace_begin(kc_store *s);
void kc_store_replace_end(kc_store *s);
