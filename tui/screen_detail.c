/* screen_detail.c: one run in depth: overall bar, rate, ETA and finish time, last progress or
 * stall, a rate sparkline, per-resource bars (active, then pending, then done), volumes summary,
 * phase and timestamps, errors, failure reason, hooks and item operations. [ and ] step runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answer.h"
#include "diagnose.h"
#include "diagview.h"
#include "queueview.h"
#include "itemops.h"
#include "opsfetch.h"
#include "readiness.h"
#include "health.h"
#include "kubeclient/caps.h"
#include "kubeclient/download.h"
#include "logparse.h"
#include "drill.h"
#include "format.h"
#include "kubeclient/caps.h"
#include "logderive.h"
#include "runeta.h"
#include "sanitize.h"
#include "timeline.h"
#include "ui.h"
#include "widgets.h"

typedef struct detail_state {
    vl_kind kind;
    char *name;   /* malloc'd: names of any length (a server may break the 253 limit) */
    int scroll;   /* first resource row shown */
    int res_rows; /* resource rows visible at the last draw */
    int wrap;     /* W: the findings, failure reason and validation errors in full */
    int hx;       /* Left/Right: columns the findings are scrolled sideways */
    int hx_max;   /* how far that is worth it (the longest finding's overflow) */
    int cut;      /* another line was cut at the last draw (W puts it in full on its own) */
    /* a run that finished before veltop watched it: its stored log's own times for the
     * timeline (fetched once when the screen shows it) */
    kc_download *dl;
    int dl_state; /* 0 not asked, 1 fetching, 2 done */
    tl_log log;
    kc_buf part; /* a line not ended yet */
    lp_line scratch;
    ui *u;
} detail_state;

static detail_state *detail_of(ui_screen *s)
{
    return s->data;
}

static model_run *detail_run(ui_screen *s, ui *u)
{
    return model_find_run(ui_model(u), detail_of(s)->kind, detail_of(s)->name);
}

static void detail_log_reset(detail_state *d)
{
    kc_download_free(d->dl);
    d->dl = NULL;
    d->dl_state = 0;
    memset(&d->log, 0, sizeof d->log);
    d->part.len = 0;
}

static void detail_log_line(detail_state *d, const char *line, size_t n)
{
    if (!lp_parse(&d->scratch, line, n)) timeline_log_line(&d->log, &d->scratch);
}

static void detail_log_data(void *arg, const char *data, size_t n)
{
    detail_state *d = arg;
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t k = nl ? (size_t)(nl - data) : n;
        if (!nl) { /* keep the tail (capped: a line is never longer than the pager's cap) */
            if (d->part.len + k <= KC_CAP_LOG_LINE_BYTES) kc_buf_append(&d->part, data, k);
            return;
        }
        if (d->part.len) {
            if (d->part.len + k <= KC_CAP_LOG_LINE_BYTES) kc_buf_append(&d->part, data, k);
            detail_log_line(d, d->part.data, d->part.len);
            d->part.len = 0;
        } else {
            detail_log_line(d, data, k);
        }
        data += k + 1;
        n -= k + 1;
    }
}

static void detail_log_done(void *arg, const kc_err *err)
{
    detail_state *d = arg;
    (void)err; /* no log: the timeline says unknown where only the log would have said */
    if (d->part.len) detail_log_line(d, d->part.data, d->part.len);
    d->part.len = 0;
    d->dl_state = 2;
    ui_invalidate(d->u);
}

/* Fetches the stored log of a run veltop first saw finished (its phases went by unseen). */
static void detail_log_want(detail_state *d, ui *u, const model_run *r)
{
    d->u = u;
    if (d->dl_state || !r->run || !vl_phase_terminal(r->run->phase_id)) return;
    if (!vl_phase_terminal((vl_phase)r->first_seen.phase) || !drill_log_stored(r->run)) return;
    app *a = ui_app(u);
    kc_download_opts o = {.ns = a->ns,
                          .kind = r->kind == VL_BACKUP ? "BackupLog" : "RestoreLog",
                          .target = r->name,
                          .max_bytes = KC_CAP_LOG_BYTES};
    d->dl_state = 1;
    d->dl = app_download(a, &o, detail_log_data, detail_log_done, d);
}

static int detail_step(ui *u, ui_screen *s, int delta)
{
    detail_state *d = detail_of(s);
    ui_set_current_run(u, d->kind, d->name);
    model_run *r = drill_adjacent(u, delta);
    if (!r) return UI_REDRAW;
    d->kind = r->kind;
    free(d->name);
    d->name = xstrdup(r->name);
    d->scroll = 0;
    detail_log_reset(d);
    return UI_REDRAW;
}

static int detail_prev(ui *u, ui_screen *s)
{
    return detail_step(u, s, -1);
}
static int detail_next(ui *u, ui_screen *s)
{
    return detail_step(u, s, 1);
}
static int detail_down(ui *u, ui_screen *s)
{
    (void)u;
    detail_of(s)->scroll++;
    return UI_REDRAW;
}
static int detail_up(ui *u, ui_screen *s)
{
    (void)u;
    if (detail_of(s)->scroll > 0) detail_of(s)->scroll--;
    return UI_REDRAW;
}
static int detail_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    detail_of(s)->scroll += detail_of(s)->res_rows > 1 ? detail_of(s)->res_rows - 1 : 1;
    return UI_REDRAW;
}
static int detail_pgup(ui *u, ui_screen *s)
{
    (void)u;
    detail_of(s)->scroll -= detail_of(s)->res_rows > 1 ? detail_of(s)->res_rows - 1 : 1;
    if (detail_of(s)->scroll < 0) detail_of(s)->scroll = 0;
    return UI_REDRAW;
}
static int detail_top(ui *u, ui_screen *s)
{
    (void)u;
    detail_of(s)->scroll = 0;
    return UI_REDRAW;
}
static int detail_bottom(ui *u, ui_screen *s)
{
    (void)u;
    detail_of(s)->scroll = 1000000;
    return UI_REDRAW;
}

static int detail_wrap(ui *u, ui_screen *s)
{
    detail_state *d = detail_of(s);
    d->wrap = !d->wrap;
    d->hx = 0;
    d->hx_max = 1 << 20; /* unknown until the next frame measures it */
    ui_message(u, "wrap %s", d->wrap ? "on: long messages in full" : "off");
    return UI_REDRAW;
}
static int detail_left(ui *u, ui_screen *s)
{
    (void)u;
    detail_state *d = detail_of(s);
    d->hx = d->hx > 20 ? d->hx - 20 : 0;
    return UI_REDRAW;
}
static int detail_right(ui *u, ui_screen *s)
{
    detail_state *d = detail_of(s);
    if (d->wrap) return UI_REDRAW;
    if (d->hx >= d->hx_max) {
        ui_message(u, d->hx_max ? "at the end of the longest message"
                      : d->cut  ? "W: the cut lines in full"
                                : "nothing is cut");
        return UI_REDRAW;
    }
    d->hx += 20;
    if (d->hx > d->hx_max) d->hx = d->hx_max;
    return UI_REDRAW;
}

static const ui_key detail_keys[] = {
    {UI_C_PREV_RUN, "previous run (in the list's order)", detail_prev},
    {UI_C_NEXT_RUN, "next run", detail_next},
    {UI_C_DOWN, "scroll the resources down", detail_down},
    {UI_C_UP, "scroll the resources up", detail_up},
    {UI_C_PGDN, NULL, detail_pgdn},
    {UI_C_PGUP, NULL, detail_pgup},
    {UI_C_TOP, "first resource", detail_top},
    {UI_C_BOTTOM, "last resource", detail_bottom},
    {UI_C_VOLUMES, "volumes of this run", drill_open_volumes},
    {UI_C_LOGS, "log of this run (live while in progress)", drill_open_logs},
    {UI_C_RESULTS, "results of this run: errors and warnings", drill_open_results},
    {UI_C_DESCRIBE, "describe this run", drill_open_describe},
    {UI_C_WRAP, "wrap long messages (Stuck?, failure reason) on/off", detail_wrap},
    {UI_C_LEFT, "scroll long messages left", detail_left},
    {UI_C_RIGHT, "scroll long messages right (when not wrapped)", detail_right},
    {UI_C_NONE, NULL, NULL},
};

