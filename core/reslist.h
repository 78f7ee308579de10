/* reslist.h: a resource-list artifact (BackupResourceList / RestoreResourceList JSON,
 * `{"apps/v1/Deployment": ["ns/name", ...], "v1/Pod": [...]}`) scanned as its bytes come, in
 * slices of any size, into counts per key: the work is linear in the bytes, memory is bounded by
 * the key cap (KC_CAP_RESOURCE_ROWS, caps.h), and rows are made from the counts in O(n log n), as
 * often as discovery names more kinds, without reading the JSON again. */
#pragma once
#include <stddef.h>

#include "kubeclient/util.h"
#include "logprogress.h"

typedef struct reslist reslist;

/* f (may be NULL, borrowed until the last reslist_feed): a restore's filter, whose namespace
 * decisions are taken per entry while scanning; reslist_rows must then get the same f. */
reslist *reslist_new(const lprog_filter *f);
void reslist_free(reslist *l); /* NULL is a no-op */
/* Scans n more bytes. Returns 0, or -1 once the text is not a resource list (err says what was
 * wrong and where; every later call fails the same). */
int reslist_feed(reslist *l, const char *data, size_t n, kc_err *err);
/* After the last byte: 0 when the text was one whole resource list, else -1 with err. */
int reslist_finish(reslist *l, kc_err *err);
size_t reslist_keys(const reslist *l);    /* keys counted (at most KC_CAP_RESOURCE_ROWS) */
size_t reslist_dropped(const reslist *l); /* keys past the cap, left out */
size_t reslist_offset(const reslist *l);  /* bytes scanned so far */

/* The rows of a finished scan, as lprog_rows_from_list makes them (see there) from the counts. */
void reslist_rows(const reslist *l, const lprog_filter *f, lprog_resolve_fn resolve, void *arg,
                  vl_res_progress **out, size_t *n, unsigned char **row_est);
