/* app.c: the program's wiring: one reflector and store per watched resource in the Velero
 * namespace, store changes applied to the model (runs, volumes, trackers), and the connection
 * summary for the header lamp. */
#include "app.h"
#include "runeta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/backuprepo.h"
#include "kubeclient/daemonset.h"
#include "kubeclient/job.h"
#include "kubeclient/pod.h"
#include "kubeclient/util.h"

typedef struct app_res_def {
    const char *api_path, *resource;
    kc_decode_fn decode;
    kc_release_fn release;
    const char *label_selector; /* NULL: every object */
} app_res_def;

static const app_res_def app_defs[APP_NREFL] = {
    [APP_R_BACKUPS] = {"/apis/velero.io/v1", "backups", vl_decode_backup, vl_release_run},
    [APP_R_RESTORES] = {"/apis/velero.io/v1", "restores", vl_decode_restore, vl_release_run},
    [APP_R_PVBS] = {"/apis/velero.io/v1", "podvolumebackups", vl_decode_pvb, vl_release_volume},
    [APP_R_PVRS] = {"/apis/velero.io/v1", "podvolumerestores", vl_decode_pvr, vl_release_volume},
    [APP_R_DUS] = {"/apis/velero.io/v2alpha1", "datauploads", vl_decode_du, vl_release_volume},
    [APP_R_DDS] = {"/apis/velero.io/v2alpha1", "datadownloads", vl_decode_dd, vl_release_volume},
    [APP_R_SCHEDULES] = {"/apis/velero.io/v1", "schedules", vl_decode_schedule,
                         vl_release_schedule},
    [APP_R_BSLS] = {"/apis/velero.io/v1", "backupstoragelocations", vl_decode_bsl, vl_release_bsl},
    [APP_R_VSLS] = {"/apis/velero.io/v1", "volumesnapshotlocations", vl_decode_bsl, vl_release_bsl},
    [APP_R_PODS] = {"/api/v1", "pods", kc_pod_decode_any, kc_pod_release},
    [APP_R_DAEMONSETS] = {"/apis/apps/v1", "daemonsets", kc_daemonset_decode_any,
                          kc_daemonset_release},
    [APP_R_REPOS] = {"/apis/velero.io/v1", "backuprepositories", kc_repo_decode_any,
                     kc_repo_release},
    /* only Velero's maintenance jobs (maintenance.go labels them), not the namespace's others */
    [APP_R_JOBS] = {"/apis/batch/v1", "jobs", kc_job_decode_any, kc_job_release, KC_JOB_REPO_LABEL},
};

/* The (app, which store) pair a store callback gets. */
typedef struct app_hook {
    app *a;
    int which;
} app_hook;

static double app_mono(void)
{
    return (double)kc_now_ms() / 1000.0;
}

static void app_changed(app *a)
{
    if (a->on_change) a->on_change(a->on_change_arg);
}

static const char *app_key_name(const char *key)
{
    const char *slash = strchr(key, '/');
    return slash ? slash + 1 : key;
}

void app_sync_clock(app *a)
{
    int known = 0;
    double off = a->client ? kc_client_clock_offset(a->client, &known) : 0;
    model_set_clock_offset(a->model, off, known);
}

struct app_bsl_seen {
    char *name;
    double since;
};

double app_bsl_unavailable_since(const app *a, const char *name)
{
    for (size_t i = 0; a && name && i < a->n_bsl_seen; i++)
        if (!strcmp(a->bsl_seen[i].name, name)) return a->bsl_seen[i].since;
    return 0;
}

/* A storage location changed: remember when it was first seen Unavailable (its
 * lastValidationTime moves with every validation, the outage does not), forget it when it is
 * Available again or gone. */
static void app_bsl_track(app *a, const char *name, const vl_bsl *b, double wall)
{
    int unavailable = b && b->phase && !strcmp(b->phase, "Unavailable");
    for (size_t i = 0; i < a->n_bsl_seen; i++) {
        if (strcmp(a->bsl_seen[i].name, name)) continue;
        if (!unavailable) {
            free(a->bsl_seen[i].name);
            a->bsl_seen[i] = a->bsl_seen[--a->n_bsl_seen];
        }
        return;
    }
    if (!unavailable) return;
    a->bsl_seen = xrealloc(a->bsl_seen, (a->n_bsl_seen + 1) * sizeof *a->bsl_seen);
    /* first sight; a validation older than that which already said so is earlier evidence */
    double since = wall;
    if (b->last_validated > 0 && b->last_validated < since) since = b->last_validated;
    a->bsl_seen[a->n_bsl_seen++] = (struct app_bsl_seen){xstrdup(name), since};
}

