/* logderive.c: log-derived per-resource progress for runs without status.resourceProgress. */
#include "logderive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "kubeclient/discovery.h"
#include "kubeclient/download.h"
#include "kubeclient/podlog.h"
#include "kubeclient/util.h"
#include "logprogress.h"
#include "reslist.h"

/* Resource-list downloads in flight at once (each is a DownloadRequest and a GET). */
#define LD_PARALLEL 4

/* Bytes of a downloaded resource list scanned per loop turn: a few ms, so keys, signals and
 * deadlines are seen while a 64 MiB list is read (reslist.h). */
#define LD_SCAN_SLICE ((size_t)1 << 20)

typedef enum {
    LD_F_QUEUED,   /* waiting for a download slot */
    LD_F_RUNNING,  /* downloading */
    LD_F_FETCHED,  /* downloaded; a restore's totals wait for its filter before the scan */
    LD_F_SCANNING, /* read in slices from the loop */
    LD_F_DONE,
    LD_F_FAILED
} ld_fstate;

/* One resource-list artifact to fetch: queued until fewer than LD_PARALLEL run. */
typedef struct ld_fetch {
    struct logderive *d;
    const char *kind; /* "BackupResourceList" / "RestoreResourceList" */
    char *target;
    ld_fstate state;
    kc_download *dl;
    kc_buf body;                      /* the resource list's JSON until scanned */
    reslist *rl;                      /* its counts (SCANNING, DONE) */
    size_t scanned;                   /* bytes of body scanned */
    uint64_t scan_timer;              /* the next slice */
    int need_filter;                  /* a restore's totals: scanned with its filter */
    char *note;                       /* FAILED: why (kc_download's message) */
    void (*done)(struct ld_fetch *f); /* the owner's: state is DONE or FAILED */
    void *owner;
} ld_fetch;

/* A run in progress followed through the Velero pod's log. */
typedef struct ld_run {
    vl_kind kind;
    char *name, *ref;
    lprog *lp;
    int dirty, seen;
    ld_fetch *totals;     /* restores: the backup's resource list, for per-resource totals */
    kc_request *spec_req; /* restores: GET of the Restore, for its filters */
    lprog_filter filter;
    int have_filter; /* 1: filter is the restore's; -1: it could not be read */
    struct logderive *d;
    double last_time;    /* the newest line of this run: its time= (unix s), for diagnose.c */
    char last_line[256]; /* ... and its msg= */
} ld_run;

/* A finished run's resource list (cached). */
typedef struct ld_list {
    vl_kind kind;
    char *name;
    int applied; /* set as the run's rows at least once: the rows come from the artifact */
    ld_fetch *f;
    char *label; /* logderive_source's text for it */
} ld_list;

struct logderive {
    app *a;
    ld_run **runs;
    size_t n, cap;
    kc_podlog *pl;
    double since;
    lp_line scratch;
    ld_list **lists;
    size_t nl, capl;
    ld_fetch **queue; /* fetches waiting for a slot, in order */
    size_t nq, capq;
    int active;   /* fetches running */
    int scanning; /* fetches being scanned */
    uint64_t scan_timer, push_timer;
    kc_discovery *disc; /* Kind -> plural for resource lists */
    int once;           /* --once: no follow, only the runs logderive_once picked */
    int64_t deadline;   /* --once: kc_now_ms() by which every fetch must have ended */
};

_Static_assert(LPROG_ACTIVE == MODEL_RES_ACTIVE && LPROG_ESTIMATE == MODEL_RES_ESTIMATE &&
                   LPROG_NO_TOTAL == MODEL_RES_NO_TOTAL,
               "the log's row flags are the model's");

int logderive_log_stored(const vl_run *r)
{
    switch (r->phase_id) {
    case VL_PH_COMPLETED:
    case VL_PH_PARTIALLY_FAILED:
    case VL_PH_FAILED:
    case VL_PH_FAILED_VALIDATION:
    case VL_PH_WAITING_PLUGIN_OPS:
    case VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED:
    case VL_PH_FINALIZING:
    case VL_PH_FINALIZING_PARTIALLY_FAILED:
    case VL_PH_DELETING:
        return 1;
    default:
        return 0;
    }
}

