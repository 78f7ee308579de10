/* test_runeta.c: the run's critical path, ETA and stall over synthetic sequences fed through the
 * model: pod volumes gating the item pass, the data mover phase, a stalled volume, volumes not
 * sized yet (a lower bound), the schedule's history as the prior, and absurd cluster numbers. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "runeta.h"
#include "testutil.h"

#define T0  1704626400.0 /* wall clock of monotonic 0 */
#define MiB 1048576.0
#define GiB 1073741824.0

#define ck_assert_near(x, want, tol)                                                               \
    do {                                                                                           \
        double x_ = (x), w_ = (want), t_ = (tol);                                                  \
        ck_assert_msg(fabs(x_ - w_) <= t_, "%s = %.9g, want %.9g +- %g", #x, x_, w_, t_);          \
    } while (0)

static void set_run(vl_run *r, vl_kind kind, const char *name, vl_phase ph, double started,
                    int64_t done, int64_t total)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->meta.name = (char *)name;
    r->phase = (char *)"InProgress";
    r->phase_id = ph;
    r->started = started;
    r->has_progress = 1;
    r->items_done = done;
    r->items_total = total;
}

static void set_vol(vl_volume *v, vl_kind kind, const char *name, const char *run, const char *ns,
                    const char *pod, const char *vol, vl_phase ph, double started, int64_t done,
                    int64_t total)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->meta.name = (char *)name;
    v->run_name = (char *)run;
    v->pod_ns = (char *)ns;
    v->pod_name = (char *)pod;
    v->volume = (char *)vol;
    v->phase = (char *)"InProgress";
    v->phase_id = ph;
    v->started = started;
    v->bytes_done = done;
    v->bytes_total = total;
}

/* Feeds a volume moving at rate from t0, every 10 s (as Velero), up to time t1. */
static void feed_vol(model *m, vl_volume *v, double t0, double t1, double rate, int64_t base)
{
    for (double t = t0; t <= t1 + 1e-9; t += 10) {
        v->bytes_done = base + (int64_t)(rate * (t - t0));
        if (v->bytes_done > v->bytes_total) v->bytes_done = v->bytes_total;
        model_upsert_volume(m, v, t);
    }
}

START_TEST(restore_at_all_items_waits_on_its_pod_volume)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_RESTORE, "payments-restore-drill", VL_PH_IN_PROGRESS, T0 - 100, 256, 256);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume v;
    set_vol(&v, VL_PVR, "drill-abcde", "payments-restore-drill", "payments", "postgres-0", "pgdata",
            VL_PH_IN_PROGRESS, 0, 0, (int64_t)(6 * GiB));
    /* 4.5 GiB done at 22 MiB/s, 1.5 GiB left */
    feed_vol(m, &v, 0, 120, 22 * MiB, (int64_t)(4.5 * GiB - 120 * 22 * MiB));
    runeta e;
    runeta_compute(m, mr, 120, T0 + 120, &e);
    ck_assert_int_eq(e.active, 1);
    ck_assert_int_eq(e.part[RE_ITEMS].state, RE_DONE);
    ck_assert_int_eq(e.part[RE_PODVOLS].state, RE_ACTIVE);
    ck_assert_int_eq(e.part[RE_DATAMOVER].state, RE_ABSENT);
    ck_assert_int_eq(e.waiting, RE_PODVOLS);
    ck_assert_ptr_nonnull(e.waiting_vol);
    ck_assert_str_eq(e.waiting_vol->name, "drill-abcde");
    ck_assert_int_eq(e.waiting_left, (int64_t)(1.5 * GiB));
    ck_assert_near(e.waiting_rate, 22 * MiB, 1);
    double want = 1.5 * GiB / (22 * MiB) + RE_FINALIZE_S;
    ck_assert_near(e.eta, want, 0.5);
    ck_assert_int_eq(e.bound, 0);
    ck_assert_int_eq(e.stalled, 0);
    ck_assert_near(e.last_progress, 120, 0);
    ck_assert_int_eq(e.bytes_total, (int64_t)(6 * GiB));
    ck_assert_int_eq(e.bytes_done, (int64_t)(4.5 * GiB));
    /* between byte updates the ETA counts down */
    runeta_compute(m, mr, 125, T0 + 125, &e);
    ck_assert_near(e.eta, want - 5, 0.5);
    /* the volume's own row says the same */
    double vr, ve;
    runeta_volume(m, e.waiting_vol, 125, T0 + 125, &vr, &ve);
    ck_assert_near(vr, 22 * MiB, 1);
    ck_assert_near(ve, want - 5 - RE_FINALIZE_S, 0.5);
    runeta_volume(m, NULL, 125, T0 + 125, &vr, &ve);
    ck_assert_double_lt(vr, 0);
    ck_assert_double_lt(ve, 0);
    char b[80];
    ck_assert_str_eq(runeta_vol_label(b, sizeof b, e.waiting_vol), "payments/postgres-0:pgdata");
    model_free(m);
}
END_TEST

