/* screen_fleet.c: the fleet screen, first when several contexts are watched: one row per cluster,
 * worst first, with its lamp, Velero version, runs in flight (the one ending last, or stalled),
 * the last 24 h, schedules (overdue; the oldest last success against its interval), storage
 * locations, node-agents and a warning when a diagnosis rule fires, the totals on top. Every
 * figure is core/fleet.c's summary of the cluster's answers; this only draws it. Enter opens the
 * cluster's list (ui_show_cluster), `:ctx` the picker; W shows every WHY whole (wrapped), Right
 * and Left scroll it sideways. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "format.h"
#include "kubeclient/util.h"
#include "ui.h"
#include "widgets.h"

typedef struct fleet_state {
    fleet_sum *sums; /* per member, in the fleet's order */
    size_t *order;   /* member indices, worst first; the first nv match the filter */
    size_t n, nv;
    int sel, top, page;
    char sel_ctx[512]; /* the selection follows its context as the order changes */
    int wrap;          /* W: every WHY whole, wrapped under itself */
    int prompting;     /* the / prompt is open */
    char filter[128];  /* as the list's /: a regular expression of the context, "!RE" others */
    char filter_error[160];
    int hx;    /* Right/Left: the WHY column scrolled sideways (columns) */
    double at; /* ui_now of the last summary */
} fleet_state;

static fleet_state *fleet_of(ui_screen *s)
{
    return s->data;
}

typedef struct fleet_sort {
    const fleet_state *st;
    const fleet *f;
} fleet_sort;

static int fleet_cmp(const void *a, const void *b, void *arg)
{
    const fleet_sort *fs = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int si = fleet_severity(&fs->st->sums[i]), sj = fleet_severity(&fs->st->sums[j]);
    if (si != sj) return sj - si;
    return strcmp(fs->f->m[i]->context, fs->f->m[j]->context);
}

/* The summaries of this frame, sorted worst first; the selection kept on its context. */
static void fleet_refresh(ui *u, fleet_state *st)
{
    fleet *f = ui_fleet(u);
    if (!f) return;
    if (st->n != f->n) {
        st->sums = xrealloc(st->sums, (f->n ? f->n : 1) * sizeof *st->sums);
        st->order = xrealloc(st->order, (f->n ? f->n : 1) * sizeof *st->order);
        st->n = f->n;
        st->at = 0; /* a member was added: summarise now */
    }
    /* at most 4 times a second: a busy fleet redraws up to 20 times (the clock and the ETAs
     * need no more) */
    if (st->at > 0 && ui_now(u) - st->at < 0.25) return;
    st->at = ui_now(u);
    for (size_t i = 0; i < f->n; i++) {
        fleet_member_summary(f->m[i], ui_now(u), ui_wall(u), &st->sums[i]);
        st->order[i] = i;
    }
    fleet_sort fs = {st, f};
    qsort_r(st->order, f->n, sizeof *st->order, fleet_cmp, &fs);
    app **apps = xcalloc(f->n ? f->n : 1, sizeof *apps);
    size_t na = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->m[st->order[i]]->app) apps[na++] = f->m[st->order[i]]->app;
    ui_set_fleet_order(u, apps, na);
    free(apps);
    /* / : the rows whose context the filter matches ([ and ] above keep every cluster) */
    st->nv = f->n;
    st->filter_error[0] = 0;
    const char *re = st->filter;
    int invert = *re == '!';
    re += invert;
    if (*re) {
        regex_t rx;
        int rc = regcomp(&rx, re, REG_EXTENDED | REG_ICASE | REG_NOSUB);
        st->nv = 0;
        if (rc) {
            char why[64];
            regerror(rc, &rx, why, sizeof why);
            snprintf(st->filter_error, sizeof st->filter_error,
                     "not a regular expression: %.40s (%.60s)", re, why);
        } else {
            for (size_t i = 0; i < f->n; i++)
                if ((regexec(&rx, f->m[st->order[i]]->context, 0, NULL, 0) == 0) != invert)
                    st->order[st->nv++] = st->order[i];
            regfree(&rx);
        }
    }
    if (st->sel_ctx[0])
        for (size_t i = 0; i < st->nv; i++)
            if (!strcmp(f->m[st->order[i]]->context, st->sel_ctx)) st->sel = (int)i;
    if (st->sel >= (int)st->nv) st->sel = (int)st->nv - 1;
    if (st->sel < 0) st->sel = 0;
}

