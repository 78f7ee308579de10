/* screen_list.c: the main screen: backups and restores together, newest first, with phase,
 * items bar, rate, ETA, times, errors and volume bytes; filter prompt, sort keys, follow mode. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "diagview.h"
#include "drill.h"
#include "fleet.h"
#include "format.h"
#include "runeta.h"
#include "sanitize.h"
#include "ui.h"
#include "widgets.h"

typedef struct list_state {
    int prompting; /* the filter prompt is open */
    int follow;    /* keep the newest run in progress selected */
    int page;      /* rows per page at the last draw */
    double since;  /* monotonic time of the first draw */
} list_state;

static list_state *list_of(ui_screen *s)
{
    return s->data;
}

/* After the user acted on the list (moved, filtered, sorted, opened a run): the selected run is
 * now chosen, and followed while rows move (view_rebuild). */
static void list_sync_current(ui *u)
{
    view *v = ui_view(u);
    if (v->sel >= 0) view_select(v, v->sel);
    model_run *r = view_selected(v);
    if (r) ui_set_current_run(u, r->kind, r->name);
}

static int list_move(ui *u, ui_screen *s, int delta)
{
    view *v = ui_view(u);
    list_of(s)->follow = 0;
    view_select(v, v->sel + delta);
    list_sync_current(u);
    return UI_REDRAW;
}

static int list_down(ui *u, ui_screen *s)
{
    return list_move(u, s, 1);
}
static int list_up(ui *u, ui_screen *s)
{
    return list_move(u, s, -1);
}
static int list_pgdn(ui *u, ui_screen *s)
{
    return list_move(u, s, list_of(s)->page > 1 ? list_of(s)->page - 1 : 1);
}
static int list_pgup(ui *u, ui_screen *s)
{
    return list_move(u, s, -(list_of(s)->page > 1 ? list_of(s)->page - 1 : 1));
}
static int list_top(ui *u, ui_screen *s)
{
    return list_move(u, s, -1000000000);
}
static int list_bottom(ui *u, ui_screen *s)
{
    return list_move(u, s, 1000000000);
}

static int list_open(ui *u, ui_screen *s)
{
    (void)s;
    list_sync_current(u);
    model_run *r = view_selected(ui_view(u));
    if (!r) return UI_NOTHING;
    ui_open(u, UI_S_DETAIL, s, r->kind, r->name);
    return UI_REDRAW;
}

static int list_open_health(ui *u, ui_screen *s)
{
    return ui_open(u, UI_S_HEALTH, s, VL_BACKUP, NULL);
}

static int list_filter(ui *u, ui_screen *s)
{
    (void)u;
    list_of(s)->prompting = 1;
    return UI_REDRAW;
}

static int list_clear_filter(ui *u, ui_screen *s)
{
    (void)s;
    view *v = ui_view(u);
    if (!v->filter[0] && !v->kinds) return UI_NOTHING;
    v->filter[0] = 0;
    v->kinds = 0; /* :bak / :rst undone too */
    view_rebuild(v, ui_model(u));
    list_sync_current(u);
    return UI_REDRAW;
}

/* A column's sort key (Shift+its letter, or its digit): that order, or the other way round when
 * it is already the order (as k9s) */
static int list_sort_to(ui *u, view_sort how)
{
    view *v = ui_view(u);
    v->reverse = v->sort == how ? !v->reverse : 0;
    v->sort = how;
    view_rebuild(v, ui_model(u));
    return UI_REDRAW;
}
static int list_sort_cycle(ui *u, ui_screen *s)
{
    (void)s;
    view *v = ui_view(u);
    v->reverse = 0;
    v->sort = (view_sort)((v->sort + 1) % 4);
    view_rebuild(v, ui_model(u));
    return UI_REDRAW;
}
static int list_sort_start(ui *u, ui_screen *s)
{
    (void)s;
    return list_sort_to(u, VIEW_SORT_START);
}
static int list_sort_name(ui *u, ui_screen *s)
{
    (void)s;
    return list_sort_to(u, VIEW_SORT_NAME);
}
static int list_sort_phase(ui *u, ui_screen *s)
{
    (void)s;
    return list_sort_to(u, VIEW_SORT_PHASE);
}
static int list_sort_progress(ui *u, ui_screen *s)
{
    (void)s;
    return list_sort_to(u, VIEW_SORT_PROGRESS);
}

