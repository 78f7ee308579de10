/* server_tables.c: the meta.k8s.io/v1 Tables veltop-sim's API server answers for
 * `Accept: ...;as=Table` (server_int.h), which kubectl get prints: the columns of runs, volumes,
 * pods, storage locations and daemonsets, each row's cells and its PartialObjectMetadata, and ages
 * as apimachinery's HumanDuration. */
#include "server_int.h"

#include <math.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

/* ---- tables ---- */

/* apimachinery's HumanDuration, as kubectl shows ages. */
static void human_duration(double secs, char *buf, size_t n)
{
    long long s = (long long)floor(secs);
    if (s < -1) {
        snprintf(buf, n, "<invalid>");
        return;
    }
    if (s < 0) s = 0;
    if (s < 120) {
        snprintf(buf, n, "%llds", s);
        return;
    }
    long long m = s / 60, h = s / 3600;
    if (m < 10) {
        if (s % 60)
            snprintf(buf, n, "%lldm%llds", m, s % 60);
        else
            snprintf(buf, n, "%lldm", m);
    } else if (m < 180) {
        snprintf(buf, n, "%lldm", m);
    } else if (h < 8) {
        if (m % 60)
            snprintf(buf, n, "%lldh%lldm", h, m % 60);
        else
            snprintf(buf, n, "%lldh", h);
    } else if (h < 48) {
        snprintf(buf, n, "%lldh", h);
    } else if (h < 24 * 8) {
        if (h % 24)
            snprintf(buf, n, "%lldd%lldh", h / 24, h % 24);
        else
            snprintf(buf, n, "%lldd", h / 24);
    } else if (h < 24 * 365 * 2) {
        snprintf(buf, n, "%lldd", h / 24);
    } else if (h < 24 * 365 * 8) {
        long long dy = (h / 24) % 365;
        if (dy)
            snprintf(buf, n, "%lldy%lldd", h / 24 / 365, dy);
        else
            snprintf(buf, n, "%lldy", h / 24 / 365);
    } else {
        snprintf(buf, n, "%lldy", h / 24 / 365);
    }
}

const cJSON *srv_path(const cJSON *o, const char *a, const char *b, const char *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    if (c) v = cJSON_GetObjectItemCaseSensitive(v, c);
    return v;
}

static cJSON *age_cell(const cJSON *ts, double now)
{
    double t;
    if (!cJSON_IsString(ts) || kc_parse_time(ts->valuestring, &t)) return cJSON_CreateNull();
    char buf[32];
    human_duration(now - t, buf, sizeof buf);
    return cJSON_CreateString(buf);
}

static cJSON *copy_or_null(const cJSON *v)
{
    return v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
}

static cJSON *int_or_zero(const cJSON *v)
{
    return cJSON_CreateNumber(cJSON_IsNumber(v) ? v->valuedouble : 0);
}

enum table_kind { T_RUN, T_VOLUME, T_POD, T_BSL, T_DS, T_OTHER };

static enum table_kind table_kind(const sim_resource *r)
{
    if (!strcmp(r->plural, "backups") || !strcmp(r->plural, "restores")) return T_RUN;
    if (!strcmp(r->plural, "podvolumebackups") || !strcmp(r->plural, "podvolumerestores") ||
        !strcmp(r->plural, "datauploads") || !strcmp(r->plural, "datadownloads"))
        return T_VOLUME;
    if (!strcmp(r->plural, "pods")) return T_POD;
    if (!strcmp(r->plural, "backupstoragelocations")) return T_BSL;
    if (!strcmp(r->plural, "daemonsets")) return T_DS;
    return T_OTHER;
}

static void add_col(cJSON *cols, const char *name, const char *type, const char *format,
                    const char *desc)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", name);
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "format", format);
    cJSON_AddStringToObject(c, "description", desc);
    cJSON_AddNumberToObject(c, "priority", 0);
    cJSON_AddItemToArray(cols, c);
}

