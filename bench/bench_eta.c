/* bench_eta.c: how right is the run's ETA? veltop-sim's controller runs in-process over simulated
 * time (simctl_advance, 1 s steps), its objects go through the real decoders into veltop's real
 * model and estimators as the watches would bring them, and the run ETA an operator would see
 * (the run answer, answer.h: an estimate, a lower bound or none, as every surface renders it) is
 * sampled every simulated second and compared with the run's real end (its completionTimestamp).
 * Beside it, three baselines over the item counter alone: today's items-only ETA (the
 * estimator's), the average since the start, and an exponential moving average.
 *
 * Round 5 adds: the share of the lower bounds shown that hold (the run ended no sooner); ETAs
 * shown while the run is stalled (by the answer, and by the sim's truth: nothing it waits on moved
 * for 40 s) or the data is stale (the same answer with the data marked stale); a history case
 * (how far the schedule's history moves the ETA from the live projection, from 30 % of the run
 * on, while the live parts are sized and moving); and the estimates' error over what can be
 * foreseen, with the samples before an unannounced change of pace or before the run's volumes
 * exist reported apart.
 *
 * Per scenario: median and p90 of |predicted end - real end| / time left over the samples from
 * 20 % to 90 % of the run (and from 10 %); a blank ETA counts as "ends now" (error 100 %); blank
 * ETAs while more than 10 s are left; how late a stall is flagged after the run stopped moving;
 * flags of a stall while something moved in the last 30 s (false stalls).
 * Blank ETAs are counted by the reason the answer gave (a blank must have one). The --once view:
 * every ATTACH_EVERY s a model made afresh from the objects as they are (an attach, no history
 * watched), and its answer's blanks while the run moves and time is left.
 * BENCH_ETA_BLANKS=1 prints each blank sample with its reason.
 * Usage: bench_eta [SEED=1]. Deterministic for a seed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer.h"
#include "app.h"
#include "benchutil.h"
#include "kubeclient/util.h"
#include "kubeclient/velero.h"
#include "runeta.h"
#include "simctl.h"
#include "simstore.h"

/* ---- scenarios (sim YAML; the run to measure is "target") ---- */

typedef struct bscn {
    const char *name, *what;
    const char *kind;    /* "Backup" or "Restore" */
    char *yaml;          /* built below */
    double step_at;      /* s after the start of a lasting rate change to adapt to; 0 none */
    double unseen_until; /* s after the start of the last unannounced change of pace; 0 none */
    int history_case;    /* the history-vs-live check applies (its live parts are all items) */
} bscn;

/* Comparisons, not in the set's figures (named in brackets): the scheduled run without its
 * history; a rate dropping for good (what believing a lasting change is worth). */
#define BSCN_CONTROL "(same without history)"
static int bscn_control(const bscn *s)
{
    return s->name[0] == '(';
}

static char *many_small_volumes(void)
{
    kc_buf b = {0};
    char line[256];
    for (int i = 0; i < 40; i++) {
        int size = 20 + (i * 37) % 380, rate = 1 + (i * 7) % 3;
        snprintf(
            line, sizeof line,
            "      - {pod: app-%d, namespace: shop, volume: data, uploader: kopia, size: %dMi, "
            "rate: %dMi}\n",
            i, size, rate);
        kc_buf_append(&b, line, strlen(line));
    }
    return kc_buf_cstr(&b);
}

static char *history_runs(void)
{
    kc_buf b = {0};
    char line[1024];
    for (int d = 7; d >= 1; d--) {
        snprintf(
            line, sizeof line,
            "  - kind: backup\n    name: nightly-%d\n    start: -%dd\n    schedule: nightly\n"
            "    rate: 6\n    jitter: 0.1\n    resources:\n"
            "      - {name: configmaps, items: 1200}\n      - {name: pods, items: 40}\n"
            "    volumes:\n      - {pod: db-0, namespace: shop, volume: data, uploader: kopia, "
            "size: 3Gi, rate: 8Mi}\n",
            d, d);
        kc_buf_append(&b, line, strlen(line));
    }
    return kc_buf_cstr(&b);
}

/* The sticky prior: a nightly without volumes whose earlier runs took ~50 s (299 items at
 * 6/s) while this one goes at 24/s (~12 s). */
static char *fast_nightly(void)
{
    kc_buf b = {0};
    char line[1024];
    const char *res = "    resources:\n      - {name: configmaps, items: 180}\n"
                      "      - {name: secrets, items: 80}\n      - {name: pods, items: 39}\n";
    for (int d = 7; d >= 1; d--) {
        snprintf(line, sizeof line,
                 "  - kind: backup\n    name: quick-%d\n    start: -%dd\n    schedule: quick\n"
                 "    rate: 6\n    jitter: 0.1\n%s",
                 d, d, res);
        kc_buf_append(&b, line, strlen(line));
    }
    snprintf(line, sizeof line,
             "  - kind: backup\n    name: target\n    schedule: quick\n    rate: 24\n"
             "    jitter: 0.1\n%s",
             res);
    kc_buf_append(&b, line, strlen(line));
    char *body = kc_buf_cstr(&b);
    char *y = xasprintf("runs:\n%s", body);
    free(body);
    return y;
}

