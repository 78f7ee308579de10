/* screen_health.c: the health screen (`H` from the list): Schedules with their next run, overdue
 * state and the trend of their last runs; backup and volume snapshot locations; the Velero
 * server pod; node-agents per node; backup repositories and their maintenance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "format.h"
#include "health.h"
#include "queue.h"
#include "kubeclient/util.h"
#include "readiness.h"
#include "repo.h"
#include "sanitize.h"
#include "ui.h"
#include "widgets.h"

#define HEALTH_MAX_OBJS 512 /* objects a frame can select (schedules, locations, pods) */

typedef struct health_state {
    int top; /* first body line shown */
    int lines, page;
    int sel;     /* the selected object (in drawing order), -1 none yet */
    int n_objs;  /* objects at the last draw */
    int sel_y;   /* body line of the selected object at the last draw, -1 none */
    int sel_end; /* its last line (a repository's jobs line under it) */
    int want;    /* move the view so that the selected object shows */
    int wrap;    /* W: long messages in full, wrapped under their row */
    int hx;      /* Left/Right: columns the messages are scrolled sideways */
    int hx_max;  /* how far that is worth it (the longest message's overflow at the last draw) */
    char paths[HEALTH_MAX_OBJS][320]; /* API paths of the objects, for y and Enter */
    char pods[HEALTH_MAX_OBJS][128];  /* a repository's newest maintenance job pod, for l */
    int prompting;                    /* the / prompt is open */
    char filter[128];                 /* as the list's /: RE, "!RE", "-l k=v" (ui_filter) */
} health_state;

static health_state *health_of(ui_screen *s)
{
    return s->data;
}

static int health_scroll(ui_screen *s, int delta)
{
    health_state *st = health_of(s);
    int max = st->lines - st->page;
    st->top += delta;
    if (st->top > max) st->top = max;
    if (st->top < 0) st->top = 0;
    return UI_REDRAW;
}

/* j/k move the selection from object to object (the view follows it) */
static int health_move(ui_screen *s, int delta)
{
    health_state *st = health_of(s);
    if (!st->n_objs) return health_scroll(s, delta);
    st->sel += delta;
    if (st->sel >= st->n_objs) st->sel = st->n_objs - 1;
    if (st->sel < 0) st->sel = 0;
    st->want = 1;
    return UI_REDRAW;
}

static int health_down(ui *u, ui_screen *s)
{
    (void)u;
    return health_move(s, 1);
}
static int health_up(ui *u, ui_screen *s)
{
    (void)u;
    return health_move(s, -1);
}
static int health_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    return health_scroll(s, health_of(s)->page - 1);
}
static int health_pgup(ui *u, ui_screen *s)
{
    (void)u;
    return health_scroll(s, -(health_of(s)->page - 1));
}

static int health_top(ui *u, ui_screen *s)
{
    (void)u;
    health_of(s)->sel = 0;
    return health_scroll(s, -health_of(s)->lines);
}
static int health_bottom(ui *u, ui_screen *s)
{
    (void)u;
    health_of(s)->sel = health_of(s)->n_objs - 1;
    return health_scroll(s, health_of(s)->lines);
}

static int health_wrap(ui *u, ui_screen *s)
{
    health_state *st = health_of(s);
    st->wrap = !st->wrap;
    st->hx = 0;
    st->hx_max = 1 << 20; /* unknown until the next frame measures it */
    st->want = 1;
    ui_message(u, "wrap %s", st->wrap ? "on: long messages in full under their row" : "off");
    return UI_REDRAW;
}

static int health_left(ui *u, ui_screen *s)
{
    (void)u;
    health_state *st = health_of(s);
    st->hx = st->hx > 20 ? st->hx - 20 : 0;
    return UI_REDRAW;
}

static int health_right(ui *u, ui_screen *s)
{
    health_state *st = health_of(s);
    if (st->wrap) return UI_REDRAW;
    if (st->hx >= st->hx_max) {
        ui_message(u, st->hx_max ? "at the end of the longest message" : "nothing is cut");
        return UI_REDRAW;
    }
    st->hx += 20;
    if (st->hx > st->hx_max) st->hx = st->hx_max;
    return UI_REDRAW;
}

/* y / Enter: the selected object, whole, in the pager */
static int health_describe(ui *u, ui_screen *s)
{
    health_state *st = health_of(s);
    if (st->sel < 0 || st->sel >= st->n_objs) {
        ui_message(u, "nothing selected (j/k select a schedule, location or pod)");
        return UI_REDRAW;
    }
    return ui_open(u, UI_S_DESCRIBE, s, VL_BACKUP, st->paths[st->sel]);
}

/* the selected object, for the action and copy keys (actkeys.c) */
static int health_object(ui_screen *s, ui *u, char *path, size_t n)
{
    (void)u;
    health_state *st = health_of(s);
    if (st->sel < 0 || st->sel >= st->n_objs) return -1;
    snprintf(path, n, "%s", st->paths[st->sel]);
    return 0;
}

/* l: the log of the selected repository's newest maintenance job's pod, in the pager */
static int health_job_log(ui *u, ui_screen *s)
{
    health_state *st = health_of(s);
    if (st->sel < 0 || st->sel >= st->n_objs ||
        !strstr(st->paths[st->sel], "/backuprepositories/")) {
        ui_message(u, "l: select a repository (j/k) for its maintenance job's log");
        return UI_REDRAW;
    }
    if (!st->pods[st->sel][0]) {
        ui_message(u, "no maintenance job pod of this repository is seen (its jobs line says why)");
        return UI_REDRAW;
    }
    return ui_open(u, UI_S_PODLOG, s, VL_BACKUP, st->pods[st->sel]);
}

/* /: filter the objects' lines (Enter keeps, Esc clears) */
static int health_find(ui *u, ui_screen *s)
{
    (void)u;
    health_of(s)->prompting = 1;
    return UI_REDRAW;
}

