/* listsplit.h: a Kubernetes List answer split into its items as its bytes arrive, so that a list
 * of any size is decoded with one item in memory, not the whole body (kube-apiserver answers a
 * list at resourceVersion=0 from its watch cache in one piece whatever the limit). The other
 * top-level members (kind, apiVersion, metadata with continue and resourceVersion) are kept, with
 * the items array emptied, for after the last byte. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct kc_listsplit kc_listsplit;
/* Gets each item, in order: its tree (jsonarena.h: read-only, valid during the call) and its JSON
 * text (not NUL-terminated). Nonzero stops: the list is bad. */
typedef int (*kc_listsplit_item_fn)(void *arg, const cJSON *item, const char *text, size_t n);

/* max_item: an item longer than this makes the list bad (0 = 16 MiB). */
kc_listsplit *kc_listsplit_new(size_t max_item, kc_listsplit_item_fn fn, void *arg);
void kc_listsplit_free(kc_listsplit *s); /* NULL is a no-op */
/* Items are parsed lean from now on (kc_json_parse_lean: fieldsV1 skimmed), for decoders. */
void kc_listsplit_set_lean(kc_listsplit *s, int lean);
/* Returns 0, or -1 once the text is not a list: not a JSON object, "items" not an array of
 * objects, an item over max_item, the item callback said stop, or bytes after the end. */
int kc_listsplit_feed(kc_listsplit *s, const char *data, size_t n);
/* After the last byte: the top-level object with "items":[] (NUL-terminated, valid until free),
 * or NULL when the text was not a whole list. *len is its length. */
const char *kc_listsplit_head(kc_listsplit *s, size_t *len);
size_t kc_listsplit_items(const kc_listsplit *s); /* items handed out so far */
