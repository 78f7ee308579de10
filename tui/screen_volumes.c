/* screen_volumes.c: the volumes of one run (PodVolumeBackup/Restore, DataUpload/Download): bytes
 * bar, done/total, rate, ETA per volume, in-progress first, and an aggregate line. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "itemops.h"
#include "drill.h"
#include "format.h"
#include "kubeclient/sat.h"
#include "kubeclient/util.h"
#include "runeta.h"
#include "sanitize.h"
#include "widgets.h"

typedef struct vols_state {
    vl_kind kind;
    char *name;
    int sel, top;
    model_volume **rows;
    size_t n, cap;
    size_t n_all;     /* the run's volumes; n of them match the filter */
    int prompting;    /* the / prompt is open */
    char filter[128]; /* as the list's /: a regular expression, "!RE" the others */
    char filter_error[160];
} vols_state;

/* In-progress first, then pending (New/Accepted/Prepared), then finished; by name within. */
static int vols_rank(const model_volume *v)
{
    vl_phase p = v->vol ? v->vol->phase_id : VL_PH_NEW;
    if (p == VL_PH_IN_PROGRESS || p == VL_PH_CANCELING) return 0;
    if (vl_phase_active(p) || p == VL_PH_NEW || p == VL_PH_UNKNOWN) return 1;
    if (p == VL_PH_FAILED || p == VL_PH_CANCELED) return 2;
    return 3;
}

static int vols_cmp(const void *a, const void *b)
{
    const model_volume *x = *(model_volume *const *)a, *y = *(model_volume *const *)b;
    int rx = vols_rank(x), ry = vols_rank(y);
    if (rx != ry) return rx - ry;
    return strcmp(x->name, y->name);
}

static void vols_collect(vols_state *st, ui *u, model_run *r)
{
    model *m = ui_model(u);
    size_t n = model_run_volumes(m, r, NULL, 0);
    if (n > st->cap) {
        st->cap = n;
        st->rows = xrealloc(st->rows, n * sizeof *st->rows);
    }
    st->n = model_run_volumes(m, r, st->rows, st->cap);
    if (st->n > 1) qsort(st->rows, st->n, sizeof *st->rows, vols_cmp); /* rows is NULL when none */
    if (st->sel >= (int)st->n) st->sel = (int)st->n - 1;
    if (st->sel < 0) st->sel = 0;
}

/* /: keeps the rows a regular expression (any case) matches in their kind (PodVolumeBackup,
 * DataUpload, ...), "ns/pod:volume", phase or node; "!RE" the others. Called after the header
 * counted every volume. */
static void vols_filter(vols_state *st)
{
    st->n_all = st->n;
    st->filter_error[0] = 0;
    const char *re = st->filter;
    int invert = *re == '!';
    re += invert;
    if (!*re) return;
    regex_t rx;
    int rc = regcomp(&rx, re, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc) {
        char why[64];
        regerror(rc, &rx, why, sizeof why);
        snprintf(st->filter_error, sizeof st->filter_error,
                 "not a regular expression: %.40s (%.60s)", re, why);
        st->n = 0;
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < st->n; i++) {
        const vl_volume *v = st->rows[i]->vol;
        int hit = 0;
        if (v) {
            char pv[512];
            snprintf(pv, sizeof pv, "%s/%s:%s", v->pod_ns ? v->pod_ns : "",
                     v->pod_name ? v->pod_name : "", v->volume ? v->volume : "");
            const char *f[] = {vl_kind_name(v->kind), pv, v->phase ? v->phase : "New", v->node};
            for (size_t j = 0; j < 4 && !hit; j++) hit = f[j] && !regexec(&rx, f[j], 0, NULL, 0);
        }
        if (hit != invert) st->rows[k++] = st->rows[i];
    }
    regfree(&rx);
    st->n = k;
    if (st->sel >= (int)st->n) st->sel = (int)st->n - 1;
    if (st->sel < 0) st->sel = 0;
}

static void vols_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols);

int drill_is_volumes(const ui_screen *s)
{
    return s && s->draw == vols_draw;
}

void drill_volumes_filter(ui_screen *s, const char *re)
{
    vols_state *st = s->data;
    snprintf(st->filter, sizeof st->filter, "%s", re ? re : "");
    st->sel = st->top = 0;
}