static int health_clear(ui *u, ui_screen *s)
{
    health_state *st = health_of(s);
    if (!st->filter[0]) return UI_NOTHING; /* Esc goes back */
    (void)u;
    st->filter[0] = 0;
    st->sel = st->top = 0;
    return UI_REDRAW;
}

static int health_on_key(ui_screen *s, ui *u, int ch)
{
    health_state *st = health_of(s);
    if (!st->prompting) return UI_UNHANDLED;
    (void)u;
    int r = ui_prompt_edit(st->filter, sizeof st->filter, &st->prompting, ch);
    if (r != UI_REDRAW) return r;
    st->sel = st->top = 0;
    return UI_REDRAW;
}

static int health_self(ui *u, ui_screen *s)
{
    (void)u, (void)s;
    return UI_NOTHING; /* H on the health screen: it is open */
}

static const ui_key health_keys[] = {
    {UI_C_DOWN, "select the next object", health_down},
    {UI_C_UP, "select the previous object", health_up},
    {UI_C_PGDN, NULL, health_pgdn},
    {UI_C_PGUP, NULL, health_pgup},
    {UI_C_TOP, "the top", health_top},
    {UI_C_BOTTOM, "the end", health_bottom},
    {UI_C_OPEN, "describe the selected object", health_describe},
    {UI_C_DESCRIBE, "describe the selected object (schedule, location, pod)", health_describe},
    {UI_C_LOGS, "log of the selected repository's newest maintenance job", health_job_log},
    {UI_C_WRAP, "wrap long messages under their row on/off", health_wrap},
    {UI_C_LEFT, "scroll the messages left", health_left},
    {UI_C_RIGHT, "scroll the messages right (when not wrapped)", health_right},
    {UI_C_FIND,
     "filter: a regular expression (any case) of an object's name, phase, node or schedule; "
     "!RE the others; -l key=value labels",
     health_find},
    {UI_C_BACK, "clear the filter, else back", health_clear},
    {UI_C_HEALTH, "(this screen)", health_self},
    {UI_C_NONE, NULL, NULL},
};

/* The body as lines: y counts every line, only those in the window are drawn. */
typedef struct hd {
    WINDOW *w;
    int y, top, rows, cols;
    health_state *st; /* objects recorded, selection, wrap and sideways scroll */
    const char *ns;   /* the Velero namespace (objects without their own) */
    int color;        /* colours in use (else failed runs are reversed) */
    const model *m;   /* its clock: cluster times shown on ours (model_local_time) */
    /* the / filter: an object it does not keep is drawn nowhere and its lines are taken back */
    const ui_filter *f;
    int hide;      /* the current object's lines are not shown */
    int hide_from; /* its first line, where the next one goes */
    int sec_objs;  /* objects of the current section, and how many the filter kept */
    int sec_shown;
    int cols_y; /* the section's column names' line, -1 none */
} hd;

/* An object's lines are over: a hidden one's are taken back. */
static void hd_end(hd *d)
{
    if (d->hide) d->y = d->hide_from;
    d->hide = 0;
}

/* The lines from here to the next object, section or hd_end are one object's (its fields and
 * labels are what / matches): hidden when the filter does not keep it. 1 when it is shown. */
static int hd_filter(hd *d, const char *const *fields, size_t nf, char *const *lk, char *const *lv,
                     size_t nl)
{
    hd_end(d);
    d->sec_objs++;
    if (ui_filter_match(d->f, fields, nf, lk, lv, nl)) {
        d->sec_shown++;
        return 1;
    }
    d->hide = 1;
    d->hide_from = d->y;
    return 0;
}

/* A section is over: when it had objects and the filter kept none, one line says so in place of
 * its column names (the title stays: its counts and alarms are the whole section's). */
static void hd_section_end(hd *d)
{
    hd_end(d);
    if (d->f->active && d->sec_objs && !d->sec_shown) {
        if (d->cols_y >= 0) d->y = d->cols_y;
        int r = d->y - d->top;
        if (r >= 0 && r < d->rows) {
            wmove(d->w, r, 0);
            wclrtoeol(d->w);
            w_print(d->w, r, 2, d->cols - 2, A_DIM, "no line matches the filter");
        }
        d->y++;
    }
    d->sec_objs = d->sec_shown = 0;
    d->cols_y = -1;
}

/* The current line is an object's row: records its path; returns 1 when it is the selected one
 * (marked with ">", its name reversed). */
static int hd_object(hd *d, const char *api, const char *ns, const char *plural, const char *name)
{
    health_state *st = d->st;
    if (d->hide || st->n_objs >= HEALTH_MAX_OBJS) return 0;
    int i = st->n_objs++;
    snprintf(st->paths[i], sizeof st->paths[i], "%s/namespaces/%s/%s/%s", api,
             ns && *ns ? ns : d->ns, plural, name ? name : "");
    if (i != st->sel) return 0;
    st->sel_y = st->sel_end = d->y;
    int r = d->y - d->top;
    if (r >= 0 && r < d->rows) w_print(d->w, r, 0, 1, A_BOLD, ">");
    return 1;
}

/* A message in the last column: cut (ellipsis), scrolled sideways by hx, or (wrap) in full on
 * the lines under its row, indented by 4. */
static void hd_message(hd *d, int r, int x, const char *msg, attr_t a)
{
    if (!msg || !*msg) return;
    if (d->st->wrap) {
        int width = d->cols - 4;
        if (width < 10) return;
        int n = w_wrap(NULL, 0, 0, width, 0, 0, msg, 0);
        for (int k = 0; k < n && !d->hide; k++) {
            int rr = d->y + 1 + k - d->top;
            if (rr >= 0 && rr < d->rows) w_wrap(d->w, rr, 4, width, k, 1, msg, a);
        }
        d->y += n; /* the caller's row advances past them */
        return;
    }
    if (x >= d->cols) return;
    int room = d->cols - x, total = 0;
    if (r >= 0)
        total = w_text_from(d->w, r, x, room, d->st->hx, msg, a);
    else
        total = san_width(msg); /* off screen: its width still counts */
    if (r >= 0 && d->st->hx <= 0 && total > room) w_text(d->w, r, x, room, msg, a); /* "…" */
    if (total - room > d->st->hx_max) d->st->hx_max = total - room;
}

