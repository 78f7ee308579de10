/* fleetcli.c: several contexts from the command line, and --once over them (fleetcli.h). */
#include "fleetcli.h"

#include <cjson/cJSON.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "logderive.h"
#include "sanitize.h"
#include "snapshot.h"
#include "ui.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/util.h"

fleet *fleetcli_build(kc_loop *loop, const ctxsel *sel, const char *kubeconfig, int summary,
                      unsigned fd_serve)
{
    fleet *f = fleet_new(loop);
    f->summary = summary;
    /* the configurations first: what each context's connections cost decides how many fit */
    kc_rest_config **cfg = xcalloc(sel->n ? sel->n : 1, sizeof *cfg);
    char **why = xcalloc(sel->n ? sel->n : 1, sizeof *why);
    unsigned *cost = xcalloc(sel->n ? sel->n : 1, sizeof *cost);
    for (size_t i = 0; i < sel->n; i++) {
        kc_config_opts co = {0};
        kc_err err;
        kc_err_clear(&err);
        co.kubeconfig = kubeconfig;
        co.context = sel->v[i].context;
        cfg[i] = kc_config_load(&co, &err);
        if (!cfg[i]) why[i] = xstrdup(err.msg);
        cost[i] = cfg[i] ? kc_fd_context_cost(cfg[i]->server) : 0;
    }
    f->fd_limit = kc_fd_limit();
    size_t fit = kc_fd_contexts_fit(f->fd_limit, fd_serve, cost, sel->n);
    for (size_t i = 0; i < sel->n; i++) {
        if (i < fit)
            fleet_add(f, sel->v[i].context, sel->v[i].ns, cfg[i], why[i]);
        else
            kc_rest_config_free(cfg[i]);
        free(why[i]);
    }
    f->not_watched = sel->n - fit;
    free(cfg);
    free(why);
    free(cost);
    return f;
}

typedef struct fc_wait {
    fleet *f;
} fc_wait;

static int fc_settled(void *arg)
{
    fc_wait *w = arg;
    double now = (double)kc_now_ms() / 1000.0;
    for (size_t i = 0; i < w->f->n; i++)
        if (!fleet_member_settled(w->f->m[i], now)) return 0;
    return 1;
}

static int fc_found(void *arg)
{
    fc_wait *w = arg;
    for (size_t i = 0; i < w->f->n; i++)
        if (fleet_member_finding(w->f->m[i])) return 0;
    return 1;
}

/* What a context did not show: for one whose runs were read, the verdict's entries (no Velero
 * there, a list retrying, health's lists not read) before the answers' own ("pods forbidden",
 * merged in by fc_member_json, as one context's --once says them); for one whose runs were not
 * read, why when the server refused them. */
static void fc_incomplete(cJSON *o, const fleet_sum *s, const fleet_verdict *v)
{
    cJSON *a = cJSON_AddArrayToObject(o, "incomplete");
    for (int i = 0; i < v->n_inc; i++) {
        char *t = san_utf8(v->inc[i]); /* the exact text, as every string of --once's JSON */
        cJSON_AddItemToArray(a, cJSON_CreateString(t));
        free(t);
    }
    if (v->unreadable && s->lamp == FL_FORBIDDEN) {
        char *t = san_utf8(s->why);
        cJSON_AddItemToArray(a, cJSON_CreateString(t));
        free(t);
    }
}

