/* artifacts.h: Velero's stored run artifacts: gzip compression and the JSON shapes of the
 * resource list and results files. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

/* gzip (RFC 1952) of data; returns a malloc'd buffer and its length. */
unsigned char *artifacts_gzip(const void *data, size_t len, size_t *outlen);
/* Inflates gzip data (for tests and checks). NULL on corrupt input. Result is NUL-terminated. */
char *artifacts_gunzip(const unsigned char *data, size_t len, size_t *outlen);

/* Results as Velero writes them: {"errors": R, "warnings": R} with
 * R = {"velero": [...], "cluster": [...], "namespaces": {"ns": [...]}}; empty parts omitted as
 * Velero's omitempty does, but the three keys of an empty Result are kept for clarity. */
typedef struct artifacts_result_entry {
    const char *scope; /* "velero", "cluster" or a namespace */
    const char *msg;
} artifacts_result_entry;
cJSON *artifacts_results(const artifacts_result_entry *errors, size_t nerr,
                         const artifacts_result_entry *warnings, size_t nwarn);