static const char *vols_uploader(const vl_volume *v)
{
    if (v->kind == VL_DU || v->kind == VL_DD) return "data mover";
    return v->uploader && *v->uploader ? v->uploader : "-";
}

/* A volume's rate and ETA cells as the run's answer counts them (runeta_volume, at the answer's
 * time); a stalled one (runeta_volume_stalled) has no live rate: *stalled and *since say so. */
static void vols_rate_eta(ui *u, const model_volume *mv, const run_answer *a, char *rate, size_t rn,
                          char *eta, size_t en, int *stalled, double *since)
{
    const vl_volume *v = mv->vol;
    double r, e;
    runeta_volume(ui_model(u), mv, a->at_mono, a->at, &r, &e);
    *stalled = !vl_phase_terminal(v->phase_id) &&
               runeta_volume_stalled(ui_model(u), mv, a->at_mono, a->at, since);
    fmt_byte_rate(rate, rn, r);
    if (vl_phase_terminal(v->phase_id))
        snprintf(eta, en, "-");
    else
        fmt_eta(eta, en, e);
}

/* The volumes' end as the run's parts give it (runeta.h): the later of the pod volumes' and the
 * data movers' ETA, "+" when what is not known yet (a volume not sized, one stalled) can only
 * add to it; "-" when nothing is left or nothing says. */
