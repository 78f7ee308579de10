/* diagnose.h: "why is it stuck?": rules over what is watched that give a run which is not moving
 * a one-line reason with its evidence (design: issue 12). Pure: times are passed in. Codes:
 *   server-restarted      the Velero server restarted after the run started (Velero marks runs
 *                         InProgress Failed when it starts again), or the run was so marked
 *   queued                New/Queued behind another run of its kind in progress
 *   queue-dead            a waiting backup while nothing is in progress and the queue's head
 *                         has waited > 5 min (queue.h)
 *   ready-to-start-stuck  ReadyToStart > 5 min: the backup controller has not started it
 *   node-agent-not-ready  a pod volume New/Accepted > 1 min on a node without a ready node-agent
 *   exposer-stuck         a DataUpload/DataDownload Accepted/Prepared > 5 min
 *   bsl-unavailable       the run's storage location is Unavailable
 *   log-silent            InProgress and the server logged nothing for the run for 5 min
 *   all-done-phase-stuck  all items and volumes done > 2 min ago, the phase has not moved on
 *                         (not while another plugin's operations are known to be at work)
 *   plugin-operation-stalled  WaitingForPluginOperations and an operation's progress has not
 *                         moved for longer than the run's itemOperationTimeout (itemops.h) */
#pragma once
#include <stddef.h>

#include "app.h"
#include "health.h"

#define DIAG_MAX            8
#define DIAG_VOLUME_WAIT_S  60.0  /* pod volume New/Accepted without a node-agent */
#define DIAG_EXPOSER_WAIT_S 300.0 /* DataUpload/DataDownload Accepted/Prepared */
#define DIAG_LOG_SILENT_S   300.0 /* no log line for an InProgress run */
#define DIAG_DONE_WAIT_S    120.0 /* everything done, phase unchanged */

typedef struct diag {
    const char *code; /* one of the codes above (static string) */
    char message[384];
    double since; /* unix seconds the condition holds since; 0 unknown */
} diag;

/* Optional per-run log evidence (the live log of the Velero server): the time and text of the
 * newest line for the run; 0/NULL when unknown (then log-silent is not judged). */
typedef struct diag_log {
    double last_time;
    const char *last_line;
} diag_log;

typedef struct diag_ctx {
    const model *m;
    const health *h; /* may be NULL: rules about pods and locations are skipped */
    double now;      /* monotonic seconds (the model's trackers) */
    double wall;     /* unix seconds, our clock: judged on the cluster's (model_cluster_now) */
} diag_ctx;

/* Fills out with up to max findings for r, in the order of the list above; returns the count. */
size_t diag_run(const diag_ctx *c, const model_run *r, const diag_log *log, diag *out, size_t max);
