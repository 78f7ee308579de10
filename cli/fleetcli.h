/* fleetcli.h: veltop over several contexts: building the fleet from the chosen contexts, and
 * `--once [--json]` over it (one table with a CONTEXT column, or {"contexts": [...]}), with exit
 * statuses that tell apart "all read, nothing wrong", "something wrong" and "a context could
 * not be read". */
#pragma once
#include <stdio.h>

#include "ctxsel.h"
#include "fleet.h"

/* The exit statuses (FLEET_EXIT_*) are fleet.h's, judged by fleet_judge. */

/* One member per selected context, each with its own configuration (kubeconfig: --kubeconfig or
 * NULL) and client on loop. A context that cannot be loaded is a member with its error.
 * summary: members keep only the volumes their summaries read until shown (the full screen; --once
 * prints every volume). Only the contexts whose connections fit in the open-file limit, after
 * fd_serve descriptors kept for --serve's connections, are watched (kubeclient/fdbudget.h): the
 * others are counted in f->not_watched. */
fleet *fleetcli_build(kc_loop *loop, const ctxsel *sel, const char *kubeconfig, int summary,
                      unsigned fd_serve);

/* Waits (at most timeout_ms) until every member is settled, then prints the snapshot to out and
 * the per-context errors to err, each naming its context; returns the exit status. */
int fleetcli_once(fleet *f, int json, int64_t timeout_ms, FILE *out, FILE *err);

/* What the full screen needs to add a context the picker chose, and the --cacert text. */
typedef struct fleetcli_env {
    const char *kubeconfig;    /* --kubeconfig, NULL: as kubectl */
    int from_kubeconfig;       /* the picker offers the kubeconfig's contexts (not --demo) */
    const char *ns;            /* the default Velero namespace */
    const char *const *ns_for; /* --namespace-for values */
    size_t n_ns_for;
    const char *ca; /* --cacert's PEM text, NULL none */
    size_t ca_len;
} fleetcli_env;

/* Gives every member's app the --cacert text (a copy each). */
void fleetcli_set_cacert(fleet *f, const char *ca, size_t len);
/* The full screen over the fleet: the fleet screen first when it has several members, else the
 * one cluster's list as before; returns the exit status (2 when no member can be used). */
int fleetcli_tui(fleet *f, const fleetcli_env *env);