static void scenarios_build(bscn *s, size_t *n)
{
    size_t k = 0;
    s[k++] = (bscn){"items-only",
                    "3000 items at 4/s, jitter 30 %",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 4\n"
                            "    jitter: 0.3\n    resources:\n"
                            "      - {name: pods, items: 1000}\n"
                            "      - {name: configmaps, items: 1000}\n"
                            "      - {name: secrets, items: 1000}\n"),
                    0,
                    0,
                    0};
    s[k++] = (bscn){"pod-volumes-gate",
                    "600 items in 60 s; PVBs 6Gi, 2Gi, 1Gi gate the end",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 10\n"
                            "    jitter: 0.15\n    resources:\n"
                            "      - {name: pods, items: 200}\n"
                            "      - {name: configmaps, items: 400}\n    volumes:\n"
                            "      - {pod: pg-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 6Gi, rate: 10Mi}\n"
                            "      - {pod: es-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 2Gi, rate: 8Mi}\n"
                            "      - {pod: mq-0, namespace: shop, volume: data, uploader: restic, "
                            "size: 1Gi, rate: 4Mi}\n"),
                    0,
                    0,
                    0};
    s[k++] = (bscn){"data-mover-after-items",
                    "items 120 s, PVB 1Gi; DataUpload 12Gi after",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 5\n"
                            "    jitter: 0.1\n    resources:\n"
                            "      - {name: pods, items: 100}\n"
                            "      - {name: secrets, items: 500}\n    volumes:\n"
                            "      - {pod: pg-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 1Gi, rate: 10Mi}\n"
                            "      - {pvc: orders, namespace: shop, uploader: datamover, "
                            "size: 12Gi, rate: 20Mi}\n"),
                    0,
                    0,
                    0};
    s[k++] = (bscn){"rate-30%-then-3x",
                    "2000 items + PVB 4Gi; x0.3 from 2 min, x3 from 5 min",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 5\n"
                            "    pace: [{at: 120, factor: 0.3}, {at: 300, factor: 3}]\n"
                            "    resources:\n"
                            "      - {name: pods, items: 1000}\n"
                            "      - {name: configmaps, items: 1000}\n    volumes:\n"
                            "      - {pod: pg-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 4Gi, rate: 8Mi}\n"),
                    300,
                    300,
                    0};
    s[k++] = (bscn){"volume-pauses-2m",
                    "restore: 100 items; PVR 3Gi pauses 120 s at 40 %",
                    "Restore",
                    xstrdup("runs:\n  - kind: backup\n    name: src\n    start: -1d\n"
                            "    resources:\n      - {name: pods, items: 10}\n"
                            "  - kind: restore\n    name: target\n    backup: src\n    rate: 20\n"
                            "    resources:\n      - {name: pods, items: 100}\n    volumes:\n"
                            "      - {pod: pg-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 3Gi, rate: 10Mi, stall_after: 0.4, stall_for: 120}\n"),
                    0,
                    0,
                    0};
    s[k++] = (bscn){"volumes-start-late",
                    "2000 items, then pods: 4 PVBs of 1.5Gi from ~200 s",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 10\n"
                            "    jitter: 0.1\n    resources:\n"
                            "      - {name: configmaps, items: 1500}\n"
                            "      - {name: secrets, items: 500}\n"
                            "      - {name: pods, items: 50}\n    volumes:\n"
                            "      - {pod: a-0, namespace: shop, volume: d, uploader: kopia, size: "
                            "1536Mi, rate: 6Mi}\n"
                            "      - {pod: b-0, namespace: shop, volume: d, uploader: kopia, size: "
                            "1536Mi, rate: 6Mi}\n"
                            "      - {pod: c-0, namespace: shop, volume: d, uploader: kopia, size: "
                            "1536Mi, rate: 6Mi}\n"
                            "      - {pod: d-0, namespace: shop, volume: d, uploader: kopia, size: "
                            "1536Mi, rate: 6Mi}\n"),
                    0,
                    0,
                    0};
    char *vols = many_small_volumes();
    s[k++] = (bscn){"many-small-volumes",
                    "500 items; 40 PVBs of 20-400Mi at 1-3Mi/s",
                    "Backup",
                    xasprintf("runs:\n  - kind: backup\n    name: target\n    rate: 10\n"
                              "    jitter: 0.1\n    resources:\n"
                              "      - {name: pods, items: 100}\n"
                              "      - {name: configmaps, items: 400}\n    volumes:\n%s",
                              vols),
                    0,
                    0,
                    0};
    free(vols);
    char *hist = history_runs();
    s[k++] = (bscn){"scheduled-with-history",
                    "7 earlier runs of its schedule; 1200 items then a PVB 3Gi",
                    "Backup",
                    xasprintf("runs:\n%s  - kind: backup\n    name: target\n    schedule: nightly\n"
                              "    rate: 6\n    jitter: 0.1\n    resources:\n"
                              "      - {name: configmaps, items: 1200}\n"
                              "      - {name: pods, items: 40}\n    volumes:\n"
                              "      - {pod: db-0, namespace: shop, volume: data, uploader: "
                              "kopia, size: 3Gi, rate: 8Mi}\n",
                              hist),
                    0,
                    0,
                    0};
    free(hist);
    s[k++] = (bscn){"history-much-longer",
                    "no volumes; 7 earlier runs ~50 s, this one 299 items at 24/s",
                    "Backup",
                    fast_nightly(),
                    0,
                    0,
                    1};
    /* the same run without its history: what the prior is worth */
    s[k++] = (bscn){BSCN_CONTROL,
                    "the scheduled run alone (no earlier runs)",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    schedule: nightly\n"
                            "    rate: 6\n    jitter: 0.1\n    resources:\n"
                            "      - {name: configmaps, items: 1200}\n"
                            "      - {name: pods, items: 40}\n    volumes:\n"
                            "      - {pod: db-0, namespace: shop, volume: data, uploader: "
                            "kopia, size: 3Gi, rate: 8Mi}\n"),
                    0,
                    0,
                    0};
    s[k++] = (bscn){"(rate-30%-stays)",
                    "as rate-30%-then-3x, the x0.3 from 2 min lasts",
                    "Backup",
                    xstrdup("runs:\n  - kind: backup\n    name: target\n    rate: 5\n"
                            "    pace: [{at: 120, factor: 0.3}]\n"
                            "    resources:\n"
                            "      - {name: pods, items: 1000}\n"
                            "      - {name: configmaps, items: 1000}\n    volumes:\n"
                            "      - {pod: pg-0, namespace: shop, volume: data, uploader: kopia, "
                            "size: 4Gi, rate: 8Mi}\n"),
                    120,
                    120,
                    0};
    *n = k;
}

/* ---- decoded objects the model borrows (what the app's stores hold) ---- */

typedef struct held {
    vl_kind kind;
    char *name;
    void *obj;
} held;

typedef struct heldset {
    held *v;
    size_t n;
} heldset;

static held *held_get(heldset *h, vl_kind kind, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->v[i].kind == kind && !strcmp(h->v[i].name, name)) return &h->v[i];
    h->v = xrealloc(h->v, (h->n + 1) * sizeof *h->v);
    h->v[h->n] = (held){kind, xstrdup(name), NULL};
    return &h->v[h->n++];
}

static void held_free_obj(held *x)
{
    if (!x->obj) return;
    if (x->kind == VL_BACKUP || x->kind == VL_RESTORE)
        vl_run_free(x->obj);
    else
        vl_volume_free(x->obj);
    x->obj = NULL;
}

