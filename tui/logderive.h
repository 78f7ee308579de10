/* logderive.h: keeps log-derived per-resource progress in the model for runs without
 * status.resourceProgress (stock Velero): follows the Velero server pod's log for runs in
 * progress (logprogress.h), and fetches the BackupResourceList / RestoreResourceList of finished
 * runs on demand (cached). */
#pragma once
#include "app.h"

typedef struct logderive logderive;

/* Watches a's backup and restore stores; updates a->model and calls a->on_change. */
logderive *logderive_new(app *a);
void logderive_free(logderive *d); /* NULL is a no-op */

/* A screen shows run r (e.g. its detail screen opened): for a finished run without
 * resourceProgress, fetch its resource list once (cached) and set it as the run's derived
 * per-resource totals. Cheap to call on every draw. d may be NULL. */
void logderive_want(logderive *d, model_run *r);

/* For --once: fills derived per-resource progress for every run without resourceProgress
 * (finished runs from their resource list, runs in progress from the Velero pod's log so far),
 * running a's loop until done or timeout_ms. Returns the number of runs filled. */
int logderive_once(app *a, int64_t timeout_ms);