START_TEST(items_and_pod_volumes_the_latest_gates_the_pass)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0, 0, 1000);
    model_run *mr = NULL;
    vl_volume v;
    set_vol(&v, VL_PVB, "b-1", "b", "shop", "db-0", "data", VL_PH_IN_PROGRESS, 0, 0, 0);
    v.bytes_total = (int64_t)(1 * GiB);
    for (int t = 0; t <= 60; t++) {
        r.items_done = 5 * t; /* 5/s: 1000 items at 200 s */
        mr = model_upsert_run(m, &r, t, T0 + t);
        if (t % 10 == 0) {
            v.bytes_done = (int64_t)(t * 2 * MiB); /* 2 MiB/s: 1 GiB at 512 s */
            model_upsert_volume(m, &v, t);
        }
    }
    runeta e;
    runeta_compute(m, mr, 60, T0 + 60, &e);
    ck_assert_near(e.part[RE_ITEMS].eta, 140, 0.5);
    ck_assert_near(e.part[RE_PODVOLS].eta, 452, 0.5);
    ck_assert_int_eq(e.waiting, RE_PODVOLS);
    ck_assert_near(e.eta, 452 + RE_FINALIZE_S, 0.5);
    /* a faster volume: the items gate the end */
    v.bytes_done = (int64_t)(1 * GiB - 10 * MiB);
    model_upsert_volume(m, &v, 60.5);
    runeta_compute(m, mr, 61, T0 + 61, &e);
    ck_assert_int_eq(e.waiting, RE_ITEMS);
    ck_assert_near(e.eta, 139 + RE_FINALIZE_S, 0.5);
    ck_assert_int_eq(e.waiting_left, 700);
    model_free(m);
}
END_TEST

START_TEST(data_mover_after_the_item_pass)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "mig", VL_PH_IN_PROGRESS, T0, 0, 100);
    model_run *mr = NULL;
    vl_volume du;
    set_vol(&du, VL_DU, "mig-du", "mig", "shop", NULL, "orders-db", VL_PH_IN_PROGRESS, 0, 0,
            (int64_t)(40 * GiB));
    for (int t = 0; t <= 20; t++) {
        r.items_done = 2 * t; /* 2/s: 100 at 50 s */
        mr = model_upsert_run(m, &r, t, T0 + t);
        if (t % 10 == 0) {
            du.bytes_done = (int64_t)(t * 40 * MiB); /* 40 MiB/s: 1024 s */
            model_upsert_volume(m, &du, t);
        }
    }
    runeta e;
    runeta_compute(m, mr, 20, T0 + 20, &e);
    ck_assert_int_eq(e.waiting, RE_DATAMOVER);
    ck_assert_near(e.part[RE_ITEMS].eta, 30, 0.5);
    ck_assert_near(e.part[RE_DATAMOVER].eta, 1004, 0.5);
    ck_assert_near(e.eta, 1004 + RE_OPS_SYNC_S / 2 + RE_FINALIZE_S, 0.5);
    char b[80];
    ck_assert_str_eq(runeta_vol_label(b, sizeof b, e.waiting_vol), "shop/orders-db");
    /* items done: WaitingForPluginOperations; the item counter not moving is no stall */
    r.items_done = 100;
    r.phase_id = VL_PH_WAITING_PLUGIN_OPS;
    for (int t = 21; t <= 300; t++) {
        mr = model_upsert_run(m, &r, t, T0 + t);
        if (t % 10 == 0) {
            du.bytes_done = (int64_t)(t * 40 * MiB);
            model_upsert_volume(m, &du, t);
        }
    }
    runeta_compute(m, mr, 300, T0 + 300, &e);
    ck_assert_int_eq(e.part[RE_ITEMS].state, RE_DONE);
    ck_assert_int_eq(e.stalled, 0);
    ck_assert_int_eq(e.waiting, RE_DATAMOVER);
    ck_assert_near(e.eta, 724 + RE_OPS_SYNC_S / 2 + RE_FINALIZE_S, 0.5);
    ck_assert_near(e.last_progress, 300, 0);
    /* the data mover done, the run not moved on yet: still time left, never 0 */
    du.bytes_done = du.bytes_total;
    du.phase_id = VL_PH_COMPLETED;
    du.completed = T0 + 1024;
    model_upsert_volume(m, &du, 1024);
    runeta_compute(m, mr, 1025, T0 + 1025, &e);
    ck_assert_double_gt(e.eta, 0);
    ck_assert_int_eq(e.stalled, 0);
    /* WaitingForPluginOperations with no data mover in sight (another plugin's operations):
     * the end is unknown, not "1s" */
    vl_run o;
    set_run(&o, VL_BACKUP, "ops", VL_PH_WAITING_PLUGIN_OPS, T0, 10, 10);
    model_run *mo = model_upsert_run(m, &o, 1030, T0 + 1030);
    runeta_compute(m, mo, 1030, T0 + 1030, &e);
    ck_assert_int_eq(e.active, 1);
    ck_assert_double_lt(e.eta, 0);
    ck_assert_int_eq(e.waiting, RE_DATAMOVER);
    ck_assert_ptr_null(e.waiting_vol);
    /* Finalizing: the last part */
    r.phase_id = VL_PH_FINALIZING;
    mr = model_upsert_run(m, &r, 1030, T0 + 1030);
    runeta_compute(m, mr, 1030, T0 + 1030, &e);
    ck_assert_int_eq(e.waiting, RE_FINAL);
    ck_assert_near(e.eta, RE_FINALIZE_S, 0);
    model_free(m);
}
END_TEST