static cJSON *table_columns(const sim_resource *r)
{
    cJSON *cols = cJSON_CreateArray();
    add_col(cols, "Name", "string", "name",
            "Name must be unique within a namespace. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names");
    switch (table_kind(r)) {
    case T_RUN:
        add_col(cols, "Phase", "string", "", "The current phase");
        add_col(cols, "Items", "string", "", "Items done of the estimated total");
        add_col(cols, "Started", "date", "", "When the run started");
        add_col(cols, "Errors", "integer", "", "Errors encountered");
        add_col(cols, "Warnings", "integer", "", "Warnings encountered");
        break;
    case T_VOLUME:
        add_col(cols, "Phase", "string", "", "The current phase");
        add_col(cols, "Bytes Done", "integer", "", "Bytes moved so far");
        add_col(cols, "Total Bytes", "integer", "", "Total bytes to move");
        add_col(cols, "Node", "string", "", "Node doing the work");
        break;
    case T_POD:
        add_col(cols, "Ready", "string", "", "The aggregate readiness state of this pod");
        add_col(cols, "Status", "string", "", "The aggregate status of the containers");
        add_col(cols, "Restarts", "string", "", "The number of times the containers restarted");
        break;
    case T_BSL:
        add_col(cols, "Phase", "string", "", "Backup Storage Location status such as Available");
        add_col(cols, "Last Validated", "date", "", "LastValidationTime");
        break;
    case T_DS: /* as kube-apiserver's printers name them (kubectl get ds) */
        add_col(cols, "Desired", "integer", "",
                "The total number of nodes that should be running the daemon pod");
        add_col(cols, "Current", "integer", "",
                "The number of nodes that are running at least 1 daemon pod");
        add_col(cols, "Ready", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more "
                "of the daemon pod running and ready");
        add_col(cols, "Up-to-date", "integer", "",
                "The total number of nodes that are running updated daemon pod");
        add_col(cols, "Available", "integer", "",
                "The number of nodes that should be running the daemon pod and have one or more "
                "of the daemon pod running and available");
        add_col(cols, "Node Selector", "string", "", "NodeSelector of the daemon pods");
        break;
    case T_OTHER:
        break;
    }
    add_col(cols, "Age", "date", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created.");
    if (table_kind(r) == T_BSL)
        add_col(cols, "Default", "boolean", "", "Default backup storage location");
    return cols;
}

static cJSON *table_row(const sim_resource *r, const cJSON *obj, double now)
{
    cJSON *row = cJSON_CreateObject();
    cJSON *cells = cJSON_AddArrayToObject(row, "cells");
    cJSON_AddItemToArray(cells, copy_or_null(srv_path(obj, "metadata", "name", NULL)));
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(st, "phase");
    switch (table_kind(r)) {
    case T_RUN: {
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "New"));
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(st, "progress");
        const cJSON *done = cJSON_GetObjectItemCaseSensitive(pr, "itemsBackedUp");
        if (!done) done = cJSON_GetObjectItemCaseSensitive(pr, "itemsRestored");
        const cJSON *tot = cJSON_GetObjectItemCaseSensitive(pr, "totalItems");
        char items[64];
        snprintf(items, sizeof items, "%.0f/%.0f", cJSON_IsNumber(done) ? done->valuedouble : 0,
                 cJSON_IsNumber(tot) ? tot->valuedouble : 0);
        cJSON_AddItemToArray(cells, cJSON_CreateString(items));
        cJSON_AddItemToArray(cells,
                             age_cell(cJSON_GetObjectItemCaseSensitive(st, "startTimestamp"), now));
        cJSON_AddItemToArray(cells, int_or_zero(cJSON_GetObjectItemCaseSensitive(st, "errors")));
        cJSON_AddItemToArray(cells, int_or_zero(cJSON_GetObjectItemCaseSensitive(st, "warnings")));
        break;
    }
    case T_VOLUME: {
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "New"));
        cJSON_AddItemToArray(cells, int_or_zero(srv_path(st, "progress", "bytesDone", NULL)));
        cJSON_AddItemToArray(cells, int_or_zero(srv_path(st, "progress", "totalBytes", NULL)));
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(st, "node");
        if (!cJSON_IsString(node)) node = srv_path(obj, "spec", "node", NULL);
        cJSON_AddItemToArray(cells,
                             cJSON_CreateString(cJSON_IsString(node) ? node->valuestring : ""));
        break;
    }
    case T_POD: {
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(st, "containerStatuses");
        int n = cJSON_GetArraySize(cs), ready = 0, restarts = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, cs)
        {
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ready"))) ready++;
            const cJSON *rc = cJSON_GetObjectItemCaseSensitive(it, "restartCount");
            if (cJSON_IsNumber(rc)) restarts += rc->valueint;
        }
        char buf[32];
        snprintf(buf, sizeof buf, "%d/%d", ready, n);
        cJSON_AddItemToArray(cells, cJSON_CreateString(buf));
        cJSON_AddItemToArray(
            cells, cJSON_CreateString(cJSON_IsString(phase) ? phase->valuestring : "Pending"));
        snprintf(buf, sizeof buf, "%d", restarts);
        cJSON_AddItemToArray(cells, cJSON_CreateString(buf));
        break;
    }
    case T_BSL:
        cJSON_AddItemToArray(cells, copy_or_null(phase));
        cJSON_AddItemToArray(
            cells, age_cell(cJSON_GetObjectItemCaseSensitive(st, "lastValidationTime"), now));
        break;
    case T_DS: {
        static const char *const counts[] = {"desiredNumberScheduled", "currentNumberScheduled",
                                             "numberReady", "updatedNumberScheduled",
                                             "numberAvailable"};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, counts[k]);
            cJSON_AddItemToArray(cells, cJSON_CreateNumber(cJSON_IsNumber(v) ? v->valuedouble : 0));
        }
        cJSON_AddItemToArray(cells, cJSON_CreateString("<none>"));
        break;
    }
    case T_OTHER:
        break;
    }
    cJSON_AddItemToArray(cells,
                         age_cell(srv_path(obj, "metadata", "creationTimestamp", NULL), now));
    if (table_kind(r) == T_BSL) {
        const cJSON *def = srv_path(obj, "spec", "default", NULL);
        cJSON_AddItemToArray(cells, cJSON_CreateBool(cJSON_IsTrue(def)));
    }
    cJSON *po = cJSON_AddObjectToObject(row, "object");
    cJSON_AddStringToObject(po, "kind", "PartialObjectMetadata");
    cJSON_AddStringToObject(po, "apiVersion", "meta.k8s.io/v1");
    cJSON_AddItemToObject(po, "metadata",
                          copy_or_null(cJSON_GetObjectItemCaseSensitive(obj, "metadata")));
    return row;
}

/* A Table of objs (array, not taken); columns only when with_cols; ages relative to now. */
cJSON *srv_make_table(const sim_resource *r, const cJSON *objs, uint64_t rv, const char *cont,
                      long remaining, int with_cols, double now)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "kind", "Table");
    cJSON_AddStringToObject(t, "apiVersion", "meta.k8s.io/v1");
    cJSON *md = cJSON_AddObjectToObject(t, "metadata");
    if (rv) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)rv);
        cJSON_AddStringToObject(md, "resourceVersion", buf);
    }
    if (cont && *cont) cJSON_AddStringToObject(md, "continue", cont);
    if (remaining > 0) cJSON_AddNumberToObject(md, "remainingItemCount", (double)remaining);
    cJSON_AddItemToObject(t, "columnDefinitions",
                          with_cols ? table_columns(r) : cJSON_CreateArray());
    cJSON *rows = cJSON_AddArrayToObject(t, "rows");
    const cJSON *it;
    cJSON_ArrayForEach(it, objs) cJSON_AddItemToArray(rows, table_row(r, it, now));
    return t;
}

int srv_wants_table(struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    return a && strstr(a, "as=Table") != NULL;
}
