/* snapshot.h: --once output of the model: a plain table or one JSON object (sanitised, runs
 * newest first, rates as averages since startTimestamp). */
#pragma once
#include "app.h"

/* Both return malloc'd text ending in a newline. wall = unix seconds "now". */
char *snapshot_json(const model *m, const char *context, const char *server, const char *ns,
                    double wall);
/* The table's cells of cluster text (name, phase) are cut at SNAPSHOT_CELL_COLS columns, ending
 * in an ellipsis, as the screen cuts them (one 1 MiB phase must not pad every row to 1 MiB);
 * *capped (may be NULL) says how many were, for the caller to say so. JSON is never cut. */
#define SNAPSHOT_CELL_COLS 253 /* the longest valid Kubernetes name: none is ever cut */
char *snapshot_table(const model *m, double wall, size_t *capped);
/* snapshot_health.c: snapshot_json's text plus "schedules", "storageLocations", "velero",
 * "nodeAgents" and per run "diagnosis" from a's stores (now: monotonic seconds). */
char *snapshot_health_json(app *a, const char *snapshot, double now, double wall);