START_TEST(a_stalled_volume_stalls_the_run_and_says_which)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0, 50, 50);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume a, b;
    set_vol(&a, VL_PVB, "b-a", "b", "inventory", "minio-0", "export", VL_PH_IN_PROGRESS, 0, 0,
            (int64_t)(5 * GiB));
    set_vol(&b, VL_PVB, "b-b", "b", "shop", "redis-0", "data", VL_PH_IN_PROGRESS, 0, 0,
            (int64_t)(2 * GiB));
    feed_vol(m, &a, 0, 100, 9 * MiB, 0); /* a stops moving at 100 */
    feed_vol(m, &b, 0, 160, 4 * MiB, 0); /* b still moves at 160 */
    runeta e;
    runeta_compute(m, mr, 160, T0 + 160, &e);
    /* 60 s without a change of a: stalled (3 x 10 s); b moves: the run is not stalled, but the
     * end it waits on is only a lower bound */
    ck_assert_int_eq(e.stalled, 0);
    ck_assert_int_eq(e.part_stalled, 1);
    ck_assert_int_eq(e.stalled_part, RE_PODVOLS);
    ck_assert_str_eq(e.stalled_vol->name, "b-a");
    ck_assert_int_eq(e.part[RE_PODVOLS].n_stalled, 1);
    ck_assert_int_eq(e.bound, 1);
    /* at least a's bytes left at its rate before the stall */
    ck_assert_double_ge(e.eta, (5 * GiB - 900 * MiB) / (9 * MiB) - 1);
    /* b finishes; a stays stalled: the run is stalled, since b's last change */
    b.bytes_done = b.bytes_total;
    b.phase_id = VL_PH_COMPLETED;
    b.completed = T0 + 170;
    b.started = T0;
    model_upsert_volume(m, &b, 170);
    runeta_compute(m, mr, 170, T0 + 170, &e);
    ck_assert_int_eq(e.stalled, 0); /* b's completion is progress */
    runeta_compute(m, mr, 230, T0 + 230, &e);
    ck_assert_int_eq(e.stalled, 1);
    ck_assert_int_eq(e.stalled_part, RE_PODVOLS);
    ck_assert_str_eq(e.stalled_vol->name, "b-a");
    ck_assert_near(e.stalled_for, 60, 1e-9);
    ck_assert_double_lt(e.eta, 0);
    ck_assert_near(e.last_progress, 170, 0);
    /* a moves again: no stall */
    a.bytes_done += (int64_t)(90 * MiB);
    model_upsert_volume(m, &a, 231);
    runeta_compute(m, mr, 232, T0 + 232, &e);
    ck_assert_int_eq(e.stalled, 0);
    ck_assert_int_eq(e.part_stalled, 0);
    model_free(m);
}
END_TEST

