/* snapshot.c: `veltop --once [--json]`: the model printed once, as a plain table or as one JSON
 * object. Rates are averages since startTimestamp (no sample history exists after one LIST). */
#include "snapshot.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "estimator.h"
#include "format.h"
#include "itemops.h"
#include "opsfetch.h"
#include "runeta.h"
#include "kubeclient/sat.h"
#include "kubeclient/caps.h"
#include "kubeclient/util.h"
#include "sanitize.h"

/* The runs newest first (the list's default order). */
static model_run **snapshot_order(const model *m, size_t *n)
{
    view v;
    view_init(&v);
    view_rebuild(&v, m);
    *n = v.n_rows;
    free(v.sel_name); /* the rest of the view: only its rows are kept */
    return v.rows;    /* ownership passes to the caller */
}

/* Items per second since the start (in our time: model_run_duration); < 0 when unknown. */
static double snapshot_rate(const model_run *mr, double wall)
{
    double d = model_run_duration(mr, wall);
    return d > 0 ? (double)mr->run->items_done / d : -1;
}

void snapshot_add_str(cJSON *o, const char *k, const char *v)
{
    if (!v) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    char *s = san_utf8(v); /* the server's exact text: JSON escaping is its safety */
    cJSON_AddStringToObject(o, k, s);
    free(s);
}

void snapshot_add_time(cJSON *o, const char *k, double t)
{
    char b[40];
    if (!(t > 0 && t < KC_TIME_END)) { /* unknown, or no date RFC3339 can write */
        cJSON_AddNullToObject(o, k);
        return;
    }
    kc_format_time(t, b, sizeof b);
    cJSON_AddStringToObject(o, k, b);
}