/* ---- what a summary keeps of the volumes ---------------------------------------------------
 * A fleet's cluster not opened yet (volumes_recent) keeps whole only the volumes its summaries
 * read (the fleet row, its JSON, the exporter): those not finished (the answers of runs in flight,
 * health's nodes without a node-agent), those whose run is not finished or not known (yet), and
 * those of the finished runs an answer reads volumes of: the newest finished run of each (kind,
 * schedule) (the exporter's last run: its bytes) and the schedules' histories of completed runs
 * (model_schedule_runs: the run answer's prior reads their bytes). The rest, the volumes of
 * finished runs no answer reads, the store does not hold at all (KC_STORE_SKIP), not even keys:
 * 1 000 keys were ~50 KB a context. The runs whose volumes were so
 * left out are remembered (by a hash): when one of them is read again (a newer one deleted), the
 * volume lists are listed again. */

static int app_cmp_ptr(const void *x, const void *y)
{
    uintptr_t p = (uintptr_t) * (const void *const *)x, q = (uintptr_t) * (const void *const *)y;
    return (p > q) - (p < q);
}

static int app_cmp_u64(const void *x, const void *y)
{
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return (p > q) - (p < q);
}

/* (kind, run-name label) as a hash: the runs whose volumes a summary left out. 64 bits (FNV-1a):
 * a kept run colliding with a left-out one would list the volumes again at every run event */
