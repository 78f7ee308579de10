/* logderive.h: keeps log-derived per-resource progress in the model for runs without
 * status.resourceProgress (stock Velero): follows the Velero server pod's log for runs in
 * progress (logprogress.h), and fetches the BackupResourceList / RestoreResourceList of finished
 * runs on demand (cached). */
#pragma once
#include "app.h"

typedef struct logderive logderive;

/* Stored logs are available once the run has written them (Velero uploads the log at the end of
 * the item pass): Completed, PartiallyFailed, Failed, WaitingForPluginOperations*, Finalizing*.
 * Before that its log is the live log of the Velero server pod. */
int logderive_log_stored(const vl_run *r);

/* Watches a's backup and restore stores; updates a->model and calls a->on_change. */
logderive *logderive_new(app *a);
void logderive_free(logderive *d); /* NULL is a no-op */

/* A screen shows run r (e.g. its detail screen opened): for a finished run without
 * resourceProgress, fetch its resource list once (cached) and set it as the run's derived
 * per-resource totals. Cheap to call on every draw. d may be NULL. */
void logderive_want(logderive *d, model_run *r);

/* While the resource list of finished run r is on its way (queued, downloading, being read): what
 * is being done, in buf ("loading the BackupResourceList: waiting for the download URL"); NULL
 * when it is not (never wanted, in, or failed: logderive_note). d may be NULL. */
const char *logderive_loading(const logderive *d, const model_run *r, char *buf, size_t n);

/* Where the derived rows run r shows came from, for the detail screen's label:
 * "from the BackupResourceList artifact" / "from the RestoreResourceList artifact" (a finished
 * run; ", cut at 4096 resource types: N more left out" past KC_CAP_RESOURCE_ROWS) or "derived from
 * the Velero server log" (a run in progress, or a finished one whose list is not in yet); NULL when
 * r shows status.resourceProgress or has no derived rows. d may be NULL. */
const char *logderive_source(const logderive *d, const model_run *r);

/* The newest line of run r in the live log being followed (its time= in unix seconds and its
 * msg=), for the log-silent rule of diagnose.h; 0 when r is not followed, no line of it was seen
 * or the stream is not live. The line is valid until the loop runs again. d may be NULL. */
int logderive_last_line(const logderive *d, const model_run *r, double *when, const char **line);

/* What to show instead of per-resource rows of run r, or NULL: a run in progress whose items move
 * (status.progress) while the Velero server's log, read fine, has no per-item line of it: the
 * server runs above --log-level info, so the log cannot tell per-resource progress; a finished
 * run whose resource list failed to download: the download's message ("downloading
 * BackupResourceList: TLS verification of the object store ... failed: ...") (NULL while the list
 * was never wanted or is still coming). d may be NULL. */
const char *logderive_note(const logderive *d, const model_run *r);
#define LOGDERIVE_SILENT_NOTE                                                                      \
    "the Velero server logs no per-item lines (--log-level above info): no per-resource progress"

/* Runs --once derives rows for, per source. */
#define LOGDERIVE_ONCE_MAX 10

/* --once's note on a finished run whose resource list a snapshot does not fetch. */
#define LOGDERIVE_NOT_FETCHED_NOTE                                                                 \
    "not fetched: a snapshot only reads the cluster; --details fetches the per-resource rows of "  \
    "finished runs (a DownloadRequest each)"

/* A resource list --once wanted and did not get: the run and why (a download's message). */
typedef void (*logderive_fail_fn)(void *arg, const model_run *r, const char *why);

/* For --once: fills derived per-resource progress of runs without resourceProgress, bounded so a
 * cluster with thousands of finished runs costs no more than a few requests: the newest
 * LOGDERIVE_ONCE_MAX runs in progress (by start time) from one read of the Velero pod's log so far,
 * and with details (--details: DownloadRequests, writes to the cluster) the newest
 * LOGDERIVE_ONCE_MAX finished runs from their resource-list artifacts, at most 4 downloads at
 * once; everything stops after timeout_ms (rows not in by then stay empty). Every run without
 * rows gets a res_note saying why (model_run_set_note); failed (may be NULL) hears of each list
 * that failed or did not come in time. Runs a's loop. Returns the number of runs filled. */
int logderive_once(app *a, int64_t timeout_ms, int details, logderive_fail_fn failed, void *arg);

/* logderive_once in three steps, for several clusters on one loop under one deadline (--once
 * over a fleet: every context's log read in flight together): _start picks the runs and starts
 * the reads, every fetch ending by deadline (kc_now_ms()); _done says whether everything started
 * has ended (the loop runs until it is, or the deadline); _finish sets the rows and notes as
 * logderive_once does, frees d and returns the number of runs filled. A run whose log was not
 * read whole (the read failed, or the deadline came first) gets no "no line of this run" note but
 * why its rows are unknown. */
logderive *logderive_once_start(app *a, int64_t deadline, int details);
int logderive_once_done(const logderive *d);
int logderive_once_finish(logderive *d, logderive_fail_fn failed, void *arg);
