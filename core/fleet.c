/* fleet.c: several clusters on one loop and the summary of each (fleet.h): the lamp from the
 * member's reflectors and client, the rest from its model, health picture and run answers. */
#include "fleet.h"
#include "readiness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kubeclient/auth.h"
#include "kubeclient/caps.h"
#include "kubeclient/client.h"
#include "kubeclient/util.h"

#define FLEET_DAY_S 86400.0

const char *fleet_lamp_name(fleet_lamp l)
{
    static const char *n[] = {"live",      "connecting",   "retrying",    "no Velero",
                              "forbidden", "unauthorized", "unreachable", "unusable"};
    return l <= FL_CONFIG ? n[l] : "unknown";
}

/* ---- the model's part --------------------------------------------------------------------- */

/* When a run ended (else started, else was made): cluster time. */
static double fl_run_time(const vl_run *r)
{
    return r->completed > 0 ? r->completed : r->started > 0 ? r->started : r->meta.created;
}

static void fl_runs(const ans_ctx *c, double wall, fleet_sum *out)
{
    const model *m = c->m;
    /* the window is 24 h of the cluster's clock (its timestamps); 1:1 unless --demo --speed */
    double cutoff = model_cluster_now(m, wall) - FLEET_DAY_S;
    double last_end = -1;
    run_answer *a = xcalloc(1, sizeof *a);
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *mr = m->runs[i];
        const vl_run *r = mr->run;
        if (!r) continue;
        switch (r->phase_id) {
        case VL_PH_COMPLETED:
        case VL_PH_PARTIALLY_FAILED:
        case VL_PH_FAILED:
        case VL_PH_FAILED_VALIDATION:
            if (fl_run_time(r) >= cutoff) {
                if (r->phase_id == VL_PH_COMPLETED)
                    out->day_completed++;
                else if (r->phase_id == VL_PH_PARTIALLY_FAILED)
                    out->day_partial++;
                else
                    out->day_failed++;
            }
            continue;
        default:
            break;
        }
        if (!vl_phase_active(r->phase_id)) continue;
        answer_run(c, mr, a);
        if (!a->active) continue;
        out->n_active++;
        if (a->n_diag) out->warn = 1;
        if (a->stalled == ANS_YES) {
            if (!out->n_stalled) out->stalled_kind = mr->kind;
            out->n_stalled++;
            continue;
        }
        if (a->eta_kind == ANS_ETA_NONE) {
            out->n_eta_unknown++;
            continue;
        }
        if (a->eta > last_end) {
            last_end = a->eta;
            snprintf(out->last_name, sizeof out->last_name, "%s", mr->name);
            out->last_kind = mr->kind;
            out->last_eta = a->eta;
            out->last_eta_kind = a->eta_kind;
        }
    }
    free(a);
}