static char *vols_part_eta(char *buf, size_t n, const run_answer *a)
{
    double eta = -1;
    int bound = 0, any = 0;
    for (int p = RE_PODVOLS; p <= RE_DATAMOVER; p++) {
        const re_stage *s = &a->part[p];
        if (s->state == RE_ABSENT || s->state == RE_DONE) continue;
        any = 1;
        if (s->eta < 0) {
            eta = -1;
            break;
        }
        if (s->eta > eta) eta = s->eta;
        bound |= s->bound;
    }
    if (!a->active || !any || eta < 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    char d[16];
    fmt_eta(d, sizeof d, eta);
    snprintf(buf, n, "%s%s", d, bound && d[0] != '>' ? "+" : "");
    return buf;
}

static void vols_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    vols_state *st = s->data;
    model_run *r = model_find_run(ui_model(u), st->kind, st->name);
    int y = 0;
    const char *what = st->kind == VL_BACKUP ? "backup" : "restore";
    if (!r) {
        w_print(w, 0, 0, cols, w_attr(W_WARN), "%s %s no longer exists", what, st->name);
        return;
    }
    vols_collect(st, u, r);
    /* the totals are the run's answer (answer.h), as the detail screen shows them */
    run_answer ans;
    ui_answer(u, r, &ans);
    int active = 0, failed = 0, canceled = 0, finished = 0;
    for (size_t i = 0; i < st->n; i++) {
        const vl_volume *v = st->rows[i]->vol;
        if (!v) continue;
        if (vl_phase_terminal(v->phase_id)) {
            finished++;
            failed += v->phase_id == VL_PH_FAILED;
            canceled += v->phase_id == VL_PH_CANCELED;
        } else if (vl_phase_active(v->phase_id)) {
            active++;
        }
    }
    int stalled =
        ans.active ? ans.part[RE_PODVOLS].n_stalled + ans.part[RE_DATAMOVER].n_stalled : 0;
    int x = w_print(w, y, 0, cols, A_BOLD, "Volumes of %s ", what);
    x += w_text(w, y, x, cols - x, st->name, A_BOLD);
    x += w_print(w, y, x, cols - x, w_attr(W_DIM), "  %zu volume%s: %d in progress", st->n,
                 st->n == 1 ? "" : "s", active);
    if (stalled) x += w_print(w, y, x, cols - x, w_attr(W_WARN) | A_BOLD, " (%d stalled)", stalled);
    x += w_print(w, y, x, cols - x, w_attr(W_DIM), ", %d finished", finished);
    if (failed) x += w_print(w, y, x, cols - x, w_attr(W_BAD), ", %d failed", failed);
    if (canceled) w_print(w, y, x, cols - x, w_attr(W_WARN), ", %d canceled", canceled);
    y++;
    char b1[32], b2[32], rb[32], eb[32], pb[64];
    x = w_print(w, y, 0, cols, A_BOLD, "All volumes ");
    /* a volume not sized yet: the sum of the totals is not the total */
    char ut[48], agg[192];
    if (ans.n_unsized) snprintf(ut, sizeof ut, "? (%d not sized yet)", ans.n_unsized);
    /* the rate of the volumes that move (a stalled one's is not a rate); finished: the run's
     * average */
    snprintf(agg, sizeof agg, "%s / %s  %s%s  ETA %s%s",
             ans.bytes_known ? fmt_bytes(b1, sizeof b1, ans.bytes_done) : "?",
             ans.bytes_total_known ? fmt_bytes(b2, sizeof b2, ans.bytes_total)
             : ans.n_unsized       ? ut
                                   : "?",
             fmt_byte_rate(rb, sizeof rb, ans.bytes_rate),
             ans.active || ans.bytes_rate < 0 ? "" : " (average)",
             vols_part_eta(eb, sizeof eb, &ans),
             failed     ? "  (some failed)"
             : canceled ? "  (some canceled)"
                        : "");
    /* the bar gives way to the figures on a narrow terminal */
    int barw = cols >= 100 ? 30 : 16, room = cols - x - 1 - (int)strlen(agg);
    if (barw > room) barw = room;
    if (barw >= 4) {
        w_bar(w, y, x, barw,
              ans.bytes_total_known && ans.bytes_total > 0
                  ? (double)ans.bytes_done / (double)ans.bytes_total
                  : -1,
              W_BAR_FILL);
        x += barw + 1;
    }
    w_print(w, y, x, cols - x, A_NORMAL, "%s", agg);
    y += 2;
    /* the counts above are the run's; the rows below what / keeps (on the line between) */
    vols_filter(st);
    if (st->prompting || st->filter[0]) {
        x = w_print(w, y - 1, 0, cols, st->prompting ? A_BOLD : w_attr(W_ACTIVE), "filter: /");
        x += w_text(w, y - 1, x, cols - x - 30, st->filter, A_BOLD);
        if (st->prompting) w_print(w, y - 1, x, 1, A_REVERSE, " ");
        if (st->filter_error[0] && x + 2 < cols - 30)
            w_text(w, y - 1, x + 2, cols - 32 - x, st->filter_error, w_attr(W_BAD));
        w_print(w, y - 1, cols - 28, 28, A_DIM, "%zu of %zu volumes%s", st->n, st->n_all,
                st->prompting ? "" : "  Esc clears");
    }
    if (st->n_all == 0) {
        w_print(w, y, 0, cols, w_attr(W_DIM),
                "No PodVolumeBackups/Restores or DataUploads/Downloads for this %s.", what);
        return;
    }
    if (st->n == 0) {
        w_print(w, y, 0, cols, w_attr(W_DIM), "%s",
                st->filter_error[0] ? "no volume shown: the filter is not a regular expression"
                                    : "no volume matches the filter (its kind, ns/pod:volume, "
                                      "phase or node)");
        return;
    }
    /* columns: the optional ones appear as the width allows */
    int narrow = cols < 100; /* 80 columns: no per-row bar, the numbers say it */
    /* ETA holds "stall 10m09s", STARTED "11-29 01:23"; under 80 columns no RATE */
    /* under 80 columns BYTES and ETA give a column each to POD/VOLUME (cut in the middle: the
     * pod's ordinal and the volume survive) */
    int w_phase = 11, c_bar = narrow ? 0 : 10, w_bytes = cols < 80 ? 20 : 21,
        w_rate = cols < 80 ? 0
                 : narrow  ? 11
                           : 12,
        w_eta = cols < 80 ? 12 : 13;
    int fixed = w_phase + c_bar + w_bytes + w_rate + w_eta + 5;
    int w_up = cols - fixed >= 40 ? 11 : 0;
    int w_node = cols - fixed - w_up >= 46 ? 14 : 0;
    int w_start = cols - fixed - w_up - w_node >= 44 ? 12 : 0;
    int rest = cols - fixed - w_up - w_node - w_start;
    int w_pod = rest >= 60 ? 36 : rest;
    if (w_pod < 10) w_pod = 10;
    int w_msg = cols - fixed - w_up - w_node - w_start - w_pod - 1;
    attr_t ha = w_attr(W_DIM) | A_BOLD;
    x = 0;
    if (w_node) x += w_print(w, y, x, w_node, ha, "%-*s", w_node, "NODE");
    x += w_print(w, y, x, w_pod + 1, ha, "%-*s", w_pod + 1, "POD/VOLUME");
    if (w_up) x += w_print(w, y, x, w_up, ha, "%-*s", w_up, "UPLOADER");
    x += w_print(w, y, x, w_phase, ha, "%-*s", w_phase, "PHASE");
    if (c_bar) x += w_print(w, y, x, c_bar + 1, ha, "%-*s", c_bar + 1, "BYTES");
    x += w_print(w, y, x, w_bytes + 1, ha, "%-*s", w_bytes + 1, c_bar ? "" : "BYTES");
    if (w_rate) x += w_print(w, y, x, w_rate, ha, "%-*s", w_rate, "RATE");
    x += w_print(w, y, x, w_eta, ha, "%-*s", w_eta, "ETA");
    if (w_start) x += w_print(w, y, x, w_start, ha, "%-*s", w_start, "STARTED");
    if (w_msg > 0) w_print(w, y, x, w_msg, ha, "MESSAGE");
    y++;
    /* the selected volume's name and message at the bottom, wrapped over up to 3 rows */
    const vl_volume *selv = st->sel < (int)st->n ? st->rows[st->sel]->vol : NULL;
    char *sel_text =
        selv ? xasprintf("%s %s %s", vl_kind_name(selv->kind),
                         selv->meta.name ? selv->meta.name : "", selv->message ? selv->message : "")
             : NULL;
    int msg_rows = sel_text ? w_wrap(NULL, 0, 0, cols, 0, 0, sel_text, 0) : 1;
    if (msg_rows > 3) msg_rows = 3;
    if (msg_rows > rows - y - 2) msg_rows = rows - y - 2 > 1 ? rows - y - 2 : 1;
    int avail = rows - y - msg_rows;
    if (avail < 1) avail = 1;
    if (st->sel < st->top) st->top = st->sel;
    if (st->sel >= st->top + avail) st->top = st->sel - avail + 1;
    if (st->top < 0) st->top = 0;
    /* data movers that are plugin operations the run waits on: "(PVC) *", as on the detail */
    const itemops *io = r->item_ops && r->item_ops->known ? r->item_ops : NULL;
    const model_volume **opv = io ? xcalloc(io->n ? io->n : 1, sizeof *opv) : NULL;
    size_t nopv = io ? itemops_join(io, ui_model(u), r, opv) : 0;
    for (int i = st->top; i < (int)st->n && y < rows - msg_rows; i++, y++) {
        const model_volume *mv = st->rows[i];
        int op = 0;
        for (size_t k = 0; nopv && k < io->n && !op; k++) op = opv[k] == mv;
        const vl_volume *v = mv->vol;
        if (!v) continue;
        attr_t base = i == st->sel ? w_attr(W_SELECTED) : A_NORMAL;
        if (i == st->sel) w_clear_line(w, y, 0, cols, base);
        x = 0;
        if (w_node) {
            w_text(w, y, x, w_node - 1, v->node ? v->node : "-", base);
            x += w_node;
        }
        char pv[512];
        snprintf(pv, sizeof pv, "%s/%s:%s", v->pod_ns ? v->pod_ns : "-",
                 v->pod_name ? v->pod_name : "-", v->volume ? v->volume : "-");
        if (v->kind == VL_DU || v->kind == VL_DD)
            snprintf(pv, sizeof pv, "%s/%s (PVC)%s", v->pod_ns ? v->pod_ns : "-",
                     v->volume ? v->volume : "-", op ? " *" : "");
        /* too wide: without the namespace first (the selected row's whole name is at the
         * bottom), so that the pods of one namespace stay apart ("web-0:slow", "db-0:stuck", not
         * "sho…b-0:slow"); then cut in the middle: the pod's ordinal and the volume survive */
        char *safe_pv = san_str(pv);
        int pv_w = san_width(safe_pv);
        free(safe_pv);
        if (pv_w > w_pod) {
            if (v->kind == VL_DU || v->kind == VL_DD)
                snprintf(pv, sizeof pv, "%s (PVC)%s", v->volume ? v->volume : "-", op ? " *" : "");
            else
                snprintf(pv, sizeof pv, "%s:%s", v->pod_name ? v->pod_name : "-",
                         v->volume ? v->volume : "-");
        }
        w_text_mid(w, y, x, w_pod, pv, base);
        x += w_pod + 1;
        if (w_up) {
            w_text(w, y, x, w_up - 1, vols_uploader(v), base);
            x += w_up;
        }
        w_text(w, y, x, w_phase - 1, v->phase ? v->phase : "New",
               i == st->sel ? base : w_attr(w_phase_role(v->phase_id)));
        x += w_phase;
        if (c_bar) {
            w_bar_in(w, y, x, c_bar,
                     v->bytes_total > 0 ? (double)v->bytes_done / (double)v->bytes_total : -1,
                     v->phase_id == VL_PH_FAILED ? W_BAD : W_BAR_FILL, i == st->sel ? base : 0);
            x += c_bar + 1;
        }
        if (model_volume_unsized(v)) {
            /* Velero sizes a volume once its upload starts (and TotalBytes is omitempty): not
             * "0 B / 0 B" or "634 B / 0 B" before that */
            char ub[48];
            snprintf(ub, sizeof ub, "%s / not sized yet", fmt_bytes(b1, sizeof b1, v->bytes_done));
            if (v->bytes_done <= 0 || (int)strlen(ub) > w_bytes)
                snprintf(ub, sizeof ub, v->bytes_done > 0 ? "%s / ?" : "not sized yet", b1);
            w_print(w, y, x, w_bytes, base | A_DIM, "%s", ub);
        } else
            /* "1023.9 TiB / 1023.9 PiB" is wider than the column: without the spaces it fits
             * (fmt_bytes_pair), never cut */
            w_print(w, y, x, w_bytes, base, "%s",
                    fmt_bytes_pair(pb, sizeof pb, v->bytes_done, v->bytes_total, " / ", w_bytes));
        x += w_bytes + 1;
        int vst;
        double since;
        vols_rate_eta(u, mv, &ans, rb, sizeof rb, eb, sizeof eb, &vst, &since);
        if (vst) { /* no live rate: "stalled 7m02s" across RATE and ETA */
            char d[16], c[32];
            snprintf(c, sizeof c, "%s %s", w_rate ? "stalled" : "stall",
                     fmt_duration(d, sizeof d, since));
            if ((int)strlen(c) > w_rate + w_eta - 1) /* "stall 27m": whole minutes */
                snprintf(c, sizeof c, "stall %dm", (int)(since / 60));
            w_print(w, y, x, w_rate + w_eta - 1, i == st->sel ? base : w_attr(W_WARN) | A_BOLD,
                    "%s", c);
        } else {
            if (w_rate) w_print(w, y, x, w_rate - 1, base, "%s", rb);
            w_print(w, y, x + w_rate, w_eta - 1, base, "%s", eb);
        }
        x += w_rate + w_eta;
        if (w_start) {
            w_print(
                w, y, x, w_start - 1, base, "%s",
                fmt_started(b1, sizeof b1, model_local_time(ui_model(u), v->started), ui_wall(u)));
            x += w_start;
        }
        if (w_msg > 0 && v->message)
            w_text(w, y, x, w_msg, v->message,
                   v->phase_id == VL_PH_FAILED && i != st->sel ? w_attr(W_BAD) : base);
    }
    free(opv);
    /* the selected volume's message in full (Enter shows the whole object) */
    if (sel_text) {
        w_wrap(w, rows - msg_rows, 0, cols, 0, msg_rows, sel_text, A_NORMAL);
        free(sel_text);
    }
}

