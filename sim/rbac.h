/* rbac.h: veltop-sim's --rbac: the rules of a Role or ClusterRole (YAML) and kube-apiserver's
 * authorisation of a request against them (RequestInfo, then the RBAC rule match), so that a
 * client can be run with exactly the permissions a manifest grants. */
#pragma once
#include <stddef.h>

typedef struct sim_rbac sim_rbac;

/* A request's authorisation attributes, as kube-apiserver's RequestInfoFactory derives them
 * from the method, the path and the query (k8s.io/apiserver/pkg/endpoints/request). */
typedef struct sim_rbac_req {
    int resource_request; /* 0: a non-resource URL (/api, /apis/G/V, /version, ...) */
    char verb[24];        /* get list watch create update patch delete deletecollection */
    char group[128];      /* "" for the core group */
    char version[32];
    char ns[256];       /* "" for a cluster-scoped request */
    char resource[128]; /* plural */
    char sub[64];       /* subresource ("log", "status"), or "" */
    char name[256];     /* "" when none (lists, or a fieldSelector not naming one object) */
} sim_rbac_req;

/* The Roles and ClusterRoles of a YAML file (one or several documents; other kinds, such as the
 * RoleBinding beside them, are skipped). Every rule applies to every request, as if bound to its
 * user: a Role's in its metadata.namespace only (any namespace when it names none), a
 * ClusterRole's everywhere. NULL with err filled when the file cannot be read, is not YAML, or
 * holds no Role or ClusterRole. */
sim_rbac *sim_rbac_load(const char *path, char *err, size_t errn);
sim_rbac *sim_rbac_parse(const char *text, size_t len, char *err, size_t errn);
void sim_rbac_free(sim_rbac *r); /* NULL is a no-op */
size_t sim_rbac_nrules(const sim_rbac *r);

/* Fills out from a request: method, path (no query), whether the query says watch, and its
 * fieldSelector (NULL when none). */
void sim_rbac_request_info(const char *method, const char *path, int watch,
                           const char *field_selector, sim_rbac_req *out);

/* 1 when a rule allows the request. Non-resource requests are always allowed: the sim serves
 * only discovery among them (/api, /apis, /version), which system:discovery grants every
 * authenticated user. */
int sim_rbac_allows(const sim_rbac *r, const sim_rbac_req *q);

/* kube-apiserver's message for a denied request (malloc'd), e.g.
 * `pods is forbidden: User "system:serviceaccount:velero:veltop" cannot list resource "pods" in
 * API group "" in the namespace "velero"`. */
char *sim_rbac_forbidden_message(const sim_rbac_req *q, const char *user);