/* Resource rows in display order: active first, then pending, then done. items_over: the run
 * has done every item Velero counts (its item pass is over). */
static int detail_res_rank(const model_res *r, int items_over)
{
    if (r->total > 0 && r->done >= r->total) return 2;
    /* no total to count against ("4 of ?"): done once it is no longer worked on, or the run's
     * items are all done */
    if ((r->flags & MODEL_RES_NO_TOTAL) && r->done > 0 &&
        (items_over || !(r->flags & MODEL_RES_ACTIVE)))
        return 2;
    if (r->done == 0 && !(r->flags & MODEL_RES_ACTIVE)) return 1;
    return 0;
}

static int detail_label(WINDOW *w, int y, int x, const char *label)
{
    return w_print(w, y, x, 40, A_DIM, "%s ", label);
}

static int detail_vol_rank(const model_volume *v)
{
    vl_phase p = v->vol->phase_id;
    if (vl_phase_active(p)) return 0;
    if (!vl_phase_terminal(p)) return 1;
    return p == VL_PH_COMPLETED ? 3 : 2;
}

static int detail_vol_cmp(const void *a, const void *b)
{
    const model_volume *x = *(model_volume *const *)a, *y = *(model_volume *const *)b;
    int c = detail_vol_rank(x) - detail_vol_rank(y);
    return c ? c : strcmp(x->name, y->name);
}

/* The right-hand part of a volume row: bytes, then rate and ETA or how long it has stalled (as
 * the run's answer counts them: runeta_volume and runeta_volume_stalled at the answer's time). */
static void detail_vol_tail(ui *u, char *out, size_t n, const model_volume *mv, const run_answer *a,
                            int wide, int *stalled)
{
    double now = a->at_mono;
    const vl_volume *v = mv->vol;
    char b1[32], b2[32], b3[32];
    int unsized = model_volume_unsized(v); /* its total is unknown, not 0 B */
    int o = snprintf(out, n, wide ? "%10s / %-10s" : "%10s/%-10s",
                     fmt_bytes(b1, sizeof b1, v->bytes_done),
                     unsized ? "not sized yet" : fmt_bytes(b2, sizeof b2, v->bytes_total));
    double since;
    *stalled = 0;
    if (!vl_phase_active(v->phase_id) || o < 0 || (size_t)o >= n) return;
    if (runeta_volume_stalled(ui_model(u), mv, now, a->at, &since)) {
        *stalled = 1;
        snprintf(out + o, n - (size_t)o, " stalled %s", fmt_duration(b3, sizeof b3, since));
    } else {
        double rate, eta;
        runeta_volume(ui_model(u), mv, now, a->at, &rate, &eta);
        if (wide)
            snprintf(out + o, n - (size_t)o, " %12s  ETA %s", fmt_byte_rate(b1, sizeof b1, rate),
                     fmt_eta(b2, sizeof b2, eta));
        else
            snprintf(out + o, n - (size_t)o, "  ETA %s", fmt_eta(b2, sizeof b2, eta));
    }
}

/* The run's volumes, moving ones first: what is transferring, how fast, until when. The bar
 * shrinks so the bytes, rate and ETA always fit the line. */
static void detail_draw_volumes(ui *u, WINDOW *w, int y, int rows, int cols, const model_run *r,
                                const run_answer *a)
{
    model *m = ui_model(u);
    char who[160], tail[96];
    size_t n = model_run_volumes(m, r, NULL, 0);
    model_volume **vv = xcalloc(n ? n : 1, sizeof(*vv));
    model_run_volumes(m, r, vv, n);
    qsort(vv, n, sizeof(*vv), detail_vol_cmp);
    w_print(w, y++, 0, cols, A_BOLD | A_UNDERLINE, "Volumes");
    /* the data movers' that are plugin operations the run waits on: marked "*" (their op) */
    const itemops *io = r->item_ops && r->item_ops->known ? r->item_ops : NULL;
    const model_volume **opv = io ? xcalloc(io->n ? io->n : 1, sizeof *opv) : NULL;
    size_t nopv = io ? itemops_join(io, m, r, opv) : 0;
    int wide = cols >= 100, whow = cols >= 140 ? 34 : wide ? 28 : 22;
    int shown = (int)n < rows - 1 ? (int)n : rows - 1, tailw = 0, st;
    for (int i = 0; i < shown; i++) {
        detail_vol_tail(u, tail, sizeof tail, vv[i], a, wide, &st);
        int tw = san_width(tail);
        if (tw > tailw) tailw = tw;
    }
    int bar_x = 6 + whow + 1 + (wide ? 11 : 0) + 12;
    int barw = cols - bar_x - 1 - tailw - 1;
    if (barw > 20) barw = 20;
    if (barw < 4) barw = 0;
    for (int i = 0; i < shown; i++, y++) {
        const vl_volume *v = vv[i]->vol;
        const char *kind = v->kind == VL_PVB   ? "PVB"
                           : v->kind == VL_PVR ? "PVR"
                           : v->kind == VL_DU  ? "DU"
                                               : "DD";
        snprintf(who, sizeof who, "%s%s%s%s%s", v->pod_ns ? v->pod_ns : "", v->pod_ns ? "/" : "",
                 v->pod_name ? v->pod_name : "", v->pod_name && v->volume ? ":" : "",
                 v->volume ? v->volume : "");
        int op = 0;
        for (size_t k = 0; nopv && k < io->n && !op; k++) op = opv[k] == vv[i];
        w_print(w, y, 2, 4, A_DIM, "%s%s", kind, op ? "*" : "");
        int x = 6;
        w_text(w, y, x, whow, who, 0);
        x += whow + 1;
        if (wide) {
            w_text(w, y, x, 10, v->uploader ? v->uploader : "-", A_DIM);
            x += 11;
        }
        w_text(w, y, x, 11, v->phase, w_attr(w_phase_role(v->phase_id)));
        x += 12;
        double f = v->bytes_total > 0 ? (double)v->bytes_done / (double)v->bytes_total : -1;
        if (f < 0 && v->phase_id == VL_PH_COMPLETED) f = 1;
        if (barw) {
            w_bar(w, y, x, barw, f, v->phase_id == VL_PH_COMPLETED ? W_GOOD : W_BAR_FILL);
            x += barw + 1;
        }
        detail_vol_tail(u, tail, sizeof tail, vv[i], a, wide, &st);
        w_print(w, y, x, cols - x, st ? w_attr(W_WARN) | A_BOLD : 0, "%s", tail);
    }
    if ((int)n > rows - 1)
        w_print(w, y, 2, cols - 2, A_DIM, "... %zu more (v: all volumes)", n - (size_t)(rows - 1));
    free(opv);
    free(vv);
}

/* The rows the plugin operations take (detail_draw_ops): none for a run that waits on none and
 * was never read; a title, then a row per operation no volume row shows (up to max). */
static int detail_ops_rows(const model *m, const model_run *r, int max)
{
    const itemops *io = r->item_ops;
    if (!io && !itemops_waiting(r->run)) return 0;
    if (!io || !io->known || !io->n) return 1;
    const model_volume **vol = xcalloc(io->n, sizeof *vol);
    int n = (int)(io->n - itemops_join(io, m, r, vol)); /* a data mover's is its volume row */
    free(vol);
    if (n > max) n = max;
    return 1 + n;
}

/* "596 of 100000 Items", "400.0 MiB of 1000.0 MiB", "12 Items" (no total) into buf. */
static char *detail_op_count(char *buf, size_t n, const itemop *o)
{
    char b1[32], b2[32];
    int bytes = o->units && !strcasecmp(o->units, "Bytes");
    if (bytes && o->has_total)
        snprintf(buf, n, "%s of %s", fmt_bytes(b1, sizeof b1, o->done),
                 fmt_bytes(b2, sizeof b2, o->total));
    else if (bytes)
        snprintf(buf, n, "%s of ?", fmt_bytes(b1, sizeof b1, o->done));
    else if (o->has_total)
        snprintf(buf, n, "%lld of %lld %s", (long long)o->done, (long long)o->total,
                 o->units ? o->units : "");
    else
        snprintf(buf, n, "%lld of ? %s", (long long)o->done, o->units ? o->units : "");
    return buf;
}