static int vols_move(ui_screen *s, int d)
{
    vols_state *st = s->data;
    st->sel += d;
    /* before the first frame n is not known yet: the draw clamps */
    if (st->n && st->sel >= (int)st->n) st->sel = (int)st->n - 1;
    if (st->sel < 0) st->sel = 0;
    return UI_REDRAW;
}

static int vols_down(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, 1);
}
static int vols_up(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, -1);
}
static int vols_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, 10);
}
static int vols_pgup(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, -10);
}
static int vols_home(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, -1000000);
}
static int vols_end(ui *u, ui_screen *s)
{
    (void)u;
    return vols_move(s, 1000000);
}
static int vols_adjacent(ui *u, ui_screen *s, int d)
{
    vols_state *st = s->data;
    ui_set_current_run(u, st->kind, st->name);
    model_run *r = drill_adjacent(u, d);
    if (!r) return UI_REDRAW;
    free(st->name);
    st->name = xstrdup(r->name);
    st->kind = r->kind;
    st->sel = st->top = 0;
    return UI_REDRAW;
}
static int vols_prev(ui *u, ui_screen *s)
{
    return vols_adjacent(u, s, -1);
}
static int vols_next(ui *u, ui_screen *s)
{
    return vols_adjacent(u, s, 1);
}

