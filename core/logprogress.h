/* logprogress.h: per-resource progress of a run without status.resourceProgress (stock Velero),
 * derived from the Velero server's log, and per-resource totals of a finished run from its
 * BackupResourceList / RestoreResourceList artifact. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

#include "kubeclient/util.h"
#include "kubeclient/velero.h"
#include "logparse.h"

typedef struct lprog lprog;

/* run_ref is "<velero ns>/<run name>"; only lines with backup=<run_ref> (restores:
 * restore=<run_ref>) count. */
lprog *lprog_new(int is_restore, const char *run_ref);
void lprog_free(lprog *p);
void lprog_reset(lprog *p); /* forget everything (the log is being read again from the start) */

/* Feeds one log line. Returns 1 when the per-resource progress changed. The lines are Velero
 * v1.18.1's (velero-api.md, "v1.18.1, line by line"), text or JSON.
 * Backups: a row per group-resource (`deployments.apps`, core `pods`). Totals: the sum of
 * "Retrieved N items" over namespaces (resource= bare plural, group= its GroupVersion), less the
 * items an "Excluding item because ..." line drops; namespaces have no Retrieved line: their total
 * is "Collected N items" less every Retrieved count, counted as they are queued before that line.
 * Done: "Backing up item" lines (plugin-added items included: a row they take past its total
 * grows, as an estimate). "Processing item" (queued into an ItemBlock) only marks the row active.
 * A bare name is matched to the group-qualified one by the part before the first dot.
 * Restores: done from "Restored N items out of an estimated total of M" lines (resource=); totals
 * from lprog_set_totals. Velero logs no such line for namespaces: that row is done once a resource
 * after them (anything but CRDs, which come first) is restored. */
int lprog_feed(lprog *p, const lp_line *l);
int lprog_feed_raw(lprog *p, const char *line, size_t len);
/* Sets (replaces) per-resource totals from elsewhere (a restore's backup resource list, narrowed
 * by its filters); estimate (per row, may be NULL): that row's total is not exact. */
void lprog_set_totals(lprog *p, const vl_res_progress *r, size_t n, const unsigned char *estimate);

/* Row flags. */
#define LPROG_ACTIVE   1u /* items of it are being worked on */
#define LPROG_ESTIMATE 2u /* its total is an estimate ("of ~N") */
/* No total: nothing in the log gave one (no "Retrieved N items", no resource list), or the count
 * passed it (plugin-added items) so that it would only follow the count ("25 of ~25"). total is
 * then 0: "25 of ?". */
#define LPROG_NO_TOTAL 4u

/* The current per-resource progress, in first-seen order; total is never below processed; a
 * restore's rows with nothing to restore are left out. Names are group-qualified: from the log
 * where it told, else from a table of well-known Kubernetes resources, else bare. flags (may be
 * NULL) gets LPROG_* per row. Valid until the next call on p. */
size_t lprog_resources(lprog *p, const vl_res_progress **out, const unsigned char **flags);
unsigned long lprog_lines(const lprog *p);      /* lines of this run seen so far */
unsigned long lprog_item_lines(const lprog *p); /* of them, per-item lines (info level) */
/* 1 when the run's items moved (items_done, from its status) but no per-item line of it was seen:
 * the server logs above --log-level info, and the log can tell nothing per resource. */
int lprog_silent(const lprog *p, int64_t items_done);

/* Resource-list artifact JSON (`{"apps/v1/Deployment": ["ns/name", ...], "v1/Pod": [...]}`) to
 * per-resource counts (processed = total = number of entries), sorted by resource name. Returns 0,
 * or -1 with err on malformed JSON. Free with lprog_res_free. */
int lprog_from_resource_list(const char *json, size_t len, vl_res_progress **out, size_t *n,
                             kc_err *err);
void lprog_res_free(vl_res_progress *r, size_t n);

/* What a restore restores of its backup (its spec; velero-api.md section 2). */
typedef struct lprog_filter {
    char **inc_ns, **exc_ns, **inc_res, **exc_res;
    size_t n_inc_ns, n_exc_ns, n_inc_res, n_exc_res;
    int include_cluster; /* includeClusterResources: -1 unset, 0 false, 1 true */
    int selector;        /* a labelSelector or orLabelSelectors */
} lprog_filter;
void lprog_filter_from_restore(lprog_filter *f, const cJSON *restore); /* a Restore object */
void lprog_filter_free(lprog_filter *f);

/* The plural the API server gives kind in group_version ("apps/v1", "v1"), NULL when unknown. */
typedef const char *(*lprog_resolve_fn)(void *arg, const char *group_version, const char *kind);

/* Resource-list JSON to rows, named by resolve (NULL, or when it does not know a kind: Kubernetes'
 * guess, lprog_key_to_resource). f NULL: every entry counts, processed = total (a finished run).
 * Else the totals of a restore of that backup: the entries f keeps, as Velero's restore selects
 * them (restore.go getOrderedResourceCollection: resource includes/excludes and the resources it
 * never restores, namespace includes/excludes with wildcards, cluster-scoped entries by
 * includeClusterResources); namespace mapping changes where items go, not how many. processed 0.
 * *row_est (may be NULL) gets a malloc'd flag per row: its total cannot be exact (its kind was
 * not resolved; or f has a label selector, or a resource name that names no row, maybe a short
 * name). Sorted by name. Returns 0, or -1 with err on malformed JSON. Free with lprog_res_free
 * (and free(*row_est)). */
int lprog_rows_from_list(const char *json, size_t len, const lprog_filter *f,
                         lprog_resolve_fn resolve, void *arg, vl_res_progress **out, size_t *n,
                         unsigned char **row_est, kc_err *err);

/* "<group/version>/<Kind>" to the resource name: kind lower-cased and pluralised as Kubernetes
 * guesses it (UnsafeGuessKindToResource: "...s" -> "...ses", "...y" -> "...ies", else + "s";
 * plus the irregular "endpoints"), then ".<group>" unless the core group: "apps/v1/Deployment" ->
 * "deployments.apps", "v1/Pod" -> "pods", "networking.k8s.io/v1/Ingress" ->
 * "ingresses.networking.k8s.io". malloc'd. */
char *lprog_key_to_resource(const char *key);