/* A width that never runs past the window's right edge (text there would wrap). */
static int hd_clip(const hd *d, int x, int maxcols)
{
    int room = d->cols - x;
    return maxcols < room ? maxcols : room;
}

static int hd_row(hd *d) /* the window row of the current line, -1 when off screen or hidden */
{
    if (d->hide) return -1;
    int r = d->y - d->top;
    return r >= 0 && r < d->rows ? r : -1;
}

static void hd_title_sel(hd *d, const char *fmt, const char *extra, attr_t extra_attr, attr_t sel)
{
    hd_end(d);
    int r = hd_row(d);
    if (r >= 0) {
        int x = w_print(d->w, r, 0, hd_clip(d, 0, d->cols), A_BOLD | sel, "%s", fmt);
        if (extra)
            w_print(d->w, r, x, hd_clip(d, x, d->cols - x), extra_attr | A_BOLD, "%s", extra);
    }
    d->y++;
}

static void hd_title(hd *d, const char *fmt, const char *extra, attr_t extra_attr)
{
    hd_title_sel(d, fmt, extra, extra_attr, 0);
}

static void hd_cols(hd *d, const char *const *names, const int *x, int n)
{
    d->cols_y = d->y;
    int r = hd_row(d);
    for (int i = 0; r >= 0 && i < n; i++)
        if (x[i] < d->cols && (i + 1 == n || x[i + 1] > x[i])) /* a column of no width: none */
            w_print(d->w, r, x[i], hd_clip(d, x[i], d->cols - x[i]), A_UNDERLINE, "%s", names[i]);
    d->y++;
}

/* "unknown: cannot read pods: forbidden": what an input not read leaves unknown, on its own
 * row (the list's error is cluster text: sanitised by w_text). */
static void hd_unread(hd *d, const health *h, health_input in)
{
    int r = hd_row(d);
    if (r >= 0) {
        char *t = xasprintf("unknown: cannot read %s: %s", health_input_name(in), h->unread[in]);
        w_text(d->w, r, 2, hd_clip(d, 2, d->cols - 2), t, w_attr(W_WARN));
        free(t);
    }
    d->y++;
}

/* The schedule's restore readiness (readiness.h) on its own line under its row: "restorable:"
 * then the rest as a message (scrolled sideways, or wrapped), red when it is a finding. */
static void hd_restorable(hd *d, const health *h, const health_schedule *hs)
{
    const ready_schedule *rs = ready_find(h->ready, hs->s->meta.name);
    if (!rs) return;
    char line[768];
    ready_line(h->ready, rs, line, sizeof line);
    attr_t a = rs->stale                                          ? w_attr(W_BAD)
               : !rs->known || (rs->backup && rs->bsl != RDY_YES) ? w_attr(W_WARN)
                                                                  : 0;
    int r = hd_row(d);
    if (r >= 0) w_print(d->w, r, 4, hd_clip(d, 4, 12), A_DIM, "restorable:");
    const char *rest = line + strlen("restorable: ");
    hd_message(d, r, 16, rest, a);
    d->y++;
}