static void fl_health(const model *m, const health *h, double wall, fleet_sum *out)
{
    double cnow = model_cluster_now(m, wall), worst = -1;
    out->sched_known = !h->unread[HEALTH_IN_SCHEDULES][0];
    out->n_schedules = (int)h->n_sch;
    out->n_overdue = h->n_overdue;
    for (size_t i = 0; i < h->n_sch; i++) {
        const health_schedule *hs = &h->sch[i];
        if (hs->s->paused || !hs->cron_ok) continue;
        double age = hs->last_success > 0 ? model_wall_span(m, cnow - hs->last_success) : -1;
        double iv = hs->due.interval > 0 ? model_wall_span(m, hs->due.interval) : 0;
        /* never succeeded: worse than any age; else the age in intervals */
        double score = age < 0 ? INFINITY : iv > 0 ? age / iv : age / FLEET_DAY_S;
        if (score <= worst) continue;
        worst = score;
        snprintf(out->sched_name, sizeof out->sched_name, "%s",
                 hs->s->meta.name ? hs->s->meta.name : "");
        out->sched_age = age;
        out->sched_interval = iv;
    }
    /* restore readiness: health's judgement, counted */
    if (!out->sched_known)
        snprintf(out->ready_why, sizeof out->ready_why, "cannot read schedules: %.200s",
                 h->unread[HEALTH_IN_SCHEDULES]);
    else if (!h->ready)
        snprintf(out->ready_why, sizeof out->ready_why, "not judged");
    else if (h->ready->backups_unread[0])
        snprintf(out->ready_why, sizeof out->ready_why, "cannot read backups: %.200s",
                 h->ready->backups_unread);
    else {
        out->ready_known = 1;
        out->n_ready_stale = h->ready->n_stale;
        for (size_t i = 0; i < h->ready->n; i++)
            if (h->ready->s[i].stale && h->ready->s[i].schedule) {
                snprintf(out->ready_stale_name, sizeof out->ready_stale_name, "%s",
                         h->ready->s[i].schedule);
                break;
            }
    }
    out->bsl_known = 1;
    out->bsl_total = (int)h->n_bsl;
    for (size_t i = 0; i < h->n_bsl; i++)
        out->bsl_available += h->bsl[i]->phase && !strcmp(h->bsl[i]->phase, "Available");
    out->n_bsl_unavailable = h->n_bsl_unavailable;
    out->agents_known = h->pods_known;
    out->agents_ready = h->n_agents_ready;
    out->agents_total = (int)h->n_agents;
    if (h->server && h->server->version)
        snprintf(out->version, sizeof out->version, "%s", h->server->version);
}

void fleet_summarize(const ans_ctx *c, const health *h, double wall, fleet_sum *out)
{
    memset(out, 0, sizeof *out);
    out->lamp = FL_LIVE;
    out->reachable = 1;
    out->listed = 1;
    out->sched_age = -1;
    out->missing = c->missing;
    fl_runs(c, wall, out);
    out->health = HEALTH_UNKNOWN;
    snprintf(out->health_unknown, sizeof out->health_unknown, "no health picture");
    if (h) {
        char sum[1024];
        fl_health(c->m, h, wall, out);
        out->health = health_judge(h, sum, sizeof sum);
        health_unknown(h, out->health_unknown, sizeof out->health_unknown);
        size_t o = 0;
        for (int i = 0; i < HEALTH_NIN; i++) {
            char one[200];
            const char *what = health_incomplete(h, (health_input)i, one, sizeof one);
            if (!what || o >= sizeof out->lists_unread) continue;
            o += (size_t)snprintf(out->lists_unread + o, sizeof out->lists_unread - o, "%s%s",
                                  o ? ", " : "", what);
        }
    }
    out->wrong = out->day_failed || out->day_partial || out->n_stalled || out->n_overdue ||
                 out->n_bsl_unavailable || out->n_ready_stale;
}

/* ---- the judgement of a context ----------------------------------------------------------- */

static void fl_add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fl_add(char *buf, size_t n, const char *fmt, ...)
{
    size_t o = strlen(buf);
    if (o >= n - 1) return;
    if (o) o += (size_t)snprintf(buf + o, n - o, ", ");
    if (o >= n - 1) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + o, n - o, fmt, ap);
    va_end(ap);
}

static int fl_unreadable(const fleet_sum *s)
{
    return !s->listed || s->lamp == FL_UNREACHABLE || s->lamp == FL_UNAUTHORIZED ||
           s->lamp == FL_CONFIG;
}