static double ld_mono(void)
{
    return (double)kc_now_ms() / 1000.0;
}

static void ld_changed(logderive *d)
{
    if (d->a->on_change) d->a->on_change(d->a->on_change_arg);
}

/* ---- resource-list fetches, at most LD_PARALLEL at once ---- */

static void ld_pump(logderive *d);
static void ld_drop_queue(logderive *d);
static size_t ld_rows(logderive *d, const struct ld_fetch *f, const lprog_filter *filter,
                      vl_res_progress **res, unsigned char **estimate);

static void ld_fetch_data(void *arg, const char *data, size_t n)
{
    ld_fetch *f = arg;
    kc_buf_append(&f->body, data, n);
}

static void ld_scan_slice(void *arg)
{
    ld_fetch *f = arg;
    logderive *d = f->d;
    f->scan_timer = 0;
    size_t n = f->body.len - f->scanned;
    if (n > LD_SCAN_SLICE) n = LD_SCAN_SLICE;
    kc_err e = {0};
    int bad = reslist_feed(f->rl, f->body.data ? f->body.data + f->scanned : "", n, &e);
    f->scanned += n;
    if (!bad && f->scanned < f->body.len) {
        f->scan_timer = kc_loop_timer(d->a->loop, 0, ld_scan_slice, f);
        return;
    }
    if (!bad) bad = reslist_finish(f->rl, &e);
    d->scanning--;
    kc_buf_free(&f->body);
    if (bad) {
        f->state = LD_F_FAILED;
        free(f->note);
        f->note = xasprintf("the %s is not usable: %s", f->kind, e.msg);
    } else { /* ask discovery for its kinds now (--once waits for them) */
        f->state = LD_F_DONE;
        vl_res_progress *res;
        size_t rn = ld_rows(d, f, NULL, &res, NULL);
        lprog_res_free(res, rn);
    }
    if (f->done) f->done(f);
}

/* Reads the downloaded list in slices from the loop; filter: a restore's (borrowed). */
static void ld_scan_start(ld_fetch *f, const lprog_filter *filter)
{
    f->rl = reslist_new(filter);
    f->state = LD_F_SCANNING;
    f->d->scanning++;
    f->scan_timer = kc_loop_timer(f->d->a->loop, 0, ld_scan_slice, f);
}

static void ld_fetch_done(void *arg, const kc_err *err)
{
    ld_fetch *f = arg;
    logderive *d = f->d;
    kc_download_free(f->dl);
    f->dl = NULL;
    d->active--;
    /* --once: Velero does not answer DownloadRequests (server down, BSL unavailable); the
     * others would wait as long */
    if (d->once && !strcmp(err->msg, KC_DL_URL_TIMEOUT_MSG)) ld_drop_queue(d);
    if (err->msg[0]) {
        f->state = LD_F_FAILED;
        kc_buf_free(&f->body);
        free(f->note);
        f->note = xstrdup(err->msg); /* "downloading BackupResourceList: <why>", ... */
        if (f->done) f->done(f);
    } else if (f->need_filter) {
        f->state = LD_F_FETCHED;
        if (f->done) f->done(f); /* the owner starts the scan once it has the filter */
    } else {
        ld_scan_start(f, NULL);
    }
    ld_pump(d);
}

static void ld_fetch_run(ld_fetch *f)
{
    logderive *d = f->d;
    kc_download_opts o = {
        .ns = d->a->ns, .kind = f->kind, .target = f->target, .url_timeout_ms = 30000};
    if (d->once) {
        /* time out waiting for the URL early enough to delete the request before the end */
        int64_t left = d->deadline - kc_now_ms() - 500;
        if (left < 300) {
            f->state = LD_F_FAILED;
            free(f->note);
            f->note = xasprintf("%s not fetched: no time left before the --once deadline", f->kind);
            if (f->done) f->done(f);
            return;
        }
        if (left < o.url_timeout_ms) o.url_timeout_ms = (long)left;
    }
    f->state = LD_F_RUNNING;
    d->active++;
    f->dl = app_download(d->a, &o, ld_fetch_data, ld_fetch_done, f);
}