static void hd_schedules(hd *d, const health *h, double wall, int utf8)
{
    char extra[64] = "";
    if (h->n_overdue) snprintf(extra, sizeof extra, "  %d overdue", h->n_overdue);
    char title[64];
    snprintf(title, sizeof title, "Schedules (%zu)", h->n_sch);
    if (h->unread[HEALTH_IN_SCHEDULES][0]) snprintf(title, sizeof title, "Schedules");
    hd_title(d, title, extra, w_attr(W_BAD));
    if (h->unread[HEALTH_IN_SCHEDULES][0]) {
        hd_unread(d, h, HEALTH_IN_SCHEDULES);
        return;
    }
    if (!h->n_sch) {
        int r = hd_row(d);
        if (r >= 0) w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM, "no schedules");
        d->y++;
        return;
    }
    static const char *const names[] = {"NAME",        "SCHEDULE", "PAUSED",
                                        "LAST BACKUP", "NEXT RUN", "LAST RUNS (duration, size)"};
    static const int wide[] = {2, 20, 37, 44, 72, 92}, narrow[] = {2, 16, 30, 37, 59, 80},
                     tiny[] = {2, 13, 25, 25, 43, 61}; /* no PAUSED (NEXT RUN says paused) */
    /* at 80 columns OVERDUE must still show; at 60 NEXT RUN whole */
    const int *x = d->cols >= 110 ? wide : d->cols >= 80 ? narrow : tiny;
    hd_cols(d, names, x, 6);
    /* each schedule's row (and its lines), then its restore readiness on a line of its own */
    for (size_t i = 0; i < h->n_sch; d->y++, hd_restorable(d, h, &h->sch[i]), i++) {
        const health_schedule *hs = &h->sch[i];
        const char *mf[] = {hs->s->meta.name, hs->s->schedule, hs->last ? hs->last->phase : NULL};
        hd_filter(d, mf, 3, hs->s->meta.label_keys, hs->s->meta.label_values, hs->s->meta.nlabels);
        attr_t sel =
            hd_object(d, "/apis/velero.io/v1", hs->s->meta.ns, "schedules", hs->s->meta.name)
                ? A_REVERSE
                : 0;
        int r = hd_row(d);
        /* no room for LAST RUNS beside the row (80 columns): on a line of its own under it */
        int below = x[5] >= d->cols && hs->n_trend;
        if (!hs->cron_ok && d->st->wrap) /* in full on the lines below (r stays the row) */
            hd_message(d, r, 0, hs->cron_err, w_attr(W_BAD));
        if (r < 0) {
            d->y += below;
            continue;
        }
        char b[64], c[64];
        w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), hs->s->meta.name, A_BOLD | sel);
        w_text(d->w, r, x[1], hd_clip(d, x[1], x[2] - x[1] - 1),
               hs->s->schedule ? hs->s->schedule : "-", 0);
        if (x[3] > x[2])
            w_print(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1),
                    hs->s->paused ? w_attr(W_WARN) : 0, "%s", hs->s->paused ? "yes" : "no");
        if (hs->runs_unknown) { /* not "none yet": its backups cannot be read */
            char *t = xasprintf("unknown: cannot read backups: %s", h->unread[HEALTH_IN_BACKUPS]);
            w_text(d->w, r, x[3], hd_clip(d, x[3], x[4] - x[3] - 1), t, w_attr(W_WARN));
            free(t);
        } else if (hs->last) {
            double t = hs->last->started > 0 ? hs->last->started : hs->last->meta.created;
            int xx = x[3];
            xx += w_text(d->w, r, xx, hd_clip(d, xx, 18), hs->last->phase,
                         w_attr(w_phase_role(hs->last->phase_id)));
            xx += w_print(d->w, r, xx, hd_clip(d, xx, x[4] - xx - 1), 0, " %s",
                          fmt_ago(b, sizeof b, wall - t));
        } else {
            w_print(d->w, r, x[3], hd_clip(d, x[3], x[4] - x[3] - 1), A_DIM, "none yet");
        }
        if (!hs->cron_ok) {
            if (!d->st->wrap) hd_message(d, r, x[4], hs->cron_err, w_attr(W_BAD));
            d->y += below;
            continue;
        }
        int xx = x[4];
        if (hs->s->paused)
            xx += w_print(d->w, r, xx, hd_clip(d, xx, x[5] - xx - 1), A_DIM, "paused");
        else if (hs->due.next > 0 && hs->due.next <= wall)
            xx += w_print(d->w, r, xx, hd_clip(d, xx, x[5] - xx - 1), w_attr(W_WARN), "due now");
        else if (hs->due.next > 0)
            xx += w_print(d->w, r, xx, hd_clip(d, xx, x[5] - xx - 1), 0, "in %s",
                          fmt_duration(b, sizeof b, hs->due.next - wall));
        if (hs->due.overdue)
            w_print(d->w, r, xx, hd_clip(d, xx, x[5] - xx - 1), w_attr(W_BAD) | A_BOLD, " OVERDUE");
        if (!hs->n_trend) continue;
        int sx = x[5];
        if (below) { /* the next line, indented */
            d->y++;
            r = hd_row(d);
            if (r < 0) continue;
            sx = 4;
            sx += w_print(d->w, r, sx, hd_clip(d, sx, 11), A_DIM, "last runs ");
        }
        /* durations, a failed run red (reversed without colour), a partial one yellow */
        double vals[HEALTH_TREND];
        attr_t each[HEALTH_TREND];
        for (int k = 0; k < hs->n_trend; k++) {
            vals[k] = hs->dur[k];
            vl_phase ph = hs->phase[k];
            each[k] = ph == VL_PH_FAILED || ph == VL_PH_FAILED_VALIDATION
                          ? (d->color ? w_attr(W_BAD) | A_BOLD : A_REVERSE)
                      : ph == VL_PH_PARTIALLY_FAILED ? w_attr(W_WARN)
                                                     : 0;
        }
        w_sparkline_each(d->w, r, sx, vals, hs->n_trend, w_attr(W_ACTIVE), each);
        (void)utf8;
        int last = hs->n_trend - 1;
        char oc[96], tail[192];
        snprintf(tail, sizeof tail, "%s, %s  %s", fmt_duration(b, sizeof b, hs->dur[last]),
                 hs->bytes_loading ? "bytes loading"
                 : hs->bytes[last] > 0
                     ? fmt_bytes(c, sizeof c, hs->bytes[last])
                     : (snprintf(c, sizeof c, "%lld items", (long long)hs->items[last]), c),
                 health_outcomes(hs, oc, sizeof oc));
        hd_message(d, r, sx + hs->n_trend + 1, tail,
                   hs->n_failed    ? w_attr(W_BAD)
                   : hs->n_partial ? w_attr(W_WARN)
                                   : 0);
    }
}

