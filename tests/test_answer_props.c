/* test_answer_props.c: properties of the run answer (answer.h) over many generated model states
 * (a fixed pseudo-random sequence: the same states every run). Item counters moving, steady,
 * stalled; volumes unsized, sized and not started, with bytes and no total, moving, stalled,
 * finished; pods still to come (volumes may come); runs waiting on plugin operations, finalizing,
 * finished; stale data, lists still loading, a forbidden list; runs attached mid-flight days
 * after their start, and counts whose end is past year 9999 (run it under UBSan: no cast
 * overflows). For every answer, and for what the surfaces render of it (the list cell,
 * the detail line, --once --json's run object):
 * - no ETA is a cap or a sentinel standing in for a figure (172801, 172800 s, "> 2d", 48h);
 * - every ETA shown is a finite number >= 0, and its end is at + eta;
 * - every ETA "none" and every stalled "unknown" carries its reason;
 * - no ETA while stalled or while the data is stale;
 * - the caveat "volumes not sized yet" only beside a bytes total that is unknown;
 * - JSON: etaSeconds null exactly when etaKind is "none", and then etaReason is a string;
 *   stalled null exactly with a stalledReason. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "snapshot.h"
#include "testutil.h"

#define T0     1704626400.0 /* wall clock of monotonic 0 */
#define NRUNS  3
#define NVOLS  5
#define STATES 4000

static unsigned seed = 20261207u;

static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) & 0xffffffu;
}

static int pick(int n)
{
    return (int)(rnd() % (unsigned)n);
}

static double unif(void)
{
    return (double)rnd() / (double)0x1000000;
}

typedef struct gen_run {
    vl_run r;
    char name[32];
    vl_res_progress res[2];
    vl_volume v[NVOLS];
    char vname[NVOLS][48];
    int nv;
} gen_run;

static const vl_phase run_phases[] = {
    VL_PH_IN_PROGRESS, VL_PH_IN_PROGRESS, VL_PH_IN_PROGRESS, VL_PH_WAITING_PLUGIN_OPS,
    VL_PH_FINALIZING,  VL_PH_COMPLETED,   VL_PH_NEW};
static const char *run_phase_text[] = {
    "InProgress", "InProgress", "InProgress", "WaitingForPluginOperations",
    "Finalizing", "Completed",  "New"};
static const vl_phase vol_phases[] = {VL_PH_IN_PROGRESS, VL_PH_IN_PROGRESS, VL_PH_IN_PROGRESS,
                                      VL_PH_NEW,         VL_PH_ACCEPTED,    VL_PH_PREPARED,
                                      VL_PH_COMPLETED};
static const char *vol_phase_text[] = {"InProgress", "InProgress", "InProgress", "New",
                                       "Accepted",   "Prepared",   "Completed"};

/* One run and its volumes into m, their counters fed from `from` to `upto` (monotonic seconds)
 * in one of three ways: moving all along, moving then silent (stalled), or seen once. */