/* The run's async plugin operations (itemops.h): what each is on, its plugin, phase, how far
 * (a bar and "x of y units"), rate, ETA, how long since it was updated, its error; a data mover's
 * is its volume row (marked "*"), not a row here. Unknown is said with its reason. Returns the
 * rows used (at most rows). */
static int detail_draw_ops(ui *u, WINDOW *w, int y, int rows, int cols, const model_run *r,
                           const run_answer *a)
{
    const itemops *io = r->item_ops;
    if (rows < 1 || (!io && !itemops_waiting(r->run))) return 0;
    model *m = ui_model(u);
    int x = w_print(w, y, 0, cols, A_BOLD | A_UNDERLINE, "Plugin operations");
    if (!io || !io->known) {
        char why[600];
        snprintf(why, sizeof why, "  unknown: %s",
                 io && io->reason[0] ? io->reason
                 : io                ? "reading..."
                                     : OPSFETCH_NOT_FETCHED);
        w_text(w, y, x, cols - x, why, io && io->reason[0] ? w_attr(W_WARN) : A_DIM);
        return 1;
    }
    const model_volume **vol = xcalloc(io->n ? io->n : 1, sizeof *vol);
    size_t joined = itemops_join(io, m, r, vol);
    double cnow = model_cluster_now(m, a->at);
    char b1[48], b2[48], b3[48], line[160];
    int nfin = 0;
    for (size_t i = 0; i < io->n; i++) nfin += itemop_finished(&io->ops[i]);
    snprintf(line, sizeof line, "  %zu, %d done%s  read %s ago", io->n, nfin,
             joined ? (cols >= 100 ? ", data movers' on their volume rows (*)" : ", * on volumes")
                    : "",
             fmt_duration(b1, sizeof b1, model_wall_span(m, cnow - io->fetched_at)));
    x += w_print(w, y, x, cols - x, A_DIM, "%s", line);
    if (io->cut) w_print(w, y, x, cols - x, w_attr(W_WARN), "  (%zu more left out)", io->cut);
    int used = 1, timeout_def;
    double timeout = itemops_timeout(r->run, &timeout_def);
    int wide = cols >= 120, namew = cols >= 160 ? 40 : wide ? 30 : 18, plugw = wide ? 30 : 0;
    for (size_t i = 0; i < io->n && used < rows; i++) {
        const itemop *o = &io->ops[i];
        if (vol[i]) continue;
        int yy = y + used++;
        char tg[512];
        w_text(w, yy, 2, namew, itemop_target(o, tg, sizeof tg), 0);
        int xx = 2 + namew + 1;
        if (plugw) {
            w_text(w, yy, xx, plugw, o->plugin, A_DIM);
            xx += plugw + 1;
        }
        vl_phase ph = !strcmp(o->phase, "Completed") ? VL_PH_COMPLETED
                      : !strcmp(o->phase, "Failed")  ? VL_PH_FAILED
                                                     : VL_PH_IN_PROGRESS;
        w_text(w, yy, xx, 9, o->phase[0] ? o->phase : "-", w_attr(w_phase_role(ph)));
        xx += 10;
        int barw = cols >= 100 ? 20 : 6;
        double f = o->has_total ? (double)o->done / (double)o->total : -1;
        if (f < 0 && ph == VL_PH_COMPLETED) f = 1;
        w_bar(w, yy, xx, barw, f, ph == VL_PH_COMPLETED ? W_GOOD : W_BAR_FILL);
        xx += barw + 1;
        xx += w_text(w, yy, xx, cols - xx, detail_op_count(line, sizeof line, o), A_BOLD);
        if (o->error) { /* what went wrong, before the figures */
            xx += w_print(w, yy, xx, cols - xx, 0, "  ");
            w_text(w, yy, xx, cols - xx, o->error, w_attr(W_BAD));
            continue;
        }
        if (itemop_finished(o)) continue;
        double rate, eta, quiet;
        if (itemop_stalled(o, timeout, cnow, &quiet)) {
            w_print(w, yy, xx, cols - xx, w_attr(W_WARN) | A_BOLD, "  stalled %s (timeout %s)",
                    fmt_duration(b1, sizeof b1, quiet), fmt_duration(b2, sizeof b2, timeout));
            continue;
        }
        itemop_rate_eta(m, o, NULL, a->at_mono, a->at, &rate, &eta);
        int bytes = o->units && !strcasecmp(o->units, "Bytes");
        xx += w_print(w, yy, xx, cols - xx, 0, "  %s  ETA %s",
                      rate < 0 ? "-/s"
                      : bytes  ? fmt_byte_rate(b1, sizeof b1, rate)
                               : fmt_rate(b1, sizeof b1, rate),
                      fmt_eta(b2, sizeof b2, eta));
        double upd = o->updated > 0 ? o->updated : o->moved_at;
        if (upd > 0)
            w_print(w, yy, xx, cols - xx, A_DIM, "  updated %s ago",
                    fmt_duration(b3, sizeof b3, model_wall_span(m, cnow - upd)));
    }
    free(vol);
    return used;
}

/* The volumes of part p of run r not sized yet (model_volume_unsized), and how many of those
 * are in progress. */
static int detail_part_unsized(ui *u, const model_run *r, re_part p, int *in_progress)
{
    *in_progress = 0;
    if (p != RE_PODVOLS && p != RE_DATAMOVER) return 0;
    model *m = ui_model(u);
    size_t n = model_run_volumes(m, r, NULL, 0);
    model_volume **vv = xcalloc(n ? n : 1, sizeof(*vv));
    model_run_volumes(m, r, vv, n);
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        const vl_volume *v = vv[i]->vol;
        int mover = v->kind == VL_DU || v->kind == VL_DD;
        if (mover != (p == RE_DATAMOVER) || !model_volume_unsized(v)) continue;
        k++;
        *in_progress += vl_phase_active(v->phase_id);
    }
    free(vv);
    return k;
}

/* A part's line: what it has done, how fast, until when, or its state; returns the rows used
 * (wrap: a state that does not fit goes on a row of its own under it, in full; else it is cut,
 * and *cut says so). */
static int detail_draw_part(ui *u, WINDOW *w, int y, int cols, const model_run *r, re_part p,
                            const run_answer *a, int wrap, int *cut)
{
    const re_stage *s = &a->part[p];
    char b1[32], b2[32], b3[32], b4[32], st[96];
    attr_t sa = 0;
    int x = w_print(w, y, 2, 14, A_DIM, "%s", runeta_part_name(p));
    int moving_unsized, unsized = detail_part_unsized(u, r, p, &moving_unsized);
    x = 16;
    if (p == RE_ITEMS) /* "~": the total is an estimate, as on the Items line and the list */
        x += w_print(w, y, x, 30, 0, "%lld of %s%lld", (long long)s->done,
                     a->items_estimated ? "~" : "", (long long)s->total);
    else if (p != RE_FINAL) /* a volume not sized yet: the part's total is not known */
        x += w_print(w, y, x, 40, 0, "%d of %d done  %s of %s", s->n_done, s->n,
                     fmt_bytes(b1, sizeof b1, s->done),
                     unsized ? "?" : fmt_bytes(b2, sizeof b2, s->total));
    switch (s->state) {
    case RE_DONE:
        sa = w_attr(W_GOOD);
        snprintf(st, sizeof st, "done");
        break;
    case RE_PENDING:
        /* a volume in progress that Velero has not sized yet has started */
        sa = A_DIM;
        snprintf(st, sizeof st, "%s",
                 p == RE_FINAL    ? "next"
                 : moving_unsized ? "not sized yet"
                                  : "not started");
        break;
    case RE_STALLED:
        sa = w_attr(W_WARN) | A_BOLD;
        snprintf(st, sizeof st, "stalled %s", fmt_duration(b1, sizeof b1, s->stalled_for));
        break;
    default:
        if (p == RE_FINAL) {
            sa = w_attr(W_ACTIVE);
            snprintf(st, sizeof st, "finalizing");
            break;
        }
        if (!(s->rate > 0) && s->bound && s->eta < 1) {
            /* in progress, no byte moved yet: no rate, and a bound of "0s" would say nothing */
            sa = A_DIM;
            snprintf(st, sizeof st, "starting");
            break;
        }
        /* a part's ETA is an estimate; "+" when what is not known yet can only add to it */
        fmt_eta(b4, sizeof b4, s->eta);
        snprintf(st, sizeof st, "%s  ETA %s%s%s",
                 p == RE_ITEMS ? fmt_rate(b3, sizeof b3, s->rate)
                               : fmt_byte_rate(b3, sizeof b3, s->rate),
                 b4, s->bound && s->eta >= 0 && b4[0] != '>' ? "+" : "",
                 s->n_stalled ? "  (one stalled)" : "");
    }
    int sw = (int)strlen(st), col = x + 2 > 56 ? x + 2 : 56;
    if (col + sw > cols) col = x + 2; /* narrow: the state right after the figures */
    if (col + sw <= cols) {
        w_print(w, y, col, cols - col, sa, "%s", st);
        return 1;
    }
    if (wrap) {
        w_print(w, y + 1, 16, cols - 16, sa, "%s", st);
        return 2;
    }
    w_text(w, y, col, cols - col, st, sa);
    *cut = 1;
    return 1;
}