static fleet_member *fleet_selected(ui *u, fleet_state *st)
{
    fleet *f = ui_fleet(u);
    if (!f || !st->nv || st->sel < 0 || st->sel >= (int)st->nv) return NULL;
    return f->m[st->order[st->sel]];
}

static int fleet_move(ui *u, ui_screen *s, int delta)
{
    fleet_state *st = fleet_of(s);
    fleet_refresh(u, st);
    st->sel += delta;
    if (st->sel >= (int)st->nv) st->sel = (int)st->nv - 1;
    if (st->sel < 0) st->sel = 0;
    fleet_member *fm = fleet_selected(u, st);
    if (fm) snprintf(st->sel_ctx, sizeof st->sel_ctx, "%s", fm->context);
    return UI_REDRAW;
}

static int fleet_down(ui *u, ui_screen *s)
{
    return fleet_move(u, s, 1);
}
static int fleet_up(ui *u, ui_screen *s)
{
    return fleet_move(u, s, -1);
}
static int fleet_pgdn(ui *u, ui_screen *s)
{
    return fleet_move(u, s, fleet_of(s)->page > 1 ? fleet_of(s)->page - 1 : 1);
}
static int fleet_pgup(ui *u, ui_screen *s)
{
    return fleet_move(u, s, -(fleet_of(s)->page > 1 ? fleet_of(s)->page - 1 : 1));
}
static int fleet_first(ui *u, ui_screen *s)
{
    return fleet_move(u, s, -(int)fleet_of(s)->n);
}
static int fleet_last(ui *u, ui_screen *s)
{
    return fleet_move(u, s, (int)fleet_of(s)->n);
}

static int fleet_open(ui *u, ui_screen *s)
{
    fleet_state *st = fleet_of(s);
    fleet_refresh(u, st);
    fleet_member *fm = fleet_selected(u, st);
    if (!fm) return UI_NOTHING;
    if (!fm->app) {
        ui_message(u, "context %s: %s", fm->context, fm->error);
        return UI_REDRAW;
    }
    return ui_show_cluster(u, fm->app);
}

/* W: the WHY column whole (wrapped); Right/Left: sideways when not wrapped */
static int fleet_wrap(ui *u, ui_screen *s)
{
    fleet_state *st = fleet_of(s);
    st->wrap = !st->wrap;
    st->hx = 0;
    ui_message(u, st->wrap ? "WHY wrapped in full (W: one line)" : "WHY on one line (W: wrap)");
    return UI_REDRAW;
}
static int fleet_right(ui *u, ui_screen *s)
{
    (void)u;
    fleet_state *st = fleet_of(s);
    if (st->wrap) return UI_NOTHING;
    st->hx += 16;
    return UI_REDRAW;
}
static int fleet_left(ui *u, ui_screen *s)
{
    (void)u;
    fleet_state *st = fleet_of(s);
    if (!st->hx) return UI_NOTHING;
    st->hx = st->hx > 16 ? st->hx - 16 : 0;
    return UI_REDRAW;
}

/* /: filter the contexts (Enter keeps, Esc clears) */
static int fleet_find(ui *u, ui_screen *s)
{
    (void)u;
    fleet_of(s)->prompting = 1;
    return UI_REDRAW;
}
static int fleet_clear(ui *u, ui_screen *s)
{
    (void)u;
    fleet_state *st = fleet_of(s);
    if (!st->filter[0]) return UI_NOTHING;
    st->filter[0] = 0;
    st->at = 0;
    return UI_REDRAW;
}

static int fleet_on_key(ui_screen *s, ui *u, int ch)
{
    fleet_state *st = fleet_of(s);
    if (!st->prompting) return UI_UNHANDLED;
    (void)u;
    int r = ui_prompt_edit(st->filter, sizeof st->filter, &st->prompting, ch);
    if (r != UI_REDRAW) return r;
    st->at = 0; /* summarise and filter now */
    return UI_REDRAW;
}