static void snapshot_add_num(cJSON *o, const char *k, double v, int known)
{
    if (known)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static int snapshot_vol_cmp(const void *a, const void *b)
{
    const model_volume *x = *(model_volume *const *)a, *y = *(model_volume *const *)b;
    return strcmp(x->name, y->name);
}

static void snapshot_add_tri(cJSON *o, const char *k, ans_tri v)
{
    if (v == ANS_UNKNOWN)
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddBoolToObject(o, k, v == ANS_YES);
}

/* A waiting backup's queue (queue.h): null for any other run. Unknown is null with its reason:
 * the limit when the server pod cannot be read, the start when the runs ahead have no ETA. */
static void snapshot_add_queue(cJSON *o, const run_answer *e)
{
    const queue_wait *q = &e->queue;
    if (!q->waiting) {
        cJSON_AddNullToObject(o, "queue");
        return;
    }
    cJSON *j = cJSON_AddObjectToObject(o, "queue");
    cJSON_AddNumberToObject(j, "position", (double)q->position);
    cJSON_AddStringToObject(j, "positionFrom", q->position_ours ? "counted" : "queuePosition");
    cJSON_AddNumberToObject(j, "aheadCount", (double)q->n_ahead);
    cJSON *ah = cJSON_AddArrayToObject(j, "ahead");
    for (size_t i = 0; i < q->n_ahead && i < QUEUE_MAX_AHEAD; i++) {
        cJSON *a = cJSON_CreateObject();
        snapshot_add_str(a, "name", q->ahead[i]->name);
        snapshot_add_str(a, "phase", q->ahead[i]->run->phase);
        cJSON_AddItemToArray(ah, a);
    }
    snapshot_add_num(j, "concurrentBackups", q->limit, q->limit_known);
    if (q->limit_known) {
        cJSON_AddBoolToObject(j, "concurrentBackupsDefault", q->limit_default);
        cJSON_AddNullToObject(j, "concurrentBackupsReason");
    } else {
        cJSON_AddNullToObject(j, "concurrentBackupsDefault");
        cJSON_AddStringToObject(j, "concurrentBackupsReason", q->limit_why);
    }
    snapshot_add_num(j, "running", (double)q->n_ahead_running, 1);
    cJSON_AddStringToObject(j, "waitsOn", queue_why_code(q->why));
    snapshot_add_tri(j, "limitFull",
                     q->limit_known ? (q->limit_full ? ANS_YES : ANS_NO) : ANS_UNKNOWN);
    snapshot_add_str(j, "overlapsWith", q->overlap ? q->overlap->name : NULL);
    char buf[1024];
    snapshot_add_str(j, "reason", queue_why_text(buf, sizeof buf, q));
    if (q->start_known) {
        snapshot_add_time(j, "estimatedStart", q->start);
        cJSON_AddStringToObject(j, "estimatedStartCaveat", QUEUE_START_CAVEAT);
        cJSON_AddNullToObject(j, "estimatedStartReason");
    } else {
        cJSON_AddNullToObject(j, "estimatedStart");
        cJSON_AddNullToObject(j, "estimatedStartCaveat");
        cJSON_AddStringToObject(j, "estimatedStartReason", q->start_why);
    }
}

/* The run's answer (answer.h), as every surface gives it: etaSeconds the end of its critical
 * path in whole seconds rounded up (never 0 while time is left), null when there is none, with
 * its kind and the reason; bytes null while unknown; stalled true / false / null (unknown) with
 * the reason; last progress with its evidence; what its end waits on; what the answer lacks. */
static void snapshot_add_answer(cJSON *o, const run_answer *e)
{
    int eta_known = e->eta_kind != ANS_ETA_NONE;
    snapshot_add_num(o, "etaSeconds", eta_known ? ceil(e->eta) : 0, eta_known);
    if (eta_known)
        cJSON_AddBoolToObject(o, "etaLowerBound", e->eta_kind == ANS_ETA_BOUND);
    else
        cJSON_AddNullToObject(o, "etaLowerBound");
    cJSON_AddStringToObject(o, "etaKind", answer_eta_kind_name(e->eta_kind));
    if (e->eta_kind == ANS_ETA_NONE && e->eta_why != ANS_WHY_NONE)
        cJSON_AddStringToObject(o, "etaReason", answer_why_text(e->eta_why));
    else
        cJSON_AddNullToObject(o, "etaReason");
    if (eta_known && e->eta_caveat)
        cJSON_AddStringToObject(o, "etaCaveat", e->eta_caveat);
    else
        cJSON_AddNullToObject(o, "etaCaveat");
    /* what the ETA is based on: another plugin's operations' nCompleted of nTotal at their rate */
    cJSON_AddBoolToObject(o, "etaFromPluginOperations", e->eta_from_ops);
    snapshot_add_num(o, "bytesDone", (double)e->bytes_done, e->bytes_known);
    snapshot_add_num(o, "bytesTotal", (double)e->bytes_total, e->bytes_total_known);
    snapshot_add_num(o, "bytesPerSecond", e->bytes_rate, e->bytes_rate >= 0);
    snapshot_add_tri(o, "stalled", e->stalled);
    if (e->stalled == ANS_UNKNOWN)
        cJSON_AddStringToObject(o, "stalledReason", answer_why_text(e->stalled_why));
    else
        cJSON_AddNullToObject(o, "stalledReason");
    snapshot_add_num(o, "stalledSeconds", floor(e->stalled_for), e->stalled == ANS_YES);
    snapshot_add_time(o, "lastProgress", e->last_progress);
    if (e->last_progress > 0)
        cJSON_AddStringToObject(o, "lastProgressEvidence",
                                answer_evidence_name(e->last_progress_ev));
    else
        cJSON_AddNullToObject(o, "lastProgressEvidence");
    if (!e->active || e->waiting_unknown) { /* unknown: "incomplete" says why */
        cJSON_AddNullToObject(o, "waitingOn");
    } else {
        static const char *part_kind[RE_NPARTS] = {"Items", "PodVolumes", "PluginOperations",
                                                   "Finalizing"};
        cJSON *w = cJSON_AddObjectToObject(o, "waitingOn");
        if (e->waiting_vol) {
            cJSON_AddStringToObject(w, "kind", vl_kind_name(e->waiting_vol->kind));
            snapshot_add_str(w, "name", e->waiting_vol->name);
        } else {
            cJSON_AddStringToObject(w, "kind", part_kind[e->waiting]);
            cJSON_AddNullToObject(w, "name");
        }
    }
    if (e->missing)
        cJSON_AddStringToObject(o, "incomplete", e->missing_text);
    else
        cJSON_AddNullToObject(o, "incomplete");
    cJSON *arr = cJSON_AddArrayToObject(o, "diagnosis");
    for (size_t i = 0; i < e->n_diag; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "code", e->diag[i].code);
        snapshot_add_str(d, "message", e->diag[i].message);
        snapshot_add_time(d, "since", e->diag[i].since);
        cJSON_AddItemToArray(arr, d);
    }
    snapshot_add_queue(o, e);
}