START_TEST(items_stalled_while_a_volume_moves_is_not_a_stalled_run)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0, 0, 100);
    model_run *mr = NULL;
    for (int t = 0; t <= 10; t++) {
        r.items_done = 4 * t;
        mr = model_upsert_run(m, &r, t, T0 + t);
    }
    vl_volume a;
    set_vol(&a, VL_PVB, "b-a", "b", "shop", "db-0", "data", VL_PH_IN_PROGRESS, 0, 0,
            (int64_t)(1 * GiB));
    feed_vol(m, &a, 0, 40, 1 * MiB, 0);
    runeta e;
    runeta_compute(m, mr, 40, T0 + 40, &e);
    ck_assert_int_eq(e.part[RE_ITEMS].state, RE_STALLED);
    ck_assert_int_eq(e.stalled, 0);
    ck_assert_int_eq(e.part_stalled, 1);
    ck_assert_int_eq(e.stalled_part, RE_ITEMS);
    ck_assert_near(e.last_progress, 40, 0);
    /* the volume stops too (30 s after its last change): the run is stalled, since the newest
     * change of anything, on the part its end waits on */
    runeta_compute(m, mr, 69, T0 + 69, &e);
    ck_assert_int_eq(e.stalled, 0);
    runeta_compute(m, mr, 75, T0 + 75, &e);
    ck_assert_int_eq(e.stalled, 1);
    ck_assert_int_eq(e.stalled_part, RE_PODVOLS);
    ck_assert_near(e.stalled_for, 35, 1e-9);
    model_free(m);
}
END_TEST

START_TEST(volumes_not_sized_yet_make_a_lower_bound)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0, 0, 1000);
    model_run *mr = NULL;
    for (int t = 0; t <= 20; t++) {
        r.items_done = 5 * t;
        mr = model_upsert_run(m, &r, t, T0 + t);
    }
    vl_volume late;
    set_vol(&late, VL_PVB, "b-late", "b", "shop", "db-0", "data", VL_PH_NEW, 0, 0, 0);
    model_upsert_volume(m, &late, 20);
    runeta e;
    runeta_compute(m, mr, 20, T0 + 20, &e);
    ck_assert_int_eq(e.part[RE_PODVOLS].state, RE_PENDING);
    ck_assert_int_eq(e.part[RE_PODVOLS].n_unknown, 1);
    ck_assert_int_eq(e.bound, 1);
    ck_assert_near(e.eta, 180 + RE_FINALIZE_S, 0.5); /* at least the items */
    ck_assert_int_eq(e.stalled, 0);                  /* a pending volume is not a stall */
    /* no volume yet, but pods still to back up: volumes may come, the ETA is a lower bound */
    vl_run q;
    vl_res_progress pods = {(char *)"pods", 5, 10};
    set_run(&q, VL_BACKUP, "q", VL_PH_IN_PROGRESS, T0, 0, 100);
    q.has_resource_progress = 1;
    q.resources = &pods;
    q.n_resources = 1;
    model_run *mq = NULL;
    for (int t = 0; t <= 10; t++) {
        q.items_done = 5 * t;
        mq = model_upsert_run(m, &q, t, T0 + t);
    }
    runeta_compute(m, mq, 10, T0 + 10, &e);
    ck_assert_int_eq(e.part[RE_PODVOLS].state, RE_ABSENT);
    ck_assert_int_eq(e.bound, 1);
    ck_assert_near(e.eta, 10 + RE_FINALIZE_S, 0.5);
    pods.processed = 10; /* every pod done: no more volumes can come */
    q.items_done = 55;
    model_upsert_run(m, &q, 11, T0 + 11);
    runeta_compute(m, mq, 11, T0 + 11, &e);
    ck_assert_int_eq(e.bound, 0);
    /* sized and moving: no longer a bound */
    late.phase_id = VL_PH_IN_PROGRESS;
    late.bytes_total = (int64_t)(100 * MiB);
    late.started = T0 + 20;
    feed_vol(m, &late, 20, 40, 1 * MiB, 0);
    for (int t = 21; t <= 40; t++) {
        r.items_done = 5 * t;
        model_upsert_run(m, &r, t, T0 + t);
    }
    runeta_compute(m, mr, 40, T0 + 40, &e);
    ck_assert_int_eq(e.bound, 0);
    ck_assert_near(e.eta, 160 + RE_FINALIZE_S, 0.5);
    /* a volume's first byte update gives its rate at once */
    vl_volume v2;
    set_vol(&v2, VL_PVB, "b-v2", "b", "shop", "db-1", "data", VL_PH_IN_PROGRESS, T0 + 30, 0,
            (int64_t)(400 * MiB));
    model_upsert_volume(m, &v2, 30);
    v2.bytes_done = (int64_t)(10 * MiB); /* 10 MiB in 10 s */
    model_upsert_volume(m, &v2, 40);
    runeta_compute(m, mr, 40, T0 + 40, &e);
    ck_assert_int_eq(e.bound, 0);
    ck_assert_near(e.part[RE_PODVOLS].eta, 390, 0.5);
    ck_assert_str_eq(e.waiting_vol->name, "b-v2");
    model_free(m);
}
END_TEST