static void heldset_free(heldset *h)
{
    for (size_t i = 0; i < h->n; i++) {
        held_free_obj(&h->v[i]);
        free(h->v[i].name);
    }
    free(h->v);
}

static const struct {
    const char *plural;
    vl_kind kind;
} watched[] = {{"backups", VL_BACKUP},       {"restores", VL_RESTORE},
               {"podvolumebackups", VL_PVB}, {"podvolumerestores", VL_PVR},
               {"datauploads", VL_DU},       {"datadownloads", VL_DD}};
#define NWATCHED (sizeof watched / sizeof watched[0])

/* Applies every pending event to the model (now: monotonic, wall: the cluster's clock). */
static void drain(simstore_watch **w, heldset *h, model *m, double now, double wall)
{
    for (size_t k = 0; k < NWATCHED; k++) {
        const char *type;
        uint64_t rv;
        cJSON *ev;
        while ((ev = simstore_watch_next(w[k], 0, &type, &rv))) {
            vl_kind kind = watched[k].kind;
            int run = kind == VL_BACKUP || kind == VL_RESTORE;
            const cJSON *md = cJSON_GetObjectItemCaseSensitive(ev, "metadata");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(md, "name");
            if (!cJSON_IsString(nm)) {
                cJSON_Delete(ev);
                continue;
            }
            held *x = held_get(h, kind, nm->valuestring);
            if (!strcmp(type, "DELETED")) {
                if (run)
                    model_remove_run(m, kind, x->name);
                else
                    model_remove_volume(m, kind, x->name);
                held_free_obj(x);
            } else {
                void *obj =
                    run ? (void *)vl_run_decode(ev, kind) : (void *)vl_volume_decode(ev, kind);
                if (obj) {
                    if (run)
                        model_upsert_run(m, obj, now, wall);
                    else
                        model_upsert_volume(m, obj, now);
                    held_free_obj(x);
                    x->obj = obj;
                }
            }
            cJSON_Delete(ev);
        }
    }
}

/* ---- one scenario ---- */

#define MAXS         20000 /* samples: one per simulated second */
#define ATTACH_EVERY 10    /* s between the --once answers (a model made afresh) */
static int blank_why[16];  /* blank samples of the set by the reason the answer gave */

typedef struct sample {
    double t;                     /* cluster time */
    double ours, items, avg, ema; /* predicted seconds left; < 0 blank */
    int stalled, bound;           /* the answer: stalled yes; the ETA a lower bound */
    double last_move;  /* time anything the run waits on last changed (the sim's truth) */
    ans_eta_kind kind; /* what the answer shows */
    ans_why why;       /* ... and why not, when it shows none */
    int caveat;        /* an estimate that may grow (eta_caveat) */
    int stale_eta;     /* the same answer on data marked stale showed an ETA */
    int nvol;          /* the run's volumes that exist at t */
    double live;       /* the live projection (the critical path without the history) */
    int sized_moving;  /* every live part sized and moving */
} sample;

typedef struct result {
    double dur;
    double med[4], p90[4], med10[4]; /* ours, items-only, average, EMA */
    int blank;                       /* ours blank with > 10 s left, not stalled */
    int bounded;                     /* samples given as a lower bound */
    int n;                           /* samples 20-90 % */
    double stall_latency;            /* s from the stop to the flag; -1 none expected, -2 missed */
    int false_stalls;
    int bound_wrong;           /* lower bounds above the real end (the real end came sooner) */
    double below50, below90;   /* right bounds: how far below the real end (share of time left) */
    double above50, above_max; /* wrong bounds: how far above it */
    double est_med, est_p90;   /* over the samples that were estimates (not bounds) */
    double adapt_in;           /* s after step_at from which the ETA stays within 10 %; -1 n/a */
    double adapt_first;        /* s after step_at of the first ETA within 10 %; -1 n/a */
    /* round 5 */
    int bounds, bounds_hold;     /* lower bounds shown (from 20 %), and those the end kept */
    int caveats, caveats_sooner; /* estimates that may grow, and those the run ended before */
    int eta_stalled, eta_truth_stalled, eta_stale;     /* ETAs shown while stalled / stale */
    int n_truth_stalled;                               /* samples with 40 s without any move */
    double fore_med, fore_p90, unfore_med, unfore_p90; /* estimates: foreseeable or not */
    int n_fore, n_unfore;
    int hist_n, hist_over; /* history case: samples from 30 %, sized and moving; > 20 % off */
    double hist_max;       /* the largest |ETA - live| / live there */
    double hist_at30;      /* ETA and live projection at the first such sample */
    double hist_live30, hist_t30;
    int attach_blank, attach_n; /* --once: answers without an ETA (> 10 s left, moving) / all */
    char attach_why[256];       /* ... each as "at s: reason" */
} result;

static double rel_err(double left_pred, double t, double end)
{
    double left = end - t;
    double pred_end = t + (left_pred >= 0 ? left_pred : 0);
    return fabs(pred_end - end) / left;
}

/* Signed: how far the predicted end is before the real end, as a share of the time left (> 0:
 * the prediction is early, as a correct lower bound is). */
static double early_by(double left_pred, double t, double end)
{
    double pred_end = t + (left_pred >= 0 ? left_pred : 0);
    return (end - pred_end) / (end - t);
}

/* A growing array of doubles. */
typedef struct dvec {
    double *v;
    size_t n;
} dvec;

static void dvec_add(dvec *d, double x)
{
    d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    d->v[d->n++] = x;
}

/* "12.3%", or "-" for none; into one of 8 rotating buffers. */
static const char *pct(double v)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    if (isnan(v))
        snprintf(b, sizeof buf[0], "%6s", "-");
    else
        snprintf(b, sizeof buf[0], "%5.1f%%", 100 * v);
    return b;
}

static double dvec_pct(const dvec *d, double p)
{
    return d->n ? bench_percentile(d->v, d->n, p) : NAN;
}

/* Every scenario's errors from 20 % on, pooled (j = ours, items-only, average, EMA). */
static double *pool[4];
static size_t npool, cap_pool;
static double *pool_est; /* ours, samples that were estimates (not lower bounds) */
static size_t npool_est;
static dvec pool_below, pool_above; /* bounds right (below the real end) or wrong: how far */
static dvec pool_claims; /* ours, every sample but the right bounds (what was claimed and wrong) */