static void fc_bool(cJSON *o, const char *k, int v, int known)
{
    if (known)
        cJSON_AddBoolToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void fc_num(cJSON *o, const char *k, double v, int known)
{
    if (known)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* The fleet row's figures (fleet.h's summary): null where they cannot be known. */
static void fc_summary(cJSON *o, const fleet_sum *s, const fleet_verdict *v)
{
    cJSON *m = cJSON_AddObjectToObject(o, "summary");
    int k = s->listed;
    /* the verdict that makes the exit status (fleet_judge): unknown when nothing was read */
    fc_bool(m, "wrong", v->wrong, !v->unreadable);
    fc_bool(m, "warning", v->warning, !v->unreadable);
    cJSON_AddBoolToObject(m, "unreadable", v->unreadable);
    cJSON_AddBoolToObject(m, "incomplete", v->incomplete);
    fc_num(m, "runsInFlight", s->n_active, k);
    fc_num(m, "stalled", s->n_stalled, k);
    if (k && s->last_name[0]) {
        cJSON *l = cJSON_AddObjectToObject(m, "endingLast");
        cJSON_AddStringToObject(l, "kind", s->last_kind == VL_RESTORE ? "Restore" : "Backup");
        snapshot_add_str(l, "name", s->last_name);
        cJSON_AddNumberToObject(l, "etaSeconds", ceil(s->last_eta));
        cJSON_AddBoolToObject(l, "etaLowerBound", s->last_eta_kind == ANS_ETA_BOUND);
    } else {
        cJSON_AddNullToObject(m, "endingLast");
    }
    cJSON *d = cJSON_AddObjectToObject(m, "last24h");
    fc_num(d, "completed", s->day_completed, k);
    fc_num(d, "partiallyFailed", s->day_partial, k);
    fc_num(d, "failed", s->day_failed, k);
    cJSON *sc = cJSON_AddObjectToObject(m, "schedules");
    fc_num(sc, "count", s->n_schedules, k && s->sched_known);
    fc_num(sc, "overdue", s->n_overdue, k && s->sched_known);
    if (k && s->sched_known && s->sched_name[0]) {
        snapshot_add_str(sc, "oldestSuccess", s->sched_name);
        fc_num(sc, "oldestSuccessAgeSeconds", floor(s->sched_age), s->sched_age >= 0);
        fc_num(sc, "oldestSuccessIntervalSeconds", s->sched_interval, s->sched_interval > 0);
    } else {
        cJSON_AddNullToObject(sc, "oldestSuccess");
    }
    /* restore readiness: schedules whose newest restorable backup is older than 2 intervals */
    fc_num(sc, "restorableStale", s->n_ready_stale, k && s->ready_known);
    if (k && s->ready_known && s->ready_stale_name[0])
        snapshot_add_str(sc, "restorableStaleFirst", s->ready_stale_name);
    else
        cJSON_AddNullToObject(sc, "restorableStaleFirst");
    if (k && !s->ready_known) snapshot_add_str(sc, "restorableStaleUnknown", s->ready_why);
    cJSON *b = cJSON_AddObjectToObject(m, "storageLocations");
    fc_num(b, "available", s->bsl_available, k && s->bsl_known);
    fc_num(b, "total", s->bsl_total, k && s->bsl_known);
    cJSON *na = cJSON_AddObjectToObject(m, "nodeAgents");
    fc_num(na, "ready", s->agents_ready, k && s->agents_known);
    fc_num(na, "total", s->agents_total, k && s->agents_known);
    if (s->version[0])
        cJSON_AddStringToObject(m, "veleroVersion", s->version);
    else
        cJSON_AddNullToObject(m, "veleroVersion");
}

static cJSON *fc_member_json(fleet_member *fm, const fleet_sum *s, const fleet_verdict *v,
                             double now, double wall)
{
    cJSON *o = NULL;
    if (fm->app && s->listed) { /* today's object, the same answers as one context's --once */
        health *h = health_of_app(fm->app, wall);
        ans_ctx c;
        answer_ctx_of_app(fm->app, h, now, wall, &c);
        char *one = snapshot_json(&c, fm->context, fm->app->server, fm->ns);
        char *withh = snapshot_health_json(h, one);
        char *full = snapshot_repo_json(h->repos, withh);
        free(withh);
        o = cJSON_Parse(full);
        free(one);
        free(full);
        health_free(h);
    }
    if (!o) {
        o = cJSON_CreateObject();
        snapshot_add_str(o, "context", fm->context);
        snapshot_add_str(o, "server", fm->app ? fm->app->server : NULL);
        snapshot_add_str(o, "namespace", fm->ns);
        cJSON_AddNullToObject(o, "runs"); /* unknown, not none */
    }
    if (v->unreadable) {
        /* not read, or no longer answering: health is unknown, never OK from old data */
        cJSON *old = cJSON_DetachItemFromObjectCaseSensitive(o, "health");
        cJSON *sum = cJSON_GetObjectItemCaseSensitive(old, "summary");
        cJSON *hh = cJSON_AddObjectToObject(o, "health");
        cJSON_AddNullToObject(hh, "ok");
        if (cJSON_IsString(sum))
            cJSON_AddStringToObject(hh, "summary", sum->valuestring);
        else
            cJSON_AddNullToObject(hh, "summary");
        char *why =
            s->listed ? xasprintf("no current data: %s", v->why) : xstrdup(s->health_unknown);
        snapshot_add_str(hh, "unknown", why);
        free(why);
        cJSON_Delete(old);
    }
    /* context, server, namespace, then "reachable", "error", "lamp", then today's object */
    cJSON *n = cJSON_CreateObject();
    static const char *first[] = {"context", "server", "namespace"};
    for (int i = 0; i < 3; i++) {
        cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(o, first[i]);
        if (it) cJSON_AddItemToObject(n, first[i], it);
    }
    cJSON_AddBoolToObject(n, "reachable", s->reachable);
    snapshot_add_str(n, "error", v->unreadable && s->why[0] ? s->why : NULL);
    cJSON_AddStringToObject(n, "lamp", fleet_lamp_name(s->lamp));
    cJSON *inner = cJSON_DetachItemFromObjectCaseSensitive(o, "incomplete");
    fc_incomplete(n, s, v);
    cJSON *inc = cJSON_GetObjectItemCaseSensitive(n, "incomplete"), *it;
    while (inner && inner->child) { /* one "incomplete": the cluster's own entries after ours */
        it = cJSON_DetachItemViaPointer(inner, inner->child);
        cJSON_AddItemToArray(inc, it);
    }
    cJSON_Delete(inner);
    fc_summary(n, s, v);
    while (o->child) {
        it = cJSON_DetachItemViaPointer(o, o->child);
        cJSON_AddItemToObject(n, it->string, it);
    }
    cJSON_Delete(o);
    return n;
}

typedef struct fc_logs {
    fleet *f;
    logderive **d; /* per member; NULL: nothing read there */
} fc_logs;

static int fc_logs_done(void *arg)
{
    fc_logs *w = arg;
    for (size_t i = 0; i < w->f->n; i++)
        if (w->d[i] && !logderive_once_done(w->d[i])) return 0;
    return 1;
}

int fleetcli_once(fleet *f, int json, int64_t timeout_ms, FILE *out, FILE *errf)
{
    fc_wait w = {f};
    int64_t t0 = kc_now_ms();
    kc_loop_run_until(f->loop, fc_settled, &w, timeout_ms);
    /* a namespace without Velero: one cluster-wide look for where it is */
    double now0 = (double)kc_now_ms() / 1000.0, wall0 = kc_wall_now();
    for (size_t i = 0; i < f->n; i++) {
        fleet_sum s0;
        fleet_member_summary(f->m[i], now0, wall0, &s0);
    }
    kc_loop_run_until(f->loop, fc_found, &w, 3000);
    /* per-resource rows of runs without resourceProgress: every context's log read in flight
     * together under one deadline, as one context's --once (a context's descriptor cost,
     * kc_fd_context_cost, counts its log stream: the contexts that fit have room for it) */
    int64_t left = 5000 - (kc_now_ms() - t0) / 4;
    int64_t budget = left > 500 ? left + 200 : 200;
    int64_t deadline = kc_now_ms() + budget;
    fc_logs lw = {f, xcalloc(f->n ? f->n : 1, sizeof *lw.d)};
    for (size_t i = 0; i < f->n; i++)
        if (f->m[i]->app && kc_reflector_status(f->m[i]->app->refl[APP_R_BACKUPS])->synced)
            lw.d[i] = logderive_once_start(f->m[i]->app, deadline, 0);
    kc_loop_run_until(f->loop, fc_logs_done, &lw, budget);
    for (size_t i = 0; i < f->n; i++)
        if (lw.d[i]) logderive_once_finish(lw.d[i], NULL, NULL);
    free(lw.d);
    double now = (double)kc_now_ms() / 1000.0, wall = kc_wall_now();
    fleet_sum *sums = xcalloc(f->n ? f->n : 1, sizeof *sums);
    fleet_verdict *vs = xcalloc(f->n ? f->n : 1, sizeof *vs);
    for (size_t i = 0; i < f->n; i++) {
        fleet_member *fm = f->m[i];
        fleet_member_summary(fm, now, wall, &sums[i]);
        fleet_judge(&sums[i], &vs[i]); /* the one rule: stderr, JSON and the exit status */
        if (fm->app) model_refresh_volumes(fm->app->model);
        const char *lamp = fleet_lamp_name(sums[i].lamp);
        if (vs[i].unreadable && strncmp(vs[i].why, lamp, strlen(lamp)))
            san_error("context %s: %s: %s", fm->context, lamp, vs[i].why);
        else if (vs[i].why[0]) /* "unauthorized: the server rejected ...", what is wrong */
            san_error("context %s: %s", fm->context, vs[i].why);
    }
    (void)errf;
    const char *cs = nl_langinfo(CODESET);
    san_set_ascii(!json && !(cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"))));
    if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(root, "contexts");
        for (size_t i = 0; i < f->n; i++)
            cJSON_AddItemToArray(arr, fc_member_json(f->m[i], &sums[i], &vs[i], now, wall));
        char *txt = cJSON_PrintUnformatted(root);
        cJSON_Delete(root);
        char *esc = san_json_text(txt); /* DEL and C1 escaped too, as one context's --once */
        cJSON_free(txt);
        fprintf(out, "%s\n", esc);
        free(esc);
    } else {
        ans_ctx *cs = xcalloc(f->n ? f->n : 1, sizeof *cs);
        const ans_ctx **pc = xcalloc(f->n ? f->n : 1, sizeof *pc);
        const char **ctx = xcalloc(f->n ? f->n : 1, sizeof *ctx);
        for (size_t i = 0; i < f->n; i++) {
            if (f->m[i]->app && sums[i].listed) {
                answer_ctx_of_app(f->m[i]->app, NULL, now, wall, &cs[i]);
                pc[i] = &cs[i];
            }
            ctx[i] = f->m[i]->context;
        }
        size_t capped = 0;
        char *t = snapshot_table_fleet(pc, ctx, f->n, &capped);
        if (capped)
            san_error("%zu cell%s longer than %d columns cut, ending in an ellipsis: --once --json "
                      "carries the whole text",
                      capped, capped == 1 ? "" : "s", SNAPSHOT_CELL_COLS);
        fputs(t, out);
        free(t);
        free(cs);
        free(pc);
        free(ctx);
    }
    int rc = fleet_exit_many(vs, f->n);
    free(sums);
    free(vs);
    char nw[160];
    if (f->not_watched) { /* not the clusters' fault: its own line and status, before theirs */
        san_error("%s", fleet_not_watched(f, nw, sizeof nw));
        return FLEET_EXIT_NOFILE;
    }
    return rc;
}

void fleetcli_set_cacert(fleet *f, const char *ca, size_t len)
{
    for (size_t i = 0; ca && i < f->n; i++) {
        app *a = f->m[i]->app;
        if (!a || a->cacert) continue;
        a->cacert = xmalloc(len + 1);
        memcpy(a->cacert, ca, len);
        a->cacert[len] = 0;
        a->cacert_len = len;
    }
}

typedef struct fc_tui {
    fleet *f;
    const fleetcli_env *env;
} fc_tui;

/* The picker chose a context not watched yet: load it and add it to the fleet. */
static app *fc_add(void *arg, const char *context, char *err, size_t errlen)
{
    fc_tui *t = arg;
    if (!t->env->from_kubeconfig) {
        snprintf(err, errlen, "not a context of this fleet");
        return NULL;
    }
    kc_config_opts co = {0};
    kc_err kerr;
    kc_err_clear(&kerr);
    co.kubeconfig = t->env->kubeconfig;
    co.context = context;
    kc_rest_config *cfg = kc_config_load(&co, &kerr);
    if (!cfg) {
        snprintf(err, errlen, "%s", kerr.msg);
        return NULL;
    }
    /* the budget as at start: the members' connections and this one's must fit */
    size_t n = t->f->n;
    unsigned *cost = xcalloc(n + 1, sizeof *cost);
    for (size_t i = 0; i < n; i++)
        cost[i] =
            t->f->m[i]->app && t->f->m[i]->cfg ? kc_fd_context_cost(t->f->m[i]->cfg->server) : 0;
    cost[n] = kc_fd_context_cost(cfg->server);
    int fits = kc_fd_contexts_fit(kc_fd_limit(), 0, cost, n + 1) == n + 1;
    free(cost);
    if (!fits) {
        snprintf(err, errlen,
                 "open-file limit %ld reached: %s not watched; raise it with ulimit -n",
                 kc_fd_limit(), context);
        kc_rest_config_free(cfg);
        return NULL;
    }
    const char *ns = t->env->ns;
    for (size_t i = 0; i < t->env->n_ns_for; i++) {
        char *c;
        const char *n;
        if (ctxsel_split_ns_for(t->env->ns_for[i], &c, &n)) continue;
        if (!strcmp(c, context)) ns = n;
        free(c);
    }
    fleet_member *fm = fleet_add(t->f, context, ns, cfg, NULL);
    if (!fm->app) {
        snprintf(err, errlen, "%s", fm->error);
        return NULL;
    }
    fleetcli_set_cacert(t->f, t->env->ca, t->env->ca_len);
    return fm->app;
}

int fleetcli_tui(fleet *f, const fleetcli_env *env)
{
    app *first = NULL;
    for (size_t i = 0; i < f->n && !first; i++) first = f->m[i]->app;
    if (!first) {
        for (size_t i = 0; i < f->n; i++) /* one context: its error as before */
            if (f->n == 1)
                san_error("%s", f->m[i]->error);
            else
                san_error("context %s: %s", f->m[i]->context, f->m[i]->error);
        return 2;
    }
    char **names = NULL;
    size_t n_names = 0;
    if (env->from_kubeconfig) {
        kc_config_opts co = {0};
        kc_err err;
        co.kubeconfig = env->kubeconfig;
        names = kc_config_contexts(&co, &n_names, &err); /* NULL: the members only */
    }
    fc_tui t = {f, env};
    ui *u = ui_new(first, tui_screens);
    ui_set_fleet(u, f, names, n_names, fc_add, &t);
    if (f->n > 1) ui_open(u, UI_S_FLEET, NULL, VL_BACKUP, NULL);
    int rc = ui_run(u);
    ui_free(u);
    for (size_t i = 0; i < n_names; i++) free(names[i]);
    free(names);
    return rc;
}