/* Seven earlier runs of schedule "nightly", 38 to 45 minutes. */
static void add_history(model *m, vl_run *h, int n)
{
    static const int mins[] = {38, 45, 41, 40, 44, 39, 42};
    static char names[7][32];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "nightly-%d", i);
        set_run(&h[i], VL_BACKUP, names[i], VL_PH_COMPLETED, T0 - 86400.0 * (i + 1), 1000, 1000);
        h[i].phase = (char *)"Completed";
        h[i].completed = h[i].started + mins[i] * 60;
        h[i].schedule = (char *)"nightly";
        model_upsert_run(m, &h[i], 0, T0);
    }
}

START_TEST(history_gives_typical_duration_and_the_prior)
{
    model *m = model_new();
    vl_run h[7], r, other;
    add_history(m, h, 7);
    set_run(&other, VL_BACKUP, "weekly-1", VL_PH_COMPLETED, T0 - 3600, 10, 10);
    other.completed = T0 - 60;
    other.schedule = (char *)"weekly";
    model_upsert_run(m, &other, 0, T0);
    set_run(&r, VL_BACKUP, "nightly-now", VL_PH_IN_PROGRESS, T0, 0, 1000);
    r.schedule = (char *)"nightly";
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    re_history hi;
    ck_assert_int_eq(runeta_history(m, mr, &hi), 7);
    ck_assert_near(hi.dur_med, 41 * 60, 0);
    ck_assert_near(hi.dur_min, 38 * 60, 0);
    ck_assert_near(hi.dur_max, 45 * 60, 0);
    ck_assert_near(hi.items_med, 1000, 0);
    /* early: nothing live known yet, the history gives the ETA */
    r.items_total = 0;
    model_upsert_run(m, &r, 30, T0 + 30);
    runeta e;
    runeta_compute(m, mr, 30, T0 + 30, &e);
    ck_assert_int_eq(e.from_history, 1);
    ck_assert_int_eq(e.bound, 0);
    ck_assert_near(e.eta, 41 * 60 - 30, 1e-6);
    /* live evidence grows: at 1/3 of the run the live ETA is all that counts */
    r.items_total = 1000;
    for (int t = 31; t <= 900; t++) {
        r.items_done = (int64_t)(t * 0.5); /* 0.5/s: 2000 s in all, slower than usual */
        model_upsert_run(m, &r, t, T0 + t);
    }
    runeta_compute(m, mr, 900, T0 + 900, &e);
    ck_assert_int_eq(e.from_history, 0);
    ck_assert_near(e.eta, 1100 + RE_FINALIZE_S, 1);
    /* in between the two are blended */
    double live = 1500, el = 300;
    int fh;
    double b = runeta_blend(live, 0, el, &hi, &fh);
    ck_assert_double_gt(b, live < hi.dur_med - el ? live : hi.dur_med - el);
    ck_assert_double_lt(b, live > hi.dur_med - el ? live : hi.dur_med - el);
    /* a lower bound below the prior: the prior knows better */
    b = runeta_blend(100, 1, 60, &hi, &fh);
    ck_assert_near(b, 41 * 60 - 60, 1e-9);
    ck_assert_int_eq(fh, 1);
    /* no history: the live figure */
    ck_assert_near(runeta_blend(77, 0, 5, NULL, &fh), 77, 0);
    ck_assert_int_eq(fh, 0);
    /* only runs before this one, and at most 10 */
    vl_run more[12];
    char nm[12][32];
    for (int i = 0; i < 12; i++) {
        snprintf(nm[i], sizeof nm[i], "old-%d", i);
        set_run(&more[i], VL_BACKUP, nm[i], VL_PH_COMPLETED, T0 - 86400.0 * 30 - i, 1, 1);
        more[i].completed = more[i].started + 10;
        more[i].schedule = (char *)"nightly";
        model_upsert_run(m, &more[i], 0, T0);
    }
    ck_assert_int_eq(runeta_history(m, mr, &hi), RE_HISTORY_MAX);
    ck_assert_near(hi.dur_min, 10, 0); /* 7 recent + the 3 newest old ones */
    ck_assert_near(hi.dur_max, 45 * 60, 0);
    mr = model_find_run(m, VL_BACKUP, "nightly-3");
    ck_assert_int_eq(runeta_history(m, mr, &hi), 10); /* 3 older nightly + 7 old */
    model_free(m);
}
END_TEST