static uint64_t app_run_hash(vl_kind kind, const char *label)
{
    uint64_t h = 14695981039346656037ull ^ (uint64_t)kind;
    for (const char *p = label; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

static void app_keep_add(app *a, const model_run *r)
{
    if (a->n_keep == a->cap_keep) {
        a->cap_keep = a->cap_keep ? a->cap_keep * 2 : 16;
        a->keep = xrealloc(a->keep, a->cap_keep * sizeof *a->keep);
    }
    a->keep[a->n_keep++] = r;
}

static int app_cmp_finished(const void *x, const void *y)
{
    const model_run *p = *(const model_run *const *)x, *q = *(const model_run *const *)y;
    if (p->kind != q->kind) return (int)p->kind - (int)q->kind;
    int c =
        strcmp(p->run->schedule ? p->run->schedule : "", q->run->schedule ? q->run->schedule : "");
    if (c) return c;
    return (p->run->completed < q->run->completed) - (p->run->completed > q->run->completed);
}

/* The finished runs whose volumes an answer reads (above), as of the model's runs now. */
static void app_keep_build(app *a)
{
    const model *m = a->model;
    a->n_keep = 0;
    const model_run **fin = xcalloc(m->n_runs ? m->n_runs : 1, sizeof *fin);
    size_t nf = 0;
    const model_run *pick[RE_HISTORY_MAX];
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *r = m->runs[i];
        const vl_run *x = r->run;
        if (!x) continue;
        if (vl_phase_terminal(x->phase_id)) {
            fin[nf++] = r;
        } else if (r->kind == VL_BACKUP && x->schedule && *x->schedule) {
            /* the history this run's answer reads */
            double start = x->started > 0 ? x->started : x->meta.created;
            size_t n = model_schedule_runs(m, VL_BACKUP, x->schedule, start, pick, RE_HISTORY_MAX);
            for (size_t k = 0; k < n; k++) app_keep_add(a, pick[k]);
        }
    }
    /* by (kind, schedule), newest end first: each group's newest (ties too), and the history a
     * run of the schedule starting now would read */
    qsort(fin, nf, sizeof *fin, app_cmp_finished);
    for (size_t i = 0; i < nf;) {
        size_t j = i;
        while (j < nf && fin[j]->kind == fin[i]->kind &&
               !strcmp(fin[j]->run->schedule ? fin[j]->run->schedule : "",
                       fin[i]->run->schedule ? fin[i]->run->schedule : "")) {
            if (fin[j]->run->completed == fin[i]->run->completed) app_keep_add(a, fin[j]);
            j++;
        }
        const char *sch = fin[i]->run->schedule;
        if (fin[i]->kind == VL_BACKUP && sch && *sch) {
            size_t n = model_schedule_runs(m, VL_BACKUP, sch, 0, pick, RE_HISTORY_MAX);
            for (size_t k = 0; k < n; k++) app_keep_add(a, pick[k]);
        }
        i = j;
    }
    free(fin);
    if (a->n_keep > 1) qsort(a->keep, a->n_keep, sizeof *a->keep, app_cmp_ptr);
    a->keep_built = a->keep_gen;
}

/* 1 when a summary keeps volume v whole (above). Remembers the run of one it does not. */
static int app_summary_needs(app *a, const vl_volume *v)
{
    if (!vl_phase_terminal(v->phase_id)) return 1;
    if (!v->run_name || !*v->run_name) return 0; /* finished, and of no run */
    vl_kind rk = v->kind == VL_PVR || v->kind == VL_DD ? VL_RESTORE : VL_BACKUP;
    const model_run *r = model_find_run(a->model, rk, v->run_name);
    /* not there (yet; or its label is not its name), not finished, or another run of that name */
    if (!r || !r->run || !vl_phase_terminal(r->run->phase_id) ||
        (v->run_uid_hash && r->uid_hash && v->run_uid_hash != r->uid_hash))
        return 1;
    if (a->keep_built != a->keep_gen) app_keep_build(a);
    if (bsearch(&r, a->keep, a->n_keep, sizeof *a->keep, app_cmp_ptr)) return 1;
    uint64_t h = app_run_hash(rk, v->run_name);
    size_t lo = 0, hi = a->n_dropped;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->dropped[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < a->n_dropped && a->dropped[lo] == h) return 0;
    if (a->n_dropped == a->cap_dropped) {
        a->cap_dropped = a->cap_dropped ? a->cap_dropped * 2 : 16;
        a->dropped = xrealloc(a->dropped, a->cap_dropped * sizeof *a->dropped);
    }
    memmove(&a->dropped[lo + 1], &a->dropped[lo], (a->n_dropped - lo) * sizeof *a->dropped);
    a->dropped[lo] = h;
    a->n_dropped++;
    return 0;
}

static void *app_summary_decode(void *arg, const cJSON *o)
{
    app_hook *h = arg;
    vl_volume *v = app_defs[h->which].decode(o);
    if (!v || !h->a->volumes_recent || app_summary_needs(h->a, v)) return v;
    vl_release_volume(v);
    return KC_STORE_SKIP; /* not even its key */
}

static void app_volumes_again(app *a);

/* The runs changed: when an answer now reads the volumes of a run the summary left out, list
 * the volumes again (from the loop, not from under a store's callback). */
static void app_keep_check(void *arg)
{
    app *a = arg;
    a->keep_timer = 0;
    if (!a->volumes_recent || !a->n_dropped) return;
    if (a->keep_built != a->keep_gen) app_keep_build(a);
    for (size_t i = 0; i < a->n_keep; i++) {
        uint64_t h = app_run_hash(a->keep[i]->kind, a->keep[i]->label ? a->keep[i]->label : "");
        if (bsearch(&h, a->dropped, a->n_dropped, sizeof *a->dropped, app_cmp_u64)) {
            a->relisted++;
            app_volumes_again(a);
            return;
        }
    }
}

static void app_on_store(void *arg, kc_event_type type, const char *key, void *obj)
{
    app_hook *h = arg;
    app *a = h->a;
    model *m = a->model;
    double now = app_mono();
    app_sync_clock(a); /* the objects' timestamps are judged on the cluster's clock */
    switch (h->which) {
    case APP_R_BACKUPS:
    case APP_R_RESTORES: {
        vl_kind kind = h->which == APP_R_BACKUPS ? VL_BACKUP : VL_RESTORE;
        /* what a summary keeps of the volumes changes with a run's coming, going, phase, times
         * or schedule, not with a run in flight's counters */
        int keep_moves = 1;
        if (a->volumes_recent && type == KC_EV_MODIFIED && obj) {
            const model_run *was = model_find_run(m, kind, app_key_name(key));
            const vl_run *o = was ? was->run : NULL, *n = obj;
            keep_moves = !o || o->phase_id != n->phase_id || o->started != n->started ||
                         o->completed != n->completed || o->meta.created != n->meta.created ||
                         strcmp(o->schedule ? o->schedule : "", n->schedule ? n->schedule : "") ||
                         strcmp(o->meta.uid ? o->meta.uid : "", n->meta.uid ? n->meta.uid : "");
        }
        if (type == KC_EV_DELETED || !obj) {
            model_remove_run(m, kind, app_key_name(key));
        } else {
            vl_run *r = obj;
            r->kind = kind;
            model_upsert_run(m, r, now, kc_wall_now());
        }
        if (a->volumes_recent && keep_moves) {
            a->keep_gen++;
            if (a->n_dropped && !a->keep_timer)
                a->keep_timer = kc_loop_timer(a->loop, 0, app_keep_check, a);
        }
        break;
    }
    case APP_R_PVBS:
    case APP_R_PVRS:
    case APP_R_DUS:
    case APP_R_DDS: {
        static const vl_kind kinds[] = {
            [APP_R_PVBS] = VL_PVB, [APP_R_PVRS] = VL_PVR, [APP_R_DUS] = VL_DU, [APP_R_DDS] = VL_DD};
        if (type == KC_EV_DELETED || !obj)
            model_remove_volume(m, kinds[h->which], app_key_name(key));
        else
            model_upsert_volume(m, obj, now);
        break;
    }
    case APP_R_BSLS:
        /* on the cluster's clock, as its lastValidationTime: diagnosis and screens convert */
        app_bsl_track(a, app_key_name(key), type == KC_EV_DELETED ? NULL : obj,
                      model_cluster_now(m, kc_wall_now()));
        m->gen++;
        break;
    default:
        m->gen++;
        break;
    }
    app_changed(a);
}

/* The server answers again: the reflectors waiting out a backoff after a transport failure or a
 * 5xx try now (the header recovers on the first fresh answer, not 30 s later), all but one: the
 * reflector that brought the news, or none (the liveness probe). */
static void app_retry_others(app *a, int but)
{
    for (int i = 0; i < APP_NREFL; i++)
        if (i != but) kc_reflector_retry_now(a->refl[i]);
}

static void app_on_back(void *arg)
{
    app_retry_others(arg, -1);
}

static void app_advance(app *a, int from_flight);

static void app_on_status(void *arg, const kc_refl_status *st)
{
    app_hook *h = arg;
    app *a = h->a;
    if ((h->which == APP_R_BACKUPS || h->which == APP_R_RESTORES) && a->link == APP_LINK_UNKNOWN &&
        st->first_headers_ms >= 0) {
        a->link = st->first_headers_ms >= a->slow_link_ms ? APP_LINK_SLOW : APP_LINK_FAST;
        /* a slow link: the history's held lists stay under way, their bytes travelling while
         * the runs in flight are listed; a fast one: withdrawn, asked for again at
         * app_release_history */
        if (a->link == APP_LINK_FAST && a->load_phase < APP_LOAD_HISTORY)
            for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) kc_reflector_withdraw(a->refl[i]);
    }
    if (st->state == KC_REFL_LIVE) app_retry_others(h->a, h->which);
    h->a->gen_status++;
    app_advance(h->a, 0);
    app_changed(h->a);
}