static void gen_one(model *m, gen_run *g, int k, double upto)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "run-%d", k);
    int ph = pick((int)(sizeof run_phases / sizeof run_phases[0]));
    vl_run *r = &g->r;
    r->kind = pick(4) ? VL_BACKUP : VL_RESTORE;
    r->meta.name = g->name;
    r->phase = (char *)run_phase_text[ph];
    r->phase_id = run_phases[ph];
    /* started minutes to days before the first sighting (an attach days into a slow run) */
    double ago = pick(3) ? 30 + unif() * 3600 : unif() * 5 * 86400;
    r->started = r->phase_id == VL_PH_NEW ? 0 : T0 - ago;
    if (r->phase_id == VL_PH_COMPLETED) r->completed = T0 + upto * unif();
    r->has_progress = pick(6) != 0;
    int64_t total = r->has_progress ? 1 + pick(20000) : 0;
    if (total && pick(20) == 0) total = INT64_MAX / 2; /* an end past year 9999 */
    int64_t done = total ? (int64_t)(unif() * (double)total) : 0;
    if (r->phase_id != VL_PH_IN_PROGRESS && r->phase_id != VL_PH_NEW) done = total;
    r->items_total = total;
    r->items_done = done;
    if (pick(3) == 0) { /* resourceProgress: pods still to come, or all done */
        g->res[0] = (vl_res_progress){(char *)"pods", pick(2) ? done / 2 : 10, 10 + pick(5)};
        g->res[1] = (vl_res_progress){(char *)"configmaps", 3, 3};
        r->resources = g->res;
        r->n_resources = 2;
        r->has_resource_progress = 1;
    }
    int how = pick(3); /* 0 moving, 1 stalled after a while, 2 seen once */
    double stop = how == 1 ? upto * unif() : upto;
    double step = 0.5 + unif() * 20;
    model_upsert_run(m, r, 0, T0);
    if (how != 2 && r->phase_id == VL_PH_IN_PROGRESS && total) {
        for (double t = step; t <= stop; t += step) {
            if (r->items_done < total) r->items_done += 1 + pick(3);
            if (r->items_done > total) r->items_done = total;
            model_upsert_run(m, r, t, T0 + t);
        }
    }
    g->nv = pick(NVOLS + 1);
    for (int i = 0; i < g->nv; i++) {
        vl_volume *v = &g->v[i];
        snprintf(g->vname[i], sizeof g->vname[i], "%s-v%d", g->name, i);
        v->meta.name = g->vname[i];
        v->run_name = g->name;
        v->kind = r->kind == VL_BACKUP ? (pick(3) ? VL_PVB : VL_DU) : (pick(3) ? VL_PVR : VL_DD);
        v->pod_ns = (char *)"shop";
        v->pod_name = (char *)"db-0";
        v->volume = (char *)"data";
        int vp = pick((int)(sizeof vol_phases / sizeof vol_phases[0]));
        v->phase = (char *)vol_phase_text[vp];
        v->phase_id = vol_phases[vp];
        int sized = pick(4) != 0;
        v->bytes_total = sized ? 1 + (int64_t)(unif() * 5e10) : 0;
        v->bytes_done =
            v->phase_id == VL_PH_IN_PROGRESS
                ? (sized ? (int64_t)(unif() * (double)v->bytes_total) : (pick(2) ? 634 : 0))
            : v->phase_id == VL_PH_COMPLETED ? v->bytes_total
                                             : 0;
        v->started = v->phase_id == VL_PH_IN_PROGRESS || v->phase_id == VL_PH_COMPLETED
                         ? T0 - unif() * ago
                         : 0;
        if (v->phase_id == VL_PH_COMPLETED) v->completed = T0 + upto * unif();
        model_upsert_volume(m, v, 0);
        int vhow = pick(3);
        double vstop = vhow == 1 ? upto * unif() : upto;
        if (vhow != 2 && v->phase_id == VL_PH_IN_PROGRESS) {
            for (double t = 10; t <= vstop; t += 10) {
                int64_t add = (int64_t)(unif() * 5e8);
                if (sized && v->bytes_done + add > v->bytes_total)
                    add = v->bytes_total - v->bytes_done;
                v->bytes_done += add;
                model_upsert_volume(m, v, t);
            }
        }
    }
}

static int is_cap_or_sentinel(double eta)
{
    return fabs(eta - 172801) < 0.5 || fabs(eta - 172800) < 0.5 || !isfinite(eta) || eta < 0;
}

static void check_text(const char *what, const char *s, const run_answer *a)
{
    ck_assert_msg(!strstr(s, "> 2d") && !strstr(s, ">2d") && !strstr(s, "172801") &&
                      !strstr(s, "172800") && !strstr(s, "48h"),
                  "%s: \"%s\" (eta %f)", what, s, a->eta);
    /* "2d00h" (not "42d00h") is only ever a real projection of about two days */
    for (const char *p = strstr(s, "2d00h"); p; p = strstr(p + 1, "2d00h"))
        if (p == s || p[-1] < '0' || p[-1] > '9')
            ck_assert_msg(fabs(a->eta - 172800) < 3600, "%s: %s", what, s);
}