/* A run's async plugin operations (itemops.h): null for a run that does not wait on any and was
 * never read; else known (true: operations as read, at readAt; false: operations null and the
 * reason), each with the server's exact text, nTotal null when the plugin gave none, its rate and
 * ETA (null unknown), stalled past the run's timeout, and the DataUpload/DataDownload it is. */
static void snapshot_add_itemops(cJSON *o, const ans_ctx *c, const model_run *mr)
{
    const itemops *io = mr->item_ops;
    if (!io && !itemops_waiting(mr->run)) {
        cJSON_AddNullToObject(o, "itemOperations");
        return;
    }
    cJSON *j = cJSON_AddObjectToObject(o, "itemOperations");
    int known = io && io->known;
    cJSON_AddBoolToObject(j, "known", known);
    snapshot_add_str(j, "reason",
                     known                 ? NULL
                     : io && io->reason[0] ? io->reason
                                           : OPSFETCH_NOT_FETCHED);
    int def;
    double timeout = itemops_timeout(mr->run, &def);
    cJSON_AddNumberToObject(j, "timeoutSeconds", timeout);
    if (!known) {
        cJSON_AddNullToObject(j, "readAt");
        cJSON_AddNullToObject(j, "cut");
        cJSON_AddNullToObject(j, "operations");
        return;
    }
    snapshot_add_time(j, "readAt", io->fetched_at);
    cJSON_AddNumberToObject(j, "cut", (double)io->cut);
    cJSON *arr = cJSON_AddArrayToObject(j, "operations");
    const model_volume **vol = xcalloc(io->n ? io->n : 1, sizeof *vol);
    itemops_join(io, c->m, mr, vol);
    double cnow = model_cluster_now(c->m, c->wall);
    for (size_t i = 0; i < io->n; i++) {
        const itemop *op = &io->ops[i];
        cJSON *e = cJSON_CreateObject();
        snapshot_add_str(e, "operationID", op->id);
        snapshot_add_str(e, mr->kind == VL_RESTORE ? "restoreItemAction" : "backupItemAction",
                         op->plugin);
        cJSON *ri = cJSON_AddObjectToObject(e, "resourceIdentifier");
        snapshot_add_str(ri, "group", op->group);
        snapshot_add_str(ri, "resource", op->resource);
        snapshot_add_str(ri, "namespace", op->ns);
        snapshot_add_str(ri, "name", op->name);
        snapshot_add_str(e, "phase", op->phase);
        snapshot_add_str(e, "error", op->error);
        cJSON_AddNumberToObject(e, "nCompleted", (double)op->done);
        snapshot_add_num(e, "nTotal", (double)op->total, op->has_total);
        snapshot_add_str(e, "operationUnits", op->units);
        snapshot_add_str(e, "description", op->description);
        snapshot_add_time(e, "created", op->created);
        snapshot_add_time(e, "started", op->started);
        snapshot_add_time(e, "updated", op->updated);
        double rate, eta, quiet;
        itemop_rate_eta(c->m, op, vol[i], c->now, c->wall, &rate, &eta);
        snapshot_add_num(e, "perSecond", rate, rate >= 0 && !itemop_finished(op));
        snapshot_add_num(e, "etaSeconds", ceil(eta), eta >= 0 && !itemop_finished(op));
        int st = itemop_stalled(op, timeout, cnow, &quiet);
        cJSON_AddBoolToObject(e, "stalled", st);
        snapshot_add_num(e, "stalledSeconds", floor(quiet), st);
        if (vol[i]) {
            cJSON *v = cJSON_AddObjectToObject(e, "volume");
            cJSON_AddStringToObject(v, "kind", vl_kind_name(vol[i]->kind));
            snapshot_add_str(v, "name", vol[i]->name);
        } else {
            cJSON_AddNullToObject(e, "volume");
        }
        cJSON_AddItemToArray(arr, e);
    }
    free(vol);
}