/* Fails every queued fetch without starting it. */
static void ld_drop_queue(logderive *d)
{
    while (d->nq) {
        ld_fetch *f = d->queue[--d->nq];
        f->state = LD_F_FAILED;
        free(f->note);
        f->note =
            xasprintf("%s not fetched: Velero did not answer an earlier DownloadRequest", f->kind);
        if (f->done) f->done(f);
    }
}

static void ld_pump(logderive *d)
{
    while (d->nq && d->active < LD_PARALLEL) {
        ld_fetch *f = d->queue[0];
        memmove(d->queue, d->queue + 1, --d->nq * sizeof *d->queue);
        ld_fetch_run(f); /* may reenter (a done callback pumps again): f is off the queue */
    }
}

static ld_fetch *ld_fetch_new(logderive *d, const char *kind, const char *target,
                              void (*done)(ld_fetch *), void *owner)
{
    ld_fetch *f = xcalloc(1, sizeof *f);
    f->d = d;
    f->kind = kind;
    f->target = xstrdup(target);
    f->done = done;
    f->owner = owner;
    f->state = LD_F_QUEUED;
    if (d->nq == d->capq) {
        d->capq = d->capq ? d->capq * 2 : 8;
        d->queue = xrealloc(d->queue, d->capq * sizeof *d->queue);
    }
    d->queue[d->nq++] = f;
    ld_pump(d);
    return f;
}

static void ld_fetch_free(ld_fetch *f)
{
    if (!f) return;
    logderive *d = f->d;
    if (f->state == LD_F_QUEUED) {
        for (size_t i = 0; i < d->nq; i++)
            if (d->queue[i] == f) {
                memmove(d->queue + i, d->queue + i + 1, (d->nq - i - 1) * sizeof *d->queue);
                d->nq--;
                break;
            }
    } else if (f->state == LD_F_RUNNING) {
        d->active--;
    } else if (f->state == LD_F_SCANNING) {
        d->scanning--;
    }
    if (f->scan_timer) kc_loop_cancel(d->a->loop, f->scan_timer);
    reslist_free(f->rl);
    kc_download_free(f->dl);
    kc_buf_free(&f->body);
    free(f->note);
    free(f->target);
    free(f);
}

/* ---- runs in progress: the live log ---- */

static void ld_push(void *arg)
{
    logderive *d = arg;
    d->push_timer = 0;
    int any = 0;
    for (size_t i = 0; i < d->n; i++) {
        ld_run *r = d->runs[i];
        if (!r->dirty) continue;
        r->dirty = 0;
        model_run *mr = model_find_run(d->a->model, r->kind, r->name);
        if (!mr) continue;
        const vl_res_progress *res;
        const unsigned char *flags;
        size_t n = lprog_resources(r->lp, &res, &flags);
        if (!n) continue;
        model_run_set_derived(d->a->model, mr, res, n, flags, ld_mono());
        any = 1;
    }
    if (any) ld_changed(d);
}

/* The run's newest line, for the log-silent rule (diagnose.h). */
static void ld_note_line(const logderive *d, ld_run *x, const lp_line *l)
{
    const char *t = lp_get(l, "time"), *msg = lp_get(l, "msg");
    double when; /* the cluster's clock, as the lines' own times */
    if (!t || kc_parse_time(t, &when)) when = model_cluster_now(d->a->model, kc_wall_now());
    if (when < x->last_time) return;
    x->last_time = when;
    snprintf(x->last_line, sizeof x->last_line, "%s", msg ? msg : "");
}

int logderive_last_line(const logderive *d, const model_run *r, double *when, const char **line)
{
    if (!d || !r || !d->pl || kc_podlog_state(d->pl) != KC_PL_STREAMING) return 0;
    const ld_run *x = NULL;
    for (size_t j = 0; j < d->n && !x; j++)
        if (d->runs[j]->kind == r->kind && !strcmp(d->runs[j]->name, r->name)) x = d->runs[j];
    if (!x || x->last_time <= 0) return 0;
    *when = x->last_time;
    *line = x->last_line;
    return 1;
}