static void hd_locations(hd *d, const health *h, double wall)
{
    char extra[64] = "", title[64];
    if (h->n_bsl_unavailable)
        snprintf(extra, sizeof extra, "  %d unavailable", h->n_bsl_unavailable);
    snprintf(title, sizeof title, "Storage locations (%zu BSL, %zu VSL)", h->n_bsl, h->n_vsl);
    hd_title(d, title, extra, w_attr(W_BAD));
    if (h->unread[HEALTH_IN_BSLS][0]) hd_unread(d, h, HEALTH_IN_BSLS);
    if (h->unread[HEALTH_IN_VSLS][0]) hd_unread(d, h, HEALTH_IN_VSLS);
    static const char *const names[] = {"NAME",    "KIND",   "PHASE",  "VALIDATED",
                                        "DEFAULT", "ACCESS", "MESSAGE"};
    static const int full[] = {2, 20, 25, 38, 50, 58, 69}, tiny[] = {2, 14, 19, 31, 43, 51, 51};
    const int *x = d->cols >= 80 ? full : tiny; /* at 60: no ACCESS, the message from 51 */
    hd_cols(d, names, x, 7);
    for (int kind = 0; kind < 2; kind++) {
        const vl_bsl **v = kind ? h->vsl : h->bsl;
        size_t n = kind ? h->n_vsl : h->n_bsl;
        for (size_t i = 0; i < n; i++, d->y++) {
            const vl_bsl *b = v[i];
            const char *mf[] = {b->meta.name, kind ? "VSL" : "BSL", b->phase, b->provider};
            hd_filter(d, mf, 4, b->meta.label_keys, b->meta.label_values, b->meta.nlabels);
            attr_t sel =
                hd_object(d, "/apis/velero.io/v1", b->meta.ns,
                          kind ? "volumesnapshotlocations" : "backupstoragelocations", b->meta.name)
                    ? A_REVERSE
                    : 0;
            int r = hd_row(d);
            int bad = b->phase && !strcmp(b->phase, "Unavailable");
            if (r < 0) { /* its lines and width still count (about: "since hh:mm:ss: ") */
                hd_message(d, r, x[6] + (bad && !kind ? 16 : 0), b->message, 0);
                continue;
            }
            char buf[64];
            w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), b->meta.name, A_BOLD | sel);
            w_print(d->w, r, x[1], hd_clip(d, x[1], 4), A_DIM, "%s", kind ? "VSL" : "BSL");
            w_text(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1), b->phase ? b->phase : "-",
                   bad        ? w_attr(W_BAD) | A_BOLD
                   : b->phase ? w_attr(W_GOOD)
                              : A_DIM);
            if (!kind)
                w_print(d->w, r, x[3], hd_clip(d, x[3], x[4] - x[3] - 1), 0, "%s",
                        b->last_validated > 0 ? fmt_ago(buf, sizeof buf, wall - b->last_validated)
                                              : "never");
            w_print(d->w, r, x[4], hd_clip(d, x[4], x[5] - x[4] - 1), 0, "%s",
                    b->is_default ? "yes" : "");
            if (!kind && x[6] > x[5])
                w_text(d->w, r, x[5], hd_clip(d, x[5], x[6] - x[5] - 1),
                       b->access_mode ? b->access_mode : "ReadWrite",
                       b->access_mode && !strcmp(b->access_mode, "ReadOnly") ? w_attr(W_WARN) : 0);
            /* an outage: since when (veltop's first sight), before the server's words */
            char *msg = NULL;
            double since = kind ? 0 : h->bsl_since ? h->bsl_since[i] : 0;
            if (bad && since > 0) {
                char clock[32];
                msg = xasprintf("since %s: %s",
                                fmt_clock(clock, sizeof clock, model_local_time(d->m, since), 0),
                                b->message ? b->message : "");
            }
            const char *shown = msg ? msg : b->message;
            if (d->st->wrap && shown)
                w_print(d->w, r, x[6], hd_clip(d, x[6], d->cols - x[6]), A_DIM, "(below)");
            hd_message(d, r, x[6], shown, bad ? w_attr(W_BAD) : 0);
            free(msg);
        }
    }
}