static int list_follow(ui *u, ui_screen *s)
{
    list_state *st = list_of(s);
    st->follow = !st->follow;
    if (st->follow && !view_follow(ui_view(u))) ui_message(u, "no run in progress to follow");
    list_sync_current(u);
    return UI_REDRAW;
}

static const ui_key list_keys[] = {
    {UI_C_DOWN, "next run", list_down},
    {UI_C_UP, "previous run", list_up},
    {UI_C_PGDN, NULL, list_pgdn},
    {UI_C_PGUP, NULL, list_pgup},
    {UI_C_TOP, "first run", list_top},
    {UI_C_BOTTOM, "last run", list_bottom},
    {UI_C_OPEN, "open the run's detail (waiting: why it is not running)", list_open},
    {UI_C_FIND,
     "filter, as k9s: regular expressions (any case) of the name, phase or schedule; !RE the "
     "others; -l key=value,key!=value labels; words ns:NAME schedule:NAME phase:NAME "
     "label:key=value (Enter keeps, Esc clears)",
     list_filter},
    {UI_C_BACK, "clear the filter", list_clear_filter},
    {UI_C_SORT, NULL, list_sort_cycle},
    {UI_C_SORT_START, NULL, list_sort_start},
    {UI_C_SORT_NAME, NULL, list_sort_name},
    {UI_C_SORT_PHASE, NULL, list_sort_phase},
    {UI_C_SORT_PROGRESS, NULL, list_sort_progress},
    {UI_C_FOLLOW, "follow the newest run in progress (toggle)", list_follow},
    {UI_C_VOLUMES, "volumes of the selected run", drill_open_volumes},
    {UI_C_LOGS, "log of the selected run (live while in progress)", drill_open_logs},
    {UI_C_RESULTS, "results of the selected run: errors and warnings", drill_open_results},
    {UI_C_DESCRIBE, "describe the selected run", drill_open_describe},
    {UI_C_HEALTH, "health: schedules, locations, server, node-agents", list_open_health},
    {UI_C_NONE, NULL, NULL},
};

static int list_on_key(ui_screen *s, ui *u, int ch)
{
    list_state *st = list_of(s);
    if (!st->prompting) return UI_UNHANDLED;
    view *v = ui_view(u);
    int r = ui_prompt_edit(v->filter, sizeof v->filter, &st->prompting, ch);
    if (r != UI_REDRAW) return r;
    view_rebuild(v, ui_model(u));
    list_sync_current(u);
    return UI_REDRAW;
}

/* Columns, dropped from the right by priority when the terminal is narrow. */
enum {
    C_KIND,
    C_NAME,
    C_PHASE,
    C_BAR,
    C_ITEMS,
    C_RATE,
    C_ETA,
    C_STARTED,
    C_DUR,
    C_EW,
    C_VOLS,
    C_N
};
static const char *list_col_title[C_N] = {"",      "NAME", "PHASE",       "PROGRESS",
                                          "ITEMS", "RATE", "ETA",         "STARTED",
                                          "DUR",   "E/W",  "VOLUME BYTES"};
static const int list_col_width[C_N] = {1, 12, 11, 8, 9, 6, 6, 11, 6, 5, 19};
/* the order columns are given room in (KIND and NAME first); they are shown in C_* order */
static const int list_col_prio[C_N] = {C_KIND, C_NAME, C_PHASE, C_ITEMS,   C_BAR, C_ETA,
                                       C_RATE, C_EW,   C_DUR,   C_STARTED, C_VOLS};