static void ld_line(void *arg, const char *line, size_t n)
{
    logderive *d = arg;
    if (lp_parse(&d->scratch, line, n)) return;
    const char *b = lp_get(&d->scratch, "backup"), *r = lp_get(&d->scratch, "restore");
    for (size_t i = 0; i < d->n; i++) {
        ld_run *x = d->runs[i];
        const char *ref = x->kind == VL_BACKUP ? b : r;
        if (!ref || strcmp(ref, x->ref)) continue;
        if (lprog_feed(x->lp, &d->scratch)) x->dirty = 1;
        ld_note_line(d, x, &d->scratch);
    }
    if (!d->push_timer && !d->once) d->push_timer = kc_loop_timer(d->a->loop, 200, ld_push, d);
}

static void ld_follow(logderive *d, double since)
{
    kc_podlog_free(d->pl);
    for (size_t i = 0; i < d->n; i++) lprog_reset(d->runs[i]->lp);
    d->since = since;
    kc_podlog_opts o = {.ns = d->a->ns, .since = since > 2 ? since - 1 : 0, .no_follow = d->once};
    d->pl = kc_podlog_start(d->a->client, &o, ld_line, NULL, d);
}

/* Kind -> plural by the API server's discovery; NULL while unknown (then guessed). */
static const char *ld_resolve(void *arg, const char *gv, const char *kind)
{
    logderive *d = arg;
    const char *plural;
    return kc_discovery_plural(d->disc, gv, kind, &plural) == 1 ? plural : NULL;
}

/* A fetched resource list's rows (filter NULL: a finished run's). */
static size_t ld_rows(logderive *d, const ld_fetch *f, const lprog_filter *filter,
                      vl_res_progress **res, unsigned char **estimate)
{
    size_t n = 0;
    if (estimate) *estimate = NULL;
    *res = NULL;
    if (f->state == LD_F_DONE) reslist_rows(f->rl, filter, ld_resolve, d, res, &n, estimate);
    return n;
}

/* A restore's totals: its backup's resource list narrowed by its own filters, once both are in;
 * again when discovery names more kinds. */
static void ld_run_totals(ld_run *r)
{
    if (!r->totals || !r->have_filter) return;
    if (r->totals->state == LD_F_FETCHED) ld_scan_start(r->totals, &r->filter);
    if (r->totals->state != LD_F_DONE) return;
    vl_res_progress *res;
    unsigned char *est;
    size_t n = ld_rows(r->d, r->totals, &r->filter, &res, &est);
    for (size_t i = 0; est && i < n && r->have_filter < 0; i++) est[i] = 1; /* spec unread */
    lprog_set_totals(r->lp, res, n, est);
    lprog_res_free(res, n);
    free(est);
    r->dirty = 1;
    if (!r->d->push_timer && !r->d->once)
        r->d->push_timer = kc_loop_timer(r->d->a->loop, 0, ld_push, r->d);
}

static void ld_run_totals_done(ld_fetch *f)
{
    ld_run_totals(f->owner);
}

static void ld_spec_done(void *arg, const kc_response *resp, const kc_err *err)
{
    ld_run *r = arg;
    r->spec_req = NULL;
    cJSON *o =
        err->msg[0] ? NULL : cJSON_ParseWithLength(resp->body ? resp->body : "", resp->body_len);
    r->have_filter = cJSON_IsObject(o) ? 1 : -1; /* unread: every entry counts, an estimate */
    if (o) lprog_filter_from_restore(&r->filter, o);
    cJSON_Delete(o);
    ld_run_totals(r);
}

static void ld_run_free(ld_run *r)
{
    if (!r) return;
    if (r->spec_req) kc_request_cancel(r->spec_req);
    lprog_filter_free(&r->filter);
    ld_fetch_free(r->totals);
    lprog_free(r->lp);
    free(r->name);
    free(r->ref);
    free(r);
}

/* In progress and without resourceProgress: its rows come from the live log. */
static int ld_needs_log(const model_run *mr)
{
    const vl_run *r = mr->run;
    return r && !r->has_resource_progress && !logderive_log_stored(r) &&
           (r->phase_id == VL_PH_IN_PROGRESS || vl_phase_active(r->phase_id));
}

/* Finished and without resourceProgress: its rows come from its resource list. */
static int ld_needs_list(const model_run *mr)
{
    const vl_run *r = mr->run;
    return r && !r->has_resource_progress && logderive_log_stored(r) &&
           r->phase_id != VL_PH_FAILED_VALIDATION; /* never wrote artifacts */
}