/* The history is an index kept with the runs: a run joins its schedule's history when it
 * finishes (its state changed in place, as a test or a store may), leaves it when deleted or
 * when its schedule label changes, and the newest runs before the asking one come first. */
START_TEST(history_follows_runs_as_they_finish_and_go)
{
    model *m = model_new();
    vl_run a, b, c, r;
    set_run(&a, VL_BACKUP, "n-a", VL_PH_COMPLETED, T0 - 3000, 10, 10);
    a.completed = T0 - 2900; /* 100 s */
    a.schedule = (char *)"nightly";
    set_run(&b, VL_BACKUP, "n-b", VL_PH_IN_PROGRESS, T0 - 2000, 5, 10);
    b.schedule = (char *)"nightly";
    set_run(&c, VL_BACKUP, "n-c", VL_PH_PARTIALLY_FAILED, T0 - 1000, 10, 10);
    c.completed = T0 - 700; /* 300 s */
    c.schedule = (char *)"nightly";
    set_run(&r, VL_BACKUP, "n-now", VL_PH_IN_PROGRESS, T0, 0, 10);
    r.schedule = (char *)"nightly";
    model_upsert_run(m, &a, 0, T0);
    model_upsert_run(m, &b, 0, T0);
    model_upsert_run(m, &c, 0, T0);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    const model_run *out[4];
    ck_assert_int_eq(model_schedule_runs(m, VL_BACKUP, "nightly", T0, out, 4), 2);
    ck_assert_str_eq(out[0]->name, "n-c"); /* newest first */
    ck_assert_str_eq(out[1]->name, "n-a");
    ck_assert_int_eq(model_schedule_runs(m, VL_BACKUP, "nightly", T0 - 1000, out, 4), 1);
    ck_assert_int_eq(model_schedule_runs(m, VL_BACKUP, "nightly", 0, out, 1), 1);
    ck_assert_str_eq(out[0]->name, "n-c");
    ck_assert_int_eq(model_schedule_runs(m, VL_BACKUP, "nightl", T0, out, 4), 0);
    ck_assert_int_eq(model_schedule_runs(m, VL_RESTORE, "nightly", T0, out, 4), 0);
    re_history hi;
    ck_assert_int_eq(runeta_history(m, mr, &hi), 2);
    ck_assert_near(hi.dur_med, 200, 0);
    /* b finishes (the same object, changed in place): 500 s joins the history */
    b.phase_id = VL_PH_COMPLETED;
    b.completed = T0 - 1500;
    model_upsert_run(m, &b, 1, T0 + 1);
    ck_assert_int_eq(runeta_history(m, mr, &hi), 3);
    ck_assert_near(hi.dur_med, 300, 0);
    ck_assert_near(hi.dur_max, 500, 0);
    /* c is relabelled to another schedule, a is deleted */
    c.schedule = (char *)"weekly";
    model_upsert_run(m, &c, 2, T0 + 2);
    model_remove_run(m, VL_BACKUP, "n-a");
    ck_assert_int_eq(runeta_history(m, mr, &hi), 1);
    ck_assert_near(hi.dur_med, 500, 0);
    ck_assert_int_eq(model_schedule_runs(m, VL_BACKUP, "weekly", 0, out, 4), 1);
    ck_assert_str_eq(out[0]->name, "n-c");
    /* a run of the schedule that failed is no part of it */
    b.phase_id = VL_PH_FAILED;
    model_upsert_run(m, &b, 3, T0 + 3);
    ck_assert_int_eq(runeta_history(m, mr, &hi), 0);
    model_free(m);
}
END_TEST

/* The sticky prior: a nightly without volumes whose 7 earlier runs took 50 s (299 items
 * at 6/s) goes at 24/s. Pods are still to come (volumes may), so the live ETA is a bound; the
 * history moved no bytes, so it knows nothing the live figure lacks, and the run's share done
 * comes from its own progress: from 30 % of the run on the ETA is the live projection, from 20 %
 * within 20 % of it (before: the prior, 50 s less the time elapsed: 42 s at 8 s with 5.5 s
 * left). A history that
 * moved volume bytes still replaces such a bound, and a bound for what is known not to be sized
 * still gives way to the longer prior. */