/* The phase timeline as one text: "New 21:30:01 (2s) · Queued #2 21:30:03 (5m01s) · InProgress
 * 21:35:04 (12m, so far)"; a time only known as a bound is "by 21:35:04" (veltop saw it there
 * first), one from the stored log is marked "(log)", an unknown one says so. Times and
 * durations are the cluster's (shown in ours: model_wall_span). */
static char *detail_timeline(ui *u, const model_run *r, const tl_log *log, int *from_log)
{
    tl_entry e[TL_MAX];
    model *m = ui_model(u);
    double now = model_cluster_now(m, ui_wall(u));
    size_t n = timeline_build(r, now, log, e);
    kc_buf b = {0};
    const char *sep = ui_utf8(u) ? " \u00b7 " : " - ";
    *from_log = 0;
    for (size_t i = 0; i < n; i++) {
        char t[48], d[32], line[160];
        const char *name = vl_phase_name(e[i].phase);
        int o = snprintf(line, sizeof line, "%s%s", i ? sep : "", name);
        if (e[i].queue_pos && o < (int)sizeof line)
            o += snprintf(line + o, sizeof line - (size_t)o, " #%d", (int)e[i].queue_pos);
        if (e[i].src == TL_UNKNOWN) {
            snprintf(line + o, sizeof line - (size_t)o, " unknown");
        } else {
            /* the cluster's time shown at ours: scale the offset from now */
            double at = model_wall_time(m, e[i].entered, ui_wall(u));
            fmt_clock_since(t, sizeof t, at, ui_wall(u));
            o += snprintf(line + o, sizeof line - (size_t)o, " %s%s%s",
                          e[i].src == TL_SEEN_BY ? "by " : "", t,
                          e[i].src == TL_LOG ? " (log)" : "");
            *from_log |= e[i].src == TL_LOG;
            if (e[i].dur >= 0 && o < (int)sizeof line)
                snprintf(line + o, sizeof line - (size_t)o, " (%s%s%s)",
                         e[i].current && e[i].src == TL_SEEN_BY ? (ui_utf8(u) ? "\u2265" : ">=")
                                                                : "",
                         fmt_duration(d, sizeof d, model_wall_span(m, e[i].dur)),
                         e[i].current ? " so far" : "");
            else if (!e[i].current && i + 1 < n && o < (int)sizeof line)
                snprintf(line + o, sizeof line - (size_t)o, " (for unknown)");
        }
        kc_buf_append(&b, line, strlen(line));
    }
    kc_buf_cstr(&b);
    return b.data ? b.data : xstrdup("");
}

/* A typical duration, rounded as people say it: "45s", "3m10s", "41m", "1h04m". */
static char *detail_typical(char *buf, size_t n, double s)
{
    if (s >= 600 && s < 3600)
        snprintf(buf, n, "%.0fm", s / 60);
    else
        fmt_duration(buf, n, s);
    return buf;
}

/* "usually 41m (last 7: 38m-45m)", and how this run compares. */
static int detail_draw_history(ui *u, WINDOW *w, int y, int x, int cols, const run_answer *a)
{
    char b1[32], b2[32], b3[32];
    const re_history *h = &a->hist;
    x += w_print(w, y, x, cols - x, 0, "usually %s (last %d: %s%s%s)",
                 detail_typical(b1, sizeof b1, h->dur_med), h->n,
                 detail_typical(b2, sizeof b2, h->dur_min), ui_utf8(u) ? "\u2013" : "-",
                 detail_typical(b3, sizeof b3, h->dur_max));
    double f = a->vs_usual; /* 0: nothing to compare (a failed run, no estimate) */
    const char *mul = ui_utf8(u) ? "\u00d7" : "x";
    if (f >= 1.5)
        x += w_print(w, y, x, cols - x, w_attr(W_WARN), "   %.1f%s slower than usual", f, mul);
    else if (f > 0 && f <= 1 / 1.5)
        x += w_print(w, y, x, cols - x, 0, "   %.1f%s faster than usual", 1 / f, mul);
    return x;
}

/* Sums the run's volumes' byte-rate histories, aligned on the newest bucket. */
static int detail_bytes_history(ui *u, const model_run *r, double now, double wall, double *out,
                                int n)
{
    model *m = ui_model(u);
    size_t nv = model_run_volumes(m, r, NULL, 0);
    model_volume **vv = xcalloc(nv ? nv : 1, sizeof *vv);
    model_run_volumes(m, r, vv, nv);
    double *tmp = xcalloc((size_t)n, sizeof *tmp);
    int filled = 0;
    for (int i = 0; i < n; i++) out[i] = 0;
    for (size_t j = 0; j < nv; j++) {
        /* a volume stalled since before veltop looked has no history but its seeded average:
         * none of it was seen moving */
        if (est_last_move(vv[j]->bytes) < 0 && runeta_volume_stalled(m, vv[j], now, wall, NULL))
            continue;
        int k = est_rate_history(vv[j]->bytes, now, 5.0, tmp, n);
        for (int i = 0; i < k; i++) out[n - k + i] += tmp[i];
        if (k > filled) filled = k;
    }
    if (filled < n) memmove(out, out + (n - filled), (size_t)filled * sizeof *out);
    free(tmp);
    free(vv);
    return filled;
}

/* A labelled sparkline with its scale (the top of the columns shown); returns columns used. The
 * scale is at least the smallest rate its label can show ("0.1/s", "1 B/s"): a history of noise
 * or zeros stays on the baseline under "max 0.0/s". */
static int detail_spark(WINDOW *w, int y, int x, int width, const char *label, const double *v,
                        int n, int bytes)
{
    char b1[32];
    int x0 = x;
    x += detail_label(w, y, x, label);
    if (n <= 0) return x - x0 + w_print(w, y, x, 14, A_DIM, "(collecting)");
    if (n > width) {
        v += n - width;
        n = width;
    }
    double max = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > max) max = v[i];
    w_sparkline(w, y, x, v, n, bytes ? 0.5 : 0.05, w_attr(W_ACTIVE));
    x += n + 1;
    x += w_print(w, y, x, 16, A_DIM, "max %s",
                 bytes ? fmt_byte_rate(b1, sizeof b1, max) : fmt_rate(b1, sizeof b1, max));
    return x - x0;
}

/* A stalled run moved nothing for the answer's stalled_for: the buckets of that span are 0,
 * whatever a tracker's history holds over it (a rate held between updates, an average seeded on
 * attaching). */
static void detail_spark_stalled(double *v, int n, const run_answer *e, double bucket_s)
{
    if (e->stalled != ANS_YES || !(e->stalled_for > 0)) return;
    int k = (int)(e->stalled_for / bucket_s);
    for (int i = n - (k < n ? k : n); i < n; i++) v[i] = 0;
}