void fleet_judge(const fleet_sum *s, fleet_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (fl_unreadable(s)) {
        v->unreadable = 1;
        snprintf(v->why, sizeof v->why, "%.1100s",
                 s->why[0] ? s->why : "timed out listing Velero's resources");
        return;
    }
    v->warning = s->warn;
    if (s->day_failed) fl_add(v->why, sizeof v->why, "%d failed in the last 24 h", s->day_failed);
    if (s->day_partial)
        fl_add(v->why, sizeof v->why, "%d partially failed in the last 24 h", s->day_partial);
    if (s->n_stalled) fl_add(v->why, sizeof v->why, "%d stalled", s->n_stalled);
    if (s->n_overdue)
        fl_add(v->why, sizeof v->why, "%d schedule%s overdue", s->n_overdue,
               s->n_overdue == 1 ? "" : "s");
    if (s->n_bsl_unavailable)
        fl_add(v->why, sizeof v->why, "%d storage location%s unavailable", s->n_bsl_unavailable,
               s->n_bsl_unavailable == 1 ? "" : "s");
    if (s->n_ready_stale)
        fl_add(v->why, sizeof v->why,
               "%d schedule%s with nothing restorable newer than %d intervals (%.100s)",
               s->n_ready_stale, s->n_ready_stale == 1 ? "" : "s", READY_STALE_INTERVALS,
               s->ready_stale_name);
    /* what it lacks: no Velero there, a refused or failing list (the lamp's words), the lists
     * health needs; the answers' own lists ("pods forbidden") are in their object */
    if ((s->lamp == FL_NO_VELERO || s->lamp == FL_FORBIDDEN || s->lamp == FL_RETRYING) &&
        s->why[0]) {
        fl_add(v->why, sizeof v->why, "%.1090s", s->why);
        if (s->lamp != FL_FORBIDDEN) snprintf(v->inc[v->n_inc++], sizeof v->inc[0], "%s", s->why);
    }
    if (s->lists_unread[0]) {
        fl_add(v->why, sizeof v->why, "not visible: %s", s->lists_unread);
        snprintf(v->inc[v->n_inc++], sizeof v->inc[0], "%s", s->lists_unread);
    }
    v->incomplete =
        s->missing || s->lamp == FL_NO_VELERO || s->lamp == FL_FORBIDDEN || s->lists_unread[0];
    v->wrong = s->wrong || v->incomplete;
}

int fleet_exit_one(const fleet_verdict *v)
{
    return v->unreadable ? FLEET_EXIT_UNREADABLE : v->incomplete ? FLEET_EXIT_INCOMPLETE : 0;
}

int fleet_exit_many(const fleet_verdict *v, size_t n)
{
    int wrong = 0, unread = 0;
    for (size_t i = 0; i < n; i++) {
        unread |= v[i].unreadable;
        wrong |= v[i].wrong;
    }
    return wrong && unread ? FLEET_EXIT_BOTH
           : unread        ? FLEET_EXIT_UNREAD
           : wrong         ? FLEET_EXIT_WRONG
                           : 0;
}

/* ---- severity, headline, totals ----------------------------------------------------------- */

int fleet_severity(const fleet_sum *s)
{
    switch (s->lamp) {
    case FL_CONFIG:
        return 90;
    case FL_UNREACHABLE:
        return 85;
    case FL_UNAUTHORIZED:
        return 80;
    case FL_FORBIDDEN:
        if (!s->listed) return 75;
        break;
    case FL_NO_VELERO:
        return 60;
    default:
        break;
    }
    if (s->n_stalled) return 55;
    if (s->day_failed) return 50;
    if (s->n_overdue) return 45;
    if (s->n_ready_stale) return 42;
    if (s->n_bsl_unavailable) return 40;
    if (s->lamp == FL_FORBIDDEN) return 35;
    if (s->day_partial) return 30;
    if (s->warn) return 20;
    if (s->lamp == FL_RETRYING) return 15;
    if (s->listed && s->health == HEALTH_UNKNOWN) return 12; /* never "OK" on what it cannot see */
    if (s->lamp == FL_CONNECTING) return 10;
    return 0;
}

