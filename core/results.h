/* results.h: a run's BackupResults / RestoreResults artifact (`{"errors": R, "warnings": R}`, R =
 * `{"velero": [...], "cluster": [...], "namespaces": {"ns": [...]}}`) as the lines the results
 * screen shows: errors and warnings grouped under Velero, Cluster and each namespace. */
#pragma once
#include <stddef.h>

#include "kubeclient/util.h"

typedef enum { RS_NORMAL, RS_ERROR, RS_WARNING, RS_DIM } rs_role;

typedef struct rs_line {
    char *text; /* raw (sanitise before display) */
    int indent;
    rs_role role;
    int bold;
} rs_line;

typedef struct rs_doc {
    rs_line *lines;
    size_t n, cap;
    int nerr, nwarn; /* messages */
} rs_doc;

/* Parses json into d (zeroed by the caller). Returns 0, or -1 with err when it is not a JSON
 * object (d then holds nothing). Free with rs_doc_free. */
int rs_parse(rs_doc *d, const char *json, size_t len, kc_err *err);
void rs_doc_free(rs_doc *d);
