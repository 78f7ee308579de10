/* screen_health.c: the health screen (`H` from the list): Schedules with their next run, overdue
 * state and the trend of their last runs; backup and volume snapshot locations; the Velero
 * server pod; node-agents per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "health.h"
#include "kubeclient/util.h"
#include "ui.h"
#include "widgets.h"

typedef struct health_state {
    int top; /* first body line shown */
    int lines, page;
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

static int health_down(ui *u, ui_screen *s)
{
    (void)u;
    return health_scroll(s, 1);
}
static int health_up(ui *u, ui_screen *s)
{
    (void)u;
    return health_scroll(s, -1);
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
    return health_scroll(s, -health_of(s)->lines);
}
static int health_bottom(ui *u, ui_screen *s)
{
    (void)u;
    return health_scroll(s, health_of(s)->lines);
}

static const ui_key health_keys[] = {
    {UI_C_DOWN, "scroll down", health_down},
    {UI_C_UP, "scroll up", health_up},
    {UI_C_PGDN, NULL, health_pgdn},
    {UI_C_PGUP, NULL, health_pgup},
    {UI_C_TOP, "the top", health_top},
    {UI_C_BOTTOM, "the end", health_bottom},
    {UI_C_NONE, NULL, NULL},
};

/* The body as lines: y counts every line, only those in the window are drawn. */
typedef struct hd {
    WINDOW *w;
    int y, top, rows, cols;
} hd;

/* A width that never runs past the window's right edge (text there would wrap). */
static int hd_clip(const hd *d, int x, int maxcols)
{
    int room = d->cols - x;
    return maxcols < room ? maxcols : room;
}

static int hd_row(hd *d) /* the window row of the current line, -1 when off screen */
{
    int r = d->y - d->top;
    return r >= 0 && r < d->rows ? r : -1;
}

static void hd_title(hd *d, const char *fmt, const char *extra, attr_t extra_attr)
{
    int r = hd_row(d);
    if (r >= 0) {
        int x = w_print(d->w, r, 0, hd_clip(d, 0, d->cols), A_BOLD, "%s", fmt);
        if (extra)
            w_print(d->w, r, x, hd_clip(d, x, d->cols - x), extra_attr | A_BOLD, "%s", extra);
    }
    d->y++;
}

static void hd_cols(hd *d, const char *const *names, const int *x, int n)
{
    int r = hd_row(d);
    for (int i = 0; r >= 0 && i < n; i++)
        if (x[i] < d->cols)
            w_print(d->w, r, x[i], hd_clip(d, x[i], d->cols - x[i]), A_UNDERLINE, "%s", names[i]);
    d->y++;
}

static void hd_schedules(hd *d, const health *h, double wall, int utf8)
{
    char extra[64] = "";
    if (h->n_overdue) snprintf(extra, sizeof extra, "  %d overdue", h->n_overdue);
    char title[64];
    snprintf(title, sizeof title, "Schedules (%zu)", h->n_sch);
    hd_title(d, title, extra, w_attr(W_BAD));
    if (!h->n_sch) {
        int r = hd_row(d);
        if (r >= 0) w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM, "no schedules");
        d->y++;
        return;
    }
    static const char *const names[] = {"NAME",        "SCHEDULE", "PAUSED",
                                        "LAST BACKUP", "NEXT RUN", "LAST RUNS (duration, size)"};
    static const int wide[] = {2, 20, 37, 44, 72, 92}, narrow[] = {2, 16, 30, 37, 59, 80};
    const int *x = d->cols >= 110 ? wide : narrow; /* at 80 columns OVERDUE must still show */
    hd_cols(d, names, x, 6);
    for (size_t i = 0; i < h->n_sch; i++, d->y++) {
        const health_schedule *hs = &h->sch[i];
        int r = hd_row(d);
        if (r < 0) continue;
        char b[64], c[64];
        w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), hs->s->meta.name, A_BOLD);
        w_text(d->w, r, x[1], hd_clip(d, x[1], x[2] - x[1] - 1),
               hs->s->schedule ? hs->s->schedule : "-", 0);
        w_print(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1),
                hs->s->paused ? w_attr(W_WARN) : 0, "%s", hs->s->paused ? "yes" : "no");
        if (hs->last) {
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
            w_text(d->w, r, x[4], hd_clip(d, x[4], d->cols - x[4]), hs->cron_err, w_attr(W_BAD));
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
        if (x[5] >= d->cols || !hs->n_trend) continue;
        double vals[HEALTH_TREND];
        for (int k = 0; k < hs->n_trend; k++) vals[k] = hs->dur[k];
        w_sparkline(d->w, r, x[5], vals, hs->n_trend, w_attr(W_ACTIVE));
        (void)utf8;
        int last = hs->n_trend - 1;
        w_print(d->w, r, x[5] + hs->n_trend + 1,
                hd_clip(d, x[5] + hs->n_trend + 1, d->cols - x[5] - hs->n_trend - 1), 0, "%s, %s",
                fmt_duration(b, sizeof b, hs->dur[last]),
                hs->bytes[last] > 0
                    ? fmt_bytes(c, sizeof c, hs->bytes[last])
                    : (snprintf(c, sizeof c, "%lld items", (long long)hs->items[last]), c));
    }
}