const char *fleet_headline(const fleet_sum *s, char *buf, size_t n)
{
    const char *w = "OK";
    switch (fleet_severity(s)) {
    case 90:
        w = "unusable";
        break;
    case 85:
        w = "unreachable";
        break;
    case 80:
        w = "unauthorized";
        break;
    case 75:
    case 35:
        w = "forbidden";
        break;
    case 60:
        w = "no Velero";
        break;
    case 55:
        w = s->stalled_kind == VL_RESTORE ? "stalled restore" : "stalled backup";
        break;
    case 50:
        w = "failed run";
        break;
    case 45:
        w = "overdue schedule";
        break;
    case 42:
        w = "restorable too old";
        break;
    case 40:
        w = "storage unavailable";
        break;
    case 30:
        w = "partially failed run";
        break;
    case 20:
        w = "warning";
        break;
    case 15:
        w = "retrying";
        break;
    case 12:
        w = "health unknown";
        break;
    case 10:
        w = "connecting";
        break;
    }
    snprintf(buf, n, "%s", w);
    return buf;
}

char *fleet_totals(const fleet_sum *sums, size_t n, char *buf, size_t len)
{
    /* groups by headline: OK first, then from the least bad up */
    char words[16][32];
    int count[16], sev[16];
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        char w[32];
        fleet_headline(&sums[i], w, sizeof w);
        size_t g = 0;
        while (g < ng && strcmp(words[g], w)) g++;
        if (g == ng) {
            if (ng == 16) continue;
            snprintf(words[g], sizeof words[g], "%s", w);
            count[g] = 0;
            sev[g] = fleet_severity(&sums[i]);
            ng++;
        }
        count[g]++;
    }
    for (size_t i = 1; i < ng; i++) /* insertion sort by severity (few groups) */
        for (size_t j = i; j > 0 && sev[j - 1] > sev[j]; j--) {
            char tw[32];
            int tc = count[j], ts = sev[j];
            memcpy(tw, words[j], sizeof tw);
            memcpy(words[j], words[j - 1], sizeof tw);
            memcpy(words[j - 1], tw, sizeof tw);
            count[j] = count[j - 1], sev[j] = sev[j - 1];
            count[j - 1] = tc, sev[j - 1] = ts;
        }
    size_t off = (size_t)snprintf(buf, len, "%zu cluster%s:", n, n == 1 ? "" : "s");
    for (size_t g = 0; g < ng && off < len; g++)
        off += (size_t)snprintf(buf + off, len - off, "%s %d %s", g ? "," : "", count[g], words[g]);
    return buf;
}

char *fleet_verdict_totals(const fleet_sum *sums, size_t n, char *buf, size_t len)
{
    /* the judgement's classes, from fine to worst; an unreadable cluster by its lamp */
    enum { T_OK, T_WARNING, T_WRONG, T_CONNECTING, T_UNREADABLE, T_UNREACHABLE, T_N };
    static const char *const word[T_N] = {"OK",         "warning",    "wrong",
                                          "connecting", "unreadable", "unreachable"};
    int count[T_N] = {0};
    fleet_verdict *v = xmalloc(sizeof *v);
    for (size_t i = 0; i < n; i++) {
        fleet_judge(&sums[i], v);
        int t = v->unreadable ? (sums[i].lamp == FL_UNREACHABLE  ? T_UNREACHABLE
                                 : sums[i].lamp == FL_CONNECTING ? T_CONNECTING
                                                                 : T_UNREADABLE)
                : v->wrong    ? T_WRONG
                : v->warning  ? T_WARNING
                              : T_OK;
        count[t]++;
    }
    free(v);
    size_t off = (size_t)snprintf(buf, len, "%zu cluster%s", n, n == 1 ? "" : "s");
    int first = 1;
    for (int t = 0; t < T_N && off < len; t++) {
        if (!count[t]) continue;
        off += (size_t)snprintf(buf + off, len - off, "%s %d %s", first ? ":" : ",", count[t],
                                word[t]);
        first = 0;
    }
    return buf;
}

/* ---- members ------------------------------------------------------------------------------ */

fleet *fleet_new(kc_loop *loop)
{
    fleet *f = xcalloc(1, sizeof *f);
    f->loop = loop;
    return f;
}