static void hd_pods(hd *d, const health *h, double wall)
{
    hd_title(d, "Velero server", NULL, 0);
    int r = hd_row(d);
    const kc_pod *p = h->server;
    attr_t psel = 0;
    if (h->pods_known && p) {
        const char *mf[] = {p->name, p->node, p->ready ? "Ready" : "NOT READY", p->version};
        hd_filter(d, mf, 4, p->label_keys, p->label_values, p->nlabels);
        r = hd_row(d);
    }
    if (h->pods_known && p) psel = hd_object(d, "/api/v1", p->ns, "pods", p->name) ? A_REVERSE : 0;
    if (!h->pods_known) { /* unknown, not missing */
        hd_unread(d, h, HEALTH_IN_PODS);
        r = -1;
        d->y--;
    }
    if (r >= 0) {
        if (!p)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), w_attr(W_BAD),
                    "no Velero server pod found");
        else {
            char b[64];
            int x = 2;
            x += w_text(d->w, r, x, hd_clip(d, x, 40), p->name, A_BOLD | psel);
            x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x),
                         p->ready ? w_attr(W_GOOD) : w_attr(W_BAD) | A_BOLD, "  %s",
                         p->ready ? "Ready" : "NOT READY");
            x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x),
                         p->restarts ? w_attr(W_WARN) | A_BOLD : 0, "  %d restart%s", p->restarts,
                         p->restarts == 1 ? "" : "s");
            if (p->last_restart > 0) {
                x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x), w_attr(W_WARN), ", last %s (",
                             fmt_ago(b, sizeof b, wall - p->last_restart));
                x += w_text(d->w, r, x, hd_clip(d, x, 24), p->last_reason ? p->last_reason : "?",
                            w_attr(W_WARN));
                x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x), w_attr(W_WARN), ", exit %d)",
                             p->last_exit_code);
            }
            if (p->waiting_reason) {
                x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x), w_attr(W_BAD), "  ");
                x += w_text(d->w, r, x, hd_clip(d, x, 24), p->waiting_reason, w_attr(W_BAD));
            }
            x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x), 0, "  ");
            x += w_text(d->w, r, x, hd_clip(d, x, 20), p->version ? p->version : "version ?", 0);
            if (p->node) {
                x += w_print(d->w, r, x, hd_clip(d, x, d->cols - x), A_DIM, "  on ");
                w_text(d->w, r, x, hd_clip(d, x, d->cols - x), p->node, A_DIM);
            }
        }
    }
    d->y++;
    hd_section_end(d); /* the server's; the agents' follows */
    if (h->n_servers > 1) {
        r = hd_row(d);
        if (r >= 0)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM,
                    "%zu server pods; showing the newest ready one", h->n_servers);
        d->y++;
    }
    char title[128], extra[96] = "";
    int wanted = health_agents_wanted(h);
    if (!h->pods_known) { /* how many are ready, and where, is unknown: not "0/3 ready" */
        if (h->agent_ds && h->agent_ds->has_status)
            snprintf(title, sizeof title, "Node agents (DaemonSet node-agent: %d desired)",
                     h->agent_ds->desired);
        else
            snprintf(title, sizeof title, "Node agents");
        hd_title_sel(d, title, "", 0,
                     h->agent_ds && hd_object(d, "/apis/apps/v1", h->agent_ds->ns, "daemonsets",
                                              h->agent_ds->name)
                         ? A_REVERSE
                         : 0);
        hd_unread(d, h, HEALTH_IN_PODS);
        if (h->unread[HEALTH_IN_DAEMONSETS][0]) hd_unread(d, h, HEALTH_IN_DAEMONSETS);
        return;
    }
    /* counted against the DaemonSet's desired number, as its own status says */
    if (h->agent_ds && h->agent_ds->has_status)
        snprintf(title, sizeof title, "Node agents (%d/%d ready, DaemonSet node-agent: %d desired)",
                 h->n_agents_ready, wanted, wanted);
    else
        snprintf(title, sizeof title, "Node agents (%d/%zu ready%s)", h->n_agents_ready,
                 h->n_agents, h->ds_known ? ", no node-agent DaemonSet" : "");
    int not_ready = (int)h->n_agents - h->n_agents_ready, missing = wanted - (int)h->n_agents;
    size_t o = 0;
    if (not_ready > 0)
        o += (size_t)snprintf(extra + o, sizeof extra - o, "  %d not ready", not_ready);
    if (missing > 0 && o < sizeof extra)
        snprintf(extra + o, sizeof extra - o, "  %d node%s without one", missing,
                 missing == 1 ? "" : "s");
    /* the DaemonSet is an object of its own (d describes it): its title line, reversed when
     * selected */
    attr_t ds_sel = 0;
    if (h->agent_ds)
        ds_sel = hd_object(d, "/apis/apps/v1", h->agent_ds->ns, "daemonsets", h->agent_ds->name)
                     ? A_REVERSE
                     : 0;
    hd_title_sel(d, title, extra, w_attr(W_BAD), ds_sel);
    /* counted against the pods seen: how many there should be is unknown */
    if (h->unread[HEALTH_IN_DAEMONSETS][0]) hd_unread(d, h, HEALTH_IN_DAEMONSETS);
    if (!h->n_agents && missing <= 0) {
        r = hd_row(d);
        if (r >= 0)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM,
                    h->pods_known ? "no node-agent pods (no file-system backups or data movement)"
                                  : "pods not listed");
        d->y++;
        return;
    }
    static const char *const names[] = {"NODE", "POD", "READY", "RESTARTS"};
    static const int full[] = {2, 24, 56, 64}, tiny[] = {2, 14, 42, 49};
    const int *x = d->cols >= 80 ? full : tiny;
    hd_cols(d, names, x, 4);
    for (size_t i = 0; i < h->n_agents; i++, d->y++) {
        const kc_pod *a = h->agents[i].pod;
        const char *mf[] = {a->node, a->name, a->ready ? "yes" : "NO"};
        hd_filter(d, mf, 3, a->label_keys, a->label_values, a->nlabels);
        attr_t sel = hd_object(d, "/api/v1", a->ns, "pods", a->name) ? A_REVERSE : 0;
        r = hd_row(d);
        if (r < 0) continue;
        w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1),
               a->node ? a->node : "(unscheduled)", sel);
        w_text(d->w, r, x[1], hd_clip(d, x[1], x[2] - x[1] - 1), a->name, 0);
        w_print(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1),
                a->ready ? w_attr(W_GOOD) : w_attr(W_BAD) | A_BOLD, "%s", a->ready ? "yes" : "NO");
        w_print(d->w, r, x[3], hd_clip(d, x[3], d->cols - x[3]), 0, "%d", a->restarts);
    }
    /* the nodes that need one (a volume there waits) and have none, by name; the rest of the
     * DaemonSet's shortfall by count */
    for (size_t i = 0; i < h->n_nodes_without; i++, d->y++) {
        const char *mf[] = {h->nodes_without[i]};
        hd_filter(d, mf, 1, NULL, NULL, 0);
        r = hd_row(d);
        if (r < 0) continue;
        w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), h->nodes_without[i],
               w_attr(W_BAD) | A_BOLD);
        w_print(d->w, r, x[1], hd_clip(d, x[1], d->cols - x[1]), w_attr(W_BAD),
                "no node-agent pod (a volume there waits for one)");
    }
    hd_end(d);
    int unnamed = missing - (int)h->n_nodes_without;
    if (unnamed > 0) {
        r = hd_row(d);
        if (r >= 0)
            w_print(d->w, r, x[0], hd_clip(d, x[0], d->cols - x[0]), w_attr(W_BAD),
                    "%d more node%s without a node-agent pod (which: unknown, veltop does not "
                    "list nodes)",
                    unnamed, unnamed == 1 ? "" : "s");
        d->y++;
    }
}

/* The backup queue (core/queue.h): how many wait, the oldest, and a dead queue or a ReadyToStart
 * backup nobody takes, in red; unknown with why while the backups cannot be read. */
static void hd_queue(hd *d, const health *h)
{
    const queue_summary *q = h->queue;
    char extra[32] = "";
    if (q->known && q->n_waiting) snprintf(extra, sizeof extra, "  %zu waiting", q->n_waiting);
    hd_title(d, "Backup queue", extra, 0);
    char line[768];
    queue_summary_line(q, h->now, line, sizeof line);
    attr_t a = !q->known                        ? w_attr(W_WARN)
               : q->dead_head || q->ready_stuck ? w_attr(W_BAD)
               : q->n_waiting                   ? 0
                                                : A_DIM;
    /* wrapped whole (at most 3 lines): the diagnosis is the point, not to be scrolled to */
    int width = d->cols - 2;
    if (width < 10) width = 10;
    int n = w_wrap(NULL, 0, 0, width, 0, 0, line, 0);
    if (n > 3) n = 3;
    for (int k = 0; k < n; k++, d->y++) {
        int r = hd_row(d);
        if (r >= 0) w_wrap(d->w, r, 2, width, k, 1, line, a);
    }
}