static double ld_start_of(const model_run *mr)
{
    return mr->run->started > 0 ? mr->run->started : mr->run->meta.created;
}

static ld_run *ld_run_find(logderive *d, vl_kind kind, const char *name)
{
    for (size_t j = 0; j < d->n; j++)
        if (d->runs[j]->kind == kind && !strcmp(d->runs[j]->name, name)) return d->runs[j];
    return NULL;
}

static ld_run *ld_run_add(logderive *d, model_run *mr)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->runs = xrealloc(d->runs, d->cap * sizeof *d->runs);
    }
    ld_run *r = xcalloc(1, sizeof *r);
    r->d = d;
    r->kind = mr->kind;
    r->name = xstrdup(mr->name);
    r->ref = xasprintf("%s/%s", mr->run->meta.ns ? mr->run->meta.ns : d->a->ns, mr->name);
    r->lp = lprog_new(mr->kind == VL_RESTORE, r->ref);
    d->runs[d->n++] = r;
    if (mr->kind == VL_RESTORE && mr->run->backup_name) {
        r->totals =
            ld_fetch_new(d, "BackupResourceList", mr->run->backup_name, ld_run_totals_done, r);
        r->totals->need_filter = 1;
        char *ns = kc_url_escape(mr->run->meta.ns ? mr->run->meta.ns : d->a->ns),
             *name = kc_url_escape(mr->name);
        char *path = xasprintf("/apis/velero.io/v1/namespaces/%s/restores/%s", ns, name);
        kc_request_opts o = {.path = path, .timeout_ms = 30000};
        r->spec_req = kc_client_request(d->a->client, &o, NULL, ld_spec_done, r);
        free(path);
        free(ns);
        free(name);
    }
    return r;
}

/* (Re)starts the log stream when a followed run started before it. */
static void ld_follow_runs(logderive *d, int added)
{
    double earliest = 0;
    for (size_t i = 0; i < d->n; i++) {
        model_run *mr = model_find_run(d->a->model, d->runs[i]->kind, d->runs[i]->name);
        double st = mr && mr->run ? ld_start_of(mr) : 0;
        if (st > 0 && (earliest == 0 || st < earliest)) earliest = st;
    }
    if (d->n == 0) {
        kc_podlog_free(d->pl);
        d->pl = NULL;
        d->since = 0;
    } else if (!d->pl || (earliest > 0 && earliest < d->since) || (added && d->once)) {
        ld_follow(d, earliest);
    }
}

static void ld_scan(void *arg)
{
    logderive *d = arg;
    d->scan_timer = 0;
    model *m = d->a->model;
    for (size_t i = 0; i < d->n; i++) d->runs[i]->seen = 0;
    int added = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *mr = m->runs[i];
        if (!ld_needs_log(mr)) continue;
        ld_run *r = ld_run_find(d, mr->kind, mr->name);
        if (!r) {
            r = ld_run_add(d, mr);
            added = 1;
        }
        r->seen = 1;
    }
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->runs[i]->seen)
            d->runs[k++] = d->runs[i];
        else
            ld_run_free(d->runs[i]);
    }
    d->n = k;
    ld_follow_runs(d, added);
}

static void ld_on_store(void *arg, kc_event_type type, const char *key, void *obj)
{
    (void)type;
    (void)key;
    (void)obj;
    logderive *d = arg;
    if (!d->scan_timer) d->scan_timer = kc_loop_timer(d->a->loop, 100, ld_scan, d);
}

/* ---- finished runs: the resource list ---- */

static void ld_list_done(ld_fetch *f)
{
    ld_changed(f->d); /* the screen draws again and logderive_want applies it */
}

static ld_list *ld_list_get(logderive *d, vl_kind kind, const char *name, int create)
{
    for (size_t i = 0; i < d->nl; i++)
        if (d->lists[i]->kind == kind && !strcmp(d->lists[i]->name, name)) return d->lists[i];
    if (!create) return NULL;
    if (d->nl == d->capl) {
        d->capl = d->capl ? d->capl * 2 : 8;
        d->lists = xrealloc(d->lists, d->capl * sizeof *d->lists);
    }
    ld_list *l = xcalloc(1, sizeof *l);
    l->kind = kind;
    l->name = xstrdup(name);
    d->lists[d->nl++] = l;
    l->f = ld_fetch_new(d, kind == VL_BACKUP ? "BackupResourceList" : "RestoreResourceList", name,
                        ld_list_done, l);
    return l;
}