/* Columns sized to their content: the columns that fit, by priority (NAME as wide as its longest
 * name up to a quarter of the width, the others at their minimum: the narrowest form of the
 * numbers they show, need_min); then the room left goes to the numbers up to their exact form
 * (need_max), NAME up to its longest name, PHASE up to 15 (whole phase names), the bar up to 30;
 * what is still left stays at the right. need_min/need_max: 0 for columns not sized by content. */
static void list_layout(int cols, int name_w, const int *need_min, const int *need_max, int *width,
                        int *xpos)
{
    int have[C_N] = {0}, cw[C_N], used = 0;
    for (int i = 0; i < C_N; i++)
        cw[i] = list_col_width[i] > need_min[i] ? list_col_width[i] : need_min[i];
    if (name_w < 8) name_w = 8;
    /* NAME comes right after KIND: whole names (up to a quarter of the width, at least 20; below
     * 80 columns a quarter, so that ETA keeps its place at 60) before the other columns; longer
     * ones grow into what is left at the end, cut in the middle past that */
    int cap = cols / 4 > 20 ? cols / 4 : cols >= 80 ? 20 : cols / 4 > 12 ? cols / 4 : 12;
    cw[C_NAME] = name_w < cap ? name_w : cap;
    for (int k = 0; k < C_N; k++) {
        int c = list_col_prio[k];
        if (used + cw[c] + 1 > cols) break; /* a column that does not fit: none after it */
        have[c] = 1;
        used += cw[c] + 1;
    }
    int left = cols - used;
    for (int i = 0; i < C_N && left > 0; i++) { /* exact numbers before anything else grows */
        int g = have[i] ? need_max[i] - cw[i] : 0;
        if (g > left) g = left;
        if (g > 0) cw[i] += g, left -= g;
    }
    int grow = name_w - cw[C_NAME];
    if (grow > left) grow = left;
    if (grow > 0) cw[C_NAME] += grow, left -= grow;
    if (have[C_PHASE] && left > 0) {
        int g = 15 - cw[C_PHASE] < left ? 15 - cw[C_PHASE] : left;
        cw[C_PHASE] += g, left -= g;
    }
    if (have[C_BAR] && left > 0) {
        int g = 30 - cw[C_BAR] < left / 2 ? 30 - cw[C_BAR] : left / 2;
        if (g > 0) cw[C_BAR] += g, left -= g;
    }
    int x = 0;
    for (int i = 0; i < C_N; i++) {
        width[i] = have[i] ? cw[i] : 0;
        xpos[i] = x;
        if (width[i]) x += width[i] + 1;
    }
}

/* Columns a name takes on screen: its length for printable ASCII (every valid Kubernetes name),
 * else the width of its sanitised form (placeholders for controls, bytes that are not UTF-8). */
static int list_name_width(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    while (*p >= 0x20 && *p < 0x7f) p++;
    if (!*p) return (int)(p - (const unsigned char *)name);
    char *safe = san_str(name);
    int w = san_width(safe);
    free(safe);
    return w;
}

/* Long phase names shortened for a narrow column (the detail screen shows them whole). */
static const char *list_phase_label(const char *phase, int width)
{
    static const char *abbr[][2] = {
        {"PartiallyFailed", "PartFailed"},
        {"WaitingForPluginOperations", "WaitingOps"},
        {"WaitingForPluginOperationsPartiallyFailed", "WaitOps-PF"},
        {"FinalizingPartiallyFailed", "Final-PF"},
        {"FailedValidation", "FailedValid"},
    };
    if (!phase || (int)strlen(phase) <= width) return phase;
    for (size_t i = 0; i < sizeof abbr / sizeof abbr[0]; i++)
        if (!strcmp(phase, abbr[i][0])) return abbr[i][1];
    return phase;
}

/* A waiting backup's estimated start (queue.h): "≈21:40:05" (ASCII "~"), "now"; short: "≈21:40"
 * (in the ETA cell, when there is no STARTED column). */