/* The run's end: rate, ETA and finish time, last progress or stall; what it waits on; a line per
 * part of its critical path; the schedule's history; the rate sparklines. Returns the next y. */
/* The text after the ETA on the Rate line: as of when (stale), stalled, or the last progress. */
static void detail_rate_tail(char *out, size_t n, const run_answer *e, attr_t *a)
{
    char b1[64];
    out[0] = 0;
    if (e->stale) {
        *a = w_attr(W_WARN);
        snprintf(out, n, "as of %s", fmt_clock(b1, sizeof b1, e->at, 0));
    } else if (e->stalled == ANS_YES) {
        *a = w_attr(W_WARN) | A_BOLD;
        snprintf(out, n, "stalled %s (%s)", fmt_duration(b1, sizeof b1, e->stalled_for),
                 runeta_part_name(e->stalled_part));
    } else if (e->last_progress > 0) {
        *a = w_attr(W_GOOD);
        snprintf(out, n, "last progress %s%s", fmt_ago(b1, sizeof b1, e->at - e->last_progress),
                 e->last_progress_ev == ANS_EV_MANAGED_FIELDS ? " (server's write time)"
                 : e->last_progress_ev == ANS_EV_LOG          ? " (log)"
                                                              : "");
    } else {
        *a = A_DIM;
        snprintf(out, n, "last progress unknown (%s)", answer_why_text(e->stalled_why));
    }
}

static int detail_draw_run_end(ui *u, WINDOW *w, int y, int rows, int cols, model_run *r,
                               const run_answer *e, detail_state *d)
{
    const vl_run *run = r->run;
    int active = e->active;
    double now = e->at_mono;
    char b1[64], b2[64], b3[320], who[160];
    int x = detail_label(w, y, 0, "Rate ");
    x += w_print(w, y, x, 14, A_BOLD, "%s", fmt_rate(b1, sizeof b1, e->items_rate));
    if (active && e->bytes_rate > 0 && cols >= 100) /* narrower: on the parts' lines only */
        x += w_print(w, y, x, 16, A_BOLD, "  %s", fmt_byte_rate(b1, sizeof b1, e->bytes_rate));
    if (active) {
        x += detail_label(w, y, x + 2, "ETA") + 2;
        const char *eta = answer_eta_line(b3, sizeof b3, e, 0);
        attr_t ea = e->eta_kind != ANS_ETA_NONE ? A_BOLD : A_DIM;
        int eta_w = (int)strlen(eta), hist = e->eta_kind != ANS_ETA_NONE && e->from_history;
        char tail[160];
        attr_t ta = 0;
        detail_rate_tail(tail, sizeof tail, e, &ta);
        int tail_w = 2 + (int)strlen(tail);
        if (x + eta_w + (hist ? 13 : 0) + tail_w <= cols) { /* one line */
            x += w_print(w, y, x, cols - x, ea, "%s", eta);
            if (hist) x += w_print(w, y, x, 16, A_DIM, " from history");
            x += w_print(w, y, x, cols - x, ta, "  %s", tail);
        } else if (d->wrap) { /* W: the rest on the lines under it, in full */
            int k = w_wrap(w, y, x, cols - x, 0, 2, eta, ea);
            y += k < 2 ? k : 2;
            x = 5;
            if (hist) x += w_print(w, y, x, 16, A_DIM, "from history  ");
            int t = w_wrap(w, y, x, cols - x, 0, 2, tail, ta);
            y += (t < 2 ? t : 2) - 1;
        } else { /* cut, with an ellipsis; W shows it */
            x += w_text(w, y, x, cols - x, eta, ea);
            if (hist && x + 13 < cols) x += w_print(w, y, x, 16, A_DIM, " from history");
            if (x + 3 < cols) {
                x += w_print(w, y, x, 2, 0, "  ");
                w_text(w, y, x, cols - x, tail, ta);
            }
            d->cut = 1;
        }
    } else if (run->started > 0) {
        x += w_print(w, y, x, cols - x, A_DIM, "  (average over the whole run)");
    }
    y++;
    y = queueview_lines(u, w, y, cols, e, rows >= 20 ? 6 : 3); /* a waiting backup: why */
    if (active && e->missing) {
        w_text(w, y++, 0, cols, e->missing_text, w_attr(W_WARN) | A_BOLD);
    }
    if (active) {
        /* what the end waits on */
        x = detail_label(w, y, 0, "Waiting on");
        if (e->waiting_unknown) {
            x += w_print(w, y, x, cols - x, A_DIM, "unknown: not visible");
        } else if (e->waiting_vol) {
            x += w_text(w, y, x, cols / 2, runeta_vol_label(who, sizeof who, e->waiting_vol),
                        A_BOLD);
            if (e->waiting_vol->vol->bytes_total > 0)
                x += w_print(w, y, x, cols - x, 0, ", %s left at %s",
                             fmt_bytes(b1, sizeof b1, e->waiting_left),
                             fmt_byte_rate(b2, sizeof b2, e->waiting_rate));
            else
                x += w_print(w, y, x, cols - x, A_DIM, " (not sized yet)");
        } else if (e->waiting == RE_ITEMS) {
            x += w_print(w, y, x, cols - x, A_BOLD, "items");
            x += w_print(w, y, x, cols - x, 0, ", %lld left at %s", (long long)e->waiting_left,
                         fmt_rate(b1, sizeof b1, e->waiting_rate));
        } else if (e->waiting == RE_DATAMOVER && e->part[RE_DATAMOVER].state == RE_ABSENT) {
            /* another plugin's operations: only their counts are ours to see */
            x += w_print(w, y, x, cols - x, A_BOLD, "plugin operations");
            x += w_print(w, y, x, cols - x, 0, ", %lld of %lld completed",
                         (long long)run->ops_completed, (long long)run->ops_attempted);
        } else {
            x += w_print(w, y, x, cols - x, A_BOLD, "%s", runeta_part_name(e->waiting));
        }
        if ((e->stalled == ANS_YES || e->part_stalled) && e->stalled_vol &&
            e->stalled_vol != e->waiting_vol) {
            x += w_print(w, y, x, cols - x, w_attr(W_WARN) | A_BOLD, "  stalled: ");
            w_text(w, y, x, cols - x, runeta_vol_label(who, sizeof who, e->stalled_vol),
                   w_attr(W_WARN));
        } else if (e->part_stalled) {
            w_print(w, y, x, cols - x, w_attr(W_WARN) | A_BOLD, "  %s stalled",
                    runeta_part_name(e->stalled_part));
        }
        y++;
        for (int p = RE_ITEMS; p < RE_NPARTS; p++)
            if (e->part[p].state != RE_ABSENT)
                y += detail_draw_part(u, w, y, cols, r, (re_part)p, e, d->wrap, &d->cut);
    }
    if (e->hist.n) {
        x = detail_label(w, y, 0, "History");
        detail_draw_history(u, w, y, x, cols, e);
        y++;
    } else if (e->hist.loading) {
        x = detail_label(w, y, 0, "History");
        w_print(w, y, x, cols - x, A_DIM, "loading history (the earlier runs' volumes)");
        y++;
    }
    /* sparklines of the rates over the last minutes, with their scale (not in a compact, short
     * terminal) */
    if (active && rows >= 18) {
        double hi[60], hb[60];
        int width = (cols - 48) / 2;
        if (width > 60) width = 60;
        if (width < 8) width = 8;
        int ni = est_rate_history(r->items, now, 5.0, hi, width);
        int nb = e->bytes_total > 0 ? detail_bytes_history(u, r, now, e->at, hb, width) : 0;
        detail_spark_stalled(hi, ni, e, 5.0);
        detail_spark_stalled(hb, nb, e, 5.0);
        x = detail_spark(w, y, 0, width, "Items/s", hi, ni, 0);
        if (e->bytes_total > 0) detail_spark(w, y, x + 3, width, "Bytes/s", hb, nb, 1);
        y++;
    }
    return y;
}

