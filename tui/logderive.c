/* logderive.c: log-derived per-resource progress for runs without status.resourceProgress. */
#include "logderive.h"

#include <stdlib.h>
#include <string.h>

#include "drill.h"
#include "kubeclient/download.h"
#include "kubeclient/podlog.h"
#include "kubeclient/util.h"
#include "logprogress.h"

typedef struct ld_run {
    vl_kind kind;
    char *name, *ref;
    lprog *lp;
    int dirty, seen;
    kc_download *dl; /* restores: the backup's resource list, for per-resource totals */
    kc_buf body;
    struct logderive *d;
} ld_run;

typedef struct ld_list {
    vl_kind kind;
    char *name;
    int state; /* 0 fetching, 1 done, 2 failed */
    int applied;
    vl_res_progress *res;
    size_t n;
    kc_download *dl;
    kc_buf body;
    struct logderive *d;
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
    uint64_t scan_timer, push_timer;
    int once; /* --once: no follow */
};

static double ld_mono(void)
{
    return (double)kc_now_ms() / 1000.0;
}

static void ld_changed(logderive *d)
{
    if (d->a->on_change) d->a->on_change(d->a->on_change_arg);
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
        size_t n = lprog_resources(r->lp, &res);
        if (!n) continue;
        model_run_set_derived(d->a->model, mr, res, n, ld_mono());
        any = 1;
    }
    if (any) ld_changed(d);
}

static void ld_line(void *arg, const char *line, size_t n)
{
    logderive *d = arg;
    if (lp_parse(&d->scratch, line, n)) return;
    const char *b = lp_get(&d->scratch, "backup"), *r = lp_get(&d->scratch, "restore");
    for (size_t i = 0; i < d->n; i++) {
        ld_run *x = d->runs[i];
        const char *ref = x->kind == VL_BACKUP ? b : r;
        if (ref && !strcmp(ref, x->ref) && lprog_feed(x->lp, &d->scratch)) x->dirty = 1;
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

static void ld_run_totals_done(void *arg, const kc_err *err)
{
    ld_run *r = arg;
    if (!err->msg[0]) {
        vl_res_progress *res;
        size_t n;
        kc_err e = {0};
        if (!lprog_from_resource_list(r->body.data ? r->body.data : "", r->body.len, &res, &n,
                                      &e)) {
            lprog_set_totals(r->lp, res, n);
            lprog_res_free(res, n);
            r->dirty = 1;
            if (!r->d->push_timer && !r->d->once)
                r->d->push_timer = kc_loop_timer(r->d->a->loop, 0, ld_push, r->d);
        }
    }
    kc_download_free(r->dl);
    r->dl = NULL;
}

static void ld_run_data(void *arg, const char *data, size_t n)
{
    ld_run *r = arg;
    kc_buf_append(&r->body, data, n);
}

static void ld_run_free(ld_run *r)
{
    if (!r) return;
    kc_download_free(r->dl);
    kc_buf_free(&r->body);
    lprog_free(r->lp);
    free(r->name);
    free(r->ref);
    free(r);
}

static int ld_needs_log(const model_run *mr)
{
    const vl_run *r = mr->run;
    return r && !r->has_resource_progress && !drill_log_stored(r) &&
           (r->phase_id == VL_PH_IN_PROGRESS || vl_phase_active(r->phase_id));
}

static void ld_scan(void *arg)
{
    logderive *d = arg;
    d->scan_timer = 0;
    model *m = d->a->model;
    for (size_t i = 0; i < d->n; i++) d->runs[i]->seen = 0;
    double earliest = 0;
    int added = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *mr = m->runs[i];
        if (!ld_needs_log(mr)) continue;
        ld_run *r = NULL;
        for (size_t j = 0; j < d->n && !r; j++)
            if (d->runs[j]->kind == mr->kind && !strcmp(d->runs[j]->name, mr->name)) r = d->runs[j];
        if (!r) {
            if (d->n == d->cap) {
                d->cap = d->cap ? d->cap * 2 : 8;
                d->runs = xrealloc(d->runs, d->cap * sizeof *d->runs);
            }
            r = xcalloc(1, sizeof *r);
            r->d = d;
            r->kind = mr->kind;
            r->name = xstrdup(mr->name);
            r->ref = xasprintf("%s/%s", mr->run->meta.ns ? mr->run->meta.ns : d->a->ns, mr->name);
            r->lp = lprog_new(mr->kind == VL_RESTORE, r->ref);
            d->runs[d->n++] = r;
            added = 1;
            if (mr->kind == VL_RESTORE && mr->run->backup_name) {
                kc_download_opts o = {.ns = d->a->ns,
                                      .kind = "BackupResourceList",
                                      .target = mr->run->backup_name,
                                      .url_timeout_ms = 30000};
                r->dl = kc_download_start(d->a->client, &o, ld_run_data, ld_run_totals_done, r);
            }
        }
        r->seen = 1;
        double st = mr->run->started > 0 ? mr->run->started : mr->run->meta.created;
        if (st > 0 && (earliest == 0 || st < earliest)) earliest = st;
    }
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->runs[i]->seen)
            d->runs[k++] = d->runs[i];
        else
            ld_run_free(d->runs[i]);
    }
    d->n = k;
    if (d->n == 0) {
        kc_podlog_free(d->pl);
        d->pl = NULL;
        d->since = 0;
    } else if (!d->pl || (earliest > 0 && earliest < d->since) || (added && d->once)) {
        ld_follow(d, earliest);
    }
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

