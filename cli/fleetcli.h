/* fleetcli.h: veltop over several contexts: building the fleet from the chosen contexts, and
 * `--once [--json]` over it (one table with a CONTEXT column, or {"contexts": [...]}), with exit
 * statuses that tell apart "all read, nothing wrong", "something wrong" and "a context could
 * not be read". */
#pragma once
#include <stdio.h>

#include "ctxsel.h"
#include "fleet.h"

/* Exit statuses of --once over several contexts (besides 0 ok and 2 usage); 1, 3 and 4 keep
 * their single-cluster meaning. WRONG | UNREAD = both. */
#define FLEET_EXIT_WRONG  5 /* every context read; a run failed, stalled, a schedule overdue ... */
#define FLEET_EXIT_UNREAD 6 /* a context could not be read (unreachable, unauthorised, missing) */
#define FLEET_EXIT_BOTH   7 /* both of the above */

/* One member per selected context, each with its own configuration (kubeconfig: --kubeconfig or
 * NULL) and client on loop. A context that cannot be loaded is a member with its error. */
fleet *fleetcli_build(kc_loop *loop, const ctxsel *sel, const char *kubeconfig);
/* Waits (at most timeout_ms) until every member is settled, then prints the snapshot to out and
 * the per-context errors to err, each naming its context; returns the exit status. */
int fleetcli_once(fleet *f, int json, int64_t timeout_ms, FILE *out, FILE *err);
