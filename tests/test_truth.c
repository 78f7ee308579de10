/* test_truth.c: the per-resource rows veltop derives from a stock Velero server's log equal what
 * the server did. veltop-sim's controller runs a backup (tests/fixtures/scenarios/truth.yaml:
 * core, apps, networking, rbac, apiextensions and a CRD group, plugin-added PVs, three
 * namespaces) and writes its log lines as v1.18.1 does ("Processing item" up to 11 ItemBlocks
 * ahead of "Backing up item"); the run's plan (simplan.h, the same pure function of the scenario
 * the controller runs) says which items the controller has backed up at any moment. At moments
 * between two items, the rows veltop's derivation (logprogress.h) makes of the pod log's lines
 * up to then must count exactly the items backed up per resource, with the totals the log can
 * know; at the end, the rows must equal the BackupResourceList artifact the controller stores. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts.h"
#include "kubeclient/util.h"
#include "logprogress.h"
#include "simctl.h"
#include "simkinds.h"
#include "simplan.h"
#include "simstore.h"
#include "testutil.h"

#define SCN FIXTURES_DIR "/scenarios/truth.yaml"

/* The Backup/RestoreResourceList (kind) the controller stores for target (a DownloadRequest,
 * then GET). */
static char *resource_list(simstore *s, simctl *c, const char *kind, const char *target)
{
    return tu_sim_artifact(s, c, kind, kind, target);
}

/* The controller started on truth.yaml, its pod log (every line of the runs, with its simulated
 * time) and a run's plan, as the controller planned it. */
typedef struct world {
    simstore *s;
    simctl *c;
    char **lines;
    double *times;
    size_t nlines;
    scenario *scn;
    sp_run *plan;
} world;

static void world_start(world *w, size_t run)
{
    w->s = simstore_new(100000);
    simctl_opts o = {.scenario = SCN,
                     .speed = 1,
                     .seed = 7,
                     .base_url = "http://127.0.0.1:9",
                     .ns = "velero",
                     .quiet = 1};
    char err[512] = "";
    w->c = simctl_start(w->s, &o, err, sizeof err);
    ck_assert_msg(w->c != NULL, "simctl_start: %s", err);
    size_t pos = 0;
    w->lines = simstore_log_read(w->s, sim_velero_pod_name(), &pos, 100000, &w->nlines, &w->times);
    ck_assert_uint_gt(w->nlines, 100);
    w->scn = scenario_load(SCN, 7, err, sizeof err);
    ck_assert_msg(w->scn != NULL, "%s", err);
    uint64_t rng = 1;
    sp_ctx pc = {.ns = "velero", .epoch = w->scn->epoch, .scn = w->scn, .rng = &rng};
    w->plan = xcalloc(1, sizeof *w->plan);
    scn_run_copy(&w->plan->sr, &w->scn->runs[run]);
    sp_plan_run(&pc, w->plan);
}

static void world_free(world *w)
{
    sp_run_free(w->plan);
    scenario_free(w->scn);
    for (size_t i = 0; i < w->nlines; i++) free(w->lines[i]);
    free(w->lines);
    free(w->times);
    simctl_stop(w->c);
    simstore_free(w->s);
}

/* Kind -> plural as the sim's discovery serves them (simkinds.h). */
static const char *resolve(void *arg, const char *gv, const char *kind)
{
    (void)arg;
    size_t n;
    const sim_kind *k = sim_kinds(&n);
    for (size_t i = 0; i < n; i++) {
        char kgv[128];
        snprintf(kgv, sizeof kgv, "%s%s%s", k[i].group, *k[i].group ? "/" : "", k[i].version);
        if (!strcmp(kgv, gv) && !strcmp(k[i].kind, kind)) return k[i].plural;
    }
    return NULL;
}

/* The row named res, NULL when there is none. */
static const vl_res_progress *row(const vl_res_progress *v, size_t n, const char *res, size_t *i)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k].resource, res)) return *i = k, &v[k];
    return NULL;
}