/* What a repository's row says after its figures: the newest failure's message, NotReady's, or
 * how overdue it is (raw cluster text, malloc'd; NULL nothing). */
static char *hd_repo_message(const repo_row *w)
{
    char by[32];
    if (w->failed_streak)
        return xasprintf("last: %s",
                         w->newest && w->newest->message ? w->newest->message : "no message");
    if (w->not_ready) return xstrdup(w->r->message ? w->r->message : "NotReady: no message");
    if (w->overdue && w->age >= 0)
        return xasprintf("overdue by %s", fmt_duration(by, sizeof by, w->age - w->frequency));
    if (w->overdue) return xstrdup("never maintained");
    return w->r->message ? xstrdup(w->r->message) : NULL;
}

/* The repository's maintenance jobs (core/repo.h) on their own line under its row: running now
 * and the last ones; the newest one's pod recorded for l. Red when the newest finished failed,
 * yellow when they cannot be read. */
static void hd_repo_jobs(hd *d, const repo_report *rp, const repo_row *w, int obj)
{
    health_state *st = d->st; /* obj: the repository's row's object, -1 when not recorded */
    const kc_pod *pod = w->n_jobs ? repo_job_pod(rp, w->jobs[0]) : NULL;
    if (obj >= 0)
        snprintf(st->pods[obj], sizeof st->pods[obj], "%s", pod && pod->name ? pod->name : "");
    char line[1024];
    repo_jobs_line(rp, w, line, sizeof line);
    const char *rest = line + strlen("maintenance jobs: ");
    const kc_job *last = w->n_running < w->n_jobs ? w->jobs[w->n_running] : NULL;
    attr_t a = rp->jobs_unread[0]                                ? w_attr(W_WARN)
               : last && !strcmp(repo_job_state(last), "failed") ? w_attr(W_BAD)
               : !w->n_jobs                                      ? A_DIM
                                                                 : 0;
    d->y++; /* under the row (the caller's loop steps past this line) */
    if (obj >= 0 && obj == st->sel) st->sel_end = d->y; /* shown with the row */
    int r = hd_row(d);
    if (r >= 0) w_print(d->w, r, 4, hd_clip(d, 4, 18), A_DIM, "maintenance jobs:");
    hd_message(d, r, 22, rest, a);
}

/* BackupRepositories (core/repo.h): phase, last successful maintenance against the frequency,
 * the failure streak and its last message; unknown with why when they cannot be read. */
static void hd_repos(hd *d, const repo_report *rp)
{
    char extra[96] = "", title[64];
    if (rp->unread[0])
        snprintf(title, sizeof title, "Repositories");
    else
        snprintf(title, sizeof title, "Repositories (%zu)", rp->n);
    if (rp->n_failing || rp->n_overdue || rp->n_not_ready) {
        char sum[128];
        repo_summary(rp, sum, sizeof sum); /* "repositories 3 (1 failing, ...)" */
        const char *paren = strchr(sum, '(');
        snprintf(extra, sizeof extra, "  %.*s", paren ? (int)strcspn(paren + 1, ")") : 0,
                 paren ? paren + 1 : "");
    }
    hd_title(d, title, extra, w_attr(W_BAD));
    if (rp->unread[0]) {
        int r = hd_row(d);
        char why[256];
        if (r >= 0) {
            char *t = xasprintf("unknown: %s", repo_unknown(rp, why, sizeof why));
            w_text(d->w, r, 2, hd_clip(d, 2, d->cols - 2), t, w_attr(W_WARN));
            free(t);
        }
        d->y++;
        return;
    }
    static const char *const names[] = {"NAME",    "VOLUME NS", "BSL",    "TYPE",   "PHASE",
                                        "LAST OK", "EVERY",     "FAILED", "MESSAGE"};
    static const int full[] = {2, 30, 46, 58, 65, 75, 87, 95, 103},
                     tiny[] = {2, 28, 28, 28, 28, 38, 50, 57, 64};
    const int *x = d->cols >= 120 ? full : tiny; /* narrow: no namespace, location, type */
    hd_cols(d, names, x, 9);
    if (!rp->n) {
        int r = hd_row(d);
        if (r >= 0) w_print(d->w, r, x[0], hd_clip(d, x[0], d->cols - x[0]), A_DIM, "none");
        d->y++;
        return;
    }
    for (size_t i = 0; i < rp->n; i++, d->y++) {
        const repo_row *w = &rp->rows[i];
        const kc_repo *k = w->r;
        /* the labels Velero gives a repository from these three fields (velero.io/...) */
        char *lk[] = {"velero.io/volume-namespace", "velero.io/storage-location",
                      "velero.io/repository-type"};
        char *lv[] = {k->volume_ns, k->bsl, k->type};
        const char *mf[] = {k->name, k->volume_ns, k->bsl, k->type, k->phase ? k->phase : "New"};
        hd_filter(d, mf, 5, lk, lv, 3);
        int before = d->st->n_objs;
        attr_t sel = hd_object(d, "/apis/velero.io/v1", k->ns, "backuprepositories", k->name)
                         ? A_REVERSE
                         : 0;
        int r = hd_row(d);
        char *msg = hd_repo_message(w);
        attr_t ma = w->failed_streak || w->not_ready ? w_attr(W_BAD)
                    : w->overdue                     ? w_attr(W_WARN)
                                                     : 0;
        if (r < 0) {
            hd_message(d, r, x[8], msg, ma);
            free(msg);
            hd_repo_jobs(d, rp, w, d->st->n_objs > before ? before : -1);
            continue;
        }
        char buf[64];
        w_text_mid(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), k->name ? k->name : "?",
                   A_BOLD | sel);
        if (x[2] > x[1]) {
            w_text(d->w, r, x[1], hd_clip(d, x[1], x[2] - x[1] - 1),
                   k->volume_ns ? k->volume_ns : "-", 0);
            w_text(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1), k->bsl ? k->bsl : "-", 0);
            w_text(d->w, r, x[3], hd_clip(d, x[3], x[4] - x[3] - 1), k->type ? k->type : "-",
                   A_DIM);
        }
        w_text(d->w, r, x[4], hd_clip(d, x[4], x[5] - x[4] - 1), k->phase ? k->phase : "New",
               w->not_ready                             ? w_attr(W_BAD) | A_BOLD
               : k->phase && !strcmp(k->phase, "Ready") ? w_attr(W_GOOD)
                                                        : A_DIM);
        w_print(d->w, r, x[5], hd_clip(d, x[5], x[6] - x[5] - 1),
                w->overdue ? w_attr(W_WARN) | A_BOLD : 0, "%s",
                w->age >= 0 ? fmt_ago(buf, sizeof buf, w->age) : "never");
        w_print(d->w, r, x[6], hd_clip(d, x[6], x[7] - x[6] - 1), w->frequency_default ? A_DIM : 0,
                "%s", fmt_duration(buf, sizeof buf, w->frequency));
        if (!k->n_recent)
            w_print(d->w, r, x[7], hd_clip(d, x[7], x[8] - x[7] - 1), A_DIM, "-");
        else
            w_print(d->w, r, x[7], hd_clip(d, x[7], x[8] - x[7] - 1),
                    w->failed_streak ? w_attr(W_BAD) | A_BOLD : w_attr(W_GOOD), "%s%d",
                    w->streak_at_least ? ">=" : "", w->failed_streak);
        if (d->st->wrap && msg)
            w_print(d->w, r, x[8], hd_clip(d, x[8], d->cols - x[8]), A_DIM, "(below)");
        hd_message(d, r, x[8], msg, ma);
        free(msg);
        hd_repo_jobs(d, rp, w, d->st->n_objs > before ? before : -1);
    }
}