static void ld_list_done(void *arg, const kc_err *err)
{
    ld_list *l = arg;
    l->state = 2;
    if (!err->msg[0]) {
        kc_err e = {0};
        if (!lprog_from_resource_list(l->body.data ? l->body.data : "", l->body.len, &l->res, &l->n,
                                      &e))
            l->state = 1;
    }
    kc_buf_free(&l->body);
    kc_download_free(l->dl);
    l->dl = NULL;
    ld_changed(l->d); /* the screen draws again and logderive_want applies it */
}

static void ld_list_data(void *arg, const char *data, size_t n)
{
    ld_list *l = arg;
    kc_buf_append(&l->body, data, n);
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
    l->d = d;
    l->kind = kind;
    l->name = xstrdup(name);
    d->lists[d->nl++] = l;
    kc_download_opts o = {.ns = d->a->ns,
                          .kind = kind == VL_BACKUP ? "BackupResourceList" : "RestoreResourceList",
                          .target = name,
                          .url_timeout_ms = 30000};
    l->dl = kc_download_start(d->a->client, &o, ld_list_data, ld_list_done, l);
    return l;
}

void logderive_want(logderive *d, model_run *r)
{
    if (!d || !r || !r->run || r->run->has_resource_progress || !drill_log_stored(r->run)) return;
    if (r->run->phase_id == VL_PH_FAILED_VALIDATION) return; /* never wrote artifacts */
    ld_list *l = ld_list_get(d, r->kind, r->name, 1);
    if (l->state != 1 || (l->applied && r->derived_from_log && r->n_derived)) return;
    l->applied = 1;
    model_run_set_derived(d->a->model, r, l->res, l->n, ld_mono());
}

/* ---- lifetime ---- */

logderive *logderive_new(app *a)
{
    logderive *d = xcalloc(1, sizeof *d);
    d->a = a;
    kc_store_on_change(a->stores[APP_R_BACKUPS], ld_on_store, d);
    kc_store_on_change(a->stores[APP_R_RESTORES], ld_on_store, d);
    d->scan_timer = kc_loop_timer(a->loop, 0, ld_scan, d);
    return d;
}

void logderive_free(logderive *d)
{
    if (!d) return;
    if (d->scan_timer) kc_loop_cancel(d->a->loop, d->scan_timer);
    if (d->push_timer) kc_loop_cancel(d->a->loop, d->push_timer);
    kc_podlog_free(d->pl);
    for (size_t i = 0; i < d->n; i++) ld_run_free(d->runs[i]);
    free(d->runs);
    for (size_t i = 0; i < d->nl; i++) {
        ld_list *l = d->lists[i];
        kc_download_free(l->dl);
        kc_buf_free(&l->body);
        lprog_res_free(l->res, l->n);
        free(l->name);
        free(l);
    }
    free(d->lists);
    lp_line_free(&d->scratch);
    free(d);
}

/* ---- --once ---- */

static int ld_once_done(void *arg)
{
    logderive *d = arg;
    if (d->scan_timer) return 0;
    for (size_t i = 0; i < d->nl; i++)
        if (d->lists[i]->state == 0) return 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->runs[i]->dl) return 0;
    if (d->pl) {
        kc_pl_state s = kc_podlog_state(d->pl);
        if (s != KC_PL_FAILED) return 0; /* no_follow: FAILED with "end of log" when read */
    }
    return 1;
}

int logderive_once(app *a, int64_t timeout_ms)
{
    logderive *d = xcalloc(1, sizeof *d);
    d->a = a;
    d->once = 1;
    model *m = a->model;
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *mr = m->runs[i];
        if (mr->run && !mr->run->has_resource_progress && drill_log_stored(mr->run) &&
            mr->run->phase_id != VL_PH_FAILED_VALIDATION)
            ld_list_get(d, mr->kind, mr->name, 1);
    }
    ld_scan(d);
    kc_loop_run_until(a->loop, ld_once_done, d, timeout_ms);
    int filled = 0;
    for (size_t i = 0; i < d->n; i++) d->runs[i]->dirty = 1;
    ld_push(d);
    for (size_t i = 0; i < m->n_runs; i++) {
        model_run *mr = m->runs[i];
        ld_list *l = ld_list_get(d, mr->kind, mr->name, 0);
        if (l && l->state == 1) {
            model_run_set_derived(m, mr, l->res, l->n, ld_mono());
            filled++;
        } else if (mr->derived_from_log) {
            filled++;
        }
    }
    logderive_free(d);
    return filled;
}
