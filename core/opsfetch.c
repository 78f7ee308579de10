/* opsfetch.c: reads the async plugin operations of the runs waiting on them, from the loop. */
#include "opsfetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itemops.h"
#include "kubeclient/backoff.h"
#include "kubeclient/caps.h"
#include "kubeclient/download.h"
#include "kubeclient/util.h"

#define OPSFETCH_TICK_MS 1000 /* how often the runs are looked over */

typedef struct of_read {
    struct opsfetch *f;
    vl_kind kind;
    char *name;
    kc_download *dl;
    kc_buf body;
} of_read;

struct opsfetch {
    app *a;
    uint64_t timer;
    of_read *reads[OPSFETCH_PARALLEL];
    kc_backoff backoff;
    int once; /* --once: one read per run, no timer */
};

static double of_mono(void)
{
    return (double)kc_now_ms() / 1000.0;
}

static void of_read_free(of_read *r)
{
    if (!r) return;
    kc_download_free(r->dl);
    kc_buf_free(&r->body);
    free(r->name);
    free(r);
}

static void of_data(void *arg, const char *data, size_t n)
{
    of_read *r = arg;
    kc_buf_append(&r->body, data, n);
}

static void of_pump(opsfetch *f);

static void of_done(void *arg, const kc_err *err)
{
    of_read *rd = arg;
    opsfetch *f = rd->f;
    app *a = f->a;
    for (int i = 0; i < OPSFETCH_PARALLEL; i++)
        if (f->reads[i] == rd) f->reads[i] = NULL;
    kc_download_free(rd->dl);
    rd->dl = NULL;
    model_run *r = model_find_run(a->model, rd->kind, rd->name);
    if (r && r->item_ops) {
        itemops *io = r->item_ops;
        double mono = of_mono();
        int64_t now_ms = kc_now_ms();
        if (err->msg[0]) {
            itemops_set_unknown(io, err->msg);
            int64_t d = kc_backoff_next(&f->backoff, now_ms, -1);
            io->next_mono =
                mono + (d / 1000.0 > ITEMOPS_REFRESH_S ? d / 1000.0 : ITEMOPS_REFRESH_S);
        } else {
            itemop *ops;
            size_t n, cut;
            kc_err pe = {0};
            if (itemops_parse(rd->body.data ? rd->body.data : "", rd->body.len,
                              rd->kind == VL_RESTORE, &ops, &n, &cut, &pe)) {
                char why[1200];
                snprintf(why, sizeof why, "the %s are not usable: %s",
                         rd->kind == VL_RESTORE ? "RestoreItemOperations" : "BackupItemOperations",
                         pe.msg);
                itemops_set_unknown(io, why);
            } else {
                app_sync_clock(a);
                itemops_update(io, ops, n, cut, mono, model_cluster_now(a->model, kc_wall_now()));
            }
            io->next_mono = mono + ITEMOPS_REFRESH_S;
        }
        a->model->gen++;
        if (a->on_change) a->on_change(a->on_change_arg);
    }
    of_read_free(rd);
    if (!f->once) of_pump(f);
}

static int of_busy(const opsfetch *f, const model_run *r)
{
    for (int i = 0; i < OPSFETCH_PARALLEL; i++)
        if (f->reads[i] && f->reads[i]->kind == r->kind && !strcmp(f->reads[i]->name, r->name))
            return 1;
    return 0;
}

/* Starts reads of the runs due, while slots are free. */
static void of_pump(opsfetch *f)
{
    app *a = f->a;
    double mono = of_mono();
    for (size_t i = 0; i < a->model->n_runs; i++) {
        int slot = -1;
        for (int k = 0; k < OPSFETCH_PARALLEL && slot < 0; k++)
            if (!f->reads[k]) slot = k;
        if (slot < 0) return;
        model_run *r = a->model->runs[i];
        if (!itemops_waiting(r->run) || of_busy(f, r)) continue;
        if (!r->item_ops) r->item_ops = itemops_new();
        if (r->item_ops->next_mono > mono) continue;
        r->item_ops->next_mono = mono + ITEMOPS_REFRESH_S; /* at most one read per period */
        of_read *rd = xcalloc(1, sizeof *rd);
        rd->f = f;
        rd->kind = r->kind;
        rd->name = xstrdup(r->name);
        f->reads[slot] = rd;
        kc_download_opts o = {.ns = a->ns,
                              .kind = r->kind == VL_RESTORE ? "RestoreItemOperations"
                                                            : "BackupItemOperations",
                              .target = r->name,
                              .max_bytes = ITEMOPS_MAX_BYTES};
        rd->dl = app_download(a, &o, of_data, of_done, rd);
    }
}

static void of_tick(void *arg)
{
    opsfetch *f = arg;
    f->timer = 0;
    of_pump(f);
    f->timer = kc_loop_timer(f->a->loop, OPSFETCH_TICK_MS, of_tick, f);
}

opsfetch *opsfetch_new(app *a)
{
    opsfetch *f = xcalloc(1, sizeof *f);
    f->a = a;
    kc_backoff_init(&f->backoff, 0, 0, 0);
    f->timer = kc_loop_timer(a->loop, 0, of_tick, f);
    return f;
}

void opsfetch_free(opsfetch *f)
{
    if (!f) return;
    if (f->timer) kc_loop_cancel(f->a->loop, f->timer);
    for (int i = 0; i < OPSFETCH_PARALLEL; i++) of_read_free(f->reads[i]);
    free(f);
}

typedef struct of_once {
    opsfetch *f;
} of_once;

static int of_idle(void *arg)
{
    of_once *w = arg;
    opsfetch *f = w->f;
    for (int i = 0; i < OPSFETCH_PARALLEL; i++)
        if (f->reads[i]) return 0;
    /* a slot is free: the next runs waiting on operations */
    of_pump(f);
    for (int i = 0; i < OPSFETCH_PARALLEL; i++)
        if (f->reads[i]) return 0;
    return 1;
}

void opsfetch_once(app *a, int64_t timeout_ms)
{
    opsfetch f = {.a = a, .once = 1};
    kc_backoff_init(&f.backoff, 0, 0, 0);
    of_once w = {.f = &f};
    int64_t deadline = kc_now_ms() + timeout_ms;
    while (!a->stop && kc_now_ms() < deadline) {
        if (kc_loop_run_until(a->loop, of_idle, &w, deadline - kc_now_ms())) break;
    }
    for (int i = 0; i < OPSFETCH_PARALLEL; i++) {
        of_read *rd = f.reads[i];
        if (!rd) continue;
        model_run *r = model_find_run(a->model, rd->kind, rd->name);
        if (r && r->item_ops) {
            char why[200];
            snprintf(why, sizeof why, "%s not in before the --once deadline (%s)",
                     rd->kind == VL_RESTORE ? "RestoreItemOperations" : "BackupItemOperations",
                     kc_download_state_name(kc_download_state(rd->dl)));
            itemops_set_unknown(r->item_ops, why);
        }
        of_read_free(rd);
        f.reads[i] = NULL;
    }
    /* runs waiting on operations that never got a slot */
    for (size_t i = 0; i < a->model->n_runs; i++) {
        model_run *r = a->model->runs[i];
        if (!itemops_waiting(r->run)) continue;
        if (!r->item_ops) r->item_ops = itemops_new();
        if (!r->item_ops->known && !r->item_ops->reason[0])
            itemops_set_unknown(r->item_ops, "not read before the --once deadline (queued)");
    }
}