static void health_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    health_state *st = health_of(s);
    health *h = health_of_app(ui_app(u), ui_wall(u));
    double wall = h->now; /* the cluster's clock: every time shown here is the cluster's */
    st->page = rows;
    ui_filter f;
    ui_filter_compile(&f, st->filter);
    /* a selection moved out of view: a pass that draws nothing finds its line first */
    for (int pass = st->want ? 0 : 1; pass < 2; pass++) {
        hd d = {.w = w,
                .top = st->top,
                .rows = pass ? rows : 0,
                .cols = cols,
                .st = st,
                .ns = ui_app(u)->ns,
                .color = ui_color(u),
                .m = ui_model(u),
                .f = &f,
                .cols_y = -1};
        st->n_objs = 0;
        st->sel_y = -1;
        st->hx_max = 0;
        if (pass) werase(w);
        if (ui_stale(u)) { /* what follows is old: not judged as if current */
            char clock[32];
            int r = hd_row(&d);
            if (r >= 0)
                w_print(w, r, 0, cols, w_attr(W_WARN) | A_BOLD,
                        "unknown: no current data since %s; shown as of then",
                        fmt_clock(clock, sizeof clock, ui_answer_ctx(u)->wall, 0));
            d.y += 2;
        }
        if (st->prompting || st->filter[0]) { /* the filter on the first line */
            int r = hd_row(&d), x = 0;
            if (r >= 0) {
                x = w_print(w, r, 0, cols, st->prompting ? A_BOLD : w_attr(W_ACTIVE), "filter: /");
                x += w_text(w, r, x, cols - x - 30, st->filter, A_BOLD);
                if (st->prompting) w_print(w, r, x, 1, A_REVERSE, " ");
                if (f.error[0] && x + 2 < cols - 30)
                    w_text(w, r, x + 2, cols - 32 - x, f.error, w_attr(W_BAD));
                if (!st->prompting) w_print(w, r, cols - 10, 10, A_DIM, "Esc clears");
            }
            d.y++;
        }
        hd_schedules(&d, h, wall, ui_utf8(u));
        hd_section_end(&d);
        d.y++;
        hd_locations(&d, h, wall);
        hd_section_end(&d);
        d.y++;
        hd_pods(&d, h, wall);
        hd_section_end(&d);
        d.y++;
        hd_queue(&d, h);
        d.y++;
        if (h->repos) hd_repos(&d, h->repos);
        hd_section_end(&d);
        st->lines = d.y;
        if (st->sel >= st->n_objs) st->sel = st->n_objs - 1;
        if (!pass && st->sel_y >= 0) {
            if (st->sel_y < st->top) st->top = st->sel_y > 1 ? st->sel_y - 1 : 0;
            if (st->sel_end >= st->top + rows) st->top = st->sel_end - rows + 1;
        }
    }
    st->want = 0;
    ui_filter_free(&f);
    if (st->hx > st->hx_max) { /* scrolled before a frame measured the lines: back to their end */
        st->hx = st->hx_max;
        ui_invalidate(u);
    }
    health_free(h);
}

static const char *health_hint(ui_screen *s, ui *u)
{
    (void)u;
    if (health_of(s)->prompting) return "type to filter  Enter:keep  Esc:clear  Backspace:erase";
    /* Left/Right and y are in help: at 80 columns the hint keeps Esc, / and the job log key */
    return "j/k:select  d:describe  /:filter  l:job log  W:wrap  Esc:back  " UI_HINT_END;
}

static void health_free_screen(ui_screen *s)
{
    if (!s) return;
    free(s->data);
    free(s);
}

ui_screen *screen_health_new(void)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = "Health";
    s->keys = health_keys;
    s->object = health_object;
    s->draw = health_draw;
    s->free = health_free_screen;
    s->hint = health_hint;
    s->on_key = health_on_key;
    health_state *st = xcalloc(1, sizeof(health_state));
    s->data = st;
    return s;
}