static void pool_add(const double v[4], int bound, double early)
{
    if (!bound) {
        pool_est = xrealloc(pool_est, (npool_est + 1) * sizeof(double));
        pool_est[npool_est++] = v[0];
    } else {
        dvec_add(early >= 0 ? &pool_below : &pool_above, fabs(early));
    }
    if (!bound || early < 0) dvec_add(&pool_claims, v[0]);
    if (npool == cap_pool) {
        cap_pool = cap_pool ? cap_pool * 2 : 4096;
        for (int j = 0; j < 4; j++) pool[j] = xrealloc(pool[j], cap_pool * sizeof(double));
    }
    for (int j = 0; j < 4; j++) pool[j][npool] = v[j];
    npool++;
}

/* From when (s after start + at) the ETA is within 10 % of the truth to 90 % of the run, and
 * when it first was; -1 never. */
static void adaptation(const sample *s, int n, double start, double end, double at, result *r)
{
    r->adapt_in = r->adapt_first = -1;
    if (!(at > 0)) return;
    double t0 = start + at, last_bad = t0;
    int any = 0, settled = 0;
    for (int i = 0; i < n; i++) {
        double f = (s[i].t - start) / (end - start);
        if (s[i].t < t0 || f > 0.9) continue;
        double err = s[i].stalled ? 1 : rel_err(s[i].ours, s[i].t, end);
        settled = err <= 0.10;
        if (!settled)
            last_bad = s[i].t + 1;
        else if (r->adapt_first < 0)
            r->adapt_first = s[i].t - t0;
        any = 1;
    }
    if (any && settled) r->adapt_in = last_bad - t0;
}

static void summarise(const sample *s, int n, double start, double end, int pooled,
                      const char *name, result *r)
{
    double *e[4], *e10[4];
    dvec est = {0}, below = {0}, above = {0};
    int k = 0, k10 = 0;
    const char *trace = getenv("BENCH_ETA_TRACE");
    if (trace && *trace && strcmp(trace, name)) trace = NULL;
    for (int j = 0; j < 4; j++) {
        e[j] = xcalloc((size_t)n + 1, sizeof(double));
        e10[j] = xcalloc((size_t)n + 1, sizeof(double));
    }
    r->dur = end - start;
    for (int i = 0; i < n; i++) {
        double f = (s[i].t - start) / (end - start);
        if (f < 0.1 || f > 0.9) continue;
        if (s[i].stalled) continue; /* nothing moves: no end is knowable (reported apart) */
        const double v[4] = {s[i].ours, s[i].items, s[i].avg, s[i].ema};
        for (int j = 0; j < 4; j++) e10[j][k10] = rel_err(v[j], s[i].t, end);
        k10++;
        if (f < 0.2) continue;
        if (trace)
            fprintf(stderr, "%.0f %.2f ours %.1f left %.1f err %.2f st %d b %d\n", s[i].t - start,
                    f, s[i].ours, end - s[i].t, rel_err(s[i].ours, s[i].t, end), s[i].stalled,
                    s[i].bound);
        double ev[4];
        for (int j = 0; j < 4; j++) e[j][k] = ev[j] = rel_err(v[j], s[i].t, end);
        double early = early_by(s[i].ours, s[i].t, end);
        if (pooled) pool_add(ev, s[i].bound, early);
        k++;
        if (s[i].bound) {
            r->bounded++;
            dvec_add(early >= 0 ? &below : &above, fabs(early));
            if (early < 0) r->bound_wrong++;
        } else {
            dvec_add(&est, ev[0]);
        }
    }
    r->n = k;
    r->below50 = dvec_pct(&below, 50);
    r->below90 = dvec_pct(&below, 90);
    r->above50 = dvec_pct(&above, 50);
    r->above_max = dvec_pct(&above, 100);
    r->est_med = dvec_pct(&est, 50);
    r->est_p90 = dvec_pct(&est, 90);
    free(below.v);
    free(above.v);
    free(est.v);
    for (int j = 0; j < 4; j++) {
        r->med[j] = k ? bench_percentile(e[j], (size_t)k, 50) : NAN;
        r->p90[j] = k ? bench_percentile(e[j], (size_t)k, 90) : NAN;
        r->med10[j] = k10 ? bench_percentile(e10[j], (size_t)k10, 50) : NAN;
        free(e[j]);
        free(e10[j]);
    }
    for (int i = 0; i < n; i++)
        if (s[i].ours < 0 && !s[i].stalled && end - s[i].t > 10) {
            r->blank++;
            if (pooled && s[i].why < 16) blank_why[s[i].why]++;
            if (getenv("BENCH_ETA_BLANKS"))
                printf("blank %s at %.0f s of %.0f: %s\n", name, s[i].t - start, end - start,
                       answer_why_text(s[i].why));
        }
}

/* Round 5's figures, pooled over the set as well. */
static dvec pool_fore, pool_unfore;
static int pool_bounds, pool_bounds_hold, pool_caveats, pool_caveats_sooner;
static int pool_eta_stalled, pool_eta_truth_stalled, pool_eta_stale;

/* Samples no one could foresee the end from: before the last unannounced change of pace, before
 * a pause ends (the first move after 30 s without any), before all of the run's volumes
 * exist. */