START_TEST(history_gives_way_to_live_progress)
{
    model *m = model_new();
    vl_run h[7], r;
    static char names[7][16];
    for (int i = 0; i < 7; i++) {
        snprintf(names[i], sizeof names[i], "quick-%d", i);
        set_run(&h[i], VL_BACKUP, names[i], VL_PH_COMPLETED, T0 - 86400.0 * (i + 1), 299, 299);
        h[i].phase = (char *)"Completed";
        h[i].completed = h[i].started + 50;
        h[i].schedule = (char *)"quick";
        model_upsert_run(m, &h[i], 0, T0);
    }
    vl_res_progress res[3] = {
        {(char *)"configmaps", 0, 180}, {(char *)"secrets", 0, 80}, {(char *)"pods", 0, 39}};
    set_run(&r, VL_BACKUP, "quick-now", VL_PH_IN_PROGRESS, T0, 0, 299);
    r.schedule = (char *)"quick";
    r.has_resource_progress = 1;
    r.resources = res;
    r.n_resources = 3;
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    runeta e;
    for (int t = 1; t <= 8; t++) {
        r.items_done = 24 * t;
        res[0].processed = r.items_done < 180 ? r.items_done : 180;
        res[1].processed = r.items_done - res[0].processed;
        model_upsert_run(m, &r, t, T0 + t);
        runeta_compute(m, mr, t, T0 + t, &e);
    }
    ck_assert_int_eq(e.hist.n, 7);
    ck_assert_near(e.hist.dur_med, 50, 0);
    double live = e.part[RE_ITEMS].eta + RE_FINALIZE_S; /* (299 - 192) / 24 + 1 */
    ck_assert_near(live, 107.0 / 24 + 1, 0.5);
    ck_assert_near(e.eta, live, 0.2 * live);
    ck_assert_int_eq(e.from_history, 0);
    /* runeta_blend by hand: the same run, 5 s in, 10 s left live */
    re_history hi = e.hist;
    int fh;
    ck_assert_near(runeta_blend(10, 2, 5, &hi, &fh), 10, 1e-9); /* 33 %: the live figure */
    ck_assert_int_eq(fh, 0);
    ck_assert_near(runeta_blend(10, 0, 5, &hi, &fh), 10, 1e-9);
    /* 23 % by its progress: blended, but at most 20 % above the live figure */
    ck_assert_near(runeta_blend(10, 2, 3, &hi, &fh), 12, 1e-9);
    /* early (2 s of ~12: 17 % by its progress) the prior still weighs */
    double early = runeta_blend(10, 2, 2, &hi, &fh);
    ck_assert_double_gt(early, 12);
    ck_assert_double_lt(early, 48);
    hi.bytes_med = 3 * GiB; /* its runs moved volumes: the volumes to come may take that long */
    ck_assert_near(runeta_blend(10, 2, 5, &hi, &fh), 45, 1e-9);
    ck_assert_int_eq(fh, 1);
    hi.bytes_med = 0; /* a volume not sized yet: the longer prior */
    ck_assert_near(runeta_blend(10, 1, 5, &hi, &fh), 45, 1e-9);
    model_free(m);
}
END_TEST

START_TEST(absurd_cluster_numbers_stay_defined)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0, INT64_MAX - 1, INT64_MAX);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    r.items_done = INT64_MAX;
    model_upsert_run(m, &r, 1, T0 + 1);
    vl_volume v[3];
    set_vol(&v[0], VL_PVB, "b-0", "b", "a", "p", "v", VL_PH_IN_PROGRESS, T0, INT64_MAX, INT64_MAX);
    set_vol(&v[1], VL_PVB, "b-1", "b", "a", "p", "v", VL_PH_IN_PROGRESS, T0 + 1e18, -5, INT64_MAX);
    set_vol(&v[2], VL_DU, "b-2", "b", "a", NULL, "v", VL_PH_IN_PROGRESS, -1e300, INT64_MAX - 3,
            INT64_MAX);
    for (int i = 0; i < 3; i++) model_upsert_volume(m, &v[i], 1);
    v[2].bytes_done = INT64_MAX - 1;
    model_upsert_volume(m, &v[2], 2);
    runeta e;
    runeta_compute(m, mr, 2, T0 + 2, &e);
    ck_assert_int_eq(e.bytes_total, INT64_MAX); /* saturated, not wrapped */
    ck_assert(e.eta < 0 || isfinite(e.eta));
    ck_assert(!isnan(e.eta));
    runeta_compute(m, mr, 1e300, 1e300, &e);
    ck_assert(!isnan(e.eta));
    runeta_compute(m, NULL, 0, 0, &e);
    ck_assert_int_eq(e.active, 0);
    model_free(m);
}
END_TEST