fleet_member *fleet_add(fleet *f, const char *context, const char *ns, kc_rest_config *cfg,
                        const char *error)
{
    fleet_member *fm = xcalloc(1, sizeof *fm);
    fm->context = xstrdup(context ? context : "");
    fm->ns = xstrdup(ns ? ns : "velero");
    fm->cfg = cfg;
    fm->started = (double)kc_now_ms() / 1000.0;
    if (error) snprintf(fm->error, sizeof fm->error, "%s", error);
    if (cfg && !error) {
        kc_err err;
        kc_err_clear(&err);
        fm->client = kc_client_new(f->loop, cfg, &err);
        if (fm->client)
            fm->app = f->summary
                          ? app_new_summary(f->loop, fm->client, fm->context, cfg->server, fm->ns)
                          : app_new(f->loop, fm->client, fm->context, cfg->server, fm->ns);
        else
            snprintf(fm->error, sizeof fm->error, "%s",
                     err.msg[0] ? err.msg : "cannot create the client");
    }
    f->m = xrealloc(f->m, (f->n + 1) * sizeof *f->m);
    f->m[f->n++] = fm;
    return fm;
}

static int fl_none_pending(void *arg)
{
    const fleet *f = arg;
    for (size_t i = 0; i < f->n; i++)
        if (f->m[i]->client && kc_download_pending(f->m[i]->client)) return 0;
    return 1;
}

void fleet_free(fleet *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n; i++) {
        kc_request_cancel(f->m[i]->find);
        app_free(f->m[i]->app);
        f->m[i]->app = NULL;
    }
    /* every DownloadRequest a cluster's screens made is deleted on the way out, as the velero
     * CLI deletes its own: best effort, within one short deadline for all of them */
    if (f->loop && !fl_none_pending(f)) kc_loop_run_until(f->loop, fl_none_pending, f, 2000);
    for (size_t i = 0; i < f->n; i++) {
        fleet_member *fm = f->m[i];
        if (fm->client) kc_download_abandon(fm->client);
        kc_client_free(fm->client);
        kc_rest_config_free(fm->cfg);
        free(fm->context);
        free(fm->ns);
        free(fm);
    }
    free(f->m);
    free(f);
}

static const char *const fl_res[APP_NREFL] = {
    [APP_R_BACKUPS] = "backups",
    [APP_R_RESTORES] = "restores",
    [APP_R_PVBS] = "podvolumebackups",
    [APP_R_PVRS] = "podvolumerestores",
    [APP_R_DUS] = "datauploads",
    [APP_R_DDS] = "datadownloads",
    [APP_R_SCHEDULES] = "schedules",
    [APP_R_BSLS] = "backupstoragelocations",
    [APP_R_VSLS] = "volumesnapshotlocations",
    [APP_R_PODS] = "pods",
    [APP_R_DAEMONSETS] = "daemonsets",
    [APP_R_REPOS] = "backuprepositories",
    [APP_R_JOBS] = "jobs",
};

/* A failure before any request was sent: the credentials could not be had (an exec plugin that
 * failed, a token file that cannot be read: auth.c's messages), not the network. */
static int fl_auth_error(const kc_refl_status *st)
{
    if (st->last_status == 401) return 1;
    return st->last_status == 0 && (!strncmp(st->last_error, "exec plugin", 11) ||
                                    !strncmp(st->last_error, "cannot read", 11));
}

static int fl_failing(const kc_refl_status *st)
{
    return st->state != KC_REFL_LIVE && st->last_error[0] &&
           (st->state == KC_REFL_RETRYING || st->state == KC_REFL_FAILED || st->attempt > 0);
}