static void round5(const sample *s, int n, double start, double end, const bscn *sc, int pooled,
                   result *r)
{
    int nvol_final = 0;
    double pause_at = INFINITY, resumed = INFINITY;
    for (int i = 0; i < n; i++) {
        if (s[i].nvol > nvol_final) nvol_final = s[i].nvol;
        if (!isfinite(pause_at) && s[i].t - s[i].last_move >= 30) pause_at = s[i].last_move;
        if (isfinite(pause_at) && !isfinite(resumed) && s[i].last_move > pause_at)
            resumed = s[i].last_move;
    }
    dvec fore = {0}, unfore = {0};
    int hist_first = 1;
    r->hist_max = NAN;
    for (int i = 0; i < n; i++) {
        double f = (s[i].t - start) / (end - start);
        int shown = s[i].kind != ANS_ETA_NONE;
        /* no ETA while stalled or stale, over the whole run */
        if (shown && s[i].stalled) r->eta_stalled++;
        if (s[i].t - s[i].last_move >= 40) {
            r->n_truth_stalled++;
            if (shown) r->eta_truth_stalled++;
        }
        if (s[i].stale_eta) r->eta_stale++;
        if (f >= 0.3 && sc->history_case && shown && s[i].sized_moving && s[i].live > 0) {
            double off = fabs(s[i].ours - s[i].live) / s[i].live;
            r->hist_n++;
            if (off > 0.2 + 1e-9) r->hist_over++; /* 20 % itself is within */
            if (isnan(r->hist_max) || off > r->hist_max) r->hist_max = off;
            if (hist_first) {
                r->hist_t30 = s[i].t - start;
                r->hist_at30 = s[i].ours;
                r->hist_live30 = s[i].live;
                hist_first = 0;
            }
        }
        if (f < 0.2 || f > 0.9 || !shown) continue;
        if (s[i].kind == ANS_ETA_BOUND) {
            r->bounds++;
            /* a promise: the run ends no sooner (1 s: the sampling grid) */
            if (end >= s[i].t + s[i].ours - 1) r->bounds_hold++;
            continue;
        }
        double err = rel_err(s[i].ours, s[i].t, end);
        if (s[i].caveat) {
            r->caveats++;
            if (end < s[i].t + s[i].ours - 1) r->caveats_sooner++;
        }
        /* before a pause ends, neither it nor its length was announced */
        int unseen = s[i].t - start < sc->unseen_until || (isfinite(resumed) && s[i].t < resumed) ||
                     s[i].nvol < nvol_final;
        dvec_add(unseen ? &unfore : &fore, err);
        if (pooled) dvec_add(unseen ? &pool_unfore : &pool_fore, err);
    }
    r->n_fore = (int)fore.n;
    r->n_unfore = (int)unfore.n;
    r->fore_med = dvec_pct(&fore, 50);
    r->fore_p90 = dvec_pct(&fore, 90);
    r->unfore_med = dvec_pct(&unfore, 50);
    r->unfore_p90 = dvec_pct(&unfore, 90);
    free(fore.v);
    free(unfore.v);
    if (!pooled) return;
    pool_bounds += r->bounds;
    pool_bounds_hold += r->bounds_hold;
    pool_caveats += r->caveats;
    pool_caveats_sooner += r->caveats_sooner;
    pool_eta_stalled += r->eta_stalled;
    pool_eta_truth_stalled += r->eta_truth_stalled;
    pool_eta_stale += r->eta_stale;
}

/* The newest change time of what run r waits on, as the objects say (the truth for stalls). */
static double truth_last_move(const model *m, const model_run *mr, double prev, double t,
                              uint64_t *sig)
{
    /* a hash of every counter and phase (unsigned: it wraps, by definition) */
    uint64_t v = (uint64_t)mr->run->items_done * 1000003u + (uint64_t)mr->run->phase_id;
    size_t nv = model_run_volumes(m, mr, NULL, 0);
    model_volume **vv = xcalloc(nv ? nv : 1, sizeof *vv);
    model_run_volumes(m, mr, vv, nv);
    for (size_t i = 0; i < nv; i++)
        v = v * 31 + (uint64_t)vv[i]->vol->bytes_done + (uint64_t)vv[i]->vol->phase_id;
    free(vv);
    if (v != *sig) {
        *sig = v;
        return t;
    }
    return prev;
}

/* The live projection of the run's end from its parts (runeta's critical path before the
 * history's prior: max(items, pod volumes), then the data movers, then Finalizing), and whether
 * every live part is sized and moving. */
static double live_projection(const run_answer *a, int *sized_moving)
{
    const re_stage *it = &a->part[RE_ITEMS], *pv = &a->part[RE_PODVOLS],
                   *dm = &a->part[RE_DATAMOVER], *fin = &a->part[RE_FINAL];
    *sized_moving = it->state == RE_ACTIVE && it->total > 0 && it->rate > 0;
    double pass = it->state == RE_DONE ? 0 : it->eta;
    if (pv->state != RE_ABSENT && pv->state != RE_DONE) {
        if (pv->eta > pass) pass = pv->eta;
        *sized_moving &= pv->state == RE_ACTIVE && !pv->n_unknown && !pv->n_stalled;
    }
    double end = pass;
    if (dm->state != RE_ABSENT && dm->state != RE_DONE) {
        if (dm->eta + RE_OPS_SYNC_S / 2 > end) end = dm->eta + RE_OPS_SYNC_S / 2;
        *sized_moving &= dm->state == RE_ACTIVE && !dm->n_unknown && !dm->n_stalled;
    }
    return pass < 0 ? -1 : end + (fin->eta > 0 ? fin->eta : 0);
}

/* What --once sees: a model made afresh from the objects as they are at `now` (an attach, no
 * history watched), and the run's answer in it. *why gets the reason when there is no ETA. */
typedef struct attach_sample {
    double t, last_move;
    ans_eta_kind kind;
    ans_why why;
    int stalled;
} attach_sample;

static void attach_answer(const heldset *h, vl_kind kind, double now, double wall,
                          attach_sample *out)
{
    model *m = model_new();
    for (size_t i = 0; i < h->n; i++) {
        const held *x = &h->v[i];
        if (!x->obj) continue;
        if (x->kind == VL_BACKUP || x->kind == VL_RESTORE) model_upsert_run(m, x->obj, now, wall);
    }
    for (size_t i = 0; i < h->n; i++) {
        const held *x = &h->v[i];
        if (x->obj && x->kind != VL_BACKUP && x->kind != VL_RESTORE)
            model_upsert_volume(m, x->obj, now);
    }
    model_refresh_volumes(m);
    model_run *mr = model_find_run(m, kind, "target");
    ans_ctx ac = {.m = m, .now = now, .wall = wall};
    run_answer a;
    answer_run(&ac, mr, &a);
    out->t = wall;
    out->kind = a.eta_kind;
    out->why = a.eta_why;
    out->stalled = a.stalled == ANS_YES;
    model_free(m);
}

static int attach_blank_total, attach_n_total, attach_noreason;

