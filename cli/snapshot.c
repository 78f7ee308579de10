/* snapshot.c: `veltop --once [--json]`: the model printed once, as a plain table or as one JSON
 * object. Rates are averages since startTimestamp (no sample history exists after one LIST). */
#include "snapshot.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator.h"
#include "format.h"
#include "runeta.h"
#include "kubeclient/sat.h"
#include "kubeclient/util.h"
#include "sanitize.h"

/* The runs newest first (the list's default order). */
static model_run **snapshot_order(const model *m, size_t *n)
{
    view v;
    view_init(&v);
    view_rebuild(&v, m);
    *n = v.n_rows;
    return v.rows; /* ownership passes to the caller */
}

/* Items per second since the start (in our time: model_run_duration); < 0 when unknown. */
static double snapshot_rate(const model_run *mr, double wall)
{
    double d = model_run_duration(mr, wall);
    return d > 0 ? (double)mr->run->items_done / d : -1;
}

static void snapshot_add_str(cJSON *o, const char *k, const char *v)
{
    if (!v) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    char *s = san_str(v);
    cJSON_AddStringToObject(o, k, s);
    free(s);
}

static void snapshot_add_time(cJSON *o, const char *k, double t)
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

/* Monotonic time of the snapshot: the newest sighting of a run (--once lists once). */
static double snapshot_mono(const model *m)
{
    double now = 0;
    for (size_t i = 0; i < m->n_runs; i++)
        if (m->runs[i]->attached > now) now = m->runs[i]->attached;
    return now;
}

/* The run's answers (runeta.h): etaSeconds is the end of its critical path, whole seconds rounded
 * up (never 0 while time is left), with whether it is only a lower bound; the volume bytes, their
 * rate (live: from the trackers, seeded from startTimestamp; finished: the whole-run average),
 * whether it is stalled, and what its end waits on. */
static void snapshot_run_end(const model *m, const model_run *mr, double mono, double wall,
                             runeta *e)
{
    if (mr->run && vl_phase_active(mr->run->phase_id)) {
        runeta_compute(m, mr, mono, wall, e);
        return;
    }
    /* not in flight: only the volume sums (model_refresh_volumes ran), no per-run scan of every
     * volume and run (10 000 finished runs) */
    memset(e, 0, sizeof *e);
    e->eta = -1;
    e->bytes_done = mr->vols.bytes_done;
    e->bytes_total = mr->vols.bytes_total;
    e->bytes_rate = -1;
}

static void snapshot_add_run_end(cJSON *o, const model *m, const model_run *mr, double mono,
                                 double wall)
{
    runeta e;
    snapshot_run_end(m, mr, mono, wall, &e);
    int eta_known = e.active && e.eta >= 0;
    snapshot_add_num(o, "etaSeconds", eta_known ? ceil(e.eta) : 0, eta_known);
    cJSON_AddBoolToObject(o, "etaLowerBound", eta_known && e.bound);
    cJSON_AddNumberToObject(o, "bytesDone", (double)e.bytes_done);
    cJSON_AddNumberToObject(o, "bytesTotal", (double)e.bytes_total);
    double bps = e.active ? e.bytes_rate : -1;
    double dur = model_run_duration(mr, wall);
    if (!e.active && mr->run->completed > 0 && dur > 0 && e.bytes_done > 0)
        bps = (double)e.bytes_done / dur;
    snapshot_add_num(o, "bytesPerSecond", bps, bps >= 0);
    cJSON_AddBoolToObject(o, "stalled", e.active && e.stalled);
    if (!e.active) {
        cJSON_AddNullToObject(o, "waitingOn");
        return;
    }
    static const char *part_kind[RE_NPARTS] = {"Items", "PodVolumes", "PluginOperations",
                                               "Finalizing"};
    cJSON *w = cJSON_AddObjectToObject(o, "waitingOn");
    if (e.waiting_vol) {
        cJSON_AddStringToObject(w, "kind", vl_kind_name(e.waiting_vol->kind));
        snapshot_add_str(w, "name", e.waiting_vol->name);
    } else {
        cJSON_AddStringToObject(w, "kind", part_kind[e.waiting]);
        cJSON_AddNullToObject(w, "name");
    }
}