static const char *list_queue_start(char *buf, size_t n, const run_answer *a, int utf8, int shrt)
{
    if (a->queue.start - a->at <= 0.5) return snprintf(buf, n, "now"), buf;
    char t[64];
    fmt_clock_since(t, sizeof t, a->queue.start, a->at);
    if (shrt && strlen(t) == 8) t[5] = 0; /* HH:MM:SS: the minute is enough for an estimate */
    snprintf(buf, n, "%s%s", utf8 ? "\u2248" : "~", t);
    return buf;
}

/* RATE and ETA: the run's answer (answer.h): "stalled 45s" across both cells when nothing it
 * waits on moves; else the rate and the ETA cell (an estimate, "+" when it may grow, "stale"
 * while the data is not current, "?" when unknown), in the warning colour while one part it
 * needs is stalled and others still move. */
static void list_draw_eta(ui *u, WINDOW *w, int y, const run_answer *a, int selected, attr_t base,
                          const int *wd, const int *xp)
{
    char buf[160];
    if (a->queue.waiting) { /* why it is not running, across both cells: "#3, limit 2 full" */
        attr_t qa = selected                         ? base
                    : a->queue.why == QUEUE_WHY_NONE ? w_attr(W_WARN) | A_BOLD
                                                     : base | A_DIM;
        int x = w_text(w, y, xp[C_RATE], xp[C_ETA] + wd[C_ETA] - xp[C_RATE],
                       queue_why_short(buf, sizeof buf, &a->queue), qa);
        if (!wd[C_STARTED] && a->queue.start_known) /* no STARTED column: its start here */
            w_print(w, y, xp[C_RATE] + x, xp[C_ETA] + wd[C_ETA] - xp[C_RATE] - x, base, " %s",
                    list_queue_start(buf, sizeof buf, a, ui_utf8(u), 1));
        return;
    }
    if (a->active && a->stalled == ANS_YES) {
        w_print(w, y, xp[C_RATE], xp[C_ETA] + wd[C_ETA] - xp[C_RATE],
                (selected ? base : w_attr(W_WARN)) | A_BOLD, "stalled %s",
                fmt_duration(buf, sizeof buf, a->stalled_for));
        return;
    }
    w_print(w, y, xp[C_RATE], wd[C_RATE], base, "%s", fmt_rate(buf, sizeof buf, a->items_rate));
    attr_t ea = a->part_stalled && !selected ? w_attr(W_WARN) | A_BOLD : base;
    w_print(w, y, xp[C_ETA], wd[C_ETA], ea, "%s", answer_eta_cell(buf, sizeof buf, a, ui_utf8(u)));
}

/* vols_listed: 0 while the volume lists still arrive (the bytes say "loading", not a sum of
 * what came so far) */
