/* test_fleet.c: the fleet summary of one cluster over synthetic models (the last 24 h, overdue
 * schedules and the oldest last success against its interval, storage locations, the run ending
 * last), its severity and headline, the totals line; and the choice of contexts (ctxsel). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctxsel.h"
#include "fleet.h"
#include "metrics.h"
#include "testutil.h"

#define T0  1704626400.0 /* 2024-01-07T11:20:00Z */
#define DAY 86400.0

static void set_run(vl_run *r, vl_kind kind, const char *name, vl_phase id, double started,
                    double completed, int64_t done, int64_t total)
{
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    r->meta.name = (char *)name;
    r->phase = (char *)"";
    r->phase_id = id;
    r->started = started;
    r->completed = completed;
    r->has_progress = total > 0;
    r->items_done = done;
    r->items_total = total;
}

typedef struct world {
    vl_run runs[8];
    vl_schedule sch[3];
    vl_bsl bsl[2];
    health_schedule hs[3];
    const vl_bsl *bslp[2];
    health h;
    model *m;
    ans_ctx c;
} world;

/* Six finished runs (two older than 24 h), two in flight; three schedules; two locations. */
static void world_init(world *w)
{
    memset(w, 0, sizeof *w);
    set_run(&w->runs[0], VL_BACKUP, "ok-1", VL_PH_COMPLETED, T0 - 3600, T0 - 3500, 10, 10);
    set_run(&w->runs[1], VL_BACKUP, "ok-2", VL_PH_COMPLETED, T0 - 7200, T0 - 7100, 10, 10);
    set_run(&w->runs[2], VL_RESTORE, "part-1", VL_PH_PARTIALLY_FAILED, T0 - 600, T0 - 500, 5, 5);
    set_run(&w->runs[3], VL_BACKUP, "fail-old", VL_PH_FAILED, T0 - DAY - 7200, T0 - DAY - 3600, 1,
            5);
    set_run(&w->runs[4], VL_BACKUP, "ok-old", VL_PH_COMPLETED, T0 - 2 * DAY, T0 - 2 * DAY + 60, 1,
            1);
    set_run(&w->runs[5], VL_BACKUP, "fail-1", VL_PH_FAILED_VALIDATION, 0, 0, 0, 0);
    w->runs[5].meta.created = T0 - 60;
    /* in flight: 30 of 120 after 60 s (0.5 items/s: ~180 s left) and 90 of 100 after 90 s */
    set_run(&w->runs[6], VL_BACKUP, "long-one", VL_PH_IN_PROGRESS, T0 - 60, 0, 30, 120);
    set_run(&w->runs[7], VL_RESTORE, "short-one", VL_PH_IN_PROGRESS, T0 - 90, 0, 90, 100);
    w->m = model_new();
    for (int i = 0; i < 8; i++) model_upsert_run(w->m, &w->runs[i], 100.0, T0);

    static const char *names[] = {"hourly", "nightly", "paused"};
    for (int i = 0; i < 3; i++) {
        w->sch[i].meta.name = (char *)names[i];
        w->hs[i].s = &w->sch[i];
        w->hs[i].cron_ok = 1;
    }
    /* hourly: last success 30 min ago (0.5 intervals); nightly: 30 h ago (1.25), overdue;
     * paused: never, but paused schedules are not judged */
    w->hs[0].last_success = T0 - 1800;
    w->hs[0].due.interval = 3600;
    w->hs[1].last_success = T0 - 30 * 3600;
    w->hs[1].due.interval = DAY;
    w->hs[1].due.overdue = 1;
    w->sch[2].paused = 1;
    w->h.sch = w->hs;
    w->h.n_sch = 3;
    w->h.n_overdue = 1;
    w->bsl[0].phase = (char *)"Available";
    w->bsl[1].phase = (char *)"Unavailable";
    w->bslp[0] = &w->bsl[0];
    w->bslp[1] = &w->bsl[1];
    w->h.bsl = w->bslp;
    w->h.n_bsl = 2;
    w->h.n_bsl_unavailable = 1;
    w->h.pods_known = 1;
    w->c.m = w->m;
    w->c.h = &w->h;
    w->c.now = 100.0;
    w->c.wall = T0;
}

