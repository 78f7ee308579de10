/* snapshot.h: --once output of the model: a plain table or one JSON object (sanitised, runs
 * newest first, rates as averages since startTimestamp). */
#pragma once
#include <cjson/cJSON.h>

#include "answer.h"
#include "app.h"

/* Both return malloc'd text ending in a newline: every run's figures are its answer (answer.h)
 * in context c (the model, the time, what is not visible). The table's cells of cluster text
 * (name, phase) are cut at SNAPSHOT_CELL_COLS columns, ending in an ellipsis, as the screen cuts
 * them (one 1 MiB phase must not pad every row to 1 MiB); *capped (may be NULL) says how many
 * were, for the caller to say so. JSON is never cut. */
#define SNAPSHOT_CELL_COLS 253 /* the longest valid Kubernetes name: none is ever cut */
char *snapshot_json(const ans_ctx *c, const char *context, const char *server, const char *ns);
char *snapshot_table(const ans_ctx *c, size_t *capped);
/* Several clusters' runs in one table whose first column is CONTEXT (each cluster's runs newest
 * first, clusters in the order given; a NULL context adds no row). */
char *snapshot_table_fleet(const ans_ctx *const *cs, const char *const *contexts, size_t n,
                           size_t *capped);
/* JSON members of --once's objects: k is the server's exact text (invalid UTF-8 as U+FFFD),
 * null for NULL; a time in RFC 3339, null when unknown or no date RFC 3339 can write. */
void snapshot_add_str(cJSON *o, const char *k, const char *v);
void snapshot_add_time(cJSON *o, const char *k, double t);
/* The lists not visible ("podvolumebackups forbidden, pods forbidden") into buf; NULL none. */
const char *snapshot_incomplete(const ans_ctx *c, char *buf, size_t n);
/* snapshot_health.c: snapshot_json's text plus "schedules", "storageLocations", "velero" and
 * "nodeAgents" from the health picture h. */
char *snapshot_health_json(const health *h, const char *snapshot);
/* snapshot_repo.c: snapshot's JSON text plus "repositories" and "repositoriesUnknown" from the
 * repository report rp (core/repo.h). */
struct repo_report;
char *snapshot_repo_json(const struct repo_report *rp, const char *snapshot);