/* ---- in flight first -------------------------------------------------------------------- */

typedef struct app_flight {
    kc_reflector *refl;
    int which; /* APP_R_PVBS ... APP_R_DDS: the store it adds to */
} app_flight;

struct app_flight_rv {
    char *name;
    uint64_t rv;
};

static int app_cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A resourceVersion as a number (kube-apiserver's are etcd revisions); 0 when none. */
static uint64_t app_rv_num(const char *rv)
{
    uint64_t v = 0;
    if (!rv || !*rv) return 0;
    for (const char *p = rv; *p; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    return v;
}

/* The volume stores' filter while a run in flight's volumes come from two lists (kc_store_set_
 * filter): the whole list, served at its own resourceVersion, may bring an older state of such a
 * volume than the in-flight watch already brought (its bytes would go back, resetting the rate);
 * that upsert is dropped. Volumes of other runs pass untouched. */
static int app_keep_volume(void *arg, const cJSON *obj)
{
    app_hook *h = arg;
    app *a = h->a;
    int k = h->which == APP_R_PVRS || h->which == APP_R_DDS;
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *run = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(md, "labels"),
                                         k ? "velero.io/restore-name" : "velero.io/backup-name"));
    if (!run || !a->n_flight_runs[k] ||
        !bsearch(&run, a->flight_runs[k], a->n_flight_runs[k], sizeof(char *), app_cmp_str))
        return 1;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name"));
    uint64_t rv =
        app_rv_num(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion")));
    if (!name || !rv) return 1;
    int s = h->which - APP_R_PVBS;
    for (size_t i = 0; i < a->n_flight_rv[s]; i++) {
        struct app_flight_rv *e = &a->flight_rv[s][i];
        if (strcmp(e->name, name)) continue;
        if (rv < e->rv) return 0;
        e->rv = rv;
        return 1;
    }
    a->flight_rv[s] = xrealloc(a->flight_rv[s], (a->n_flight_rv[s] + 1) * sizeof *a->flight_rv[s]);
    a->flight_rv[s][a->n_flight_rv[s]++] = (struct app_flight_rv){xstrdup(name), rv};
    return 1;
}

static void app_flight_filter_off(app *a, int which)
{
    int s = which - APP_R_PVBS;
    kc_store_set_filter(a->stores[which], NULL, NULL);
    for (size_t i = 0; i < a->n_flight_rv[s]; i++) free(a->flight_rv[s][i].name);
    free(a->flight_rv[s]);
    a->flight_rv[s] = NULL;
    a->n_flight_rv[s] = 0;
}

size_t app_selector_batches(const char *key, const char *const *vals, size_t n, size_t max_vals,
                            size_t max_bytes, char ***out)
{
    char **sel = NULL;
    size_t nsel = 0, in = 0;
    kc_buf b = {0};
    for (size_t i = 0; i <= n; i++) {
        const char *v = i < n ? vals[i] : NULL;
        if (v && !*v) continue;
        /* close the batch at the end, when full, or when v would not fit */
        if (in && (!v || in >= max_vals || b.len + 1 + strlen(v) + 1 > max_bytes)) {
            kc_buf_append(&b, ")", 1);
            sel = xrealloc(sel, (nsel + 1) * sizeof *sel);
            sel[nsel++] = xstrdup(kc_buf_cstr(&b));
            b.len = 0;
            in = 0;
        }
        if (!v) break;
        if (!in)
            kc_buf_printf(&b, "%s in (", key);
        else
            kc_buf_append(&b, ",", 1);
        kc_buf_append(&b, v, strlen(v));
        in++;
    }
    kc_buf_free(&b);
    *out = sel;
    return nsel;
}

static void app_on_flight_status(void *arg, const kc_refl_status *st)
{
    app *a = arg;
    (void)st;
    a->gen_status++;
    app_advance(a, 1);
    app_changed(a);
}

static void app_flight_free(app *a, int which) /* which < 0: all */
{
    size_t k = 0;
    for (size_t i = 0; i < a->n_flight; i++) {
        if (which < 0 || a->flight[i].which == which)
            kc_reflector_free(a->flight[i].refl);
        else
            a->flight[k++] = a->flight[i];
    }
    a->n_flight = k;
    if (!k) {
        free(a->flight);
        a->flight = NULL;
    }
}

static void app_flight_forget_runs(app *a)
{
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < a->n_flight_runs[k]; i++) free(a->flight_runs[k][i]);
        free(a->flight_runs[k]);
        a->flight_runs[k] = NULL;
        a->n_flight_runs[k] = 0;
    }
}