static int vols_describe(ui *u, ui_screen *s)
{
    vols_state *st = s->data;
    if (st->sel >= (int)st->n || !st->rows[st->sel]->vol) {
        ui_message(u, "no volume selected");
        return UI_REDRAW;
    }
    ui_push(u, screen_describe_volume_new(st->rows[st->sel], ui_app(u)->ns));
    return UI_REDRAW;
}

/* the selected volume, for the action and copy keys (actkeys.c) */
static int vols_object(ui_screen *s, ui *u, char *path, size_t n)
{
    vols_state *st = s->data;
    if (st->sel < 0 || st->sel >= (int)st->n || !st->rows[st->sel]->vol) return -1;
    const vl_volume *v = st->rows[st->sel]->vol;
    snprintf(path, n, "/apis/velero.io/%s/namespaces/%s/%s/%s",
             v->kind == VL_DU || v->kind == VL_DD ? "v2alpha1" : "v1",
             v->meta.ns ? v->meta.ns : ui_app(u)->ns,
             v->kind == VL_PVB   ? "podvolumebackups"
             : v->kind == VL_PVR ? "podvolumerestores"
             : v->kind == VL_DU  ? "datauploads"
                                 : "datadownloads",
             st->rows[st->sel]->name);
    return 0;
}

static int vols_find(ui *u, ui_screen *s)
{
    (void)u;
    ((vols_state *)s->data)->prompting = 1;
    return UI_REDRAW;
}
static int vols_clear(ui *u, ui_screen *s)
{
    vols_state *st = s->data;
    if (!st->filter[0]) return UI_NOTHING; /* Esc goes back */
    (void)u;
    st->filter[0] = 0;
    return UI_REDRAW;
}