static const ui_key fleet_keys[] = {
    {UI_C_DOWN, "next cluster", fleet_down},
    {UI_C_UP, "previous cluster", fleet_up},
    {UI_C_PGDN, NULL, fleet_pgdn},
    {UI_C_PGUP, NULL, fleet_pgup},
    {UI_C_TOP, "the worst cluster", fleet_first},
    {UI_C_BOTTOM, "the last cluster", fleet_last},
    {UI_C_PREV_RUN, "previous cluster", fleet_up},
    {UI_C_NEXT_RUN, "next cluster", fleet_down},
    {UI_C_OPEN, "open the cluster's list of runs", fleet_open},
    {UI_C_FIND, "filter: a regular expression of the context (any case); !RE the others",
     fleet_find},
    {UI_C_BACK, "clear the filter", fleet_clear},
    {UI_C_WRAP, "WHY whole: wrapped under itself on/off", fleet_wrap},
    {UI_C_LEFT, "scroll WHY left", fleet_left},
    {UI_C_RIGHT, "scroll WHY right (when not wrapped)", fleet_right},
    {UI_C_NONE, NULL, NULL},
};

/* ---- drawing ----------------------------------------------------------------------------------
 */

static w_role fleet_lamp_role(const fleet_sum *s)
{
    switch (s->lamp) {
    case FL_LIVE:
        return W_GOOD;
    case FL_CONNECTING:
        return W_DIM;
    case FL_RETRYING:
    case FL_NO_VELERO:
    case FL_FORBIDDEN:
        return W_WARN;
    default:
        return W_BAD;
    }
}

enum { C_LAMP, C_CTX, C_VER, C_FLIGHT, C_DAY, C_SCHED, C_BSL, C_AGENTS, C_WARN, C_WHY, C_N };
#define FLEET_ALL_COLS     160 /* from this width on, every column shows */
#define FLEET_WHY_MIN_WIDE 20  /* ... and WHY has at least this much, other columns giving way */

/* The cells of one row, in buffers of 96 (the why and context are drawn from the summary). */
static void fleet_cells(const fleet_sum *s, char cell[C_N][96], int utf8)
{
    char a[32], b[32];
    for (int c = 0; c < C_N; c++) cell[c][0] = 0;
    snprintf(cell[C_LAMP], 96, "%s %s", utf8 ? "\u25cf" : "*", fleet_lamp_name(s->lamp));
    int known = s->listed;
    snprintf(cell[C_VER], 96, "%s", s->version[0] ? s->version : known ? "?" : "-");
    if (!known)
        snprintf(cell[C_FLIGHT], 96, "?");
    else if (!s->n_active)
        snprintf(cell[C_FLIGHT], 96, "none");
    else if (s->n_stalled)
        snprintf(cell[C_FLIGHT], 96, "%d, %d stalled", s->n_active, s->n_stalled);
    else if (s->last_name[0])
        snprintf(cell[C_FLIGHT], 96, "%d, last %s%s", s->n_active,
                 s->last_eta_kind == ANS_ETA_BOUND ? (utf8 ? "\u2265 " : ">=") : "~",
                 fmt_eta(a, sizeof a, s->last_eta));
    else
        snprintf(cell[C_FLIGHT], 96, "%d, no ETA", s->n_active);
    if (known)
        snprintf(cell[C_DAY], 96, "%d/%d/%d", s->day_completed, s->day_partial, s->day_failed);
    else
        snprintf(cell[C_DAY], 96, "?");
    /* the schedules, then readiness.h's finding when there is one: "2, 0 overdue, 1
     * restorable stale; daily 3d00h/1d00h" */
    char rs[32] = "";
    if (known && s->sched_known && s->n_ready_stale)
        snprintf(rs, sizeof rs, ", %d restorable stale", s->n_ready_stale);
    if (!known || !s->sched_known)
        snprintf(cell[C_SCHED], 96, "?");
    else if (!s->n_schedules)
        snprintf(cell[C_SCHED], 96, "none");
    else if (s->sched_name[0] && s->sched_age < 0)
        snprintf(cell[C_SCHED], 96, "%d, %d overdue%s; %.20s never", s->n_schedules, s->n_overdue,
                 rs, s->sched_name);
    else if (s->sched_name[0])
        snprintf(cell[C_SCHED], 96, "%d, %d overdue%s; %.20s %s/%s", s->n_schedules, s->n_overdue,
                 rs, s->sched_name, fmt_duration(a, sizeof a, s->sched_age),
                 s->sched_interval > 0 ? fmt_duration(b, sizeof b, s->sched_interval) : "?");
    else
        snprintf(cell[C_SCHED], 96, "%d, %d overdue%s", s->n_schedules, s->n_overdue, rs);
    if (known && s->bsl_known)
        snprintf(cell[C_BSL], 96, "%d/%d", s->bsl_available, s->bsl_total);
    else
        snprintf(cell[C_BSL], 96, "?");
    if (known && s->agents_known)
        snprintf(cell[C_AGENTS], 96, "%d/%d", s->agents_ready, s->agents_total);
    else
        snprintf(cell[C_AGENTS], 96, "?");
    snprintf(cell[C_WARN], 96, "%s", s->warn ? (utf8 ? "\u26a0" : "!") : "");
}