static void detail_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    detail_state *d = detail_of(s);
    model_run *r = detail_run(s, u);
    double now = ui_data_now(u), wall = ui_wall(u);
    char b1[64], b2[64];
    int y = 0, x;
    if (!r || !r->run) {
        w_print(w, 1, 2, cols - 4, w_attr(W_WARN), "%s %s is gone (deleted from the cluster)",
                d->kind == VL_BACKUP ? "backup" : "restore", d->name);
        return;
    }
    const vl_run *run = r->run;
    int active = vl_phase_active(run->phase_id);

    /* title line */
    x = w_print(w, y, 0, cols, A_BOLD, "%s ", run->kind == VL_BACKUP ? "Backup" : "Restore");
    /* the whole name (the list may cut it): beside the phase when it fits, else on its own line
     * with the phase under it */
    int pw = run->phase ? (int)strlen(run->phase) : 0;
    char *safe_name = san_str(r->name);
    int title_w = san_width(safe_name);
    free(safe_name);
    if (x + title_w + 2 + (pw < 30 ? pw : 30) > cols) {
        /* whole, wrapped under itself (up to 3 lines: a Kubernetes name is at most 253
         * characters, Velero's at most 63 in a label); the phase under it */
        int nr = w_wrap(NULL, 0, 0, cols - x, 0, 0, r->name, 0);
        if (nr > 3) nr = 3;
        w_wrap(w, y, x, cols - x, 0, nr, r->name, A_BOLD);
        /* a name has no spaces: cut at the width, its last line is what is left; the phase goes
         * beside it when it fits (no line lost on a small terminal), else under it */
        int last_w = title_w - (nr - 1) * (cols - x);
        if (nr > 1 && last_w > 0 && x + last_w + 2 + (pw < 30 ? pw : 30) <= cols) {
            y += nr - 1;
            x += last_w + w_print(w, y, x + last_w, 2, 0, "  ");
        } else {
            y += nr;
            x = detail_label(w, y, 0, "Phase");
        }
    } else {
        x += w_text(w, y, x, title_w, r->name, A_BOLD);
        x += w_print(w, y, x, 2, 0, "  ");
    }
    x += w_text(w, y, x, 30, run->phase, w_attr(w_phase_role(run->phase_id)) | A_BOLD);
    if (run->kind == VL_RESTORE && run->backup_name) {
        x += w_print(w, y, x, 12, A_DIM, "  from ");
        w_text(w, y, x, cols - x, run->backup_name, 0);
    }
    y++;
    run_answer ans;
    ui_answer(u, r, &ans);
    y = diagview_lines(u, w, y, cols, &ans, d->wrap, d->hx, d->wrap ? rows / 3 : DIAG_MAX,
                       &d->hx_max);
    if (d->hx > d->hx_max) { /* scrolled before a frame measured the lines: back to their end */
        d->hx = d->hx_max;
        ui_invalidate(u);
    }

    /* overall bar: the answer's items ("~": the total is an estimate, as the list says) */
    double frac = ans.items_total > 0 ? (double)ans.items_done / (double)ans.items_total : -1;
    if (frac < 0 && run->phase_id == VL_PH_COMPLETED) frac = 1;
    x = detail_label(w, y, 0, "Items");
    int barw = cols > 100 ? 40 : 24;
    w_bar(w, y, x, barw, frac, active ? W_BAR_FILL : w_phase_role(run->phase_id));
    x += barw + 1;
    x += w_print(w, y, x, cols - x, A_BOLD, "%lld of %s%lld", (long long)ans.items_done,
                 ans.items_estimated ? "~" : "", (long long)ans.items_total);
    if (frac >= 0) x += w_print(w, y, x, 8, 0, "  %3.0f%%", frac * 100);
    y++;

    d->cut = 0;
    y = detail_draw_run_end(u, w, y, rows, cols, r, &ans, d);

    /* bottom block first: we know its height, resources get the rest */
    /* the failure reason and validation errors wrap (up to 4 rows each; y shows all of it) */
    char *verr = NULL;
    for (size_t i = 0; i < run->n_validation_errors; i++) {
        char *j = xasprintf("%s%s%s", verr ? verr : "", i ? "; " : "", run->validation_errors[i]);
        free(verr);
        verr = j;
    }
    int fr_rows = 0, ve_rows = 0;
    if (run->failure_reason) fr_rows = w_wrap(NULL, 0, 0, cols - 15, 0, 0, run->failure_reason, 0);
    if (verr) ve_rows = w_wrap(NULL, 0, 0, cols - 18, 0, 0, verr, 0);
    /* the phase timeline: 2 rows at most (W: in full, up to a quarter of the screen) */
    detail_log_want(d, u, r);
    int tl_from_log;
    char *tl = detail_timeline(u, r, d->dl_state ? &d->log : NULL, &tl_from_log);
    int tl_rows = w_wrap(NULL, 0, 0, cols - 8, 0, 0, tl, 0);
    if (tl_rows > (d->wrap ? (rows / 4 > 2 ? rows / 4 : 2) : 2)) tl_rows = d->wrap ? rows / 4 : 2;
    if (rows < 20 && !d->wrap) tl_rows = 1; /* a small terminal: the resources keep their room */
    int cap = d->wrap ? rows / 4 : 4;       /* W: in full, up to a quarter of the screen each */
    if (cap < 4) cap = 4;
    if (fr_rows > cap) fr_rows = cap;
    if (ve_rows > cap) ve_rows = cap;
    /* the namespaces: beside the location, or (W) on lines of their own, in full */
    char ns[1024] = "";
    {
        size_t o = 0;
        for (size_t i = 0; i < run->n_included_ns && o < sizeof ns - 2; i++)
            o += (size_t)snprintf(ns + o, sizeof ns - o, "%s%s", i ? "," : "", run->included_ns[i]);
        if (!run->n_included_ns) snprintf(ns, sizeof ns, "*");
        o = strlen(ns);
        for (size_t i = 0; i < run->n_excluded_ns && o < sizeof ns - 2; i++)
            o += (size_t)snprintf(ns + o, sizeof ns - o, "%s-%s", i || o ? "," : "",
                                  run->excluded_ns[i]);
    }
    int ns_rows = d->wrap ? w_wrap(NULL, 0, 0, cols - 12, 0, 0, ns, 0) : 0;
    if (ns_rows > cap) ns_rows = cap;
    /* the plugin operations: up to 2 rows at 24 lines, more on a taller screen */
    int ops_rows = detail_ops_rows(ui_model(u), r, rows >= 40 ? 8 : rows >= 30 ? 4 : 2);
    int bottom = 5 + fr_rows + ve_rows + tl_rows + ns_rows + ops_rows;
    /* the per-resource rows and their title */
    size_t nres;
    int from_log;
    logderive_want(ui_app(u)->derive, r); /* finished runs: totals from the resource list */
    const model_res *res = model_run_resources(r, &nres, &from_log);
    size_t nres_all = nres;
    const char *note = logderive_note(ui_app(u)->derive, r), *loading;
    char lbuf[160];
    if (note) nres = 0; /* zeros would say nothing moves: say why there is nothing to show */
    size_t done_n = 0;
    int items_over = run->items_total > 0 && run->items_done >= run->items_total;
    for (size_t i = 0; i < nres; i++) done_n += detail_res_rank(&res[i], items_over) == 2;
    const char *src = from_log ? logderive_source(ui_app(u)->derive, r) : NULL;
    char cutbuf[120];
    if (!from_log && run->resources_cut) { /* caps.h: say so, never a silent cut */
        snprintf(cutbuf, sizeof cutbuf, "cut at %d resource types: %zu more left out",
                 KC_CAP_RESOURCE_ROWS, (size_t)run->resources_cut);
        src = cutbuf;
    }
    char title[320];
    snprintf(title, sizeof title, "  %zu of %zu types done%s%s%s", done_n, nres, src ? "  (" : "",
             src ? src : "", src ? ")" : "");
    int res_title_w = (int)strlen(title);
    /* W: a title too long for its line goes on two, when a row still fits under them (else it is
     * cut, as without W) */
    int title_rows = d->wrap && nres && (int)strlen("Resources") + res_title_w > cols &&
                             rows - (y + 2) - bottom - 1 >= 1
                         ? 2
                         : 1;
    int res_top = y + title_rows;
    int res_rows = rows - res_top - bottom - 1;
    if (res_rows < 1) res_rows = 1;
    if (res_rows > (int)nres_all) res_rows = nres_all ? (int)nres_all : 1;
    /* a long resource list leaves room for the volumes (what moves bytes), if there are some */
    int avail = rows - res_top - bottom - 1;
    if (r->vols.n && avail >= 16) { /* at 24 lines the resources keep it all (v: volumes) */
        int want = (r->vols.n < 8 ? r->vols.n : 8) + 2, keep = avail / 2;
        if (avail - want > keep) keep = avail - want;
        if (res_rows > keep && keep >= 3) res_rows = keep;
    }

    x = w_print(w, y, 0, cols, A_BOLD | A_UNDERLINE, "Resources");
    /* the rows' range goes on this line, right (it hides no row's text): the title gives way
     * to it, cut with an ellipsis, unless W asks for the title in full */
    char range[48] = "";
    int range_w = 0;
    if (d->scroll > (int)nres - res_rows) d->scroll = (int)nres - res_rows;
    if (d->scroll < 0) d->scroll = 0;
    if (nres > (size_t)res_rows)
        range_w = snprintf(range, sizeof range, "  rows %d-%d of %zu (j/k)", d->scroll + 1,
                           d->scroll + res_rows, nres);
    if (nres) {
        if (range_w && x + res_title_w + range_w > cols) {
            if (d->wrap)
                range_w = 0; /* W: the title whole; j/k still scroll */
            else
                d->cut = 1;
        }
        if (title_rows > 1)
            w_wrap(w, y, x, cols - x, 0, 2, title, A_DIM);
        else
            w_text(w, y, x, cols - x - range_w, title, A_DIM);
    } else if (note)
        w_print(w, y, x, cols - x, w_attr(W_WARN), "  %s", note);
    else if ((loading = logderive_loading(ui_app(u)->derive, r, lbuf, sizeof lbuf)))
        w_print(w, y, x, cols - x, A_DIM, "  %s", loading);
    else
        w_print(w, y, x, cols - x, A_DIM, "  %s",
                run->has_resource_progress ? "none yet"
                                           : "no per-resource progress from the server");
    const model_res **order = xcalloc(nres ? nres : 1, sizeof(*order));
    size_t k = 0;
    for (int rank = 0; rank < 3; rank++)
        for (size_t i = 0; i < nres; i++)
            if (detail_res_rank(&res[i], items_over) == rank) order[k++] = &res[i];
    d->res_rows = res_rows;
    /* resource names whole when there is room (the bar gives way first, down to 8) */
    int rbarw = cols >= 100 ? 30 : cols >= 80 ? 14 : 8, namew = 12;
    for (size_t i = 0; i < nres; i++) {
        int l = (int)strlen(res[i].resource);
        if (l > namew) namew = l;
    }
    int fixed = 2 + 1 + 16 + 14; /* indent, "  123 of 456  ", the status or rate and ETA */
    if (namew + rbarw + fixed > cols) {
        rbarw = cols - namew - fixed;
        if (rbarw < 8) rbarw = 8;
        if (namew > cols - rbarw - fixed) namew = cols - rbarw - fixed;
    }
    if (namew < 12) namew = 12;
    for (int i = 0; i < res_rows && d->scroll + i < (int)nres; i++) {
        const model_res *mr = order[d->scroll + i];
        int rank = detail_res_rank(mr, items_over), yy = res_top + i;
        attr_t a = rank == 0 ? w_attr(W_ACTIVE) : rank == 1 ? A_DIM : 0;
        w_text(w, yy, 2, namew, mr->resource, a);
        x = 2 + namew + 1;
        double f = mr->total > 0 ? (double)mr->done / (double)mr->total : -1;
        w_bar(w, yy, x, rbarw, f, rank == 2 ? W_GOOD : W_BAR_FILL);
        x += rbarw + 1;
        char tot[24];
        if (mr->flags & MODEL_RES_NO_TOTAL) /* nothing gave one: not the count standing in */
            snprintf(tot, sizeof tot, "?");
        else
            snprintf(tot, sizeof tot, "%s%lld", mr->flags & MODEL_RES_ESTIMATE ? "~" : "",
                     (long long)mr->total);
        x += w_print(w, yy, x, 16, rank == 1 ? A_DIM : A_BOLD, "%5lld of %-5s", (long long)mr->done,
                     tot);
        if (rank == 0 && active && !est_confident(mr->est)) {
            /* its first items: too few samples for a rate that means something */
            w_print(w, yy, x, 10, A_DIM, " starting");
        } else if (rank == 0 && active) {
            x += w_print(w, yy, x, 10, 0, " %s", fmt_rate(b1, sizeof b1, est_rate(mr->est, now)));
            x +=
                w_print(w, yy, x, 14, 0, "  ETA %s", fmt_eta(b2, sizeof b2, est_eta(mr->est, now)));
        } else {
            /* a run that ended before finishing a type never reached it (or stopped in it) */
            int ended = vl_phase_terminal(run->phase_id) && run->phase_id != VL_PH_COMPLETED;
            w_print(w, yy, x, 14, A_DIM, " %s",
                    rank == 2   ? "done"
                    : rank == 1 ? (ended ? "not reached" : "pending")
                                : (ended ? "stopped" : ""));
        }
    }
    free(order);
    if (range_w) { /* on the title line, right: it hides no row's text */
        w_print(w, res_top - 1, cols - range_w, range_w, A_DIM, "%s", range);
    }

    /* bottom block, right under the resources; the volumes fill what is left */
    y = res_top + res_rows + 1;
    int vol_rows = rows - y - bottom - 2;
    x = detail_label(w, y, 0, "Volumes");
    if (r->vols.n) {
        x += w_print(w, y, x, cols - x, 0, "%d of %d done", r->vols.n_done, r->vols.n);
        if (r->vols.n_active)
            x += w_print(w, y, x, cols - x, w_attr(W_ACTIVE), ", %d active", r->vols.n_active);
        if (r->vols.n_pending)
            x += w_print(w, y, x, cols - x, A_DIM, ", %d pending", r->vols.n_pending);
        if (r->vols.n_failed)
            x += w_print(w, y, x, cols - x, w_attr(W_BAD), ", %d failed", r->vols.n_failed);
        if (r->vols.n_canceled)
            x += w_print(w, y, x, cols - x, w_attr(W_WARN), ", %d canceled", r->vols.n_canceled);
        /* the bytes, their rate and the stalled ones: the run's answer, as the volumes screen */
        int vst =
            ans.active ? ans.part[RE_PODVOLS].n_stalled + ans.part[RE_DATAMOVER].n_stalled : 0;
        if (vst) x += w_print(w, y, x, cols - x, w_attr(W_WARN) | A_BOLD, ", %d stalled", vst);
        if (!ans.bytes_total_known && ans.n_unsized) /* the sum is not the total */
            x += w_print(w, y, x, cols - x, 0, "   %s of ? (%d not sized yet)",
                         fmt_bytes(b1, sizeof b1, ans.bytes_done), ans.n_unsized);
        else
            x += w_print(w, y, x, cols - x, 0, "   %s of %s",
                         ans.bytes_known ? fmt_bytes(b1, sizeof b1, ans.bytes_done) : "?",
                         ans.bytes_total_known ? fmt_bytes(b2, sizeof b2, ans.bytes_total) : "?");
        if (ans.active && ans.bytes_rate > 0)
            x +=
                w_print(w, y, x, cols - x, 0, "  %s", fmt_byte_rate(b1, sizeof b1, ans.bytes_rate));
    } else {
        w_print(w, y, x, cols - x, A_DIM, "none");
    }
    y++;
    /* seconds and the zone (local, or UTC with --utc); the completion time without its date when
     * the run ended the day it started */
    x = detail_label(w, y, 0, "Started");
    if (run->started > 0) {
        double st = model_wall_time(ui_model(u), run->started, wall); /* on our clock */
        /* below 80 columns without the date when it is today's (the line keeps its Duration) */
        x += w_print(w, y, x, 24, 0, "%s",
                     cols < 80 ? fmt_clock_since(b1, sizeof b1, st, wall)
                               : fmt_clock(b1, sizeof b1, st, 1));
        x += w_print(w, y, x, 12, 0, " %s", fmt_zone(b2, sizeof b2, st));
    } else if (run->phase_id == VL_PH_QUEUED && run->queue_position > 0) {
        x += w_print(w, y, x, 40, 0, "not yet (queued, position %lld)",
                     (long long)run->queue_position);
    } else if (!vl_phase_terminal(run->phase_id)) {
        x += w_print(w, y, x, 40, 0, "not yet (%s)", run->phase ? run->phase : "New");
    } else {
        x += w_print(w, y, x, 40, 0, "never");
    }
    x += detail_label(w, y, x + 2, "Completed") + 2;
    x += w_print(w, y, x, 20, 0, "%s",
                 fmt_clock_since(b1, sizeof b1, model_wall_time(ui_model(u), run->completed, wall),
                                 model_wall_time(ui_model(u), run->started, wall)));
    x += detail_label(w, y, x + 2, "Duration") + 2;
    x += w_print(w, y, x, 12, 0, "%s", fmt_duration(b1, sizeof b1, model_run_duration(r, wall)));
    int started_y = y;
    char expires[40] = "";
    if (run->kind == VL_BACKUP) {
        fmt_clock(expires, sizeof expires, run->expiration, 1);
        /* on this line when it fits, else on the next */
        if (x + 2 + 8 + (int)strlen(expires) <= cols) {
            x += detail_label(w, y, x + 2, "Expires") + 2;
            w_print(w, y, x, cols - x, 0, "%s", expires);
            expires[0] = 0;
        }
    }
    y++;
    /* where it has been: each phase, when it was entered, how long it lasted */
    x = detail_label(w, y, 0, "Phases");
    int tl_need = w_wrap(NULL, 0, 0, cols - x, 0, 0, tl, 0);
    w_wrap(w, y, x, cols - x, 0, tl_rows, tl, 0);
    if (tl_need > tl_rows) /* cut: the last cell says where the rest is */
        w_print(w, y + tl_rows - 1, cols - 1, 1, A_BOLD, "%s", ui_utf8(u) ? "\u2026" : ">");
    y += tl_rows;
    free(tl);
    (void)started_y;
    (void)tl_from_log;
    x = detail_label(w, y, 0, "Location");
    const char *loc = run->storage_location;
    if (!loc && run->kind == VL_RESTORE && run->backup_name) { /* a restore reads its backup's */
        const model_run *b = model_find_run(ui_model(u), VL_BACKUP, run->backup_name);
        if (b && b->run && b->run->storage_location) {
            x += w_text(w, y, x, 20, b->run->storage_location, 0);
            x += w_print(w, y, x, 16, A_DIM, " (its backup's)");
            loc = "";
        }
    }
    if (!loc || *loc) x += w_text(w, y, x, 20, loc ? loc : "-", 0);
    x += detail_label(w, y, x + 2, "Schedule") + 2;
    x += w_text(w, y, x, 24, run->schedule ? run->schedule : "-", 0);
    if (expires[0]) {
        x += detail_label(w, y, x + 2, "Expires") + 2;
        x += w_print(w, y, x, cols - x, 0, "%s", expires);
    }
    if (ns_rows) {
        y++;
        x = detail_label(w, y, 0, "Namespaces");
        w_wrap(w, y, x, cols - x, 0, ns_rows, ns, 0);
        y += ns_rows - 1;
    } else {
        x += detail_label(w, y, x + 2, "Namespaces") + 2;
        int used = w_text(w, y, x, cols - x, ns, 0);
        char *safe = san_str(ns);
        if (san_width(safe) > used) d->cut = 1;
        free(safe);
    }
    y++;
    /* a schedule's backup: what of the schedule can be restored now (readiness.h), whether or not
     * this run is it */
    const ready_schedule *rs = run->kind == VL_BACKUP && run->schedule && ui_health(u)
                                   ? ready_find(ui_health(u)->ready, run->schedule)
                                   : NULL;
    if (rs) {
        char line[768];
        ready_line(ui_health(u)->ready, rs, line, sizeof line);
        const char *rest = line + (strncmp(line, "restorable: ", 12) ? 0 : 12);
        x = detail_label(w, y, 0, "Restorable");
        if (w_text(w, y, x, cols - x, rest,
                   rs->stale                                          ? w_attr(W_BAD)
                   : !rs->known || (rs->backup && rs->bsl != RDY_YES) ? w_attr(W_WARN)
                                                                      : 0) < (int)strlen(rest))
            d->cut = 1;
        y++;
    }
    x = detail_label(w, y, 0, "Errors");
    x += w_print(w, y, x, 8, run->errors ? w_attr(W_BAD) : 0, "%lld", (long long)run->errors);
    x += detail_label(w, y, x + 2, "Warnings") + 2;
    x += w_print(w, y, x, 8, run->warnings ? w_attr(W_WARN) : 0, "%lld", (long long)run->warnings);
    x += detail_label(w, y, x + 2, "Hooks") + 2;
    x += w_print(w, y, x, 24, run->hooks_failed ? w_attr(W_BAD) : 0, "%lld attempted, %lld failed",
                 (long long)run->hooks_attempted, (long long)run->hooks_failed);
    y++;
    x = detail_label(w, y, 0, "Item operations");
    x += w_print(w, y, x, cols - x, run->ops_failed ? w_attr(W_BAD) : 0,
                 "%lld of %lld completed, %lld failed", (long long)run->ops_completed,
                 (long long)run->ops_attempted, (long long)run->ops_failed);
    if (run->kind == VL_BACKUP && (run->csi_snapshots_attempted || run->snapshots_attempted))
        w_print(w, y, x, cols - x, 0, "   snapshots %lld/%lld, CSI %lld/%lld",
                (long long)run->snapshots_completed, (long long)run->snapshots_attempted,
                (long long)run->csi_snapshots_completed, (long long)run->csi_snapshots_attempted);
    y++;
    if (run->failure_reason) {
        x = w_print(w, y, 0, cols, w_attr(W_BAD) | A_BOLD, "Failure reason ");
        w_wrap(w, y, x, cols - x, 0, fr_rows, run->failure_reason, w_attr(W_BAD));
        y += fr_rows;
    }
    if (verr) {
        x = w_print(w, y, 0, cols, w_attr(W_BAD) | A_BOLD, "Validation errors ");
        w_wrap(w, y, x, cols - x, 0, ve_rows, verr, w_attr(W_BAD));
        y += ve_rows;
        free(verr);
    }
    y += detail_draw_ops(u, w, y, ops_rows, cols, r, &ans);
    /* a title and at least one volume, else nothing (the Volumes line above sums them up) */
    if (vol_rows > 1 && r->vols.n) detail_draw_volumes(u, w, y + 1, vol_rows, cols, r, &ans);
}

static const char *detail_hint(ui_screen *s, ui *u)
{
    (void)s;
    (void)u;
    return "[/]:run  j/k:scroll  v:volumes  l:log  r:results  Esc:back  " UI_HINT_END;
}

static void detail_enter(ui_screen *s, ui *u)
{
    ui_set_current_run(u, detail_of(s)->kind, detail_of(s)->name);
}

static void detail_free(ui_screen *s)
{
    if (!s) return;
    detail_state *d = s->data;
    if (d) {
        kc_download_free(d->dl);
        kc_buf_free(&d->part);
        lp_line_free(&d->scratch);
        free(d->name);
    }
    free(s->data);
    free(s);
}

ui_screen *screen_detail_new(vl_kind kind, const char *name)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    detail_state *d = xcalloc(1, sizeof(*d));
    d->kind = kind;
    d->name = xstrdup(name ? name : "");
    s->title = "Detail";
    s->keys = detail_keys;
    s->draw = detail_draw;
    s->enter = detail_enter;
    s->free = detail_free;
    s->hint = detail_hint;
    s->data = d;
    return s;
}
