/* snapshot.h: --once output of the model: a plain table or one JSON object (sanitised, runs
 * newest first, rates as averages since startTimestamp). */
#pragma once
#include "app.h"

/* Both return malloc'd text ending in a newline. wall = unix seconds "now". */
char *snapshot_json(const model *m, const char *context, const char *server, const char *ns,
                    double wall);
char *snapshot_table(const model *m, double wall);
/* Several clusters' runs in one table whose first column is CONTEXT (each cluster's runs newest
 * first, clusters in the order given; a NULL model adds no row). */
char *snapshot_table_fleet(const model *const *ms, const char *const *contexts, size_t n,
                           double wall);
/* snapshot_health.c: snapshot_json's text plus "schedules", "storageLocations", "velero",
 * "nodeAgents" and per run "diagnosis" from a's stores (now: monotonic seconds). */
char *snapshot_health_json(app *a, const char *snapshot, double now, double wall);