/* The runs are listed: the volume lists of those in flight, by their run-name labels. */
static void app_flight_start(app *a)
{
    static const struct {
        int which, restore;
        const char *key;
    } kinds[] = {{APP_R_PVBS, 0, "velero.io/backup-name"},
                 {APP_R_DUS, 0, "velero.io/backup-name"},
                 {APP_R_PVRS, 1, "velero.io/restore-name"},
                 {APP_R_DDS, 1, "velero.io/restore-name"}};
    app_flight_forget_runs(a);
    const model *m = a->model;
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *r = m->runs[i];
        if (r->finished || !r->run || vl_phase_terminal(r->run->phase_id) || !r->label ||
            !*r->label)
            continue;
        int k = r->kind == VL_RESTORE;
        a->flight_runs[k] =
            xrealloc(a->flight_runs[k], (a->n_flight_runs[k] + 1) * sizeof *a->flight_runs[k]);
        a->flight_runs[k][a->n_flight_runs[k]++] = xstrdup(r->label);
    }
    for (int k = 0; k < 2; k++)
        if (a->n_flight_runs[k])
            qsort(a->flight_runs[k], a->n_flight_runs[k], sizeof(char *), app_cmp_str);
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
        int k = kinds[j].restore;
        char **sel = NULL;
        size_t nsel = app_selector_batches(kinds[j].key, (const char *const *)a->flight_runs[k],
                                           a->n_flight_runs[k], APP_FLIGHT_MAX_NAMES,
                                           APP_FLIGHT_MAX_BYTES, &sel);
        for (size_t b = 0; b < nsel; b++) {
            kc_reflector_opts o = {0};
            o.api_path = app_defs[kinds[j].which].api_path;
            o.resource = app_defs[kinds[j].which].resource;
            o.ns = a->ns;
            o.label_selector = sel[b];
            o.additive = 1;
            a->flight = xrealloc(a->flight, (a->n_flight + 1) * sizeof *a->flight);
            app_flight *f = &a->flight[a->n_flight++];
            f->which = kinds[j].which;
            f->refl = kc_reflector_new(a->client, &o, a->stores[kinds[j].which]);
            kc_reflector_on_status(f->refl, app_on_flight_status, a);
            free(sel[b]);
        }
        free(sel);
    }
    /* both feed the same store from here on: a list's older state never overwrites a watch's */
    app_hook *hooks = a->hooks;
    for (int i = APP_R_PVBS; i <= APP_R_DDS && a->n_flight; i++)
        kc_store_set_filter(a->stores[i], app_keep_volume, &hooks[i]);
    a->load_phase = APP_LOAD_FLIGHT;
    for (size_t i = 0; i < a->n_flight; i++) kc_reflector_start(a->flight[i].refl);
}

/* A first list that is in, or that will not come soon (failed, or waiting to retry): the next
 * phase does not wait for it. */
static int app_first_list_over(const kc_refl_status *st)
{
    return st->synced || st->state == KC_REFL_FAILED || st->state == KC_REFL_RETRYING ||
           (st->attempt > 0 && st->last_error[0]);
}

static void app_release_history(app *a)
{
    if (a->release_timer) kc_loop_cancel(a->loop, a->release_timer);
    a->release_timer = 0;
    for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) {
        kc_reflector_release(a->refl[i]);
        kc_reflector_start(a->refl[i]); /* withdrawn (a fast link) or a summary's: asked for now */
    }
}

static void app_release_timer(void *arg)
{
    app *a = arg;
    a->release_timer = 0;
    app_release_history(a);
    /* a history not held (a summary's) may be in already, its last news having come while an
     * in-flight reflector's callback could not end the phase */
    app_advance(a, 0);
}

void app_frame_drawn(app *a)
{
    if (a && a->release_timer) app_release_history(a);
}

/* Moves the load on as its phases end (every status change). from_flight: called from an
 * in-flight reflector's own callback, which must not be freed under it. */