const char *snapshot_incomplete(const ans_ctx *c, char *buf, size_t n)
{
    buf[0] = 0;
    size_t o = 0;
    for (size_t i = 0; i < sizeof c->missing_why / sizeof c->missing_why[0]; i++) {
        if (!c->missing_why[i][0] || o >= n) continue;
        o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", c->missing_why[i]);
    }
    return buf[0] ? buf : NULL;
}

char *snapshot_json(const ans_ctx *c, const char *context, const char *server, const char *ns)
{
    const model *m = c->m;
    double wall = c->wall;
    cJSON *root = cJSON_CreateObject();
    snapshot_add_str(root, "context", context);
    snapshot_add_str(root, "server", server);
    snapshot_add_str(root, "namespace", ns);
    cJSON *inc = cJSON_AddArrayToObject(root, "incomplete");
    for (size_t i = 0; i < sizeof c->missing_why / sizeof c->missing_why[0]; i++)
        if (c->missing_why[i][0]) cJSON_AddItemToArray(inc, cJSON_CreateString(c->missing_why[i]));
    /* the cluster's clock minus ours (from the API server's Date headers), to a tenth of a
     * second; every time below is the cluster's, and every duration and ETA is judged on it */
    int known;
    double off = model_clock_offset(m, &known);
    snapshot_add_num(root, "clusterClockOffsetSeconds", round(off * 10) / 10, known);
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    size_t n;
    model_run **order = snapshot_order(m, &n);
    for (size_t i = 0; i < n; i++) {
        const model_run *mr = order[i];
        const vl_run *r = mr->run;
        if (!r) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", r->kind == VL_BACKUP ? "Backup" : "Restore");
        snapshot_add_str(o, "name", mr->name);
        snapshot_add_str(o, "phase", r->phase);
        run_answer ans;
        answer_run(c, mr, &ans);
        snapshot_add_num(o, "itemsDone", (double)ans.items_done, ans.items_known);
        snapshot_add_num(o, "itemsTotal", (double)ans.items_total, ans.items_known);
        /* the total is Velero's estimate while it may still change (shown "~N"): the answer's */
        cJSON_AddBoolToObject(o, "itemsTotalEstimated", ans.items_estimated);
        snapshot_add_time(o, "started", r->started);
        snapshot_add_time(o, "completed", r->completed);
        cJSON_AddNumberToObject(o, "errors", (double)r->errors);
        cJSON_AddNumberToObject(o, "warnings", (double)r->warnings);
        snapshot_add_str(o, "failureReason", r->failure_reason);
        double rate = snapshot_rate(mr, wall);
        snapshot_add_num(o, "itemsPerSecond", rate, rate >= 0);
        snapshot_add_answer(o, &ans);
        size_t nres;
        const model_res *mres = model_run_resources(mr, &nres, NULL);
        /* no rows of a run without resourceProgress: unknown (null), with why, never [] */
        int unknown = !nres && !r->has_resource_progress;
        cJSON *res = unknown ? cJSON_AddNullToObject(o, "resources")
                             : cJSON_AddArrayToObject(o, "resources");
        char *cut = r->resources_cut && mr->n_res
                        ? xasprintf("status.resourceProgress cut at %d resource types: %zu "
                                    "more left out",
                                    KC_CAP_RESOURCE_ROWS, (size_t)r->resources_cut)
                        : NULL;
        snapshot_add_str(o, "resourcesNote",
                         cut            ? cut
                         : mr->res_note ? mr->res_note
                         : unknown      ? "no per-resource progress: the server gives no "
                                          "status.resourceProgress for this run"
                                        : NULL);
        free(cut);
        for (size_t j = 0; j < nres; j++) { /* none when unknown */
            cJSON *ro = cJSON_CreateObject();
            snapshot_add_str(ro, "resource", mres[j].resource);
            cJSON_AddNumberToObject(ro, "done", (double)mres[j].done);
            /* a log-derived row with no total (nothing gave one): null, not its count */
            snapshot_add_num(ro, "total", (double)mres[j].total,
                             !(mres[j].flags & MODEL_RES_NO_TOTAL));
            cJSON_AddItemToArray(res, ro);
        }
        cJSON *vols = cJSON_AddArrayToObject(o, "volumes");
        size_t nv = model_run_volumes(m, mr, NULL, 0);
        model_volume **vv = xcalloc(nv ? nv : 1, sizeof(*vv));
        model_run_volumes(m, mr, vv, nv);
        qsort(vv, nv, sizeof(*vv), snapshot_vol_cmp);
        for (size_t j = 0; j < nv; j++) {
            const vl_volume *v = vv[j]->vol;
            cJSON *vo = cJSON_CreateObject();
            cJSON_AddStringToObject(vo, "kind", vl_kind_name(vv[j]->kind));
            snapshot_add_str(vo, "name", vv[j]->name);
            snapshot_add_str(vo, "node", v->node);
            if (v->pod_name && v->pod_ns) {
                char *p = xasprintf("%s/%s", v->pod_ns, v->pod_name);
                snapshot_add_str(vo, "pod", p);
                free(p);
            } else {
                snapshot_add_str(vo, "pod", v->pod_name);
            }
            snapshot_add_str(vo, "volume", v->volume);
            snapshot_add_str(vo, "uploader", v->uploader);
            snapshot_add_str(vo, "phase", v->phase);
            cJSON_AddNumberToObject(vo, "bytesDone", (double)v->bytes_done);
            if (model_volume_unsized(v)) /* not sized yet: unknown, not 0 */
                cJSON_AddNullToObject(vo, "bytesTotal");
            else
                cJSON_AddNumberToObject(vo, "bytesTotal", (double)v->bytes_total);
            cJSON_AddItemToArray(vols, vo);
        }
        free(vv);
        snapshot_add_itemops(o, c, mr);
        cJSON_AddItemToArray(runs, o);
    }
    free(order);
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *esc = san_json_text(txt); /* DEL and C1 escaped too: exact, never raw */
    cJSON_free(txt);
    char *out = xasprintf("%s\n", esc);
    free(esc);
    return out;
}

