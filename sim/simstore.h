/* simstore.h: the sim's object storage shared by the API server and the simulated controller:
 * JSON objects per resource, one global resourceVersion counter, an event history for watches,
 * and the Velero server pod's log. Thread-safe: every call takes the store's lock. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "managedfields.h"

typedef struct simstore simstore;

typedef struct sim_resource {
    const char *group;   /* "" for core */
    const char *version; /* "v1", "v2alpha1" */
    const char *plural;  /* "backups" */
    const char *singular;
    const char *kind; /* "Backup" */
    int namespaced;
} sim_resource;

/* The resources the sim serves (backups, restores, podvolumebackups, podvolumerestores,
 * downloadrequests, schedules, backupstoragelocations, datauploads, datadownloads, pods). */
const sim_resource *sim_resources(size_t *n);
const sim_resource *sim_resource_find(const char *group, const char *version, const char *plural);
const sim_resource *sim_resource_by_plural(const char *plural);

simstore *simstore_new(size_t history_events); /* events kept for watch resume */
/* The cluster's clock minus the real one (s): creationTimestamps are stamped off by it. */
void simstore_set_clock_skew(simstore *s, double skew);
void simstore_free(simstore *s);
uint64_t simstore_rv(simstore *s); /* current resourceVersion */

/* Creating, reading and changing objects. Returned objects are deep copies the caller frees.
 * Errors: *status gets the HTTP status and *msg a malloc'd Kubernetes-style message. */
cJSON *simstore_create(simstore *s, const char *plural, const char *ns, cJSON *obj /* taken */,
                       int *status, char **msg);
cJSON *simstore_get(simstore *s, const char *plural, const char *ns, const char *name);
cJSON *simstore_update(simstore *s, const char *plural, const char *ns, const char *name,
                       cJSON *obj /* taken */, int *status, char **msg);
cJSON *simstore_merge_patch(simstore *s, const char *plural, const char *ns, const char *name,
                            const cJSON *patch, int *status, char **msg);
cJSON *simstore_delete(simstore *s, const char *plural, const char *ns, const char *name,
                       int *status, char **msg); /* returns the deleted object */

/* For the controller: change an object in place under the lock; the store bumps
 * resourceVersion and records MODIFIED when fn returns nonzero. Returns 0 if the object is gone. */
typedef int (*simstore_mutate_fn)(cJSON *obj, void *arg);
int simstore_mutate(simstore *s, const char *plural, const char *ns, const char *name,
                    simstore_mutate_fn fn, void *arg);

/* Listing: a deep-copied array of matching objects (selectors already applied), and the RV. */
cJSON *simstore_list(simstore *s, const char *plural, const char *ns /* NULL = all */,
                     const char *label_selector, const char *field_selector, uint64_t *rv,
                     int *status, char **msg);

/* Watching: events after since_rv. simstore_watch_next waits up to timeout_ms for the next
 * matching event; returns NULL on timeout. *type is ADDED/MODIFIED/DELETED. *gone is set when
 * since_rv is older than the history kept (the caller sends 410). */
typedef struct simstore_watch simstore_watch;
simstore_watch *simstore_watch_open(simstore *s, const char *plural, const char *ns,
                                    const char *label_selector, const char *field_selector,
                                    uint64_t since_rv, int *gone);
cJSON *simstore_watch_next(simstore_watch *w, int timeout_ms, const char **type, uint64_t *rv);
void simstore_watch_close(simstore_watch *w);
/* Forces every older resourceVersion to be expired (fault injection). */
void simstore_expire_history(simstore *s);

/* Label selector matching (=, ==, !=, in, notin, key, !key). Returns -1 on a syntax error. */
int sim_label_selector_match(const char *selector, const cJSON *labels, char **err);

/* The Velero server pod's log: lines appended by the controller, read by the /log handler. */
void simstore_log_append(simstore *s, const char *pod, double when, const char *line);
/* Copies lines with index >= *pos (waiting up to timeout_ms for one); advances *pos. Returns a
 * malloc'd array of malloc'd strings and their count, or NULL/0 on timeout. */
char **simstore_log_read(simstore *s, const char *pod, size_t *pos, int timeout_ms, size_t *n,
                         double **times);

/* ---- additions (h4) ---- */

/* Name of the simulated Velero server pod in the velero namespace (its log is kept under it).
 * vsim_start creates the Pod object itself before simctl_start; the controller need not. */