char *snapshot_json(const model *m, const char *context, const char *server, const char *ns,
                    double wall)
{
    cJSON *root = cJSON_CreateObject();
    snapshot_add_str(root, "context", context);
    snapshot_add_str(root, "server", server);
    snapshot_add_str(root, "namespace", ns);
    /* the cluster's clock minus ours (from the API server's Date headers), to a tenth of a
     * second; every time below is the cluster's, and every duration and ETA is judged on it */
    int known;
    double off = model_clock_offset(m, &known);
    snapshot_add_num(root, "clusterClockOffsetSeconds", round(off * 10) / 10, known);
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    size_t n;
    model_run **order = snapshot_order(m, &n);
    double mono = snapshot_mono(m);
    for (size_t i = 0; i < n; i++) {
        const model_run *mr = order[i];
        const vl_run *r = mr->run;
        if (!r) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", r->kind == VL_BACKUP ? "Backup" : "Restore");
        snapshot_add_str(o, "name", mr->name);
        snapshot_add_str(o, "phase", r->phase);
        int hp = r->has_progress || r->items_total || r->items_done;
        snapshot_add_num(o, "itemsDone", (double)r->items_done, hp);
        snapshot_add_num(o, "itemsTotal", (double)r->items_total, hp);
        /* the total is Velero's estimate while it may still change (shown "~N") */
        cJSON_AddBoolToObject(o, "itemsTotalEstimated", hp && model_run_total_estimated(mr));
        snapshot_add_time(o, "started", r->started);
        snapshot_add_time(o, "completed", r->completed);
        cJSON_AddNumberToObject(o, "errors", (double)r->errors);
        cJSON_AddNumberToObject(o, "warnings", (double)r->warnings);
        snapshot_add_str(o, "failureReason", r->failure_reason);
        double rate = snapshot_rate(mr, wall);
        snapshot_add_num(o, "itemsPerSecond", rate, rate >= 0);
        snapshot_add_run_end(o, m, mr, mono, wall);
        cJSON *res = cJSON_AddArrayToObject(o, "resources");
        size_t nres;
        const model_res *mres = model_run_resources(mr, &nres, NULL);
        for (size_t j = 0; j < nres; j++) {
            cJSON *ro = cJSON_CreateObject();
            snapshot_add_str(ro, "resource", mres[j].resource);
            cJSON_AddNumberToObject(ro, "done", (double)mres[j].done);
            cJSON_AddNumberToObject(ro, "total", (double)mres[j].total);
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
            cJSON_AddNumberToObject(vo, "bytesTotal", (double)v->bytes_total);
            cJSON_AddItemToArray(vols, vo);
        }
        free(vv);
        cJSON_AddItemToArray(runs, o);
    }
    free(order);
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *out = xasprintf("%s\n", txt);
    cJSON_free(txt);
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

char *snapshot_table(const model *m, double wall, size_t *capped)
{
    size_t ncap = 0;
    static const char *titles[T_N] = {"NAME",      "KIND",         "PHASE",  "ITEMS",
                                      "RESOURCES", "VOLUME BYTES", "RATE",   "ETA",
                                      "STARTED",   "DURATION",     "ERRORS", "WARNINGS"};
    size_t n;
    model_run **order = snapshot_order(m, &n);
    double mono = snapshot_mono(m);
    char **cells = xcalloc((n + 1) * T_N, sizeof(char *));
    size_t width[T_N] = {0};
    for (int c = 0; c < T_N; c++) cells[c] = xstrdup(titles[c]);
    for (size_t i = 0; i < n; i++) {
        const model_run *mr = order[i];
        const vl_run *r = mr->run;
        char **row = cells + (i + 1) * T_N, b[96];
        row[T_NAME] = snapshot_cell(mr->name, &ncap);
        row[T_KIND] = xstrdup(mr->kind == VL_BACKUP ? "Backup" : "Restore");
        row[T_PHASE] = snapshot_cell(r ? r->phase : "", &ncap);
        if (!r) {
            for (int c = T_ITEMS; c < T_N; c++) row[c] = xstrdup("-");
            continue;
        }
        int hp = r->has_progress || r->items_total || r->items_done;
        /* the screen's formatters, exact (a table for scripts has no width to fit) */
        row[T_ITEMS] = hp ? xstrdup(fmt_count_pair(b, sizeof b, r->items_done, r->items_total,
                                                   model_run_total_estimated(mr), INT_MAX))
                          : xstrdup("-");
        row[T_VOLS] = mr->vols.n ? xstrdup(fmt_bytes_pair(b, sizeof b, mr->vols.bytes_done,
                                                          mr->vols.bytes_total, "/", INT_MAX))
                                 : xstrdup("-");
        size_t nres, done = 0;
        const model_res *res = model_run_resources(mr, &nres, NULL);
        for (size_t j = 0; j < nres; j++) done += res[j].total > 0 && res[j].done >= res[j].total;
        row[T_RES] = nres ? xasprintf("%zu/%zu", done, nres) : xstrdup("-");
        double rate = snapshot_rate(mr, wall);
        row[T_RATE] = xstrdup(fmt_rate(b, sizeof b, rate));
        runeta e;
        snapshot_run_end(m, mr, mono, wall, &e);
        fmt_eta(b, sizeof b, e.active && !e.stalled ? e.eta : -1);
        row[T_ETA] = e.active && e.bound && e.eta >= 0 ? xasprintf(">=%s", b) : xstrdup(b);
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
    for (size_t i = 0; i <= n; i++)
        for (int c = 0; c < T_N; c++) {
            size_t w = (size_t)san_width(cells[i * T_N + c]);
            if (w > width[c]) width[c] = w;
        }
    kc_buf out = {0};
    for (size_t i = 0; i <= n; i++) {
        for (int c = 0; c < T_N; c++) {
            const char *s = cells[i * T_N + c];
            kc_buf_append(&out, s, strlen(s));
            if (c < T_N - 1)
                for (size_t p = (size_t)san_width(s); p < width[c] + 2; p++)
                    kc_buf_append(&out, " ", 1);
            free(cells[i * T_N + c]);
        }
        kc_buf_append(&out, "\n", 1);
    }
    free(cells);
    free(order);
    if (capped) *capped = ncap;
    return kc_buf_cstr(&out);
}
