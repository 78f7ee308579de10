/* ctxsel.h: which contexts to watch and each one's Velero namespace, from --context (names, comma
 * lists, fnmatch patterns), --all-contexts, -n / $VELERO_NAMESPACE and --namespace-for CTX=NS,
 * against the merged kubeconfig's context names. Pure: no files, no printing. */
#pragma once
#include <stddef.h>

typedef struct ctxsel_item {
    char *context; /* as named in the kubeconfig (raw: sanitise before display) */
    char *ns;      /* its Velero namespace */
    int missing;   /* named explicitly but not in the kubeconfig (a per-context error) */
} ctxsel_item;

typedef struct ctxsel {
    ctxsel_item *v; /* in kubeconfig order for patterns and --all-contexts, else as given */
    size_t n;
} ctxsel;

typedef struct ctxsel_opts {
    const char *const *specs; /* the --context values, in order */
    size_t n_specs;
    int all;                   /* --all-contexts */
    const char *const *ns_for; /* the --namespace-for values ("CONTEXT=NS") */
    size_t n_ns_for;
    const char *ns; /* the namespace of every other context (-n, else $VELERO_NAMESPACE, else
                       velero: the caller's choice) */
} ctxsel_opts;

/* One --context value: a name that exists in the kubeconfig exactly as written (commas and all)
 * is that context; else it is a comma-separated list whose parts are names or patterns (parts
 * that together name a context are taken together, the longest first; a part
 * with *, ? or [ matches the kubeconfig's names with fnmatch, and must match one). A name that is
 * not in the kubeconfig is kept, marked missing. Duplicates are dropped.
 * Returns 0, or -1 with err (a usage error: a pattern matching nothing, an empty part, a bad
 * --namespace-for). names: the kubeconfig's contexts in file order. */
int ctxsel_resolve(const ctxsel_opts *o, char *const *names, size_t n_names, ctxsel *out, char *err,
                   size_t errlen);
void ctxsel_clear(ctxsel *s);
/* Splits "CONTEXT=NS" at its last '=' (context names may hold '=' but namespaces may not);
 * returns 0 and points ctx (malloc'd) and ns into it, -1 when either side is empty. */
int ctxsel_split_ns_for(const char *arg, char **ctx, const char **ns);