/* The lamp and its reason from the member's lists, client and liveness. */
static void fl_lamp(const fleet_member *fm, double now, fleet_sum *out)
{
    const app *a = fm->app;
    int64_t heard = kc_client_last_heard(fm->client);
    const kc_refl_status *auth = NULL, *net = NULL, *nofile = NULL, *first403 = NULL;
    char forbid[256] = "";
    size_t fo = 0;
    for (int i = 0; i < APP_NREFL; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (!fl_failing(st)) continue;
        if (fl_auth_error(st)) {
            if (!auth) auth = st;
        } else if (st->last_status == KC_ERR_NOFILE) { /* veltop's limit, not the server */
            if (!nofile) nofile = st;
        } else if (st->last_status == 403) {
            if (!first403) first403 = st;
            if (fo < sizeof forbid)
                fo += (size_t)snprintf(forbid + fo, sizeof forbid - fo, "%s%s", fo ? ", " : "",
                                       fl_res[i]);
        } else if (st->last_status == 0 && i <= APP_R_RESTORES && !st->synced) {
            /* the runs not listed for a network error; once listed, a failing watch is
             * staleness (app_connection) or the server's silence, not an unreachable server */
            if (!net) net = st;
        }
    }
    app_conn conn;
    app_connection(a, now, &conn);
    out->reachable = heard != 0;
    if (auth) {
        out->lamp = FL_UNAUTHORIZED;
        snprintf(out->why, sizeof out->why, "%s", auth->last_error);
        out->reachable = auth->last_status == 401;
        return;
    }
    /* an exec plugin still running: the silence is the plugin's (it has its own timeout), and
     * nothing has been asked of the server yet */
    double plug_s = 0;
    const char *plug = kc_auth_exec_running(kc_client_auth(a->client), &plug_s);
    if (plug && (!heard || conn.silent_s > 0)) {
        out->reachable = 0;
        out->lamp = FL_CONNECTING;
        snprintf(out->why, sizeof out->why,
                 "waiting for the credentials of exec plugin \"%s\" (%.0fs)", plug, plug_s);
        return;
    }
    if (nofile && !net) {
        out->lamp = FL_RETRYING;
        snprintf(out->why, sizeof out->why, "%s", nofile->last_error);
        return;
    }
    if (!heard) {
        out->reachable = 0;
        if (net) {
            out->lamp = FL_UNREACHABLE;
            snprintf(out->why, sizeof out->why, "%s", net->last_error);
        } else if (now - fm->started >= FLEET_SILENT_S) {
            out->lamp = FL_UNREACHABLE;
            snprintf(out->why, sizeof out->why, "no answer from %s for %.0fs", a->server,
                     now - fm->started);
        } else {
            out->lamp = FL_CONNECTING;
        }
        return;
    }
    if (conn.silent_s > 0 || net) {
        out->lamp = FL_UNREACHABLE;
        out->reachable = 0;
        if (net)
            snprintf(out->why, sizeof out->why, "%s", net->last_error);
        else
            snprintf(out->why, sizeof out->why, "%s not responding for %.0fs", a->server,
                     conn.silent_s);
        return;
    }
    if (forbid[0]) { /* the lists, then the server's own words (the first refusal's) */
        const char *msg = first403->last_error;
        if (!strncmp(msg, "forbidden: ", 11)) msg += 11;
        out->lamp = FL_FORBIDDEN;
        snprintf(out->why, sizeof out->why, "forbidden: %.250s: %.600s", forbid, msg);
        return;
    }
    if (app_no_velero(a)) {
        out->lamp = FL_NO_VELERO;
        snprintf(out->why, sizeof out->why, "no Velero in namespace %s", a->ns);
        return;
    }
    if (conn.retrying) {
        out->lamp = FL_RETRYING;
        snprintf(out->why, sizeof out->why, "%s", conn.error);
        return;
    }
    /* listed: live (a watch still opening is not a lamp of its own; --once ends then) */
    out->lamp = app_synced(a) ? FL_LIVE : FL_CONNECTING;
}

static void fl_found(void *arg, const kc_response *resp, const kc_err *err)
{
    fleet_member *fm = arg;
    fm->find = NULL;
    fm->find_state = 2;
    if (err->msg[0] || !resp->body) return; /* not allowed cluster-wide: nothing to say */
    cJSON *doc = cJSON_Parse(resp->body);
    cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");
    cJSON *md = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(items, 0), "metadata");
    const char *ns = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "namespace"));
    if (ns && strcmp(ns, fm->ns)) snprintf(fm->found_ns, sizeof fm->found_ns, "%s", ns);
    cJSON_Delete(doc);
}