static void list_draw_row(ui *u, WINDOW *w, int y, model_run *r, int selected, const int *wd,
                          const int *xp, int cols, int vols_listed)
{
    const vl_run *x = r->run;
    double wall = ui_wall(u);
    char buf[96];
    /* while disconnected the rows are dimmed: what they show is as of the last update */
    attr_t base = selected ? w_attr(W_SELECTED) : ui_stale(u) ? A_DIM : A_NORMAL;
    attr_t dim = selected ? 0 : A_DIM; /* nothing dim on the highlight: it must stay readable */
    if (selected) w_clear_line(w, y, 0, cols, base);
    w_print(w, y, xp[C_KIND], 1, base | dim, "%c", r->kind == VL_BACKUP ? 'B' : 'R');
    w_text_mid(w, y, xp[C_NAME], wd[C_NAME], r->name, base | A_BOLD); /* whole in the detail */
    if (!x) return;
    run_answer ans;
    ui_answer(u, r, &ans);
    diagview_marker(u, w, y, xp[C_KIND] + 1, &ans);
    w_text(w, y, xp[C_PHASE], wd[C_PHASE], list_phase_label(x->phase, wd[C_PHASE]),
           selected ? base : w_attr(w_phase_role(x->phase_id)));
    double frac = x->items_total > 0 ? (double)x->items_done / (double)x->items_total : -1;
    if (frac < 0 && x->phase_id == VL_PH_COMPLETED) frac = 1;
    w_bar_in(w, y, xp[C_BAR], wd[C_BAR], frac,
             vl_phase_terminal(x->phase_id) ? w_phase_role(x->phase_id) : W_BAR_FILL,
             selected ? base : 0);
    if (ans.items_known) {
        /* the answer's items, "~" as every surface marks an estimate; big counts abbreviated
         * whole to fit, never cut (list_cells sized the column) */
        fmt_count_pair(buf, sizeof buf, ans.items_done, ans.items_total, ans.items_estimated,
                       wd[C_ITEMS]);
        w_print(w, y, xp[C_ITEMS], wd[C_ITEMS], base, "%s", buf);
    } else
        w_print(w, y, xp[C_ITEMS], wd[C_ITEMS], base | dim, "-");
    list_draw_eta(u, w, y, &ans, selected, base, wd, xp);
    if (wd[C_STARTED]) {
        /* on our clock (a --demo --speed N cluster's runs ahead, its history as it was), like DUR
         * beside it */
        double st = x->started > 0 ? model_wall_time(ui_model(u), x->started, wall) : 0;
        if (ans.queue.waiting && ans.queue.start_known) /* when it may start (the detail: why) */
            w_print(w, y, xp[C_STARTED], wd[C_STARTED], base, "%s",
                    list_queue_start(buf, sizeof buf, &ans, ui_utf8(u), 0));
        else if (ans.queue.waiting)
            w_print(w, y, xp[C_STARTED], wd[C_STARTED], base | dim, "?");
        else
            w_print(w, y, xp[C_STARTED], wd[C_STARTED], base, "%s",
                    fmt_started(buf, sizeof buf, st, wall));
    }
    if (wd[C_DUR])
        w_print(w, y, xp[C_DUR], wd[C_DUR], base, "%s",
                fmt_duration(buf, sizeof buf, model_run_duration(r, wall)));
    if (wd[C_EW]) {
        /* errors/warnings as one pair (abbreviated alike), each half in its colour */
        fmt_count_pair(buf, sizeof buf, x->errors, x->warnings, 0, wd[C_EW]);
        char *slash = strchr(buf, '/');
        int ex = xp[C_EW], end = xp[C_EW] + wd[C_EW];
        *slash = 0;
        ex += w_print(w, y, ex, end - ex, selected ? base : (x->errors ? w_attr(W_BAD) : A_DIM),
                      "%s", buf);
        ex += w_print(w, y, ex, end - ex, base | dim, "/");
        w_print(w, y, ex, end - ex, selected ? base : (x->warnings ? w_attr(W_WARN) : A_DIM), "%s",
                slash + 1);
    }
    /* every row says something: bytes when the run has volumes, else a dash (as ITEMS) */
    if (wd[C_VOLS] && !vols_listed)
        w_print(w, y, xp[C_VOLS], wd[C_VOLS], base | A_DIM, "loading...");
    else if (wd[C_VOLS] && ans.n_volumes && ans.bytes_total_known)
        w_print(w, y, xp[C_VOLS], wd[C_VOLS], base, "%s",
                fmt_bytes_pair(buf, sizeof buf, ans.bytes_done, ans.bytes_total, "/", wd[C_VOLS]));
    else if (wd[C_VOLS] && ans.n_volumes)
        /* as the answer knows them: the total "?" while a volume is not sized yet */
        w_print(w, y, xp[C_VOLS], wd[C_VOLS], base, "%s/?",
                fmt_bytes(buf, sizeof buf, ans.bytes_done));
    else if (wd[C_VOLS])
        w_print(w, y, xp[C_VOLS], wd[C_VOLS], base | dim, "-");
}