static void app_advance(app *a, int from_flight)
{
    a->model->vols_partial = a->load_phase < APP_LOAD_HISTORY ||
                             (a->load_phase == APP_LOAD_HISTORY && !app_volumes_listed(a));
    if (a->load_phase == APP_LOAD_RUNS) {
        if (!app_first_list_over(kc_reflector_status(a->refl[APP_R_BACKUPS])) ||
            !app_first_list_over(kc_reflector_status(a->refl[APP_R_RESTORES])))
            return;
        app_flight_start(a);
    }
    if (a->load_phase == APP_LOAD_FLIGHT) {
        for (size_t i = 0; i < a->n_flight; i++)
            if (!app_first_list_over(kc_reflector_status(a->flight[i].refl))) return;
        a->load_phase = APP_LOAD_HISTORY;
        a->model->gen++; /* the runs in flight are whole: their rows change */
        /* the history's held answers are read from the loop's next pass, or, for a screen
         * (hold_for_frame), once a frame shows the runs in flight whole (app_frame_drawn), else
         * after APP_HISTORY_HOLD_MS: on loopback they are all there, and reading them first
         * would push that frame out by their parse */
        if (!a->release_timer)
            a->release_timer = kc_loop_timer(a->loop, a->hold_for_frame ? APP_HISTORY_HOLD_MS : 0,
                                             app_release_timer, a);
    }
    if (a->load_phase == APP_LOAD_HISTORY) {
        int done = 1;
        for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) {
            const kc_refl_status *st = kc_reflector_status(a->refl[i]);
            /* in and watched from its resourceVersion on (it sees every change the part's watch
             * would), or given up for good (a resource this Velero does not have: the part's
             * list failed the same way) */
            int over = st->synced || st->state == KC_REFL_FAILED;
            done &= over;
            if (over && !from_flight) {
                app_flight_free(a, i);
                app_flight_filter_off(a, i);
            }
        }
        if (done && !from_flight) {
            a->load_phase = APP_LOAD_DONE;
            a->model->gen++;
        }
        /* a list refused or failing counts as listed here, as app_volumes_listed says: what it
         * hides is said as missing, not as loading */
        a->model->vols_partial = a->load_phase == APP_LOAD_HISTORY && !app_volumes_listed(a);
    }
}

int app_run_volumes_listed(const app *a, const model_run *r)
{
    if (app_volumes_listed(a)) return 1;
    if (!r || a->load_phase < APP_LOAD_HISTORY || !r->label) return 0;
    int k = r->kind == VL_RESTORE;
    for (size_t i = 0; i < a->n_flight_runs[k]; i++)
        if (!strcmp(a->flight_runs[k][i], r->label)) return 1;
    return 0;
}

int app_history_loading(const app *a, long *listed)
{
    long n = 0;
    for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) n += kc_reflector_status(a->refl[i])->listed;
    if (listed) *listed = n;
    return a->load_phase < APP_LOAD_DONE && !app_volumes_listed(a);
}

static app *app_start(kc_loop *loop, kc_client *client, const char *context, const char *server,
                      const char *ns, int recent);

static int app_flight_first = 1;

void app_set_in_flight_first(int on)
{
    app_flight_first = on;
}

app *app_new(kc_loop *loop, kc_client *client, const char *context, const char *server,
             const char *ns)
{
    return app_start(loop, client, context, server, ns, 0);
}

app *app_new_summary(kc_loop *loop, kc_client *client, const char *context, const char *server,
                     const char *ns)
{
    return app_start(loop, client, context, server, ns, 1);
}

/* Store and reflector i (the decoder: whole, or what a summary keeps of the volumes). */
static void app_watch(app *a, int i)
{
    app_hook *hooks = a->hooks;
    a->stores[i] = kc_store_new(app_defs[i].decode, app_defs[i].release);
    if (a->volumes_recent && i >= APP_R_PVBS && i <= APP_R_DDS)
        kc_store_set_decoder(a->stores[i], app_summary_decode, &hooks[i]);
    kc_store_on_change(a->stores[i], app_on_store, &hooks[i]);
    kc_reflector_opts o = {0};
    o.api_path = app_defs[i].api_path;
    o.resource = app_defs[i].resource;
    o.label_selector = app_defs[i].label_selector;
    o.ns = a->ns;
    /* in flight first: the history's lists go out with the runs list, but are read only when
     * the runs in flight are whole (app_advance); over a slow link their bytes travel
     * meanwhile, over a fast one they are withdrawn (APP_LINK_*). Not a summary's: a held
     * answer costs what libcurl keeps of a paused transfer (what it had read and inflated,
     * ~160 KB a list here), 660 KB a context at 300 contexts, twice what the context holds
     * after; and a summary holds little of the history, which is cheap to skip */
    o.held = app_flight_first && !a->volumes_recent && a->load_phase < APP_LOAD_HISTORY &&
             i >= APP_R_PVBS && i <= APP_R_DDS;
    a->refl[i] = kc_reflector_new(a->client, &o, a->stores[i]);
    kc_reflector_on_status(a->refl[i], app_on_status, &hooks[i]);
}