static void fleet_draw(ui_screen *sc, ui *u, WINDOW *w, int rows, int cols)
{
    fleet_state *st = fleet_of(sc);
    fleet *f = ui_fleet(u);
    if (!f) return;
    fleet_refresh(u, st);
    int utf8 = ui_utf8(u);
    /* the judgement's totals (as --once's exit status and JSON), then what the clusters that
     * are not OK have, by headline; cut with an ellipsis when narrow */
    char totals[512], heads[512];
    fleet_verdict_totals(st->sums, st->n, totals, sizeof totals);
    fleet_totals(st->sums, st->n, heads, sizeof heads);
    int tx = 1 + w_text(w, 0, 1, cols - 2, totals, A_BOLD);
    /* the headlines after "N clusters: ", without the OK ones (counted already) */
    const char *detail = strchr(heads, ':');
    if (detail) {
        detail++;
        int ok, end = 0;
        if (sscanf(detail, " %d OK%n", &ok, &end) == 1 && end &&
            (!detail[end] || detail[end] == ','))
            detail = detail[end] ? detail + end + 1 : "";
        while (*detail == ' ') detail++;
    }
    if (detail && *detail && tx + 6 < cols - 1) {
        char paren[520];
        snprintf(paren, sizeof paren, " (%s)", detail);
        w_text(w, 0, tx, cols - 1 - tx, paren, w_attr(W_DIM));
    }
    char nw[160];
    if (st->prompting || st->filter[0]) { /* the filter on the line under the totals */
        int x =
            1 + w_print(w, 1, 1, cols - 2, st->prompting ? A_BOLD : w_attr(W_ACTIVE), "filter: /");
        x += w_text(w, 1, x, cols - x - 30, st->filter, A_BOLD);
        if (st->prompting) w_print(w, 1, x, 1, A_REVERSE, " ");
        w_print(w, 1, cols - 28, 27, A_DIM, "%zu of %zu contexts%s", st->nv, st->n,
                st->prompting ? "" : "  Esc clears");
        if (st->filter_error[0] && x + 2 < cols - 30)
            w_text(w, 1, x + 2, cols - 32 - x, st->filter_error, w_attr(W_BAD));
    } else if (f->not_watched) /* veltop's own limit, not the clusters': under the totals */
        w_print(w, 1, 1, cols - 2, w_attr(W_WARN) | A_BOLD, "%s",
                fleet_not_watched(f, nw, sizeof nw));

    static const char *titles[C_N] = {"LAMP",      "CONTEXT", "VELERO", "IN FLIGHT", "24H OK/PF/F",
                                      "SCHEDULES", "BSL",     "AGENTS", "",          "WHY"};
    char(*cells)[C_N][96] = xcalloc(st->n ? st->n : 1, sizeof *cells);
    /* WHY: the judgement's words (fleet_judge: what is wrong, what it lacks, or why it could not
     * be read), the same as --once's JSON summary */
    typedef char why_t[sizeof((fleet_verdict *)0)->why];
    why_t *whys = xcalloc(st->n ? st->n : 1, sizeof *whys);
    fleet_verdict *verdict = xmalloc(sizeof *verdict);
    for (size_t i = 0; i < st->n; i++) {
        fleet_judge(&st->sums[st->order[i]], verdict);
        memcpy(whys[i], verdict->why, sizeof whys[i]);
    }
    free(verdict);
    int wd[C_N];
    for (int c = 0; c < C_N; c++) wd[c] = (int)strlen(titles[c]);
    wd[C_LAMP] = 14;
    wd[C_WARN] = 1;
    for (size_t i = 0; i < st->n; i++) {
        const fleet_sum *s = &st->sums[st->order[i]];
        fleet_cells(s, cells[i], utf8);
        for (int c = C_VER; c < C_WARN; c++)
            if ((int)strlen(cells[i][c]) > wd[c]) wd[c] = (int)strlen(cells[i][c]);
        int cw = (int)strlen(f->m[st->order[i]]->context);
        if (cw > wd[C_CTX]) wd[C_CTX] = cw;
    }
    if (wd[C_CTX] > 40) wd[C_CTX] = 40;
    int show[C_N];
    for (int c = 0; c < C_N; c++) show[c] = 1;
    /* the column budget. From FLEET_ALL_COLS columns on every column shows and WHY takes what
     * is left (W wraps it, Right scrolls it); when that is under FLEET_WHY_MIN_WIDE, the
     * schedules' detail (after ";") gives way, then the context is cut to 24, then the
     * schedules to their title: each is whole one key away (the health screen, the list).
     * Narrower, the version, node-agents, locations, schedules and the last 24 h go first (the
     * health screen has them), then the context is cut: the lamp, the context, what is in
     * flight and WHY stay, WHY with 30 columns or more. */
    int need_all = 1;
    for (int c = 0; c < C_WHY; c++) need_all += wd[c] + 2;
    if (cols >= FLEET_ALL_COLS) {
        int sched_head = (int)strlen(titles[C_SCHED]);
        for (size_t i = 0; i < st->n; i++) {
            int h = (int)strcspn(cells[i][C_SCHED], ";");
            if (h > sched_head) sched_head = h;
        }
        struct {
            int c, floor;
        } give[] = {
            {C_SCHED, sched_head + 1}, {C_CTX, 24}, {C_SCHED, (int)strlen(titles[C_SCHED])}};
        int over = need_all + FLEET_WHY_MIN_WIDE + 1 - cols; /* WHY ends a column short */
        for (size_t g = 0; g < sizeof give / sizeof give[0] && over > 0; g++) {
            int can = wd[give[g].c] - give[g].floor;
            if (can <= 0) continue;
            if (can > over) can = over;
            wd[give[g].c] -= can;
            over -= can;
        }
    }
    static const int drop[] = {C_VER, C_AGENTS, C_BSL, C_SCHED, C_DAY};
    for (size_t d = 0; cols < FLEET_ALL_COLS; d++) {
        int need = 1;
        for (int c = 0; c < C_WHY; c++)
            if (show[c]) need += wd[c] + 2;
        if (need + 30 <= cols) break; /* room for the why: 30 columns, more when there is */
        if (d < sizeof drop / sizeof drop[0]) {
            show[drop[d]] = 0;
        } else {
            int over = need + 30 - cols;
            wd[C_CTX] = wd[C_CTX] - over > 16 ? wd[C_CTX] - over : 16;
            break;
        }
    }
    int x = 1;
    for (int c = 0; c < C_N; c++) {
        if (!show[c]) continue;
        w_print(w, 2, x, cols - x, A_BOLD | w_attr(W_DIM), "%s", titles[c]);
        x += wd[c] + 2;
        if (x >= cols) break;
    }
    int body = rows - 3;
    st->page = body > 0 ? body : 1;
    /* the WHY column's place: rows take as many lines as their wrapped WHY when W is on */
    int why_x = 1;
    for (int c = 0; c < C_WHY; c++)
        if (show[c]) why_x += wd[c] + 2;
    int why_w = cols - why_x - 1 > 1 ? cols - why_x - 1 : 1;
#define FLEET_H(i) (st->wrap ? w_wrap(NULL, 0, 0, why_w, 0, 0, whys[i], 0) : 1)
    if (st->sel < st->top) st->top = st->sel;
    for (;;) { /* the selected row whole on screen */
        int h = 0;
        for (int i = st->top; i <= st->sel && i < (int)st->nv; i++) h += FLEET_H(i);
        if (h <= body || st->top >= st->sel) break;
        st->top++;
    }
    if (st->top < 0) st->top = 0;
    for (int r = 0, y = 3; y < 3 + body && st->top + r < (int)st->nv; r++) {
        size_t i = (size_t)(st->top + r);
        const fleet_member *fm = f->m[st->order[i]];
        const fleet_sum *s = &st->sums[st->order[i]];
        int h = FLEET_H(i), selected = (int)i == st->sel;
        /* a live cluster with something wrong: its why in the warning colour, not the lamp's */
        attr_t why_a = w_attr(s->lamp == FL_LIVE && whys[i][0] ? W_WARN : fleet_lamp_role(s));
        if (y + h > 3 + body) h = 3 + body - y;
        attr_t base = selected ? w_attr(W_SELECTED) : A_NORMAL;
        if (selected)
            for (int k = 0; k < h; k++) w_clear_line(w, y + k, 0, cols, base);
        x = 1;
        for (int c = 0; c < C_N && x < cols; c++) {
            if (!show[c]) continue;
            int room = c == C_WHY ? cols - x - 1 : wd[c];
            if (room > cols - x - 1) room = cols - x - 1;
            if (room <= 0) break;
            attr_t a = base;
            if (c == C_LAMP) a = selected ? base | A_BOLD : w_attr(fleet_lamp_role(s)) | A_BOLD;
            if (c == C_WARN && s->warn && !selected) a = w_attr(W_WARN) | A_BOLD;
            if (c == C_FLIGHT && s->n_stalled && !selected) a = w_attr(W_WARN);
            if (c == C_DAY && s->day_failed && !selected) a = w_attr(W_BAD);
            if (c == C_SCHED && (s->n_overdue || s->n_ready_stale) && !selected) a = w_attr(W_WARN);
            if (c == C_CTX)
                w_text(w, y, x, room, fm->context, a | A_BOLD);
            else if (c == C_WHY && st->wrap)
                w_wrap(w, y, x, room, 0, h, whys[i], selected ? base : why_a);
            else if (c == C_WHY && !st->hx) /* cut with an ellipsis: Right or W shows the rest */
                w_text(w, y, x, room, whys[i], selected ? base : why_a);
            else if (c == C_WHY)
                w_text_from(w, y, x, room, st->hx, whys[i], selected ? base : why_a);
            else if (c == C_SCHED) /* cut with an ellipsis where the budget narrowed it */
                w_text(w, y, x, room, cells[i][c], a);
            else
                w_print(w, y, x, room, a, "%s", cells[i][c]);
            x += wd[c] + 2;
        }
        y += h;
    }
#undef FLEET_H
    free(whys);
    free(cells);
}

static const char *fleet_hint(ui_screen *s, ui *u)
{
    (void)u;
    if (fleet_of(s)->prompting) return "type to filter  Enter:keep  Esc:clear  Backspace:erase";
    return "Enter:open  /:filter  W:why  Right:scroll  " UI_HINT_END;
}

static void fleet_free_screen(ui_screen *s)
{
    fleet_state *st = s->data;
    free(st->sums);
    free(st->order);
    free(st);
    free(s);
}

ui_screen *screen_fleet_new(void)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = "Fleet";
    s->keys = fleet_keys;
    s->draw = fleet_draw;
    s->on_key = fleet_on_key;
    s->free = fleet_free_screen;
    s->hint = fleet_hint;
    s->fleet_wide = 1;
    s->data = xcalloc(1, sizeof(fleet_state));
    return s;
}