START_TEST(last_24h_counts_by_end_time)
{
    world w;
    world_init(&w);
    fleet_sum s;
    fleet_summarize(&w.c, &w.h, T0, &s);
    /* ok-old and fail-old ended more than 24 h ago; fail-1 (never started) by its creation */
    ck_assert_int_eq(s.day_completed, 2);
    ck_assert_int_eq(s.day_partial, 1);
    ck_assert_int_eq(s.day_failed, 1);
    ck_assert_int_eq(s.wrong, 1);
    model_free(w.m);
}
END_TEST

START_TEST(schedules_overdue_and_oldest_success_against_interval)
{
    world w;
    world_init(&w);
    fleet_sum s;
    fleet_summarize(&w.c, &w.h, T0, &s);
    ck_assert_int_eq(s.n_schedules, 3);
    ck_assert_int_eq(s.n_overdue, 1);
    /* nightly is 1.25 intervals old, hourly only 0.5 (though its interval is shorter) */
    ck_assert_str_eq(s.sched_name, "nightly");
    ck_assert_double_eq(s.sched_age, 30 * 3600);
    ck_assert_double_eq(s.sched_interval, DAY);
    /* a schedule that never succeeded is the oldest of all */
    w.sch[2].paused = 0;
    fleet_summarize(&w.c, &w.h, T0, &s);
    ck_assert_str_eq(s.sched_name, "paused");
    ck_assert_double_eq(s.sched_age, -1);
    model_free(w.m);
}
END_TEST

START_TEST(locations_agents_and_runs_in_flight)
{
    world w;
    world_init(&w);
    fleet_sum s;
    fleet_summarize(&w.c, &w.h, T0, &s);
    ck_assert_int_eq(s.bsl_known, 1);
    ck_assert_int_eq(s.bsl_available, 1);
    ck_assert_int_eq(s.bsl_total, 2);
    ck_assert_int_eq(s.n_bsl_unavailable, 1);
    ck_assert_int_eq(s.agents_known, 1);
    ck_assert_int_eq(s.agents_total, 0);
    ck_assert_str_eq(s.version, ""); /* no server pod: unknown, not a version */
    ck_assert_int_eq(s.n_active, 2);
    ck_assert_int_eq(s.n_stalled, 0);
    ck_assert_str_eq(s.last_name, "long-one");
    ck_assert_int_eq(s.last_kind, VL_BACKUP);
    ck_assert(s.last_eta > 100 && s.last_eta_kind != ANS_ETA_NONE);
    /* no health picture: schedules and locations unknown, not zero-and-fine */
    fleet_summarize(&w.c, NULL, T0, &s);
    ck_assert_int_eq(s.bsl_known, 0);
    ck_assert_int_eq(s.agents_known, 0);
    model_free(w.m);
}
END_TEST

START_TEST(healthy_cluster_is_ok_and_nothing_wrong)
{
    world w;
    world_init(&w);
    model_free(w.m);
    w.m = model_new();
    model_upsert_run(w.m, &w.runs[0], 100.0, T0);
    w.c.m = w.m;
    w.h.n_overdue = 0;
    w.hs[1].due.overdue = 0;
    w.h.n_bsl = 1;
    w.h.n_bsl_unavailable = 0;
    fleet_sum s;
    fleet_summarize(&w.c, &w.h, T0, &s);
    ck_assert_int_eq(s.wrong, 0);
    ck_assert_int_eq(fleet_severity(&s), 0);
    char b[64];
    ck_assert_str_eq(fleet_headline(&s, b, sizeof b), "OK");
    model_free(w.m);
}
END_TEST

/* One rule (fleet_judge) for what a context is: the exit status of --once (one context, several)
 * and the JSON summary both come from it. A list not visible, or no Velero there, is incomplete
 * and wrong (a fleet's JSON said wrong: false while the status was 9); a context not read is
 * unreadable, its wrong unknown; health not readable makes the row "health unknown", not OK. */