int fleet_member_finding(const fleet_member *fm)
{
    return fm->find_state == 1;
}

void fleet_member_summary(fleet_member *fm, double now, double wall, fleet_sum *out)
{
    if (!fm->app) {
        memset(out, 0, sizeof *out);
        out->sched_age = -1;
        out->lamp = FL_CONFIG;
        snprintf(out->why, sizeof out->why, "%s", fm->error);
        out->health = HEALTH_UNKNOWN;
        snprintf(out->health_unknown, sizeof out->health_unknown, "cannot use the context: %.400s",
                 fm->error);
        return;
    }
    app *a = fm->app;
    const kc_refl_status *b = kc_reflector_status(a->refl[APP_R_BACKUPS]),
                         *r = kc_reflector_status(a->refl[APP_R_RESTORES]);
    int listed = b->synced && r->synced;
    if (listed) {
        if (a->model->vols_dirty) model_refresh_volumes(a->model);
        health *h = health_of_app(a, wall);
        ans_ctx c;
        answer_ctx_of_app(a, h, now, wall, &c);
        fleet_summarize(&c, h, wall, out);
        out->bsl_known = kc_reflector_status(a->refl[APP_R_BSLS])->synced;
        out->agents_known = kc_reflector_status(a->refl[APP_R_PODS])->synced;
        if (!out->agents_known) out->version[0] = 0;
        health_free(h);
    } else {
        memset(out, 0, sizeof *out);
        out->sched_age = -1;
    }
    out->listed = listed;
    fl_lamp(fm, now, out);
    if (!listed) { /* nothing read: health is unknown, for the lamp's reason */
        out->health = HEALTH_UNKNOWN;
        snprintf(out->health_unknown, sizeof out->health_unknown, "cannot read backups: %.400s",
                 out->why[0] ? out->why : "not listed yet");
    }
    if (out->lamp == FL_NO_VELERO && !fm->find_state) {
        kc_request_opts o = {.path = "/apis/velero.io/v1/backupstoragelocations?limit=1",
                             .timeout_ms = 10000};
        fm->find_state = 1;
        fm->find = kc_client_request(fm->client, &o, NULL, fl_found, fm);
    }
    if (out->lamp == FL_NO_VELERO && fm->found_ns[0]) {
        size_t len = strlen(out->why);
        snprintf(out->why + len, sizeof out->why - len,
                 "; Velero is in namespace %s (--namespace-for %s=%s)", fm->found_ns, fm->context,
                 fm->found_ns);
    }
}

int fleet_member_settled(const fleet_member *fm, double now)
{
    if (!fm->app) return 1;
    if (app_synced(fm->app)) return 1;
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(fm->app->refl[i]);
        if (st->state == KC_REFL_FAILED || (st->state == KC_REFL_RETRYING && !st->synced)) return 1;
    }
    /* a credential plugin silent as long as an unanswering server would be: as final for a
     * snapshot as that server's row (its own timeout ends it later on the screen) */
    double plug_s = 0;
    if (kc_auth_exec_running(kc_client_auth(fm->app->client), &plug_s) && plug_s >= FLEET_SILENT_S)
        return 1;
    fleet_sum s;
    memset(&s, 0, sizeof s);
    fl_lamp(fm, now, &s);
    return s.lamp == FL_UNREACHABLE || s.lamp == FL_UNAUTHORIZED;
}

const char *fleet_not_watched(const fleet *f, char *buf, size_t n)
{
    if (!f->not_watched)
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n,
                 "open-file limit %ld reached: %zu context%s not watched; raise it with ulimit -n",
                 f->fd_limit, f->not_watched, f->not_watched == 1 ? "" : "s");
    return buf;
}