static void app_forget_volume(void *arg, const char *key, void *obj)
{
    (void)obj;
    void **p = arg;
    app *a = p[0];
    vl_kind kind = *(vl_kind *)p[1];
    model_remove_volume(a->model, kind, app_key_name(key));
}

void app_load_all_volumes(app *a)
{
    if (!a || !a->volumes_recent) return;
    a->volumes_recent = 0;
    app_volumes_again(a);
}

/* The four volume lists listed again into new stores (whole, or what a summary keeps). */
static void app_volumes_again(app *a)
{
    if (a->keep_timer) kc_loop_cancel(a->loop, a->keep_timer);
    a->keep_timer = 0;
    a->n_dropped = 0; /* decided again as they come */
    static const vl_kind kinds[] = {
        [APP_R_PVBS] = VL_PVB, [APP_R_PVRS] = VL_PVR, [APP_R_DUS] = VL_DU, [APP_R_DDS] = VL_DD};
    /* the in-flight lists fed the stores that go: listed again, whole or in flight first */
    int started = a->load_phase >= APP_LOAD_HISTORY;
    app_flight_free(a, -1);
    for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) {
        app_flight_filter_off(a, i);
        kc_reflector_free(a->refl[i]);
        vl_kind k = kinds[i];
        void *p[2] = {a, &k};
        kc_store_foreach(a->stores[i], app_forget_volume, p); /* the model borrows them */
        kc_store_free(a->stores[i]);
        app_watch(a, i);
        /* held (app_watch) until in flight is in; over a fast link not asked for till then */
        if (started || a->link != APP_LINK_FAST) kc_reflector_start(a->refl[i]);
    }
    if (!started) { /* not begun yet, or in flight: in flight first again */
        a->load_phase = APP_LOAD_RUNS;
        app_advance(a, 0);
    }
    a->gen_status++;
    a->model->gen++;
}

static app *app_start(kc_loop *loop, kc_client *client, const char *context, const char *server,
                      const char *ns, int recent)
{
    app *a = xcalloc(1, sizeof(*a));
    a->slow_link_ms = APP_SLOW_LINK_MS;
    a->volumes_recent = recent;
    a->loop = loop;
    a->client = client;
    a->context = xstrdup(context ? context : "");
    a->server = kc_url_redact(server ? server : ""); /* shown in the header and --once */
    a->ns = xstrdup(ns ? ns : "velero");
    a->model = model_new();
    a->hooks = xcalloc(APP_NREFL, sizeof(app_hook));
    app_hook *hooks = a->hooks;
    for (int i = 0; i < APP_NREFL; i++) {
        hooks[i].a = a;
        hooks[i].which = i;
        app_watch(a, i);
    }
    /* every list goes out at once; in flight first, the history's are held (app_watch) until
     * the runs in flight are whole (app_advance), or withdrawn over a fast link (APP_LINK_*); a
     * summary's go out when its runs in flight are whole (app_release_history), so that what it
     * keeps of them is decided knowing their runs */
    if (!app_flight_first) a->load_phase = APP_LOAD_HISTORY;
    for (int i = 0; i < APP_NREFL; i++)
        if (!(recent && app_flight_first && i >= APP_R_PVBS && i <= APP_R_DDS))
            kc_reflector_start(a->refl[i]);
    a->liveness = kc_liveness_new(client, &(kc_liveness_opts){.on_back = app_on_back, .arg = a});
    return a;
}

void app_free(app *a)
{
    if (!a) return;
    kc_liveness_free(a->liveness);
    if (a->release_timer) kc_loop_cancel(a->loop, a->release_timer);
    if (a->keep_timer) kc_loop_cancel(a->loop, a->keep_timer);
    free(a->keep);
    free(a->dropped);
    app_flight_free(a, -1);
    app_flight_forget_runs(a);
    for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) app_flight_filter_off(a, i);
    for (int i = 0; i < APP_NREFL; i++) kc_reflector_free(a->refl[i]);
    /* the model borrows the stores' objects: free it first */
    model_free(a->model);
    a->model = NULL;
    for (int i = 0; i < APP_NREFL; i++) kc_store_free(a->stores[i]);
    free(a->hooks);
    free(a->context);
    free(a->server);
    free(a->ns);
    free(a->cacert);
    for (size_t i = 0; i < a->n_bsl_seen; i++) free(a->bsl_seen[i].name);
    free(a->bsl_seen);
    free(a);
}

/* Schedules, locations and pods only add to the picture: when they cannot be read (absent, or
 * not allowed to this user) the runs are still live. */
static int app_optional_down(int i, const kc_refl_status *st)
{
    return i >= APP_R_SCHEDULES &&
           (st->state == KC_REFL_FAILED || (st->state == KC_REFL_RETRYING && !st->synced &&
                                            (st->last_status == 403 || st->last_status == 401)));
}