START_TEST(one_verdict_for_exit_status_and_summary)
{
    world w;
    world_init(&w);
    model_free(w.m);
    w.m = model_new();
    model_upsert_run(w.m, &w.runs[0], 100.0, T0);
    w.c.m = w.m;
    w.h.n_overdue = 0;
    w.hs[1].due.overdue = 0;
    w.h.n_bsl = 1;
    w.h.n_bsl_unavailable = 0;
    kc_pod server = {0};
    server.ready = 1; /* a ready server, no node-agents: nothing needs attention */
    w.h.server = &server;
    fleet_sum s;
    fleet_verdict v[4];
    fleet_summarize(&w.c, &w.h, T0, &s);
    char b[64];
    ck_assert_int_eq(s.health, HEALTH_OK);
    ck_assert_int_eq(s.sched_known, 1);
    fleet_judge(&s, &v[0]);
    ck_assert_int_eq(v[0].unreadable + v[0].incomplete + v[0].wrong + v[0].warning, 0);
    ck_assert_str_eq(v[0].why, "");
    ck_assert_int_eq(fleet_exit_one(&v[0]), 0);
    ck_assert_int_eq(fleet_exit_many(v, 1), 0);

    /* no Velero in the namespace: incomplete, wrong; 5 alone, 7 in a fleet */
    s.lamp = FL_NO_VELERO;
    snprintf(s.why, sizeof s.why, "no Velero in namespace nosuch");
    fleet_judge(&s, &v[1]);
    ck_assert_int_eq(v[1].unreadable, 0);
    ck_assert_int_eq(v[1].incomplete, 1);
    ck_assert_int_eq(v[1].wrong, 1);
    ck_assert_int_eq(v[1].n_inc, 1);
    ck_assert_str_eq(v[1].inc[0], "no Velero in namespace nosuch");
    ck_assert_str_eq(v[1].why, "no Velero in namespace nosuch");
    ck_assert_int_eq(fleet_exit_one(&v[1]), FLEET_EXIT_INCOMPLETE);
    ck_assert_int_eq(fleet_exit_many(v, 2), FLEET_EXIT_WRONG);

    /* pods forbidden (the answers' own list) and a schedule overdue: wrong, incomplete; the
     * lamp's words are said once, the answers' object names the list */
    s.lamp = FL_FORBIDDEN;
    snprintf(s.why, sizeof s.why, "forbidden: pods");
    s.missing = ANS_MISS_PODS;
    s.n_overdue = 1;
    s.wrong = 1;
    fleet_judge(&s, &v[2]);
    ck_assert_int_eq(v[2].incomplete, 1);
    ck_assert_int_eq(v[2].wrong, 1);
    ck_assert_int_eq(v[2].n_inc, 0);
    ck_assert_str_eq(v[2].why, "1 schedule overdue, forbidden: pods");
    /* a schedule with nothing restorable newer than 2 intervals (readiness.h): wrong, named */
    s.n_ready_stale = 1;
    snprintf(s.ready_stale_name, sizeof s.ready_stale_name, "daily");
    fleet_judge(&s, &v[2]);
    ck_assert_str_eq(v[2].why, "1 schedule overdue, 1 schedule with nothing restorable newer than "
                               "2 intervals (daily), forbidden: pods");
    s.n_overdue = 0;
    ck_assert_str_eq(fleet_headline(&s, b, sizeof b), "restorable too old");
    s.n_overdue = 1;
    s.n_ready_stale = 0;

    /* the runs not read: unreadable, whatever else; 1 alone, 8 in a fleet, 9 with a wrong one */
    s.listed = 0;
    s.lamp = FL_UNREACHABLE;
    snprintf(s.why, sizeof s.why, "cannot connect to https://10.0.0.1: connection refused");
    fleet_judge(&s, &v[3]);
    ck_assert_int_eq(v[3].unreadable, 1);
    ck_assert_int_eq(v[3].wrong, 0);
    ck_assert_str_eq(v[3].why, "cannot connect to https://10.0.0.1: connection refused");
    ck_assert_int_eq(fleet_exit_one(&v[3]), FLEET_EXIT_UNREADABLE);
    ck_assert_int_eq(fleet_exit_many(&v[3], 1), FLEET_EXIT_UNREAD);
    ck_assert_int_eq(fleet_exit_many(v, 4), FLEET_EXIT_BOTH);

    /* schedules not readable: health unknown, the list named, incomplete; the row is not OK */
    health_set_unread(&w.h, HEALTH_IN_SCHEDULES, "forbidden");
    fleet_summarize(&w.c, &w.h, T0, &s);
    ck_assert_int_eq(s.health, HEALTH_UNKNOWN);
    ck_assert_str_eq(s.health_unknown, "cannot read schedules: forbidden");
    ck_assert_str_eq(s.lists_unread, "schedules forbidden");
    ck_assert_int_eq(s.sched_known, 0); /* the row's SCHEDULES is "?", not "none" */
    ck_assert_int_eq(s.ready_known, 0); /* readiness unknown with why, not "0 stale" */
    ck_assert_str_eq(s.ready_why, "cannot read schedules: forbidden");
    fleet_judge(&s, &v[0]);
    ck_assert_int_eq(v[0].incomplete, 1);
    ck_assert_int_eq(v[0].wrong, 1);
    ck_assert_str_eq(v[0].inc[0], "schedules forbidden");
    ck_assert_str_eq(v[0].why, "not visible: schedules forbidden");
    ck_assert_str_eq(fleet_headline(&s, b, sizeof b), "health unknown");
    s.listed = 0; /* the first lists on their way: connecting, not "health unknown" */
    s.lamp = FL_CONNECTING;
    ck_assert_str_eq(fleet_headline(&s, b, sizeof b), "connecting");
    model_free(w.m);
}
END_TEST

