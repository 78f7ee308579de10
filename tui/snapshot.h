/* snapshot.h: --once output of the model: a plain table or one JSON object (sanitised, runs
 * newest first, rates as averages since startTimestamp). */
#pragma once
#include "app.h"

/* Both return malloc'd text ending in a newline. wall = unix seconds "now". */
char *snapshot_json(const model *m, const char *context, const char *server, const char *ns,
                    double wall);
char *snapshot_table(const model *m, double wall);
