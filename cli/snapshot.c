/* snapshot.c: `veltop --once [--json]`: the model printed once, as a plain table or as one JSON
 * object. Rates are averages since startTimestamp (no sample history exists after one LIST). */
#include "snapshot.h"

#include <cjson/cJSON.h>
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

/* The rows of m's runs (newest first) appended to cells (T_N + 1 per row: the context column
 * first, NULL without one); returns the new row count. */
static size_t snapshot_rows(const model *m, const char *context, double wall, char ***cells,
                            size_t rows)
{
    size_t n;
    model_run **order = snapshot_order(m, &n);
    double mono = snapshot_mono(m);
    *cells = xrealloc(*cells, (rows + n) * (T_N + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const model_run *mr = order[i];
        const vl_run *r = mr->run;
        char **row = *cells + (rows + i) * (T_N + 1) + 1, b[64];
        row[-1] = context ? san_str(context) : NULL;
        row[T_NAME] = san_str(mr->name);
        row[T_KIND] = xstrdup(mr->kind == VL_BACKUP ? "Backup" : "Restore");
        row[T_PHASE] = san_str(r ? r->phase : "");
        if (!r) {
            for (int c = T_ITEMS; c < T_N; c++) row[c] = xstrdup("-");
            continue;
        }
        int hp = r->has_progress || r->items_total || r->items_done;
        row[T_ITEMS] =
            hp ? xasprintf("%lld/%s%lld", (long long)r->items_done,
                           model_run_total_estimated(mr) ? "~" : "", (long long)r->items_total)
               : xstrdup("-");
        char b2[32];
        row[T_VOLS] = mr->vols.n ? xasprintf("%s/%s", fmt_bytes(b, sizeof b, mr->vols.bytes_done),
                                             fmt_bytes(b2, sizeof b2, mr->vols.bytes_total))
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

char *snapshot_table(const model *m, double wall)
{
    char **cells = snapshot_titles();
    size_t rows = snapshot_rows(m, NULL, wall, &cells, 1);
    return snapshot_print(cells, rows, 0);
}

char *snapshot_table_fleet(const model *const *ms, const char *const *contexts, size_t n,
                           double wall)
{
    char **cells = snapshot_titles();
    size_t rows = 1;
    for (size_t i = 0; i < n; i++)
        if (ms[i]) rows = snapshot_rows(ms[i], contexts[i], wall, &cells, rows);
    return snapshot_print(cells, rows, 1);
}