void logderive_want(logderive *d, model_run *r)
{
    if (!d || !r || !ld_needs_list(r)) return;
    ld_list *l = ld_list_get(d, r->kind, r->name, 1);
    if (l->f->state != LD_F_DONE || (l->applied && r->derived_from_log && r->n_derived)) return;
    l->applied = 1;
    vl_res_progress *res;
    size_t n = ld_rows(d, l->f, NULL, &res, NULL);
    model_run_set_derived(d->a->model, r, res, n, NULL, ld_mono());
    lprog_res_free(res, n);
}

const char *logderive_source(const logderive *d, const model_run *r)
{
    if (!r || r->n_res > 0 || !r->derived_from_log || !r->n_derived) return NULL;
    for (size_t i = 0; d && i < d->nl; i++) {
        ld_list *l = d->lists[i];
        if (!l->applied || l->kind != r->kind || strcmp(l->name, r->name)) continue;
        size_t cut = l->f->rl ? reslist_dropped(l->f->rl) : 0;
        if (!l->label)
            l->label = cut ? xasprintf("from the %s artifact, cut at %d resource types: %zu more "
                                       "left out",
                                       l->f->kind, KC_CAP_RESOURCE_ROWS, cut)
                           : xasprintf("from the %s artifact", l->f->kind);
        return l->label;
    }
    return "derived from the Velero server log";
}

const char *logderive_loading(const logderive *d, const model_run *r, char *buf, size_t n)
{
    if (!d || !r || !r->run || r->n_res > 0) return NULL;
    for (size_t i = 0; i < d->nl; i++) {
        const ld_list *l = d->lists[i];
        if (l->kind != r->kind || strcmp(l->name, r->name)) continue;
        const ld_fetch *f = l->f;
        switch (f->state) {
        case LD_F_QUEUED:
            snprintf(buf, n, "loading the %s: waiting for other downloads", f->kind);
            return buf;
        case LD_F_RUNNING:
            if (f->dl && kc_download_state(f->dl) == KC_DL_FETCHING)
                snprintf(buf, n, "loading the %s: downloading, %zu bytes received", f->kind,
                         kc_download_bytes_in(f->dl));
            else
                snprintf(buf, n, "loading the %s: %s", f->kind,
                         f->dl ? kc_download_state_name(kc_download_state(f->dl)) : "starting");
            return buf;
        case LD_F_FETCHED:
        case LD_F_SCANNING:
            snprintf(buf, n, "loading the %s: reading it, %zu of %zu KiB", f->kind,
                     f->scanned >> 10, f->body.len >> 10);
            return buf;
        default:
            return NULL;
        }
    }
    return NULL;
}

const char *logderive_note(const logderive *d, const model_run *r)
{
    if (!d || !r || !r->run || r->n_res > 0) return NULL;
    if (!r->n_derived)
        for (size_t i = 0; i < d->nl; i++) { /* a finished run's list that failed to come */
            const ld_list *l = d->lists[i];
            if (l->kind == r->kind && !strcmp(l->name, r->name) && l->f->state == LD_F_FAILED)
                return l->f->note;
        }
    for (size_t i = 0; i < d->n; i++) {
        const ld_run *x = d->runs[i];
        if (x->kind != r->kind || strcmp(x->name, r->name)) continue;
        /* the log is being read (or was, for --once) and has lines: else it is the reading that
         * fails, which the logs screen tells */
        if (!d->pl || !kc_podlog_lines(d->pl)) return NULL;
        return lprog_silent(x->lp, r->run->items_done) ? LOGDERIVE_SILENT_NOTE : NULL;
    }
    return NULL;
}

/* ---- lifetime ---- */

/* Discovery answered: names of kinds may change (guess -> the server's). */
static void ld_discovered(void *arg)
{
    logderive *d = arg;
    for (size_t i = 0; i < d->n; i++) ld_run_totals(d->runs[i]);
    for (size_t i = 0; i < d->nl; i++) d->lists[i]->applied = 0; /* applied again when drawn */
    if (!d->once) ld_changed(d);
}