/* The widths the numbers of the rows on screen need: need_min their narrowest whole forms,
 * need_max their exact ones (ITEMS, E/W, VOLUME BYTES), RATE and DUR as they are (RATE with ETA
 * holding "stalled 59m59s"); 0 elsewhere. */
static void list_cells(ui *u, const view *v, int page, int *need_min, int *need_max)
{
    char b[96];
    memset(need_min, 0, C_N * sizeof *need_min);
    memset(need_max, 0, C_N * sizeof *need_max);
#define LC_NEED(c, lo, hi)                                                                         \
    do {                                                                                           \
        int lo_ = (lo), hi_ = (hi);                                                                \
        if (lo_ > need_min[c]) need_min[c] = lo_;                                                  \
        if (hi_ > need_max[c]) need_max[c] = hi_;                                                  \
    } while (0)
    for (int i = 0; i < page && v->top + i < (int)v->n_rows; i++) {
        const model_run *r = v->rows[v->top + i];
        const vl_run *x = r->run;
        if (!x) continue;
        run_answer a; /* as the row draws them: the run's answer */
        ui_answer(u, r, &a);
        int est = a.items_estimated;
        int lo = (int)strlen(fmt_count_pair(b, sizeof b, a.items_done, a.items_total, est, 0));
        LC_NEED(
            C_ITEMS, lo,
            (int)strlen(fmt_count_pair(b, sizeof b, a.items_done, a.items_total, est, INT_MAX)));
        lo = (int)strlen(fmt_count_pair(b, sizeof b, x->errors, x->warnings, 0, 0));
        LC_NEED(C_EW, lo,
                (int)strlen(fmt_count_pair(b, sizeof b, x->errors, x->warnings, 0, INT_MAX)));
        if (r->vols.n) {
            lo = (int)strlen(
                fmt_bytes_pair(b, sizeof b, r->vols.bytes_done, r->vols.bytes_total, "/", 0));
            LC_NEED(C_VOLS, lo,
                    (int)strlen(fmt_bytes_pair(b, sizeof b, r->vols.bytes_done, r->vols.bytes_total,
                                               "/", INT_MAX)));
        }
        lo = (int)strlen(fmt_rate(b, sizeof b, model_run_rate(r, ui_data_now(u))));
        LC_NEED(C_RATE, lo, lo);
        if (r->kind == VL_BACKUP && (x->phase_id == VL_PH_NEW || x->phase_id == VL_PH_QUEUED ||
                                     x->phase_id == VL_PH_READY_TO_START)) {
            /* the queue's short answer across RATE and ETA, whole when there is room */
            char *c = san_str(queue_why_short(b, sizeof b, &a.queue));
            /* " ≈21:40" after it when there is no STARTED column (7 columns) */
            int hi = san_width(c) - 1 - list_col_width[C_ETA] + (a.queue.start_known ? 7 : 0);
            free(c);
            LC_NEED(C_RATE, 0, hi);
        } else if (vl_phase_active(x->phase_id)) {
            if (a.stalled == ANS_YES) { /* "stalled 59m59s" across RATE and ETA */
                char d[32];
                snprintf(b, sizeof b, "stalled %s", fmt_duration(d, sizeof d, a.stalled_for));
                lo = (int)strlen(b) - 1 - list_col_width[C_ETA];
                LC_NEED(C_RATE, lo, lo);
            } else { /* the ETA cell whole: "≈10m09s", "10m09s+" */
                char *c = san_str(answer_eta_cell(b, sizeof b, &a, ui_utf8(u)));
                lo = san_width(c);
                free(c);
                LC_NEED(C_ETA, lo, lo);
            }
        }
        lo = (int)strlen(fmt_duration(b, sizeof b, model_run_duration(r, ui_wall(u))));
        LC_NEED(C_DUR, lo, lo);
    }
#undef LC_NEED
}

