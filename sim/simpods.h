/* simpods.h: the pods of the simulated Velero namespace: the server pod (labels of `velero
 * install` or of the Helm chart, a container restart with its reason), one node-agent pod per
 * node (missing or not ready when the scenario says so, each with its own log), and the
 * data-mover pods named after DataUploads/DataDownloads while those run. Also the default BSL's
 * phase when the scenario makes it Unavailable. */
#pragma once
#include "scenario.h"
#include "simstore.h"

typedef struct simpods simpods;

/* helm: 1 Helm chart labels, 0 velero install labels (the scenario's velero.layout or the
 * --layout option). server: the server pod's name. */
simpods *simpods_new(simstore *store, const char *ns, const char *server, const scn_cluster *cl,
                     int helm, double epoch);
void simpods_free(simpods *p);
/* Creates the server and node-agent pods (once, at simulated time now). */
void simpods_create(simpods *p, double now);
/* Applies what happens by now: the server's restart and readiness, the BSL's phase. */
void simpods_tick(simpods *p, double now);
/* A data-mover volume (DataUpload/DataDownload `name`, on node) is in phase: its hosting pod
 * exists (Pending while Accepted, Running from Prepared) until the phase is terminal. */
void simpods_mover(simpods *p, const char *kind_label, const char *name, const char *phase,
                   const char *node, double now);
/* A PodVolumeBackup/Restore `name` on node reached phase: a line in that node's node-agent log
 * (none when the node has no node-agent). */
void simpods_agent_log(simpods *p, const char *node, int restore, const char *name,
                       const char *phase, double now);
/* The node-agent pod's name on node (NULL when none); for its log. */
const char *simpods_agent(const simpods *p, const char *node);