static logderive *ld_new(app *a)
{
    logderive *d = xcalloc(1, sizeof *d);
    d->a = a;
    d->disc = kc_discovery_new(a->client);
    kc_discovery_on_change(d->disc, ld_discovered, d);
    return d;
}

logderive *logderive_new(app *a)
{
    logderive *d = ld_new(a);
    kc_store_on_change(a->stores[APP_R_BACKUPS], ld_on_store, d);
    kc_store_on_change(a->stores[APP_R_RESTORES], ld_on_store, d);
    d->scan_timer = kc_loop_timer(a->loop, 0, ld_scan, d);
    return d;
}

void logderive_free(logderive *d)
{
    if (!d) return;
    /* the app lives on when its cluster is no longer shown (a fleet): no call may reach d */
    kc_store_off_change(d->a->stores[APP_R_BACKUPS], ld_on_store, d);
    kc_store_off_change(d->a->stores[APP_R_RESTORES], ld_on_store, d);
    if (d->scan_timer) kc_loop_cancel(d->a->loop, d->scan_timer);
    if (d->push_timer) kc_loop_cancel(d->a->loop, d->push_timer);
    kc_podlog_free(d->pl);
    d->nq = 0; /* nothing starts while the fetches go */
    for (size_t i = 0; i < d->n; i++) ld_run_free(d->runs[i]);
    free(d->runs);
    for (size_t i = 0; i < d->nl; i++) {
        ld_list *l = d->lists[i];
        ld_fetch_free(l->f);
        free(l->label);
        free(l->name);
        free(l);
    }
    free(d->lists);
    free(d->queue);
    lp_line_free(&d->scratch);
    kc_discovery_free(d->disc);
    free(d);
}

/* ---- --once ---- */

/* Inserts mr into best[0..*n) (newest first, at most max). */
static void ld_pick(model_run **best, size_t *n, size_t max, model_run *mr)
{
    double t = ld_start_of(mr);
    size_t i = *n;
    while (i > 0 && ld_start_of(best[i - 1]) < t) i--;
    if (i >= max) return;
    size_t keep = *n < max ? *n : max - 1;
    memmove(best + i + 1, best + i, (keep - i) * sizeof *best);
    best[i] = mr;
    if (*n < max) (*n)++;
}

int logderive_once_done(const logderive *d)
{
    if (d->a->stop) return 1;
    if (d->nq || d->active || d->scanning || kc_discovery_asking(d->disc)) return 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->runs[i]->spec_req) return 0;
    if (d->pl) {
        kc_pl_state s = kc_podlog_state(d->pl);
        if (s != KC_PL_FAILED) return 0; /* no_follow: FAILED with "end of log" when read */
    }
    return 1;
}

static int ld_once_done(void *arg)
{
    return logderive_once_done(arg);
}

/* When the log was not read to its end: the read failed (its error) or the deadline came first
 * (what it was doing). For a run it gave no rows (partial 0): why they are unknown; for one it
 * gave rows (partial 1): that they count only the part read. NULL when the log was read whole,
 * so the log itself has no line of the run, or its rows are whole. */
static const char *ld_once_log_note(const logderive *d, int partial, char *buf, size_t n)
{
    if (!d->pl) return NULL;
    kc_pl_state s = kc_podlog_state(d->pl);
    const char *err = kc_podlog_error(d->pl);
    const char *head = partial ? "from part of the Velero server log only: " : "not derived: ";
    if (s == KC_PL_FAILED && !strcmp(err, "end of log")) return NULL;
    if (s == KC_PL_FAILED)
        snprintf(buf, n, "%sthe Velero server log could not be read: %s", head, err);
    else
        snprintf(buf, n,
                 "%sthe Velero server log was not read %sbefore the --once deadline (%s)%s%s", head,
                 partial ? "whole " : "",
                 s == KC_PL_FINDING_POD  ? "finding the Velero server pod"
                 : s == KC_PL_CONNECTING ? "waiting for the log"
                 : s == KC_PL_STREAMING  ? "reading it"
                                         : "retrying",
                 err[0] ? ": " : "", err);
    return buf;
}