enum {
    T_NAME,
    T_KIND,
    T_PHASE,
    T_ITEMS,
    T_RES,
    T_VOLS,
    T_RATE,
    T_ETA,
    T_STARTED,
    T_DUR,
    T_ERR,
    T_WARN,
    T_N
};

/* Cluster text for a table cell: sanitised, cut at SNAPSHOT_CELL_COLS with an ellipsis. */
static char *snapshot_cell(const char *raw, size_t *capped)
{
    char *s = san_str(raw);
    if (san_width(s) <= SNAPSHOT_CELL_COLS) return s;
    free(s);
    size_t n = SNAPSHOT_CELL_COLS * 4 + 8; /* at most 4 bytes a column */
    char *out = xmalloc(n);
    san_fit_ellipsis(out, n, raw, SNAPSHOT_CELL_COLS);
    (*capped)++;
    return out;
}

/* The rows of c's runs (newest first, each its answer) appended to cells (T_N + 1 per row: the
 * context column first, NULL without one); returns the new row count; *ncap counts the cells
 * cut. */
static size_t snapshot_rows(const ans_ctx *c, const char *context, char ***cells, size_t rows,
                            size_t *ncap)
{
    const model *m = c->m;
    double wall = c->wall;
    size_t n;
    model_run **order = snapshot_order(m, &n);
    *cells = xrealloc(*cells, (rows + n) * (T_N + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const model_run *mr = order[i];
        const vl_run *r = mr->run;
        char **row = *cells + (rows + i) * (T_N + 1) + 1, b[96];
        row[-1] = context ? snapshot_cell(context, ncap) : NULL;
        row[T_NAME] = snapshot_cell(mr->name, ncap);
        row[T_KIND] = xstrdup(mr->kind == VL_BACKUP ? "Backup" : "Restore");
        row[T_PHASE] = snapshot_cell(r ? r->phase : "", ncap);
        if (!r) {
            for (int k = T_ITEMS; k < T_N; k++) row[k] = xstrdup("-");
            continue;
        }
        run_answer ans;
        answer_run(c, mr, &ans);
        /* the screen's formatters, exact (a table for scripts has no width to fit), of the
         * answer's items */
        row[T_ITEMS] = ans.items_known
                           ? xstrdup(fmt_count_pair(b, sizeof b, ans.items_done, ans.items_total,
                                                    ans.items_estimated, INT_MAX))
                           : xstrdup("-");
        size_t nres, done = 0;
        const model_res *res = model_run_resources(mr, &nres, NULL);
        for (size_t j = 0; j < nres; j++) done += res[j].total > 0 && res[j].done >= res[j].total;
        row[T_RES] = nres ? xasprintf("%zu/%zu", done, nres) : xstrdup("-");
        double rate = snapshot_rate(mr, wall);
        row[T_RATE] = xstrdup(fmt_rate(b, sizeof b, rate));
        row[T_ETA] = xstrdup(answer_eta_cell(b, sizeof b, &ans, 0));
        char b2[32];
        /* volume bytes as the answer knows them: "?" for a total not known yet */
        row[T_VOLS] =
            ans.n_volumes
                ? xasprintf("%s/%s", fmt_bytes(b, sizeof b, ans.bytes_done),
                            ans.bytes_total_known ? fmt_bytes(b2, sizeof b2, ans.bytes_total) : "?")
                : xstrdup("-");
        if (r->started > 0) {
            kc_format_time(r->started, b, sizeof b);
            row[T_STARTED] = xstrdup(b);
        } else {
            row[T_STARTED] = xstrdup("-");
        }
        row[T_DUR] = xstrdup(fmt_duration(b, sizeof b, model_run_duration(mr, wall)));
        row[T_ERR] = xasprintf("%lld", (long long)r->errors);
        row[T_WARN] = xasprintf("%lld", (long long)r->warnings);
    }
    free(order);
    return rows + n;
}

/* The table of rows cells (the first the titles), columns padded to their widest cell. */
static char *snapshot_print(char **cells, size_t rows, int with_context)
{
    size_t width[T_N + 1] = {0};
    int c0 = with_context ? 0 : 1;
    for (size_t i = 0; i < rows; i++)
        for (int c = c0; c <= T_N; c++) {
            size_t w = (size_t)san_width(cells[i * (T_N + 1) + c]);
            if (w > width[c]) width[c] = w;
        }
    kc_buf out = {0};
    for (size_t i = 0; i < rows; i++) {
        for (int c = c0; c <= T_N; c++) {
            const char *s = cells[i * (T_N + 1) + c];
            kc_buf_append(&out, s, strlen(s));
            if (c < T_N)
                for (size_t p = (size_t)san_width(s); p < width[c] + 2; p++)
                    kc_buf_append(&out, " ", 1);
        }
        kc_buf_append(&out, "\n", 1);
    }
    for (size_t i = 0; i < rows * (T_N + 1); i++) free(cells[i]);
    free(cells);
    return kc_buf_cstr(&out);
}

static char **snapshot_titles(void)
{
    static const char *titles[T_N + 1] = {
        "CONTEXT", "NAME", "KIND",    "PHASE",    "ITEMS",  "RESOURCES", "VOLUME BYTES",
        "RATE",    "ETA",  "STARTED", "DURATION", "ERRORS", "WARNINGS"};
    char **cells = xcalloc(T_N + 1, sizeof(char *));
    for (int c = 0; c <= T_N; c++) cells[c] = xstrdup(titles[c]);
    return cells;
}

char *snapshot_table(const ans_ctx *c, size_t *capped)
{
    char **cells = snapshot_titles();
    size_t ncap = 0;
    size_t rows = snapshot_rows(c, NULL, &cells, 1, &ncap);
    if (capped) *capped = ncap;
    return snapshot_print(cells, rows, 0);
}

char *snapshot_table_fleet(const ans_ctx *const *cs, const char *const *contexts, size_t n,
                           size_t *capped)
{
    char **cells = snapshot_titles();
    size_t rows = 1, ncap = 0;
    for (size_t i = 0; i < n; i++)
        if (cs[i]) rows = snapshot_rows(cs[i], contexts[i], &cells, rows, &ncap);
    if (capped) *capped = ncap;
    return snapshot_print(cells, rows, 1);
}