START_TEST(severity_orders_and_totals_group)
{
    fleet_sum s[5];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 5; i++) s[i].listed = 1;
    s[1].n_stalled = 1;
    s[1].stalled_kind = VL_RESTORE;
    s[2].lamp = FL_UNREACHABLE;
    s[3].n_overdue = 2;
    char b[128];
    ck_assert_int_gt(fleet_severity(&s[2]), fleet_severity(&s[1]));
    ck_assert_int_gt(fleet_severity(&s[1]), fleet_severity(&s[3]));
    ck_assert_int_gt(fleet_severity(&s[3]), fleet_severity(&s[0]));
    ck_assert_str_eq(fleet_headline(&s[1], b, sizeof b), "stalled restore");
    ck_assert_str_eq(fleet_totals(s, 5, b, sizeof b),
                     "5 clusters: 2 OK, 1 overdue schedule, 1 stalled restore, 1 unreachable");
    /* the judgement's totals (fleet_judge, as the exit status and JSON): a stalled run and an
     * overdue schedule are wrong when fleet_summarize says so (wrong), a diagnosis a warning */
    s[1].wrong = s[3].wrong = 1;
    s[4].warn = 1;
    ck_assert_str_eq(fleet_verdict_totals(s, 5, b, sizeof b),
                     "5 clusters: 1 OK, 1 warning, 2 wrong, 1 unreachable");
    s[0].listed = 0;
    s[0].lamp = FL_CONNECTING;
    s[4].lamp = FL_UNAUTHORIZED;
    ck_assert_str_eq(fleet_verdict_totals(s, 5, b, sizeof b),
                     "5 clusters: 2 wrong, 1 connecting, 1 unreadable, 1 unreachable");
    ck_assert_str_eq(fleet_verdict_totals(s, 0, b, sizeof b), "0 clusters");
    s[0].listed = 1;
    s[0].lamp = FL_LIVE;
    s[1].wrong = s[3].wrong = 0;
    s[4].warn = 0;
    s[4].lamp = FL_LIVE;
    /* forbidden pods in a listed cluster rank below a failed run; forbidden runs above it */
    s[4].lamp = FL_FORBIDDEN;
    s[0].day_failed = 1;
    ck_assert_int_lt(fleet_severity(&s[4]), fleet_severity(&s[0]));
    s[4].listed = 0;
    ck_assert_int_gt(fleet_severity(&s[4]), fleet_severity(&s[0]));
}
END_TEST