/* Why an --once list that did not come is missing. */
static void ld_once_list_note(const ld_list *l, char *buf, size_t n)
{
    const ld_fetch *f = l->f;
    if (f->state == LD_F_FAILED && f->note)
        snprintf(buf, n, "%s", f->note);
    else if (f->state == LD_F_FAILED)
        snprintf(buf, n, "%s not fetched", f->kind);
    else
        snprintf(buf, n, "%s not in before the --once deadline (%s)", f->kind,
                 f->state == LD_F_QUEUED ? "queued"
                 : f->state == LD_F_RUNNING
                     ? (f->dl ? kc_download_state_name(kc_download_state(f->dl)) : "starting")
                     : "being read");
}

logderive *logderive_once_start(app *a, int64_t deadline, int details)
{
    logderive *d = ld_new(a);
    d->once = 1;
    d->deadline = deadline;
    model *m = a->model;
    model_run *live[LOGDERIVE_ONCE_MAX], *done[LOGDERIVE_ONCE_MAX];
    size_t nlive = 0, ndone = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *mr = m->runs[i];
        model_run_set_note(mr, NULL);
        if (ld_needs_log(mr)) {
            ld_pick(live, &nlive, LOGDERIVE_ONCE_MAX, mr);
            model_run_set_note(mr, "not derived: only the newest 10 runs in progress are read from "
                                   "the Velero server log");
        } else if (ld_needs_list(mr)) {
            if (details) ld_pick(done, &ndone, LOGDERIVE_ONCE_MAX, mr);
            model_run_set_note(mr, details ? "not fetched: --details fetches the resource lists of "
                                             "the newest 10 finished runs"
                                           : LOGDERIVE_NOT_FETCHED_NOTE);
        }
    }
    for (size_t i = 0; i < nlive; i++) ld_run_add(d, live[i]);
    for (size_t i = 0; i < ndone; i++) ld_list_get(d, done[i]->kind, done[i]->name, 1);
    ld_follow_runs(d, nlive > 0);
    return d;
}

int logderive_once_finish(logderive *d, logderive_fail_fn failed, void *arg)
{
    model *m = d->a->model;
    /* the loop may have changed the model: find the runs again by name */
    int filled = 0;
    char lognote[600], partnote[600];
    const char *unread = ld_once_log_note(d, 0, lognote, sizeof lognote);
    const char *part = ld_once_log_note(d, 1, partnote, sizeof partnote);
    for (size_t i = 0; i < d->n; i++) d->runs[i]->dirty = 1;
    ld_push(d);
    for (size_t i = 0; i < d->n; i++) {
        model_run *mr = model_find_run(m, d->runs[i]->kind, d->runs[i]->name);
        if (!mr) continue;
        if (mr->derived_from_log && mr->n_derived) {
            filled++;
            model_run_set_note(mr, part); /* rows from a log cut short count only what came */
            continue;
        }
        /* a log not read whole says nothing about the run: unknown, with why */
        const char *silent = unread ? NULL : logderive_note(d, mr);
        model_run_set_note(mr, unread   ? unread
                               : silent ? silent
                                        : "not derived: the Velero server log has no per-resource "
                                          "line of this run");
    }
    char why[600];
    for (size_t i = 0; i < d->nl; i++) {
        ld_list *l = d->lists[i];
        model_run *mr = model_find_run(m, l->kind, l->name);
        if (!mr) continue;
        if (l->f->state != LD_F_DONE) {
            ld_once_list_note(l, why, sizeof why);
            model_run_set_note(mr, why);
            if (failed) failed(arg, mr, why);
            continue;
        }
        vl_res_progress *res;
        size_t n = ld_rows(d, l->f, NULL, &res, NULL);
        model_run_set_derived(m, mr, res, n, NULL, ld_mono());
        lprog_res_free(res, n);
        l->applied = 1;
        const char *src = logderive_source(d, mr);
        model_run_set_note(mr, src && strstr(src, "cut at") ? src : NULL);
        filled++;
    }
    logderive_free(d);
    return filled;
}

int logderive_once(app *a, int64_t timeout_ms, int details, logderive_fail_fn failed, void *arg)
{
    logderive *d = logderive_once_start(a, kc_now_ms() + timeout_ms, details);
    kc_loop_run_until(a->loop, ld_once_done, d, timeout_ms);
    return logderive_once_finish(d, failed, arg);
}