static void check_answer(const run_answer *a)
{
    char buf[512];
    if (a->eta_kind != ANS_ETA_NONE) {
        ck_assert_msg(!is_cap_or_sentinel(a->eta), "eta %f", a->eta);
        ck_assert_msg(fabs(a->eta_end - (a->at + a->eta)) < 1e-3 * (1 + a->eta), "end %f",
                      a->eta_end);
        ck_assert_int_eq(a->eta_why, ANS_WHY_NONE);
        ck_assert_msg(a->stalled != ANS_YES, "an ETA while stalled");
        ck_assert_msg(!a->stale, "an ETA on stale data");
    } else {
        ck_assert_msg(a->eta_why != ANS_WHY_NONE, "no ETA and no reason (phase %d)", a->phase);
    }
    if (a->stalled == ANS_UNKNOWN) ck_assert_int_ne(a->stalled_why, ANS_WHY_NONE);
    if (a->eta_caveat && !strcmp(a->eta_caveat, "volumes not sized yet"))
        ck_assert_msg(!a->bytes_total_known && a->n_unsized > 0, "caveat beside a known total");
    if (a->eta_why == ANS_WHY_UNSIZED) ck_assert_int_gt(a->n_unsized, 0);
    check_text("cell", answer_eta_cell(buf, sizeof buf, a, 1), a);
    check_text("cell", answer_eta_cell(buf, sizeof buf, a, 0), a);
    check_text("line", answer_eta_line(buf, sizeof buf, a, 1), a);
}

static void check_json(const char *text)
{
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(root, "runs"))
    {
        const cJSON *eta = cJSON_GetObjectItemCaseSensitive(run, "etaSeconds");
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(run, "etaKind");
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(run, "etaReason");
        ck_assert(cJSON_IsString(kind));
        if (!strcmp(kind->valuestring, "none")) {
            ck_assert(cJSON_IsNull(eta));
            ck_assert_msg(cJSON_IsString(why) && why->valuestring[0], "no reason");
        } else {
            ck_assert(cJSON_IsNumber(eta));
            ck_assert_msg(!is_cap_or_sentinel(eta->valuedouble) && eta->valuedouble >= 0,
                          "etaSeconds %f", eta->valuedouble);
        }
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "stalled");
        const cJSON *sw = cJSON_GetObjectItemCaseSensitive(run, "stalledReason");
        ck_assert(cJSON_IsNull(st) == cJSON_IsString(sw));
    }
    cJSON_Delete(root);
}

START_TEST(no_cap_no_silent_blank_no_eta_while_stalled)
{
    setenv("TZ", "UTC", 1);
    int n_eta = 0, n_none = 0, n_stalled = 0, n_unsized = 0, n_long = 0;
    for (int s = 0; s < STATES; s++) {
        model *m = model_new();
        gen_run *g = xcalloc(NRUNS, sizeof *g);
        double upto = 10 + unif() * 600;
        int nr = 1 + pick(NRUNS);
        for (int k = 0; k < nr; k++) gen_one(m, &g[k], k, upto);
        model_refresh_volumes(m);
        ans_ctx c;
        memset(&c, 0, sizeof c);
        c.m = m;
        c.now = upto + (pick(3) ? unif() * 20 : unif() * 3600); /* later: stalls */
        c.wall = T0 + c.now;
        c.stale = pick(8) == 0;
        c.stale_for = c.stale ? 60 : 0;
        c.loading = pick(12) == 0;
        if (pick(12) == 0) {
            c.missing = ANS_MISS_PVB;
            snprintf(c.missing_why[0], sizeof c.missing_why[0], "podvolumebackups forbidden");
        }
        for (int k = 0; k < nr; k++) {
            model_run *mr = model_find_run(m, g[k].r.kind, g[k].name);
            ck_assert_ptr_nonnull(mr);
            run_answer a;
            answer_run(&c, mr, &a);
            check_answer(&a);
            n_eta += a.eta_kind != ANS_ETA_NONE;
            n_none += a.eta_kind == ANS_ETA_NONE && a.active;
            n_stalled += a.stalled == ANS_YES;
            n_unsized += a.eta_why == ANS_WHY_UNSIZED;
            n_long += a.eta_kind != ANS_ETA_NONE && a.eta > 2 * 86400;
        }
        char *j = snapshot_json(&c, "ctx", "server", "velero");
        check_json(j);
        free(j);
        model_free(m);
        free(g);
    }
    /* the states cover what they are for */
    ck_assert_int_gt(n_eta, 500);
    ck_assert_int_gt(n_none, 200);
    ck_assert_int_gt(n_stalled, 50);
    ck_assert_int_gt(n_unsized, 10);
    ck_assert_int_gt(n_long, 20); /* projections past the old 2-day cap */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("answer_props");
    TCase *tc = tcase_create("answer_props");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, no_cap_no_silent_blank_no_eta_while_stalled);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