/* Backups and restores listed (or failed): the list can be shown whole. */
static int list_runs_listed(const app *a)
{
    for (int i = APP_R_BACKUPS; i <= APP_R_RESTORES; i++) {
        const kc_refl_status *st = kc_reflector_status(a->refl[i]);
        if (!st->synced && st->state != KC_REFL_FAILED && st->state != KC_REFL_RETRYING) return 0;
    }
    return 1;
}

static void list_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    list_state *st = list_of(s);
    view *v = ui_view(u);
    int wd[C_N], xp[C_N];
    int y = diagview_health_summary(u, w, 0, cols);
    if (st->follow) {
        view_follow(v);
        list_sync_current(u);
    }
    if (st->prompting || v->filter[0] || v->kinds) {
        int x = 0;
        if (v->kinds) /* :bak or :rst */
            x += w_print(w, y, x, cols, w_attr(W_ACTIVE) | A_BOLD, "%s only  ",
                         v->kinds == 1 << VL_BACKUP ? "backups" : "restores");
        if (st->prompting || v->filter[0]) {
            x += w_print(w, y, x, cols - x, st->prompting ? A_BOLD : w_attr(W_ACTIVE), "filter: /");
            x += w_text(w, y, x, cols - x - 30, v->filter, A_BOLD);
            if (st->prompting) w_print(w, y, x, 1, A_REVERSE, " ");
        }
        w_print(w, y, cols - 28, 28, A_DIM, "%zu of %zu runs%s", v->n_rows, ui_model(u)->n_runs,
                st->prompting ? "" : "  Esc clears");
        y++;
        if (v->filter_error[0]) { /* a bad regular expression: said, nothing matched */
            w_text(w, y, 0, cols, v->filter_error, w_attr(W_BAD));
            y++;
        }
    }
    int name_w = 4; /* the longest name, as shown (sanitised) */
    for (size_t i = 0; i < v->n_rows; i++) {
        int l = list_name_width(v->rows[i]->name);
        if (l > name_w) name_w = l;
    }
    int page = rows - y - 1; /* below the titles */
    st->page = page;
    if (v->sel < v->top) v->top = v->sel;
    if (v->sel >= v->top + page) v->top = v->sel - page + 1;
    if (v->top > (int)v->n_rows - page) v->top = (int)v->n_rows - page;
    if (v->top < 0) v->top = 0;
    int need_min[C_N], need_max[C_N];
    list_cells(u, v, page, need_min, need_max);
    list_layout(cols, name_w, need_min, need_max, wd, xp);
    /* the sort column says so, with its direction, as k9s: "NAME↑" */
    static const int sort_col[] = {[VIEW_SORT_START] = C_STARTED,
                                   [VIEW_SORT_NAME] = C_NAME,
                                   [VIEW_SORT_PHASE] = C_PHASE,
                                   [VIEW_SORT_PROGRESS] = C_ITEMS};
    for (int i = 0; i < C_N; i++) {
        if (!wd[i]) continue;
        int x = w_print(w, y, xp[i], wd[i], A_BOLD | A_UNDERLINE, "%s", list_col_title[i]);
        /* the natural order of each: newest start first, names A-Z, running first, least done
         * first; reversed: the other arrow */
        int down = (v->sort == VIEW_SORT_START) != v->reverse;
        if (i == sort_col[v->sort] && x < wd[i])
            w_print(w, y, xp[i] + x, wd[i] - x, A_BOLD | A_UNDERLINE, "%s",
                    ui_utf8(u) ? (down ? "\u2193" : "\u2191") : (down ? "v" : "^"));
    }
    y++;
    /* rows show as the runs' lists arrive (a slow link takes seconds to bring them all) */
    if (st->since == 0) st->since = ui_now(u);
    if (v->n_rows == 0 && !v->filter[0] && !list_runs_listed(ui_app(u)) &&
        ui_now(u) - st->since < 5) {
        w_print(w, y + 1, 2, cols - 4, A_DIM, "listing backups and restores... (%zu so far)",
                ui_model(u)->n_runs);
        return;
    }
    if (v->n_rows == 0 && !v->filter[0] && app_no_velero(ui_app(u))) {
        int x = w_print(w, y + 1, 2, cols - 4, w_attr(W_WARN), "no Velero found in namespace ");
        w_text(w, y + 1, 2 + x, cols - 4 - x, ui_app(u)->ns, w_attr(W_WARN) | A_BOLD);
        w_print(w, y + 2, 2, cols - 4, A_DIM,
                "no backup storage location, backup or restore there; -n names Velero's namespace");
        /* where Velero is, when a cluster-wide look found it (fleet.c: the fleet screen's WHY
         * says the same): the option that shows it */
        fleet *f = ui_fleet(u);
        for (size_t i = 0; f && i < f->n; i++) {
            if (f->m[i]->app != ui_app(u)) continue;
            fleet_sum *sum = xmalloc(sizeof *sum);
            fleet_member_summary(f->m[i], ui_now(u), ui_wall(u), sum);
            if (f->m[i]->found_ns[0]) {
                char hint[400];
                snprintf(hint, sizeof hint, "Velero is in namespace %s: veltop -n %s%s%s",
                         f->m[i]->found_ns, f->m[i]->found_ns,
                         f->n > 1 ? "  (or --namespace-for " : "", f->n > 1 ? "CONTEXT=NS)" : "");
                w_text(w, y + 3, 2, cols - 4, hint, w_attr(W_ACTIVE) | A_BOLD);
            } else if (fleet_member_finding(f->m[i])) {
                w_print(w, y + 3, 2, cols - 4, A_DIM, "looking for Velero in other namespaces...");
            }
            free(sum);
        }
        return;
    }
    if (v->n_rows == 0) {
        int listed = kc_reflector_status(ui_app(u)->refl[APP_R_BACKUPS])->synced;
        w_print(w, y + 1, 2, cols - 4, A_DIM, "%s",
                v->filter_error[0] ? "no run shown: the filter is not a regular expression"
                : v->filter[0]     ? "no run matches the filter (regular expressions of the name, "
                                     "phase, schedule; !RE; -l key=value; ns:NAME schedule:NAME "
                                     "phase:NAME label:key=value)"
                : v->kinds         ? "no runs of that kind (yet)"
                : listed           ? "no backups or restores (yet)"
                         : "backups and restores not listed yet (the connection line says why)");
        return;
    }
    for (int i = 0; i < page && v->top + i < (int)v->n_rows; i++)
        list_draw_row(u, w, y + i, v->rows[v->top + i], v->top + i == v->sel, wd, xp, cols,
                      app_run_volumes_listed(ui_app(u), v->rows[v->top + i]));
}

static const char *list_hint(ui_screen *s, ui *u)
{
    static char buf[200];
    static const char *sorts[] = {"start", "name", "phase", "progress"};
    if (list_of(s)->prompting) return "type to filter  Enter:keep  Esc:clear  Backspace:erase";
    snprintf(buf, sizeof buf, "Enter:detail/why  /:filter  s:sort(%s%s)  f:follow%s  " UI_HINT_END,
             sorts[ui_view(u)->sort], ui_view(u)->reverse ? ",reversed" : "",
             list_of(s)->follow ? "(on)" : "");
    return buf;
}

static void list_enter(ui_screen *s, ui *u)
{
    (void)s;
    list_sync_current(u);
}

static void list_free(ui_screen *s)
{
    if (!s) return;
    free(s->data);
    free(s);
}

ui_screen *screen_list_new(void)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = "Backups & Restores";
    s->keys = list_keys;
    s->draw = list_draw;
    s->on_key = list_on_key;
    s->enter = list_enter;
    s->free = list_free;
    s->hint = list_hint;
    s->data = xcalloc(1, sizeof(list_state));
    return s;
}