/* ---- ctxsel ---- */

static char *kc_names[] = {
    (char *)"arn:aws:eks:eu-west-1:123456789012:cluster/prod",
    (char *)"kubernetes-admin@kubernetes",
    (char *)"gke_proj_europe-west1_prod-eu",
    (char *)"prod-us",
    (char *)"prod-eu",
    (char *)"odd,name",
    (char *)"dev",
};
#define N_NAMES (sizeof kc_names / sizeof kc_names[0])

static char *sel_join(const ctxsel *s)
{
    static char b[1024];
    b[0] = 0;
    for (size_t i = 0; i < s->n; i++) {
        strcat(b, i ? " " : "");
        strcat(b, s->v[i].context);
        strcat(b, "=");
        strcat(b, s->v[i].ns);
        if (s->v[i].missing) strcat(b, "(missing)");
    }
    return b;
}

START_TEST(context_lists_patterns_and_exact_names)
{
    ctxsel s;
    char err[256];
    const char *specs[] = {"prod-*,dev", "kubernetes-admin@kubernetes", "dev"};
    ctxsel_opts o = {.specs = specs, .n_specs = 3, .ns = "velero"};
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), 0);
    ck_assert_str_eq(sel_join(&s),
                     "prod-us=velero prod-eu=velero dev=velero kubernetes-admin@kubernetes=velero");
    ctxsel_clear(&s);
    /* a name holding a comma is taken whole when the kubeconfig has it */
    const char *odd[] = {"odd,name", "nope,dev"};
    o.specs = odd;
    o.n_specs = 2;
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), 0);
    ck_assert_str_eq(sel_join(&s), "odd,name=velero nope=velero(missing) dev=velero");
    ctxsel_clear(&s);
    /* ... and inside a list, the longest run of parts that names one */
    const char *mixed[] = {"dev,odd,name,prod-us"};
    o.specs = mixed;
    o.n_specs = 1;
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), 0);
    ck_assert_str_eq(sel_join(&s), "dev=velero odd,name=velero prod-us=velero");
    ctxsel_clear(&s);
    /* a pattern matching nothing is a usage error, naming it */
    const char *none[] = {"stage-*"};
    o.specs = none;
    o.n_specs = 1;
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "no context of the kubeconfig matches 'stage-*'");
    const char *empty[] = {"dev,"};
    o.specs = empty;
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "empty context name in --context");
}
END_TEST

START_TEST(all_contexts_and_namespace_for_split_at_last_equals)
{
    ctxsel s;
    char err[256];
    const char *nsf[] = {"arn:aws:eks:eu-west-1:123456789012:cluster/prod=openshift-adp",
                         "gke_proj_europe-west1_prod-eu=velero-system"};
    ctxsel_opts o = {.all = 1, .ns_for = nsf, .n_ns_for = 2, .ns = "backup"};
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), 0);
    ck_assert_uint_eq(s.n, N_NAMES);
    ck_assert_str_eq(s.v[0].ns, "openshift-adp");
    ck_assert_str_eq(s.v[1].ns, "backup");
    ck_assert_str_eq(s.v[2].ns, "velero-system");
    ctxsel_clear(&s);
    char *ctx;
    const char *ns;
    ck_assert_int_eq(ctxsel_split_ns_for("a=b=c", &ctx, &ns), 0);
    ck_assert_str_eq(ctx, "a=b");
    ck_assert_str_eq(ns, "c");
    free(ctx);
    ck_assert_int_eq(ctxsel_split_ns_for("noequals", &ctx, &ns), -1);
    ck_assert_int_eq(ctxsel_split_ns_for("ctx=", &ctx, &ns), -1);
    const char *bad[] = {"elsewhere=ns"};
    o.ns_for = bad;
    o.n_ns_for = 1;
    ck_assert_int_eq(ctxsel_resolve(&o, kc_names, N_NAMES, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "--namespace-for: context 'elsewhere' is not watched (see --context)");
}
END_TEST