START_TEST(backup_rows_are_the_truth)
{
    world w;
    world_start(&w, 0);
    const sp_run *pr = w.plan;
    const sp_run plan = *pr;
    ck_assert_int_eq(plan.n_items, 83);
    simstore *s = w.s;
    simctl *c = w.c;
    char **lines = w.lines;
    double *times = w.times;
    size_t nlines = w.nlines;

    lprog *lp = lprog_new(0, "velero/truth");
    size_t li = 0;
    int checked = 0, saw_ahead = 0;
    /* every 3rd item: the moment between item k's end and item k+1's "Backing up item" line */
    for (int k = 0; k < plan.n_items; k += 3) {
        double t = sp_item_time(&plan, k) + 0.25 / plan.sr.rate;
        for (; li < nlines && times[li] <= t; li++)
            lprog_feed_raw(lp, lines[li], strlen(lines[li]));
        const vl_res_progress *v;
        const unsigned char *fl;
        size_t n = lprog_resources(lp, &v, &fl);
        int done_sum = 0;
        for (size_t i = 0; i < plan.nres; i++) {
            const sp_res *p = &plan.res[i];
            int done = k + 1 - p->first, collected = p->items - p->added;
            if (done < 0) done = 0;
            if (done > p->items) done = p->items;
            done_sum += done;
            size_t at;
            const vl_res_progress *r = row(v, n, p->gr, &at);
            ck_assert_msg(r != NULL, "item %d: no row %s", k, p->gr);
            ck_assert_msg(r->processed == done, "item %d: %s %lld done, the controller %d", k,
                          p->gr, (long long)r->processed, done);
            /* totals: what was listed (Retrieved, for namespaces Collected less the rest); once
             * the items plugins add take the count past it, nothing says how many: no total
             * (0, LPROG_NO_TOTAL), never the count standing in for one */
            int total = done > collected ? 0 : collected;
            ck_assert_msg(r->total == total, "item %d: %s total %lld, want %d", k, p->gr,
                          (long long)r->total, total);
            ck_assert_msg(!!(fl[at] & LPROG_NO_TOTAL) == (done > collected),
                          "item %d: %s no-total flag %d", k, p->gr, fl[at]);
            ck_assert_msg(!(fl[at] & LPROG_ESTIMATE), "item %d: %s estimate flag %d", k, p->gr,
                          fl[at]);
            /* active: queued into an ItemBlock and not all listed items done (the log cannot
             * tell whether plugins add more) */
            if (done && done < collected) ck_assert_msg(fl[at] & LPROG_ACTIVE, "%s", p->gr);
            /* rows ahead in the queue but not backed up yet: 0 done, not a count */
            if (!done && (fl[at] & LPROG_ACTIVE)) saw_ahead = 1;
        }
        ck_assert_uint_eq(n, plan.nres);
        ck_assert_int_eq(done_sum, k + 1);
        checked++;
    }
    ck_assert_int_ge(checked, 20);
    ck_assert_msg(saw_ahead, "Processing item never ran ahead of Backing up item");

    /* the end: every line fed, the rows are the stored BackupResourceList */
    for (; li < nlines; li++) lprog_feed_raw(lp, lines[li], strlen(lines[li]));
    char *json = resource_list(s, c, "BackupResourceList", "truth");
    vl_res_progress *art;
    size_t nart;
    kc_err e = {0};
    ck_assert_int_eq(lprog_from_resource_list(json, strlen(json), &art, &nart, &e), 0);
    const vl_res_progress *v;
    size_t n = lprog_resources(lp, &v, NULL);
    ck_assert_uint_eq(n, nart);
    ck_assert_uint_eq(nart, plan.nres);
    for (size_t i = 0; i < nart; i++) {
        size_t at;
        const vl_res_progress *r = row(v, n, art[i].resource, &at);
        ck_assert_msg(r != NULL, "artifact row %s missing", art[i].resource);
        ck_assert_msg(r->processed == art[i].processed && r->total == art[i].total,
                      "%s: %lld of %lld, the artifact %lld of %lld", art[i].resource,
                      (long long)r->processed, (long long)r->total, (long long)art[i].processed,
                      (long long)art[i].total);
    }
    /* and both what the plan backed up */
    for (size_t i = 0; i < plan.nres; i++) {
        size_t at;
        const vl_res_progress *r = row(art, nart, plan.res[i].gr, &at);
        ck_assert_msg(r && r->total == plan.res[i].items, "%s", plan.res[i].gr);
    }
    lprog_res_free(art, nart);
    free(json);
    lprog_free(lp);
    world_free(&w);
}
END_TEST

/* A restore (includeClusterResources: the run restores cluster-scoped resources): its rows' totals
 * come from its backup's BackupResourceList narrowed by its spec, Kinds named by discovery; done
 * from "Restored N items" lines; namespaces (no line) done once the restore is past them. */