static int vols_on_key(ui_screen *s, ui *u, int ch)
{
    vols_state *st = s->data;
    if (!st->prompting) return UI_UNHANDLED;
    (void)u;
    int r = ui_prompt_edit(st->filter, sizeof st->filter, &st->prompting, ch);
    if (r != UI_REDRAW) return r;
    st->sel = st->top = 0;
    return UI_REDRAW;
}

static const ui_key vols_keys[] = {
    {UI_C_DOWN, "next volume", vols_down},
    {UI_C_UP, "previous volume", vols_up},
    {UI_C_PGDN, NULL, vols_pgdn},
    {UI_C_PGUP, NULL, vols_pgup},
    {UI_C_TOP, "first volume", vols_home},
    {UI_C_BOTTOM, "last volume", vols_end},
    {UI_C_OPEN, "open the selected volume (describe it)", vols_describe},
    {UI_C_DESCRIBE, "describe the selected volume", vols_describe},
    {UI_C_FIND,
     "filter: a regular expression (any case) of the kind, ns/pod:volume, phase or node; !RE "
     "the others",
     vols_find},
    {UI_C_BACK, "clear the filter, else back", vols_clear},
    {UI_C_PREV_RUN, "previous run (in the list's order)", vols_prev},
    {UI_C_NEXT_RUN, "next run", vols_next},
    {UI_C_LOGS, "log of this run", drill_open_logs},
    {UI_C_RESULTS, "results of this run", drill_open_results},
    {UI_C_NONE, NULL, NULL},
};

static void vols_enter(ui_screen *s, ui *u)
{
    vols_state *st = s->data;
    ui_set_current_run(u, st->kind, st->name);
}

static void vols_free(ui_screen *s)
{
    vols_state *st = s->data;
    free(st->name);
    free(st->rows);
    free(st);
    free(s);
}

static const char *vols_hint(ui_screen *s, ui *u)
{
    (void)u;
    if (((vols_state *)s->data)->prompting)
        return "type to filter  Enter:keep  Esc:clear  Backspace:erase";
    return "j/k:move  Enter:open  /:filter  [/]:run  l:log  Esc:back  " UI_HINT_END;
}

ui_screen *screen_volumes_new(vl_kind kind, const char *name)
{
    ui_screen *s = xcalloc(1, sizeof *s);
    vols_state *st = xcalloc(1, sizeof *st);
    st->kind = kind;
    st->name = xstrdup(name);
    s->title = "Volumes";
    s->keys = vols_keys;
    s->object = vols_object;
    s->draw = vols_draw;
    s->on_key = vols_on_key;
    s->enter = vols_enter;
    s->free = vols_free;
    s->hint = vols_hint;
    s->data = st;
    return s;
}