static int run_scenario(const bscn *sc, unsigned seed, result *res)
{
    memset(res, 0, sizeof *res);
    char path[] = "/tmp/bench_eta_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, sc->yaml, strlen(sc->yaml)) != (ssize_t)strlen(sc->yaml)) {
        fprintf(stderr, "bench_eta: cannot write %s\n", path);
        return -1;
    }
    close(fd);
    simstore *st = simstore_new(1 << 16);
    simctl_opts o = {0};
    o.scenario = path;
    o.speed = 1;
    o.seed = seed;
    o.ns = "velero";
    o.quiet = 1;
    o.manual = 1;
    /* per-resource rows: on stock Velero veltop derives them from the server's live log
     * (logderive.c), which this in-process drive does not read; the sim's resourceProgress map
     * carries the same counts, so the model knows which pods are still to be backed up */
    o.resource_progress = 1;
    char err[512] = "";
    simctl *c = simctl_start(st, &o, err, sizeof err);
    unlink(path);
    if (!c) {
        fprintf(stderr, "bench_eta: %s: %s\n", sc->name, err);
        simstore_free(st);
        return -1;
    }
    simstore_watch *w[NWATCHED];
    for (size_t k = 0; k < NWATCHED; k++) {
        int gone = 0;
        w[k] = simstore_watch_open(st, watched[k].plural, NULL, NULL, NULL, 0, &gone);
    }
    double epoch = simctl_epoch(c);
    model *m = model_new();
    heldset h = {0};
    sample *s = xcalloc(MAXS, sizeof *s);
    int n = 0;
    attach_sample *att = xcalloc(MAXS / ATTACH_EVERY + 1, sizeof *att);
    int natt = 0;
    vl_kind kind = !strcmp(sc->kind, "Backup") ? VL_BACKUP : VL_RESTORE;
    double start = -1, end = -1, ema = -1, last_move = -1, prev_t = -1;
    int64_t prev_done = 0;
    uint64_t sig = 0;
    drain(w, &h, m, 0, epoch);
    for (double t = epoch + 1; t < epoch + MAXS && end < 0; t += 1) {
        simctl_advance(c, t);
        double now = t - epoch;
        drain(w, &h, m, now, t);
        model_run *mr = model_find_run(m, kind, "target");
        if (!mr || !mr->run) continue;
        const vl_run *x = mr->run;
        if (vl_phase_terminal(x->phase_id)) {
            end = x->completed;
            break;
        }
        if (!vl_phase_active(x->phase_id) || x->started <= 0) continue;
        if (start < 0) start = x->started;
        model_refresh_volumes(m);
        /* the run answer, as every surface renders it (no health, no log: the sim's truth only
         * through the objects; fresh data, nothing missing) */
        ans_ctx ac = {.m = m, .now = now, .wall = t};
        run_answer a;
        answer_run(&ac, mr, &a);
        ans_ctx stale = ac;
        stale.stale = 1;
        stale.stale_for = 30;
        run_answer as;
        answer_run(&stale, mr, &as);
        last_move = truth_last_move(m, mr, last_move, t, &sig);
        /* baselines over the item counter: the estimator's ETA (items only: "-" once the items
         * are done), the average since the start, an EMA of the per-second rate (tau 30 s) */
        double left_items = (double)(x->items_total - x->items_done);
        double el = t - x->started;
        double avg = el > 0 && x->items_done > 0 ? (double)x->items_done / el : -1;
        if (prev_t >= 0) {
            double inst = (double)(x->items_done - prev_done) / (t - prev_t);
            double a = 1 - exp(-(t - prev_t) / 30.0);
            ema = ema < 0 ? inst : ema + a * (inst - ema);
        }
        prev_t = t;
        prev_done = x->items_done;
        sample *p = &s[n++];
        p->t = t;
        p->kind = a.eta_kind;
        p->why = a.eta_why;
        p->ours = a.eta_kind != ANS_ETA_NONE ? a.eta : -1;
        p->bound = a.eta_kind == ANS_ETA_BOUND;
        p->caveat = a.eta_kind == ANS_ETA_ESTIMATE && a.eta_caveat;
        p->stalled = a.stalled == ANS_YES;
        p->stale_eta = as.eta_kind != ANS_ETA_NONE;
        p->nvol = a.n_volumes;
        p->live = live_projection(&a, &p->sized_moving);
        p->last_move = last_move;
        p->items = model_run_eta(mr, now);
        p->avg = left_items > 0 && avg > 0 ? left_items / avg : -1;
        p->ema = left_items > 0 && ema > 0 ? left_items / ema : -1;
        if (((long)now) % ATTACH_EVERY == 0) {
            attach_answer(&h, kind, now, t, &att[natt]);
            att[natt++].last_move = last_move;
        }
    }
    if (end < 0 || start < 0) {
        fprintf(stderr, "bench_eta: %s: the target run did not end\n", sc->name);
        return -1;
    }
    /* --once at every ATTACH_EVERY s: blank (no ETA) while more than 10 s are left and something
     * moved in the last 40 s (the sim's truth) */
    int ablank = 0, an = 0;
    char whys[256] = "";
    for (int i = 0; i < natt; i++) {
        if (end - att[i].t <= 10) continue;
        an++;
        if (att[i].kind != ANS_ETA_NONE || att[i].t - att[i].last_move >= 40) continue;
        ablank++;
        if (att[i].why == ANS_WHY_NONE && !bscn_control(sc)) attach_noreason++;
        size_t o = strlen(whys);
        snprintf(whys + o, sizeof whys - o, " %.0fs:%s%s", att[i].t - start,
                 att[i].stalled ? "stalled/" : "", answer_why_text(att[i].why));
    }
    if (!bscn_control(sc)) {
        attach_blank_total += ablank;
        attach_n_total += an;
    }
    free(att);
    summarise(s, n, start, end, !bscn_control(sc), sc->name, res);
    res->attach_blank = ablank;
    res->attach_n = an;
    snprintf(res->attach_why, sizeof res->attach_why, "%s", whys);
    adaptation(s, n, start, end, sc->step_at, res);
    round5(s, n, start, end, sc, !bscn_control(sc), res);
    /* stalls: a flag while something moved in the last 3 byte intervals (30 s) is a false
     * stall; each flagged stretch counts from the last move; a stretch of 45 s without a move
     * that is never flagged is a missed stall */
    res->stall_latency = -1;
    int missed_here = 0;
    for (int i = 0; i < n; i++) {
        double quiet = s[i].t - s[i].last_move;
        if (s[i].stalled && quiet < 30) res->false_stalls++;
        if (s[i].stalled && (i == 0 || !s[i - 1].stalled) && quiet > res->stall_latency)
            res->stall_latency = quiet;
        if (!s[i].stalled && quiet > 45 && (i == 0 || s[i - 1].t - s[i - 1].last_move <= 45))
            missed_here = 1;
    }
    if (missed_here) res->stall_latency = -2;
    free(s);
    heldset_free(&h);
    model_free(m);
    for (size_t k = 0; k < NWATCHED; k++) simstore_watch_close(w[k]);
    simctl_stop(c);
    simstore_free(st);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    bscn sc[16];
    size_t ns;
    scenarios_build(sc, &ns);
    result r[16];
    printf("# bench_eta: run ETA error |predicted end - real end| / time left, seed %u\n", seed);
    printf("# samples every simulated second from 20 %% to 90 %% of each run (10-90 %% in "
           "brackets); blank = counted as 'ends now'\n");
    printf("%-24s %6s | %-22s | %-13s | %-13s | %-13s | %5s %5s %6s %5s\n", "scenario", "dur",
           "run ETA med/p90 [10%]", "items-only", "avg-since", "EMA 30s", "blank", "bound", "stall",
           "false");
    double all[4][16], allp[4][16];
    int nall = 0, blank = 0, false_st = 0, missed = 0;
    double worst_latency = 0;
    for (size_t i = 0; i < ns; i++) {
        if (run_scenario(&sc[i], seed, &r[i])) return 1;
        const result *x = &r[i];
        char stall[16];
        if (x->stall_latency == -1)
            snprintf(stall, sizeof stall, "-");
        else if (x->stall_latency == -2)
            snprintf(stall, sizeof stall, "MISSED");
        else
            snprintf(stall, sizeof stall, "%.0fs", x->stall_latency);
        printf("%-24s %5.0fs | %4.1f%% / %4.1f%% [%4.1f%%] | %5.1f / %5.1f | %5.1f / %5.1f | %5.1f "
               "/ %5.1f | %5d %4.0f%% %6s %5d\n",
               sc[i].name, x->dur, 100 * x->med[0], 100 * x->p90[0], 100 * x->med10[0],
               100 * x->med[1], 100 * x->p90[1], 100 * x->med[2], 100 * x->p90[2], 100 * x->med[3],
               100 * x->p90[3], x->blank, x->n ? 100.0 * x->bounded / x->n : 0, stall,
               x->false_stalls);
        if (bscn_control(&sc[i])) continue;
        for (int j = 0; j < 4; j++) {
            all[j][nall] = x->med[j];
            allp[j][nall] = x->p90[j];
        }
        nall++;
        blank += x->blank;
        false_st += x->false_stalls;
        if (x->stall_latency == -2) missed++;
        if (x->stall_latency > worst_latency) worst_latency = x->stall_latency;
    }
    /* over the set: the median of the scenarios' medians, the worst p90 */
    double med[4], p90[4];
    for (int j = 0; j < 4; j++) {
        double p = 0;
        for (int i = 0; i < nall; i++)
            if (allp[j][i] > p) p = allp[j][i];
        med[j] = bench_percentile(all[j], (size_t)nall, 50);
        p90[j] = p;
    }
    /* pooled: every sample of every scenario from 20 % on */
    double pm[4], pp[4];
    for (int j = 0; j < 4; j++) {
        pm[j] = bench_percentile(pool[j], npool, 50);
        pp[j] = bench_percentile(pool[j], npool, 90);
    }
    int ok_med = pm[0] <= 0.10, ok_p90 = pp[0] <= 0.25, ok_3x = pm[1] >= 3 * pm[0];
    printf("set (the issue's %d scenarios, %zu samples pooled): run ETA median %.1f%% (target <= "
           "10%%) %s, p90 %.1f%% "
           "(target <= 25%%) %s; median of the scenarios' medians %.1f%%, worst p90 %.1f%%\n",
           nall, npool, 100 * pm[0], bench_verdict(ok_med), 100 * pp[0], bench_verdict(ok_p90),
           100 * med[0], 100 * p90[0]);
    printf("set: run ETA over the %zu samples that were estimates (not lower bounds): median "
           "%.1f%%, p90 %.1f%% %s\n",
           npool_est, 100 * bench_percentile(pool_est, npool_est, 50),
           100 * bench_percentile(pool_est, npool_est, 90),
           bench_verdict(bench_percentile(pool_est, npool_est, 90) <= 0.25));
    printf("set: items-only median %.1f%% p90 %.1f%%: run ETA %.1fx better (target >= 3x) %s; "
           "average-since-start %.1f%% / %.1f%%, EMA %.1f%% / %.1f%%\n",
           100 * pm[1], 100 * pp[1], pm[0] > 0 ? pm[1] / pm[0] : INFINITY, bench_verdict(ok_3x),
           100 * pm[2], 100 * pp[2], 100 * pm[3], 100 * pp[3]);
    printf("set: blank ETAs with > 10 s left: %d, without a reason %d %s; stalls flagged within "
           "%.0f s of the last move "
           "(target <= 40 s: 3 intervals + the 10 s grid) %s; missed %d; false stalls %d %s\n",
           blank, blank_why[ANS_WHY_NONE], bench_verdict(blank_why[ANS_WHY_NONE] == 0),
           worst_latency, bench_verdict(worst_latency <= 40 && !missed), missed, false_st,
           bench_verdict(false_st == 0));
    printf("set: the blank ETAs by the reason given (none without one):");
    for (int w = 0; w < 16; w++)
        if (blank_why[w])
            printf(" %s %d;", w ? answer_why_text((ans_why)w) : "NO REASON", blank_why[w]);
    printf("\n");
    printf("\n# --once every %d s (a model made afresh from the objects, as an attach sees them): "
           "answers without an ETA while > 10 s are left and something moved in the last 40 s, "
           "at s of the run: reason\n",
           ATTACH_EVERY);
    for (size_t i = 0; i < ns; i++)
        printf("%-24s | %3d of %3d |%s\n", sc[i].name, r[i].attach_blank, r[i].attach_n,
               r[i].attach_why);
    printf("set: --once (a model made afresh every %d s): no ETA with > 10 s left while the run "
           "moves: %d of %d, without a reason %d %s\n",
           ATTACH_EVERY, attach_blank_total, attach_n_total, attach_noreason,
           bench_verdict(attach_noreason == 0));
    /* the comparison runs, apart from the set */
    for (size_t i = 0; i < ns; i++)
        if (bscn_control(&sc[i]))
            printf("comparison, not in the set: %s: run ETA median %.1f%%, p90 %.1f%% (%.0f%% "
                   "of its samples bounds)\n",
                   sc[i].name, 100 * r[i].med[0], 100 * r[i].p90[0],
                   r[i].n ? 100.0 * r[i].bounded / r[i].n : 0);
    /* lower bounds: right when the real end is at or after them (then: how far below it), wrong
     * when the run ended sooner (how far above) */
    printf("\n# per scenario, from 20 %% on: estimates (not bounds) med/p90; lower bounds ('>='): "
           "count, wrong (real end < bound); right ones: how far below the real end med/p90, "
           "wrong ones: how far above med/max (%% of the time left); after a rate step: s to the "
           "first ETA within 10 %% / s from which it stays within 10 %% (to 90 %% of the run)\n");
    printf("%-24s | %-15s | %5s %5s | %-15s | %-15s | %s\n", "scenario", "estimates", "bound",
           "wrong", "right: below", "wrong: above", "adapt (first/stays)");
    for (size_t i = 0; i < ns; i++) {
        const result *x = &r[i];
        char adapt[48] = "-";
        if (sc[i].step_at > 0)
            snprintf(adapt, sizeof adapt, "step at %.0fs: %.0fs / %.0fs", sc[i].step_at,
                     x->adapt_first, x->adapt_in);
        printf("%-24s | %s / %s | %5d %5d | %s / %s | %s / %s | %s\n", sc[i].name, pct(x->est_med),
               pct(x->est_p90), x->bounded, x->bound_wrong, pct(x->below50), pct(x->below90),
               pct(x->above50), pct(x->above_max), adapt);
    }
    printf("set: %zu lower bounds; right (real end >= bound) %zu, below the real end by median "
           "%.1f%%, p90 %.1f%% of the time left; wrong (real end < bound) %zu, above it by median "
           "%.1f%%, max %.1f%%\n",
           pool_below.n + pool_above.n, pool_below.n, 100 * dvec_pct(&pool_below, 50),
           100 * dvec_pct(&pool_below, 90), pool_above.n, 100 * dvec_pct(&pool_above, 50),
           100 * dvec_pct(&pool_above, 100));
    printf(
        "set: over the %zu samples that were estimates or wrong bounds (the %zu right bounds left "
        "out): median %.1f%%, p90 %.1f%%\n",
        pool_claims.n, pool_below.n, 100 * dvec_pct(&pool_claims, 50),
        100 * dvec_pct(&pool_claims, 90));

    /* round 5: what the surfaces show (the run answer) */
    printf("\n# round 5, the run answer as the surfaces show it, from 20 %% of each run on: "
           "estimates over what can be foreseen med/p90 [samples] and over what cannot (before an "
           "unannounced change of pace or the end of a pause, before the run's volumes exist); "
           "lower bounds "
           "shown / holding; estimates that may grow (caveat) / the run ended before them; ETAs "
           "shown (whole run) while the answer says stalled / nothing moved for 40 s / the data "
           "is stale\n");
    printf("%-24s | %-24s | %-24s | %-11s | %-11s | %s\n", "scenario", "foreseeable est.",
           "unforeseeable est.", "bounds/hold", "caveat/less", "ETA stalled/40s/stale");
    for (size_t i = 0; i < ns; i++) {
        const result *x = &r[i];
        printf("%-24s | %s / %s [%4d] | %s / %s [%4d] | %5d %5d | %5d %5d | %d / %d (of %d) / %d\n",
               sc[i].name, pct(x->fore_med), pct(x->fore_p90), x->n_fore, pct(x->unfore_med),
               pct(x->unfore_p90), x->n_unfore, x->bounds, x->bounds_hold, x->caveats,
               x->caveats_sooner, x->eta_stalled, x->eta_truth_stalled, x->n_truth_stalled,
               x->eta_stale);
    }
    double fm = dvec_pct(&pool_fore, 50), fp = dvec_pct(&pool_fore, 90);
    printf("set: estimates over what can be foreseen (%zu samples): median %.1f%% (target <= 10%%) "
           "%s, p90 %.1f%% (target <= 10%%) %s; over what cannot (%zu samples, no target): median "
           "%.1f%%, p90 %.1f%%\n",
           pool_fore.n, 100 * fm, bench_verdict(fm <= 0.10), 100 * fp, bench_verdict(fp <= 0.10),
           pool_unfore.n, 100 * dvec_pct(&pool_unfore, 50), 100 * dvec_pct(&pool_unfore, 90));
    if (pool_bounds)
        printf("set: lower bounds shown %d, holding %d = %.1f%% (target >= 99%%) %s\n", pool_bounds,
               pool_bounds_hold, 100.0 * pool_bounds_hold / pool_bounds,
               bench_verdict(pool_bounds_hold >= 0.99 * pool_bounds));
    else
        printf("set: lower bounds shown 0 (the answer gives none: every ETA is an estimate) "
               "(target >= 99%% hold) ok\n");
    printf("set: estimates that may grow (caveat) %d, the run ended before %d of them (%.1f%%)\n",
           pool_caveats, pool_caveats_sooner,
           pool_caveats ? 100.0 * pool_caveats_sooner / pool_caveats : 0.0);
    printf("set: ETAs shown while the answer says stalled %d, while nothing moved for 40 s %d, "
           "while the data is stale %d (target 0) %s\n",
           pool_eta_stalled, pool_eta_truth_stalled, pool_eta_stale,
           bench_verdict(!pool_eta_stalled && !pool_eta_truth_stalled && !pool_eta_stale));
    for (size_t i = 0; i < ns; i++) {
        const result *x = &r[i];
        if (!sc[i].history_case) continue;
        printf("history case %s (%.0f s run): from 30 %% on, %d samples with the live parts sized "
               "and moving, %d more than 20 %% from the live projection, at most %.1f%% (target "
               "<= 20 %%) %s; at %.0f s the ETA %.1f s, live %.1f s\n",
               sc[i].name, x->dur, x->hist_n, x->hist_over, 100 * x->hist_max,
               bench_verdict(x->hist_n > 0 && x->hist_over == 0), x->hist_t30, x->hist_at30,
               x->hist_live30);
    }
    free(pool_fore.v);
    free(pool_unfore.v);
    free(pool_below.v);
    free(pool_above.v);
    free(pool_claims.v);
    for (size_t i = 0; i < ns; i++) free(sc[i].yaml);
    for (int j = 0; j < 4; j++) free(pool[j]);
    free(pool_est);
    return 0;
}