START_TEST(restore_rows_are_the_truth)
{
    world w;
    world_start(&w, 1);
    const sp_run *plan = w.plan;
    ck_assert_int_eq(plan->n_items, 83);
    char *blist = resource_list(w.s, w.c, "BackupResourceList", "truth");
    cJSON *spec = simstore_get(w.s, "restores", "velero", "truth-restore");
    ck_assert_ptr_nonnull(spec);
    lprog_filter f;
    lprog_filter_from_restore(&f, spec);
    ck_assert_int_eq(f.include_cluster, 1);
    vl_res_progress *tot;
    unsigned char *est;
    size_t ntot;
    kc_err e = {0};
    ck_assert_int_eq(
        lprog_rows_from_list(blist, strlen(blist), &f, resolve, NULL, &tot, &ntot, &est, &e), 0);
    lprog *lp = lprog_new(1, "velero/truth-restore");
    lprog_set_totals(lp, tot, ntot, est);
    for (size_t i = 0; i < ntot; i++) ck_assert_msg(!est[i], "%s estimated", tot[i].resource);

    /* past the CRDs and namespaces (restored first, the namespaces with no line), at every 3rd
     * item, between its "Restored" line and the next item's */
    int past = 0;
    for (size_t i = 0; i < plan->nres; i++)
        if (!strcmp(plan->res[i].gr, "namespaces")) past = plan->res[i].first + plan->res[i].items;
    ck_assert_int_eq(past, 5);
    size_t li = 0;
    int checked = 0;
    for (int k = past; k < plan->n_items; k += 3) {
        double t = sp_item_time(plan, k) + 0.25 / plan->sr.rate;
        for (; li < w.nlines && w.times[li] <= t; li++)
            lprog_feed_raw(lp, w.lines[li], strlen(w.lines[li]));
        const vl_res_progress *v;
        const unsigned char *fl;
        size_t n = lprog_resources(lp, &v, &fl);
        ck_assert_uint_eq(n, plan->nres);
        for (size_t i = 0; i < plan->nres; i++) {
            const sp_res *p = &plan->res[i];
            int done = k + 1 - p->first;
            if (done < 0) done = 0;
            if (done > p->items) done = p->items;
            size_t at;
            const vl_res_progress *r = row(v, n, p->gr, &at);
            ck_assert_msg(r != NULL, "item %d: no row %s", k, p->gr);
            ck_assert_msg(r->processed == done && r->total == p->items,
                          "item %d: %s %lld of %lld, the controller %d of %d", k, p->gr,
                          (long long)r->processed, (long long)r->total, done, p->items);
            ck_assert_msg(!(fl[at] & LPROG_ESTIMATE), "item %d: %s estimated", k, p->gr);
        }
        checked++;
    }
    ck_assert_int_ge(checked, 20);

    /* the end: the rows are the stored RestoreResourceList */
    for (; li < w.nlines; li++) lprog_feed_raw(lp, w.lines[li], strlen(w.lines[li]));
    char *json = resource_list(w.s, w.c, "RestoreResourceList", "truth-restore");
    vl_res_progress *art;
    size_t nart;
    ck_assert_int_eq(
        lprog_rows_from_list(json, strlen(json), NULL, resolve, NULL, &art, &nart, NULL, &e), 0);
    const vl_res_progress *v;
    size_t n = lprog_resources(lp, &v, NULL);
    ck_assert_uint_eq(n, nart);
    ck_assert_uint_eq(nart, plan->nres);
    for (size_t i = 0; i < nart; i++) {
        size_t at;
        const vl_res_progress *r = row(v, n, art[i].resource, &at);
        ck_assert_msg(r != NULL, "artifact row %s missing", art[i].resource);
        ck_assert_msg(r->processed == art[i].processed && r->total == art[i].total,
                      "%s: %lld of %lld, the artifact %lld of %lld", art[i].resource,
                      (long long)r->processed, (long long)r->total, (long long)art[i].processed,
                      (long long)art[i].total);
    }
    lprog_res_free(art, nart);
    free(json);
    lprog_free(lp);
    lprog_res_free(tot, ntot);
    free(est);
    lprog_filter_free(&f);
    cJSON_Delete(spec);
    free(blist);
    world_free(&w);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("truth");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, backup_rows_are_the_truth);
    tcase_add_test(tc, restore_rows_are_the_truth);
    suite_add_tcase(su, tc);
    return tu_run_suite(su);
}