void app_download_trust(app *a, int restore, const char *run, kc_buf *out)
{
    if (a->cacert) {
        kc_buf_append(out, a->cacert, a->cacert_len);
        kc_buf_append(out, "\n", 1);
    }
    const char *backup = run;
    if (restore) {
        const vl_run *r = run ? kc_store_get(a->stores[APP_R_RESTORES], a->ns, run) : NULL;
        backup = r ? r->backup_name : NULL;
    }
    const vl_run *b = backup ? kc_store_get(a->stores[APP_R_BACKUPS], a->ns, backup) : NULL;
    const char *loc = b ? b->storage_location : NULL;
    const vl_bsl *bsl = loc ? kc_store_get(a->stores[APP_R_BSLS], a->ns, loc) : NULL;
    if (bsl && bsl->ca_cert) {
        kc_buf_append(out, bsl->ca_cert, bsl->ca_cert_len);
        kc_buf_append(out, "\n", 1);
    }
}

kc_download *app_download(app *a, kc_download_opts *o, kc_download_data_fn data,
                          kc_download_done_fn done, void *arg)
{
    kc_buf ca = {0};
    app_download_trust(a, o->kind && !strncmp(o->kind, "Restore", 7), o->target, &ca);
    o->ca_pem = ca.data;
    o->ca_pem_len = ca.len;
    kc_download *d = kc_download_start(a->client, o, data, done, arg); /* copies the trust */
    kc_buf_free(&ca);
    o->ca_pem = NULL;
    o->ca_pem_len = 0;
    return d;
}

int app_synced(const app *a)
{
    for (int i = 0; i < APP_NREFL; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (!st->synced && st->state != KC_REFL_FAILED && !app_optional_down(i, st)) return 0;
    }
    return 1;
}

int app_volumes_listed(const app *a)
{
    for (int i = APP_R_PVBS; i <= APP_R_DDS; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (!st->synced && st->state != KC_REFL_FAILED && st->state != KC_REFL_RETRYING) return 0;
    }
    return 1;
}

void app_connection(const app *a, double now, app_conn *out)
{
    memset(out, 0, sizeof(*out));
    int live = 1;
    int64_t now_ms = (int64_t)(now * 1000.0), next = 0, stale = 0;
    int listed = 0;
    for (int i = 0; i < APP_NREFL; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        /* schedules and locations are not essential for the lamp when they fail for good (while
         * forbidden the lamp says forbidden, with the reason); pods are no Velero data: when this
         * user may not read them the runs are still live; nor are repositories (their rows say
         * why they are unknown) */
        if (st->state == KC_REFL_FAILED && i >= APP_R_SCHEDULES) continue;
        if ((i == APP_R_PODS || i == APP_R_REPOS || i == APP_R_JOBS) && app_optional_down(i, st))
            continue;
        if (st->state != KC_REFL_LIVE) live = 0;
        /* a re-list waiting its backoff is a retry too (not "connecting" for up to 30 s) */
        if (st->state == KC_REFL_RETRYING ||
            (st->state == KC_REFL_SYNCING && st->next_try_ms > now_ms)) {
            out->retrying = 1;
            if (st->attempt > out->attempt) out->attempt = st->attempt;
            if (!next || st->next_try_ms < next) next = st->next_try_ms;
        }
        if (st->last_error[0] && st->state != KC_REFL_LIVE && !out->error[0]) {
            snprintf(out->error, sizeof out->error, "%s", st->last_error);
            if (st->last_status == 403 || st->last_status == 401) out->refused = st->last_status;
        }
        /* staleness from what arrived, per resource: the runs and their volumes that were
         * listed (data that was never there is not stale) and whose watch is not open */
        if (i < APP_R_SCHEDULES) listed |= st->synced;
        if (i < APP_R_SCHEDULES && st->synced && st->stale_since_ms &&
            (!stale || st->stale_since_ms < stale))
            stale = st->stale_since_ms;
    }
    int64_t silent = a->liveness ? kc_liveness_silent_ms(a->liveness, now_ms) : 0;
    if (silent > 0) {
        /* open watches say nothing when the server hangs: its data is as old as its last word */
        live = 0;
        out->silent_s = (double)silent / 1000.0;
        if (listed && (!stale || now_ms - silent < stale)) stale = now_ms - silent;
    }
    out->live = live;
    out->next_try_s = next ? (double)(next - now_ms) / 1000.0 : 0;
    if (stale && (double)(now_ms - stale) >= APP_STALE_GRACE_S * 1000.0)
        out->stale_since = (double)stale / 1000.0;
}

int app_no_velero(const app *a)
{
    static const int which[] = {APP_R_BACKUPS, APP_R_RESTORES, APP_R_BSLS};
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        if (!kc_reflector_status(a->refl[which[i]])->synced) return 0;
        if (kc_store_len(a->stores[which[i]])) return 0;
    }
    return 1;
}
