/* simkinds.h: the Kubernetes resources (besides velero.io's) the simulated cluster has, as its
 * discovery names them: the built-in API groups and the CRDs the scenarios' runs back up
 * (cert-manager, Prometheus operator). One table for the plans' names (simplan.c: resource-list
 * keys, GroupKinds) and for discovery (server_discovery.c): /api/v1 and /apis/<group>/<version>
 * list them with their real plural, singular, Kind, scope and short names, so a client resolves a
 * Kind to its plural as against a real API server (kubectl api-resources, veltop's restore rows).
 * The sim stores no objects of them (but pods and namespaces, simstore.c): only discovery names
 * them. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct sim_kind {
    const char *group;   /* "" for core */
    const char *version; /* "v1" */
    const char *plural;  /* "deployments" */
    const char *singular;
    const char *kind; /* "Deployment" */
    int namespaced;
    const char *short_name; /* NULL: none */
} sim_kind;

const sim_kind *sim_kinds(size_t *n);
/* By group-qualified resource name as Velero logs it ("deployments.apps", core "pods"). */
const sim_kind *sim_kind_by_gr(const char *gr);

/* Discovery. Appends to an APIGroupList's "groups" every group of the table (velero.io is the
 * caller's). */
void sim_kinds_add_groups(cJSON *groups);
/* The APIGroup document of a group of the table ("apps"), NULL when it has none. */
cJSON *sim_kinds_group(const char *group);
/* Appends the table's resources of group/version to an APIResourceList's "resources" array, but
 * those already in it (the ones the sim serves); returns how many the table has of that
 * group/version (0: discovery has no such group/version). */
size_t sim_kinds_add_resources(cJSON *arr, const char *group, const char *version);
