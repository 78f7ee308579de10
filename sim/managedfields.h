/* managedfields.h: metadata.managedFields as kube-apiserver stamps them on every write
 * (apimachinery pkg/util/managedfields/internal: managedfieldsupdater.go, buildmanagerinfo.go,
 * stripmeta.go, managedfields.go; structured-merge-diff merge/update.go). doc/managedfields.md
 * says what is verified and what the sim simplifies. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

/* Who writes: the manager (the request's ?fieldManager=, else its User-Agent up to the first '/';
 * "" becomes "unknown"), the operation ("Update"; "Apply" for server-side apply), the
 * subresource (NULL or "" for the main resource, "status"), at time (unix seconds, the cluster's
 * clock). */
typedef struct sim_mf_writer {
    const char *manager;
    const char *operation;
    const char *subresource;
    double time;
} sim_mf_writer;

/* Stamps next's metadata.managedFields for a write of next over prev (NULL on create) by w, as
 * kube-apiserver does: the fields the write added or changed (leaf paths; lists are atomic, as in
 * Velero's CRD schemas) become w's, and are taken from every other manager; removed fields leave
 * every manager; a manager left with no fields loses its entry; w's entry (one per manager,
 * operation, apiVersion for Update, subresource) gets time only when the write changed a field
 * it would own (a no-op write moves no time). The entries are sorted as the apiserver sorts them.
 * prev's managedFields are the starting point; next's own are replaced; an update of an object
 * that has none leaves it without (skipnonapplied.go: untracked objects stay so until an
 * Apply). The object's identity
 * (apiVersion, kind, metadata name, namespace, uid, resourceVersion, generation,
 * creationTimestamp, selfLink, managedFields) is owned by nobody. */
void sim_mf_stamp(cJSON *next, const cJSON *prev, const sim_mf_writer *w);

/* The manager kube-apiserver records for a request: fieldManager when given, else the User-Agent
 * up to its first '/', without unprintable characters, cut at 128 bytes (create.go
 * managerOrUserAgent / prefixFromUserAgent). Writes into buf (size n >= 129). */
const char *sim_mf_manager(const char *field_manager, const char *user_agent, char *buf, size_t n);

/* The newest time (unix seconds) of obj's managedFields entries whose fieldsV1 holds f:status,
 * and that entry's manager; 0 and NULL when none (for tests and the sim's own checks). */
double sim_mf_status_time(const cJSON *obj, const char **manager);

/* Stamps obj (not yet stored) as written first by creator at t_create (all but .status: a create
 * as Velero's clients send it) and then, when it has a status, by status_mgr at t_status (the
 * status as that manager's writes left it); with t_status <= t_create, the status is the
 * creator's too (nobody has changed it since the create). For objects whose history precedes
 * the sim's start. */
void sim_mf_stamp_created(cJSON *obj, const char *creator, double t_create, const char *status_mgr,
                          double t_status);