START_TEST(speeded_up_clock_gives_wall_time_figures)
{
    /* --demo --speed 10: the cluster's clock runs 10 x ours */
    model *m = model_new();
    model_set_clock(m, T0, T0, 10);
    ck_assert_near(model_cluster_now(m, T0 + 3), T0 + 30, 1e-6);
    ck_assert_near(model_wall_span(m, 600), 60, 1e-9);
    vl_run r;
    /* started 600 cluster-seconds ago (60 s of ours), 600 items: 10 items per second of ours */
    set_run(&r, VL_BACKUP, "b", VL_PH_IN_PROGRESS, T0 - 600, 600, 6000);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    ck_assert_near(model_run_rate(mr, 0), 10, 1e-6);
    ck_assert_near(model_run_duration(mr, T0 + 5), 65, 1e-6);
    r.phase_id = VL_PH_COMPLETED;
    r.completed = T0 + 50;
    r.items_done = 6000;
    model_upsert_run(m, &r, 5, T0 + 5);
    ck_assert_near(model_run_duration(mr, T0 + 5), 65, 1e-6); /* no jump when it completes */
    ck_assert_near(model_run_rate(mr, 5), 6000 / 65.0, 1e-6);
    model_free(m);
}
END_TEST

/* A volume three times as fast for good from 300 s (bench_eta's rate-30%-then-3x: the run's ETA
 * did not come within 10 % of the truth before 90 % of the run, as its rate was half the average
 * since the start): two byte updates after the step the run's ETA is within 10 % of the truth,
 * and the volume's row says the new rate. */
START_TEST(run_eta_follows_a_lasting_rate_step_within_two_updates)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_RESTORE, "drill", VL_PH_IN_PROGRESS, T0, 50, 50);
    model_run *mr = model_upsert_run(m, &r, 0, T0);
    vl_volume v;
    set_vol(&v, VL_PVR, "drill-1", "drill", "shop", "pg-0", "data", VL_PH_IN_PROGRESS, T0, 0,
            (int64_t)(4 * GiB));
    feed_vol(m, &v, 0, 300, 2.4 * MiB, 0);
    runeta e;
    runeta_compute(m, mr, 300, T0 + 300, &e);
    double left = (4 * GiB - 720 * MiB) / (2.4 * MiB);
    ck_assert_near(e.eta, left + RE_FINALIZE_S, 0.01 * left);
    /* x3 from 300 s */
    feed_vol(m, &v, 310, 320, 7.2 * MiB, (int64_t)(720 * MiB + 72 * MiB));
    runeta_compute(m, mr, 320, T0 + 320, &e);
    double truth = (4 * GiB - (720 + 144) * MiB) / (7.2 * MiB) + RE_FINALIZE_S;
    ck_assert_msg(fabs(e.eta - truth) <= 0.1 * truth, "eta %.1f, truth %.1f", e.eta, truth);
    ck_assert_near(e.waiting_rate, 7.2 * MiB, 0.01 * 7.2 * MiB);
    double vr, ve;
    runeta_volume(m, e.waiting_vol, 320, T0 + 320, &vr, &ve);
    ck_assert_near(vr, 7.2 * MiB, 0.01 * 7.2 * MiB);
    /* a minute on, past the slope's window: still the new pace, not the old average */
    feed_vol(m, &v, 330, 400, 7.2 * MiB, (int64_t)((720 + 216) * MiB));
    runeta_compute(m, mr, 400, T0 + 400, &e);
    truth = (4 * GiB - (720 + 720) * MiB) / (7.2 * MiB) + RE_FINALIZE_S;
    ck_assert_msg(fabs(e.eta - truth) <= 0.05 * truth, "eta %.1f, truth %.1f", e.eta, truth);
    ck_assert_int_eq(e.stalled, 0);
    model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runeta");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, restore_at_all_items_waits_on_its_pod_volume);
    tcase_add_test(tc, items_and_pod_volumes_the_latest_gates_the_pass);
    tcase_add_test(tc, data_mover_after_the_item_pass);
    tcase_add_test(tc, a_stalled_volume_stalls_the_run_and_says_which);
    tcase_add_test(tc, items_stalled_while_a_volume_moves_is_not_a_stalled_run);
    tcase_add_test(tc, volumes_not_sized_yet_make_a_lower_bound);
    tcase_add_test(tc, history_gives_typical_duration_and_the_prior);
    tcase_add_test(tc, history_follows_runs_as_they_finish_and_go);
    tcase_add_test(tc, history_gives_way_to_live_progress);
    tcase_add_test(tc, absurd_cluster_numbers_stay_defined);
    tcase_add_test(tc, speeded_up_clock_gives_wall_time_figures);
    tcase_add_test(tc, run_eta_follows_a_lasting_rate_step_within_two_updates);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