static void hd_locations(hd *d, const health *h, double wall)
{
    char extra[64] = "", title[64];
    if (h->n_bsl_unavailable)
        snprintf(extra, sizeof extra, "  %d unavailable", h->n_bsl_unavailable);
    snprintf(title, sizeof title, "Storage locations (%zu BSL, %zu VSL)", h->n_bsl, h->n_vsl);
    hd_title(d, title, extra, w_attr(W_BAD));
    static const char *const names[] = {"NAME",    "KIND",   "PHASE",  "VALIDATED",
                                        "DEFAULT", "ACCESS", "MESSAGE"};
    const int x[] = {2, 20, 25, 38, 50, 58, 69};
    hd_cols(d, names, x, 7);
    for (int kind = 0; kind < 2; kind++) {
        const vl_bsl **v = kind ? h->vsl : h->bsl;
        size_t n = kind ? h->n_vsl : h->n_bsl;
        for (size_t i = 0; i < n; i++, d->y++) {
            int r = hd_row(d);
            if (r < 0) continue;
            const vl_bsl *b = v[i];
            char buf[64];
            int bad = b->phase && !strcmp(b->phase, "Unavailable");
            w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1), b->meta.name, A_BOLD);
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
            if (!kind)
                w_text(d->w, r, x[5], hd_clip(d, x[5], x[6] - x[5] - 1),
                       b->access_mode ? b->access_mode : "ReadWrite",
                       b->access_mode && !strcmp(b->access_mode, "ReadOnly") ? w_attr(W_WARN) : 0);
            if (x[6] < d->cols && b->message)
                w_text(d->w, r, x[6], hd_clip(d, x[6], d->cols - x[6]), b->message,
                       bad ? w_attr(W_BAD) : 0);
        }
    }
}

static void hd_pods(hd *d, const health *h, double wall)
{
    hd_title(d, "Velero server", NULL, 0);
    int r = hd_row(d);
    const kc_pod *p = h->server;
    if (r >= 0) {
        if (!h->pods_known)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM,
                    "pods not listed (yet, or not allowed)");
        else if (!p)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), w_attr(W_BAD),
                    "no Velero server pod found");
        else {
            char b[64];
            int x = 2;
            x += w_text(d->w, r, x, hd_clip(d, x, 40), p->name, A_BOLD);
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
    if (h->n_servers > 1) {
        r = hd_row(d);
        if (r >= 0)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM,
                    "%zu server pods; showing the newest ready one", h->n_servers);
        d->y++;
    }
    char title[64], extra[64] = "";
    snprintf(title, sizeof title, "Node agents (%d/%zu ready)", h->n_agents_ready, h->n_agents);
    if ((size_t)h->n_agents_ready < h->n_agents)
        snprintf(extra, sizeof extra, "  %zu not ready", h->n_agents - (size_t)h->n_agents_ready);
    hd_title(d, title, extra, w_attr(W_BAD));
    if (!h->n_agents) {
        r = hd_row(d);
        if (r >= 0)
            w_print(d->w, r, 2, hd_clip(d, 2, d->cols - 2), A_DIM,
                    h->pods_known ? "no node-agent pods (no file-system backups or data movement)"
                                  : "pods not listed");
        d->y++;
        return;
    }
    static const char *const names[] = {"NODE", "POD", "READY", "RESTARTS"};
    const int x[] = {2, 24, 56, 64};
    hd_cols(d, names, x, 4);
    for (size_t i = 0; i < h->n_agents; i++, d->y++) {
        r = hd_row(d);
        if (r < 0) continue;
        const kc_pod *a = h->agents[i].pod;
        w_text(d->w, r, x[0], hd_clip(d, x[0], x[1] - x[0] - 1),
               a->node ? a->node : "(unscheduled)", 0);
        w_text(d->w, r, x[1], hd_clip(d, x[1], x[2] - x[1] - 1), a->name, 0);
        w_print(d->w, r, x[2], hd_clip(d, x[2], x[3] - x[2] - 1),
                a->ready ? w_attr(W_GOOD) : w_attr(W_BAD) | A_BOLD, "%s", a->ready ? "yes" : "NO");
        w_print(d->w, r, x[3], hd_clip(d, x[3], d->cols - x[3]), 0, "%d", a->restarts);
    }
}

static void health_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    health_state *st = health_of(s);
    health *h = health_of_app(ui_app(u), ui_wall(u));
    double wall = h->now; /* the cluster's clock: every time shown here is the cluster's */
    hd d = {w, 0, st->top, rows, cols};
    hd_schedules(&d, h, wall, ui_utf8(u));
    d.y++;
    hd_locations(&d, h, wall);
    d.y++;
    hd_pods(&d, h, wall);
    st->lines = d.y;
    st->page = rows;
    health_free(h);
}

static const char *health_hint(ui_screen *s, ui *u)
{
    (void)s;
    (void)u;
    return "j/k:scroll  Esc:back  " UI_HINT_END;
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
    s->draw = health_draw;
    s->free = health_free_screen;
    s->hint = health_hint;
    s->data = xcalloc(1, sizeof(health_state));
    return s;
}