/* ---- a summary's volumes, over an in-process sim ---- */

static int vols_listed(void *arg)
{
    app *a = arg;
    for (int i = APP_R_BACKUPS; i <= APP_R_DDS; i++)
        if (!kc_reflector_status(a->refl[i])->synced) return 0;
    return a->model->n_runs == 3 && a->model->n_vols >= 2;
}

START_TEST(summary_keeps_volumes_of_runs_in_flight_until_opened)
{
    tu_sim ts;
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/fleet-history.yaml"});
    tu_sim_connect(&ts);
    app *a = app_new_summary(ts.loop, ts.client, "c", ts.server, "velero");
    ck_assert(kc_loop_run_until(ts.loop, vols_listed, a, 20000));
    /* the live one's, and the newest finished run's (of no schedule: the exporter's last run) */
    ck_assert_uint_eq(a->model->n_vols, 2);
    model_refresh_volumes(a->model);
    ck_assert_int_eq(model_find_run(a->model, VL_BACKUP, "old-1")->vols.n, 0);
    ck_assert_int_eq(model_find_run(a->model, VL_BACKUP, "recent-1")->vols.n, 1);
    ck_assert_int_eq(model_find_run(a->model, VL_BACKUP, "live-1")->vols.n, 1);
    /* opened: every volume */
    app_load_all_volumes(a);
    ck_assert_int_eq(a->volumes_recent, 0);
    ck_assert(kc_loop_run_until(ts.loop, vols_listed, a, 20000));
    ck_assert_uint_eq(a->model->n_vols, 3);
    model_refresh_volumes(a->model);
    ck_assert_int_eq(model_find_run(a->model, VL_BACKUP, "old-1")->vols.n, 1);
    app_load_all_volumes(a); /* whole already: nothing to do */
    ck_assert_uint_eq(a->model->n_vols, 3);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

/* ---- what a summary keeps, against what its answers read ---- */

static int vols_done(app *a, size_t runs)
{
    return a->load_phase == APP_LOAD_DONE && a->model->n_runs == runs && a->model->n_vols >= 1;
}

static int both_done(void *arg)
{
    app **v = arg;
    return vols_done(v[0], 15) && vols_done(v[1], 15);
}

static int run_vols(app *a, const char *run)
{
    model_refresh_volumes(a->model);
    const model_run *r = model_find_run(a->model, VL_BACKUP, run);
    ck_assert_msg(r != NULL, "no run %s", run);
    return r->vols.n;
}

/* Both apps saw the same state of what moves (the run in flight's items, its volume's bytes). */
static int same_live(void *arg)
{
    app **v = arg;
    const model_run *r[2];
    for (int k = 0; k < 2; k++) r[k] = model_find_run(v[k]->model, VL_BACKUP, "daily-live");
    if (!r[0] || !r[1] || !r[0]->run || !r[1]->run ||
        r[0]->run->items_done != r[1]->run->items_done)
        return 0;
    model_volume *mv[2][2];
    for (int k = 0; k < 2; k++)
        if (model_run_volumes(v[k]->model, r[k], mv[k], 2) != 1) return 0;
    return mv[0][0]->vol->bytes_done == mv[1][0]->vol->bytes_done;
}

/* Two apps' rate trackers sample the same changes at their own arrival times: their ETAs agree
 * to within that jitter, not to the bit. */
static double eta_tol(double eta)
{
    return 0.01 * fabs(eta) + 1;
}

static void same_answers(const run_answer *x, size_t nx, const run_answer *y, size_t ny)
{
    ck_assert_uint_eq(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        const run_answer *p = &x[i], *q = NULL;
        for (size_t k = 0; k < ny; k++)
            if (!strcmp(y[k].run->name, p->run->name)) q = &y[k];
        ck_assert_msg(q != NULL, "no answer for %s", p->run->name);
        ck_assert_int_eq(p->bytes_known, q->bytes_known);
        ck_assert_int_eq(p->bytes_done, q->bytes_done);
        ck_assert_int_eq(p->bytes_total, q->bytes_total);
        ck_assert_int_eq(p->n_volumes, q->n_volumes);
        ck_assert_int_eq(p->eta_kind, q->eta_kind);
        ck_assert_int_eq(p->from_history, q->from_history);
        ck_assert_double_eq_tol(p->eta, q->eta, eta_tol(q->eta));
        ck_assert_int_eq(p->hist.n, q->hist.n);
        ck_assert_double_eq_tol(p->hist.bytes_med, q->hist.bytes_med, 1e-6);
        ck_assert_int_eq(p->stalled, q->stalled);
        ck_assert_int_eq(p->n_diag, q->n_diag);
    }
}

/* The row (fleet_member_summary) and the exporter's answers (runs in flight, last runs) of a
 * summary app and of a whole one over the same cluster, at the same instant. */
static void same_figures(app *sa, app *wa)
{
    double now = (double)kc_now_ms() / 1000.0, wall = kc_wall_now();
    fleet_sum s[2];
    app *v[2] = {sa, wa};
    run_answer *fl[2], *last[2];
    size_t nfl[2], nlast[2];
    for (int k = 0; k < 2; k++) {
        fleet_member fm = {.context = v[k]->context,
                           .ns = v[k]->ns,
                           .client = v[k]->client,
                           .app = v[k],
                           .started = now - 10,
                           .find_state = 2};
        fleet_member_summary(&fm, now, wall, &s[k]);
        health *h = health_of_app(v[k], wall);
        ans_ctx c;
        answer_ctx_of_app(v[k], h, now, wall, &c);
        fl[k] = mx_run_answers(&c, v[k]->model, &nfl[k]);
        last[k] = mx_last_runs(&c, v[k]->model, &nlast[k]);
        health_free(h);
    }
    ck_assert_int_eq(s[0].lamp, s[1].lamp);
    ck_assert_int_eq(s[0].n_active, 1);
    ck_assert_int_eq(s[0].n_active, s[1].n_active);
    ck_assert_int_eq(s[0].n_stalled, s[1].n_stalled);
    ck_assert_int_eq(s[0].n_eta_unknown, s[1].n_eta_unknown);
    ck_assert_str_eq(s[0].last_name, s[1].last_name);
    ck_assert_int_eq(s[0].last_eta_kind, s[1].last_eta_kind);
    ck_assert_double_eq_tol(s[0].last_eta, s[1].last_eta, eta_tol(s[1].last_eta));
    ck_assert_int_eq(s[0].day_completed, s[1].day_completed);
    ck_assert_int_eq(s[0].warn, s[1].warn);
    ck_assert_int_eq(s[0].wrong, s[1].wrong);
    ck_assert_int_eq(s[0].health, s[1].health);
    ck_assert_str_eq(s[0].health_unknown, s[1].health_unknown);
    ck_assert_int_eq(s[0].n_overdue, s[1].n_overdue);
    ck_assert_str_eq(s[0].sched_name, s[1].sched_name);
    fleet_verdict j[2];
    fleet_judge(&s[0], &j[0]);
    fleet_judge(&s[1], &j[1]);
    ck_assert_str_eq(j[0].why, j[1].why);
    ck_assert_int_eq(fleet_exit_one(&j[0]), fleet_exit_one(&j[1]));
    same_answers(fl[0], nfl[0], fl[1], nfl[1]);
    same_answers(last[0], nlast[0], last[1], nlast[1]);
    /* the run in flight's ETA leans on its schedule's history, bytes included */
    ck_assert_int_eq(fl[0][0].hist.n, 10);
    ck_assert(fl[0][0].hist.bytes_med > 0);
    for (int k = 0; k < 2; k++) {
        free(fl[k]);
        free(last[k]);
    }
}

/* The volume lists listed again, with the deleted run gone and daily-02's volume whole. */
static int relisted_whole(void *arg)
{
    app *a = arg;
    if (a->relisted != 1 || a->load_phase != APP_LOAD_DONE || a->model->n_runs != 14) return 0;
    model_refresh_volumes(a->model);
    const model_run *r = model_find_run(a->model, VL_BACKUP, "daily-02");
    return r && r->vols.n == 1;
}

static int64_t live_items;

static int live_moved(void *arg)
{
    const model_run *r = model_find_run(((app *)arg)->model, VL_BACKUP, "daily-live");
    return r && r->run && r->run->items_done != live_items;
}

START_TEST(summary_holds_only_the_volumes_its_answers_read)
{
    tu_sim ts;
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/fleet-keep.yaml"});
    tu_sim_connect(&ts);
    app *sa = app_new_summary(ts.loop, ts.client, "c", ts.server, "velero");
    app *wa = app_new(ts.loop, ts.client, "c", ts.server, "velero");
    app *v[2] = {sa, wa};
    ck_assert(kc_loop_run_until(ts.loop, both_done, v, 20000));
    /* whole: the run in flight's, the schedule's last ten (the history its ETA reads), the
     * newest run of no schedule (the exporter's last run); the rest not even as keys */
    ck_assert_uint_eq(kc_store_len(sa->stores[APP_R_PVBS]), 12);
    ck_assert_uint_eq(wa->model->n_vols, 15);
    ck_assert_uint_eq(sa->model->n_vols, 12);
    ck_assert_int_eq(run_vols(sa, "daily-live"), 1);
    ck_assert_int_eq(run_vols(sa, "recent-1"), 1);
    char name[16];
    for (int i = 3; i <= 12; i++) {
        snprintf(name, sizeof name, "daily-%02d", i);
        ck_assert_int_eq(run_vols(sa, name), 1);
    }
    ck_assert_int_eq(run_vols(sa, "daily-01"), 0);
    ck_assert_int_eq(run_vols(sa, "daily-02"), 0);
    ck_assert_int_eq(run_vols(sa, "old-1"), 0);
    ck_assert_int_eq(run_vols(wa, "daily-01"), 1);
    /* every figure the summaries show, the same as from every volume */
    ck_assert(kc_loop_run_until(ts.loop, same_live, v, 5000));
    same_figures(sa, wa);
    /* a run in flight's counters moving leave what is kept as it was (no new reckoning) */
    unsigned long gen = sa->keep_gen;
    live_items = model_find_run(sa->model, VL_BACKUP, "daily-live")->run->items_done;
    ck_assert(kc_loop_run_until(ts.loop, live_moved, sa, 10000));
    ck_assert_uint_eq(sa->keep_gen, gen);
    /* the schedule's newest deleted: daily-02 is in the history now, and its volume is read
     * again (the volume lists listed again) */
    int st = 0;
    char *msg = NULL;
    cJSON_Delete(simstore_delete(vsim_store(ts.sim), "backups", "velero", "daily-12", &st, &msg));
    free(msg);
    ck_assert(kc_loop_run_until(ts.loop, relisted_whole, sa, 20000));
    ck_assert_uint_eq(sa->relisted, 1);
    ck_assert_int_eq(run_vols(sa, "daily-02"), 1);
    ck_assert_int_eq(run_vols(sa, "daily-01"), 0);
    app_free(wa);
    app_free(sa);
    tu_sim_stop(&ts);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fleet");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, last_24h_counts_by_end_time);
    tcase_add_test(tc, schedules_overdue_and_oldest_success_against_interval);
    tcase_add_test(tc, locations_agents_and_runs_in_flight);
    tcase_add_test(tc, healthy_cluster_is_ok_and_nothing_wrong);
    tcase_add_test(tc, one_verdict_for_exit_status_and_summary);
    tcase_add_test(tc, severity_orders_and_totals_group);
    tcase_add_test(tc, context_lists_patterns_and_exact_names);
    tcase_add_test(tc, all_contexts_and_namespace_for_split_at_last_equals);
    suite_add_tcase(s, tc);
    TCase *sim = tcase_create("sim");
    tcase_set_timeout(sim, 60);
    tcase_add_test(sim, summary_keeps_volumes_of_runs_in_flight_until_opened);
    tcase_add_test(sim, summary_holds_only_the_volumes_its_answers_read);
    suite_add_tcase(s, sim);
    return tu_run_suite(s);
}