const char *sim_velero_pod_name(void);

/* Field selector matching (metadata.name, metadata.namespace; =, ==, !=). -1 with *err
 * ("field label not supported: X") on anything else. */
int sim_field_selector_match(const char *selector, const cJSON *obj, char **err);

/* Update and merge-patch with status_only set write only .status (the /status subresource);
 * without it the whole object is written (Velero's CRDs have no status subresource). */
cJSON *simstore_update_ex(simstore *s, const char *plural, const char *ns, const char *name,
                          cJSON *obj /* taken */, int status_only, int *status, char **msg);
cJSON *simstore_merge_patch_ex(simstore *s, const char *plural, const char *ns, const char *name,
                               const cJSON *patch, int status_only, int *status, char **msg);

/* One page of a list in key order (namespace, name): at most limit objects (0 = all) after
 * (after_ns, after_name) when given. next_ns and next_name (malloc'd) get the last key returned
 * when more remain, else NULL; remaining counts the matching objects after this page. */
cJSON *simstore_list_page(simstore *s, const char *plural, const char *ns,
                          const char *label_selector, const char *field_selector, size_t limit,
                          const char *after_ns, const char *after_name, uint64_t *rv,
                          char **next_ns, char **next_name, long *remaining, int *status,
                          char **msg);

/* The oldest resourceVersion a watch may resume from (older ones are gone). */
uint64_t simstore_floor(simstore *s);
/* The last resourceVersion a watch has looked at (for bookmarks). */
uint64_t simstore_watch_pos(simstore_watch *w);
/* Wakes every waiting watch_next/log_read (they re-check and go back to waiting). */
void simstore_wake(simstore *s);
/* Number of lines in a pod's log. */
size_t simstore_log_count(simstore *s, const char *pod);

/* ---- additions (a6) ---- */

/* simstore_list_page's page as one cJSON Raw item holding the JSON array text: each object's
 * serialization is kept with it (made once per version), so a page is a concatenation, not a deep
 * copy printed again. For the API server's list responses; same arguments and results. */
cJSON *simstore_list_page_raw(simstore *s, const char *plural, const char *ns,
                              const char *label_selector, const char *field_selector, size_t limit,
                              const char *after_ns, const char *after_name, uint64_t *rv,
                              char **next_ns, char **next_name, long *remaining, int *status,
                              char **msg);

/* simstore_list_page's page as references to each object's serialization, taken under the
 * store's lock and read after it (simstore_texts_read): what the API server streams as a list's
 * items while the store goes on changing. Same arguments and results; NULL on an error. */
typedef struct simstore_texts simstore_texts;
simstore_texts *simstore_list_page_texts(simstore *s, const char *plural, const char *ns,
                                         const char *label_selector, const char *field_selector,
                                         size_t limit, const char *after_ns, const char *after_name,
                                         uint64_t *rv, char **next_ns, char **next_name,
                                         long *remaining, int *status, char **msg);
/* The length of the page's text, the JSON array "[...]" of the objects. */
size_t simstore_texts_len(const simstore_texts *t);
/* The next bytes of that text into buf, at most max; 0 once it has all been read. */
size_t simstore_texts_read(simstore_texts *t, char *buf, size_t max);
void simstore_texts_free(simstore_texts *t);

/* ---- additions (mf): writes that stamp metadata.managedFields as kube-apiserver does ----
 * The same as the calls above, written by w (managedfields.h: manager, operation, subresource,
 * time on the cluster's clock). The calls above without _as keep the object's managedFields as
 * they are (objects created so carry none). */
cJSON *simstore_create_as(simstore *s, const char *plural, const char *ns, cJSON *obj /* taken */,
                          const sim_mf_writer *w, int *status, char **msg);
cJSON *simstore_update_as(simstore *s, const char *plural, const char *ns, const char *name,
                          cJSON *obj /* taken */, int status_only, const sim_mf_writer *w,
                          int *status, char **msg);
cJSON *simstore_merge_patch_as(simstore *s, const char *plural, const char *ns, const char *name,
                               const cJSON *patch, int status_only, const sim_mf_writer *w,
                               int *status, char **msg);
int simstore_mutate_as(simstore *s, const char *plural, const char *ns, const char *name,
                       const sim_mf_writer *w, simstore_mutate_fn fn, void *arg);
