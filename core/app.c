/* app.c: the program's wiring: one reflector and store per watched resource in the Velero
 * namespace, store changes applied to the model (runs, volumes, trackers), and the connection
 * summary for the header lamp. */
#include "app.h"

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

/* A fleet's summary keeps the volumes of runs in flight, not the history: a volume in progress,
 * or finished recently (a run in flight started within that time); the rest is kept as a key
 * only (kc_decode_fn's NULL), so that nothing of it is held. */
static void *app_recent_volume(void *v)
{
    vl_volume *vol = v;
    if (!vol) return NULL;
    double end = vol->completed > 0 ? vol->completed : vol->started;
    if (vl_phase_active(vol->phase_id) || vol->phase_id == VL_PH_NEW || end <= 0 ||
        end >= kc_wall_now() - APP_RECENT_VOLUMES_S)
        return vol;
    vl_release_volume(vol);
    return NULL;
}
static void *app_recent_pvb(const cJSON *o)
{
    return app_recent_volume(vl_decode_pvb(o));
}
static void *app_recent_pvr(const cJSON *o)
{
    return app_recent_volume(vl_decode_pvr(o));
}
static void *app_recent_du(const cJSON *o)
{
    return app_recent_volume(vl_decode_du(o));
}
static void *app_recent_dd(const cJSON *o)
{
    return app_recent_volume(vl_decode_dd(o));
}
static const kc_decode_fn app_recent_decode[APP_NREFL] = {
    [APP_R_PVBS] = app_recent_pvb,
    [APP_R_PVRS] = app_recent_pvr,
    [APP_R_DUS] = app_recent_du,
    [APP_R_DDS] = app_recent_dd,
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
        if (type == KC_EV_DELETED || !obj) {
            model_remove_run(m, kind, app_key_name(key));
        } else {
            vl_run *r = obj;
            r->kind = kind;
            model_upsert_run(m, r, now, kc_wall_now());
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
        a->link = st->first_headers_ms >= APP_SLOW_LINK_MS ? APP_LINK_SLOW : APP_LINK_FAST;
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
        kc_reflector_start(a->refl[i]); /* withdrawn (a fast link): asked for now, not held */
    }
}

static void app_release_timer(void *arg)
{
    app *a = arg;
    a->release_timer = 0;
    app_release_history(a);
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

/* Store and reflector i (the decoder: whole, or a summary's recent volumes). */
static void app_watch(app *a, int i)
{
    app_hook *hooks = a->hooks;
    kc_decode_fn dec =
        a->volumes_recent && app_recent_decode[i] ? app_recent_decode[i] : app_defs[i].decode;
    a->stores[i] = kc_store_new(dec, app_defs[i].release);
    kc_store_on_change(a->stores[i], app_on_store, &hooks[i]);
    kc_reflector_opts o = {0};
    o.api_path = app_defs[i].api_path;
    o.resource = app_defs[i].resource;
    o.label_selector = app_defs[i].label_selector;
    o.ns = a->ns;
    /* in flight first: the history's lists go out with the runs list, but are read only when
     * the runs in flight are whole (app_advance); over a slow link their bytes travel
     * meanwhile, over a fast one they are withdrawn (APP_LINK_*) */
    o.held =
        app_flight_first && a->load_phase < APP_LOAD_HISTORY && i >= APP_R_PVBS && i <= APP_R_DDS;
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
     * the runs in flight are whole (app_advance), or withdrawn over a fast link (APP_LINK_*) */
    if (!app_flight_first) a->load_phase = APP_LOAD_HISTORY;
    for (int i = 0; i < APP_NREFL; i++) kc_reflector_start(a->refl[i]);
    a->liveness = kc_liveness_new(client, &(kc_liveness_opts){.on_back = app_on_back, .arg = a});
    return a;
}

void app_free(app *a)
{
    if (!a) return;
    kc_liveness_free(a->liveness);
    if (a->release_timer) kc_loop_cancel(a->loop, a->release_timer);
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
