/* ui.c: the screen framework: curses setup, the screen stack, key dispatch through key tables,
 * header/footer, signals through a self-pipe, and redraws only when something shown changed,
 * coalesced to at most 20 frames a second and diffed by ncurses (wnoutrefresh/doupdate). */
#include "ui.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <strings.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

#include "actkeys.h"
#include "alert.h"
#include "answer.h"
#include "diagnose.h"
#include "fleet.h"
#include "format.h"
#include "health.h"
#include "logderive.h"
#include "opsfetch.h"
#include "sanitize.h"
#include "widgets.h"

#define UI_MIN_COLS    60 /* every screen lays out down to 60x16 (fewer columns, compact) */
#define UI_MIN_ROWS    16
#define UI_FRAME_MS    50 /* at most 20 frames a second */
#define UI_MAX_SCREENS 16

struct ui {
    app *app;
    ui_screen *stack[UI_MAX_SCREENS];
    int depth;
    view view;
    vl_kind cur_kind;
    char *cur_name; /* malloc'd, NULL: the list's selection */
    double now, wall;
    double stale_since;      /* monotonic: the connection went down; 0 while live */
    double started, vols_at; /* monotonic: ui_run began; volume sums last computed */
    int utf8, color;
    WINDOW *head, *body, *foot;
    int rows, cols;
    int dirty, full, quit;
    int desc_fmt;  /* UI_DESC_*: what the describe key just pressed asked for */
    int signalled; /* the signal (SIGTERM, SIGHUP) that ended the loop; 0 none */
    unsigned long seen_gen, seen_status;
    long seen_second;
    int64_t last_frame_ms;
    int flight_drawn; /* the frame of the runs in flight whole was drawn (unpaced, once) */
    char msg[256];
    double msg_until;
    int sigpipe[2];
    int stdin_id, sig_id;
    const ui_screen_ctor *screens;
    struct health *health; /* the health picture of the frame at health_at (ui_health) */
    double health_at;
    ans_ctx actx; /* what the frame's run answers are computed against (ui_answer) */
    double actx_at;
    /* several clusters: the fleet (not owned), the kubeconfig's names the picker offers, how to
     * add one, and the fleet screen's order for [ and ] */
    fleet *fleet;
    char *const *names;
    size_t n_names;
    ui_ctx_add_fn add;
    void *add_arg;
    app **order;
    size_t n_order;
    unsigned long seen_fleet; /* sum of every member's generations at the last frame */
};

static ui *ui_signal_target;

ui *ui_new(app *a, const ui_screen_ctor *screens)
{
    ui *u = xcalloc(1, sizeof(*u));
    u->app = a;
    u->screens = screens;
    u->health_at = -1;
    u->actx_at = -1;
    view_init(&u->view);
    u->sigpipe[0] = u->sigpipe[1] = -1;
    u->stdin_id = u->sig_id = -1;
    u->now = kc_now_ms() / 1000.0;
    u->wall = kc_wall_now();
    a->derive = logderive_new(a);
    a->opsfetch = opsfetch_new(a);
    return u;
}

void ui_free(ui *u)
{
    if (!u) return;
    tui_actions_shutdown();
    while (u->depth > 0) {
        ui_screen *s = u->stack[--u->depth];
        if (s->free) s->free(s);
    }
    view_clear(&u->view);
    health_free(u->health);
    logderive_free(u->app->derive);
    u->app->derive = NULL;
    opsfetch_free(u->app->opsfetch);
    u->app->opsfetch = NULL;
    free(u->cur_name);
    free(u->order);
    free(u);
}

/* ---- several clusters ------------------------------------------------------------------------ */

void ui_set_fleet(ui *u, fleet *f, char *const *names, size_t n_names, ui_ctx_add_fn add, void *arg)
{
    u->fleet = f;
    u->names = names;
    u->n_names = n_names;
    u->add = add;
    u->add_arg = arg;
}

fleet *ui_fleet(ui *u)
{
    return u->fleet;
}

size_t ui_context_names(ui *u, char *const **names)
{
    if (u->names) {
        *names = u->names;
        return u->n_names;
    }
    *names = NULL;
    return 0;
}

static void ui_on_change(void *arg);

void ui_switch_app(ui *u, app *a)
{
    if (!a || a == u->app) return;
    logderive_free(u->app->derive); /* the live log is read for the cluster shown only */
    u->app->derive = NULL;
    opsfetch_free(u->app->opsfetch); /* so are the plugin operations */
    u->app->opsfetch = NULL;
    view_sort sort = u->view.sort;
    view_clear(&u->view);
    view_init(&u->view);
    u->view.sort = sort;
    u->app = a;
    app_load_all_volumes(a); /* shown: every volume, not only a summary's */
    a->derive = logderive_new(a);
    a->opsfetch = opsfetch_new(a);
    a->on_change = ui_on_change;
    a->on_change_arg = u;
    free(u->cur_name);
    u->cur_name = NULL;
    health_free(u->health);
    u->health = NULL;
    u->health_at = -1;
    u->actx_at = -1; /* the answers are the new cluster's */
    u->stale_since = 0;
    u->seen_gen = (unsigned long)-1;
    view_rebuild(&u->view, a->model);
    u->dirty = 1;
}

int ui_show_cluster(ui *u, app *a)
{
    if (!a) return UI_NOTHING;
    ui_switch_app(u, a);
    while (u->depth > 1) ui_pop(u);
    ui_screen *bottom = ui_top(u);
    if (u->fleet && u->fleet->n > 1) {
        if (bottom && !bottom->fleet_wide) { /* a context added to one: the fleet goes under */
            u->depth = 0;
            if (bottom->leave) bottom->leave(bottom, u);
            if (bottom->free) bottom->free(bottom);
            ui_open(u, UI_S_FLEET, NULL, VL_BACKUP, NULL);
        }
        ui_open(u, UI_S_LIST, NULL, VL_BACKUP, NULL);
    } else if (!bottom) {
        ui_open(u, UI_S_LIST, NULL, VL_BACKUP, NULL);
    }
    return UI_REDRAW;
}

int ui_show_context(ui *u, const char *context)
{
    if (u->fleet)
        for (size_t i = 0; i < u->fleet->n; i++)
            if (!strcmp(u->fleet->m[i]->context, context)) {
                if (!u->fleet->m[i]->app) {
                    ui_message(u, "context %s: %s", context, u->fleet->m[i]->error);
                    return UI_REDRAW;
                }
                return ui_show_cluster(u, u->fleet->m[i]->app);
            }
    if (!strcmp(u->app->context, context)) return ui_show_cluster(u, u->app);
    char err[512] = "not in the kubeconfig";
    app *a = u->add ? u->add(u->add_arg, context, err, sizeof err) : NULL;
    if (!a) {
        ui_message(u, "context %s: %s", context, err);
        return UI_REDRAW;
    }
    return ui_show_cluster(u, a);
}

void ui_set_fleet_order(ui *u, app *const *order, size_t n)
{
    u->order = xrealloc(u->order, (n ? n : 1) * sizeof *u->order);
    memcpy(u->order, order, n * sizeof *order);
    u->n_order = n;
}

app *ui_adjacent_cluster(ui *u, int delta)
{
    if (!u->fleet) return NULL;
    size_t n = u->n_order;
    app *const *v = u->order;
    app **mine = NULL;
    if (!n) { /* the fleet screen never drew: the members' order */
        mine = xcalloc(u->fleet->n ? u->fleet->n : 1, sizeof *mine);
        for (size_t i = 0; i < u->fleet->n; i++)
            if (u->fleet->m[i]->app) mine[n++] = u->fleet->m[i]->app;
        v = mine;
    }
    app *r = NULL;
    for (size_t i = 0; i < n; i++)
        if (v[i] == u->app) {
            long j = (long)i + delta;
            if (j >= 0 && j < (long)n) r = v[j];
            break;
        }
    free(mine);
    return r;
}

app *ui_app(ui *u)
{
    return u->app;
}

model *ui_model(ui *u)
{
    return u->app->model;
}

double ui_now(ui *u)
{
    return u->now;
}

double ui_wall(ui *u)
{
    return u->wall;
}

double ui_data_now(ui *u)
{
    return u->stale_since > 0 && u->stale_since < u->now ? u->stale_since : u->now;
}

int ui_prompt_edit(char *buf, size_t n, int *prompting, int ch)
{
    size_t len = strlen(buf);
    if (ch == 27) {
        buf[0] = 0;
        *prompting = 0;
    } else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
        *prompting = 0;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len) buf[len - 1] = 0;
    } else if (ch == 21) { /* Ctrl-U */
        buf[0] = 0;
    } else if (ch >= 0x20 && ch < 0x7f && len + 1 < n) {
        buf[len] = (char)ch;
        buf[len + 1] = 0;
    } else if (ch == 3) {
        return UI_QUIT;
    } else {
        return UI_NOTHING;
    }
    return UI_REDRAW;
}

int ui_filter_compile(ui_filter *f, const char *text)
{
    memset(f, 0, sizeof *f);
    while (*text == ' ') text++;
    if (!*text) return 0;
    f->active = 1;
    if (!strncmp(text, "-l", 2) && (text[2] == ' ' || !text[2])) { /* k9s: -l key=value,... */
        f->labels = 1;
        for (text += 2; *text == ' ';) text++;
        snprintf(f->sel, sizeof f->sel, "%s", text);
        return 0;
    }
    f->invert = *text == '!';
    text += f->invert;
    if (!*text) { /* "!" alone: nothing typed yet to leave out */
        f->active = 0;
        return 0;
    }
    int rc = regcomp(&f->re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc) {
        char why[64];
        regerror(rc, &f->re, why, sizeof why);
        snprintf(f->error, sizeof f->error, "not a regular expression: %.40s (%.60s)", text, why);
        return -1;
    }
    f->compiled = 1;
    return 0;
}

/* One requirement of a label selector ("k=v", "k==v", "k!=v", "k"; len bytes at p) holds. */
static int ui_filter_label(const char *p, size_t len, char *const *lk, char *const *lv, size_t nl)
{
    size_t kl = strcspn(p, "!=");
    if (kl > len) kl = len;
    int ne = kl < len && p[kl] == '!';
    const char *v = NULL;
    size_t vl = 0;
    if (kl < len) {
        v = p + kl + 1 + ne;
        if (!ne && v < p + len && *v == '=') v++; /* k==v */
        vl = (size_t)(p + len - v);
    }
    int has = 0;
    for (size_t i = 0; i < nl && !has; i++)
        has = lk[i] && strlen(lk[i]) == kl && !strncmp(lk[i], p, kl) &&
              (!v || (lv[i] && strlen(lv[i]) == vl && !strncmp(lv[i], v, vl)));
    return ne ? !has : has;
}

int ui_filter_match(const ui_filter *f, const char *const *fields, size_t nf, char *const *lk,
                    char *const *lv, size_t nl)
{
    if (!f->active) return 1;
    if (f->error[0]) return 0;
    if (f->labels) {
        for (const char *p = f->sel; *p;) {
            while (*p == ' ' || *p == ',') p++;
            size_t len = strcspn(p, ", ");
            if (!len) break;
            if (!ui_filter_label(p, len, lk, lv, nl)) return 0;
            p += len;
        }
        return 1;
    }
    int hit = 0;
    for (size_t i = 0; i < nf && !hit; i++)
        hit = fields[i] && !regexec(&f->re, fields[i], 0, NULL, 0);
    return hit != f->invert;
}

void ui_filter_free(ui_filter *f)
{
    if (f->compiled) regfree(&f->re);
    f->compiled = 0;
}

int ui_stale(ui *u)
{
    return u->stale_since > 0;
}

int ui_utf8(ui *u)
{
    return u->utf8;
}

int ui_color(ui *u)
{
    return u->color;
}

view *ui_view(ui *u)
{
    return &u->view;
}

void ui_invalidate(ui *u)
{
    u->dirty = 1;
}

void ui_message(ui *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->msg, sizeof u->msg, fmt, ap);
    va_end(ap);
    u->msg_until = u->now + 4;
    u->dirty = 1;
}

int ui_describe_format(ui *u)
{
    return u->desc_fmt;
}

void ui_set_describe_format(ui *u, int fmt)
{
    u->desc_fmt = fmt;
}

model_run *ui_current_run(ui *u)
{
    if (!u->cur_name) return view_selected(&u->view);
    return model_find_run(ui_model(u), u->cur_kind, u->cur_name);
}

void ui_set_current_run(ui *u, vl_kind kind, const char *name)
{
    if (!name || !*name) name = NULL;
    if (u->cur_kind == kind && (name ? u->cur_name && !strcmp(u->cur_name, name) : !u->cur_name))
        return;
    u->cur_kind = kind;
    free(u->cur_name);
    u->cur_name = name ? xstrdup(name) : NULL;
    u->dirty = 1;
}

model_run *ui_adjacent_run(ui *u, int delta)
{
    model_run *cur = ui_current_run(u);
    view *v = &u->view;
    for (size_t i = 0; i < v->n_rows; i++) {
        if (v->rows[i] != cur) continue;
        long j = (long)i + delta;
        if (j < 0 || j >= (long)v->n_rows) return NULL;
        return v->rows[j];
    }
    return NULL;
}

int ui_open(ui *u, ui_screen_kind k, const ui_screen *from, vl_kind kind, const char *name)
{
    if (!u->screens || k >= UI_S_N || !u->screens[k]) return UI_NOTHING;
    ui_screen *s = u->screens[k](u, from, kind, name);
    if (!s) return UI_NOTHING;
    ui_push(u, s);
    return UI_REDRAW;
}

/* One health picture per frame, shared by the list's summary, its markers and the detail
 * screen's diagnosis (ui_now identifies the frame). */
const health *ui_health(ui *u)
{
    if (!u->health || u->health_at != ui_now(u)) {
        health_free(u->health);
        u->health = health_of_app(ui_app(u), ui_wall(u));
        u->health_at = ui_now(u);
    }
    return u->health;
}

const ans_ctx *ui_answer_ctx(ui *u)
{
    if (u->actx_at != ui_now(u)) {
        answer_ctx_of_app(u->app, ui_health(u), ui_now(u), ui_wall(u), &u->actx);
        u->actx_at = ui_now(u);
    }
    return &u->actx;
}

void ui_answer(ui *u, const model_run *r, run_answer *out)
{
    answer_run(ui_answer_ctx(u), r, out);
}

ui_screen *ui_top(ui *u)
{
    return u->depth ? u->stack[u->depth - 1] : NULL;
}

void ui_push(ui *u, ui_screen *s)
{
    if (!s) return;
    if (u->depth == UI_MAX_SCREENS) {
        if (s->free) s->free(s);
        return;
    }
    ui_screen *top = ui_top(u);
    if (top && top->leave) top->leave(top, u);
    u->stack[u->depth++] = s;
    if (s->enter) s->enter(s, u);
    u->dirty = 1;
}

void ui_pop(ui *u)
{
    if (u->depth <= 1) return;
    ui_screen *s = u->stack[--u->depth];
    if (s->leave) s->leave(s, u);
    if (s->free) s->free(s);
    ui_screen *top = ui_top(u);
    if (top && top->enter) top->enter(top, u);
    u->dirty = 1;
}

/* ---- global keys ------------------------------------------------------------------------------
 */

static int ui_act_quit(ui *u, ui_screen *s)
{
    (void)u;
    (void)s;
    return UI_QUIT;
}

static int ui_act_help(ui *u, ui_screen *s)
{
    return ui_open(u, UI_S_HELP, s, VL_BACKUP, NULL);
}

static int ui_act_redraw(ui *u, ui_screen *s)
{
    (void)u;
    (void)s;
    return UI_FULL;
}

static int ui_act_back(ui *u, ui_screen *s)
{
    (void)s;
    ui_pop(u);
    return UI_REDRAW;
}

static int ui_act_command(ui *u, ui_screen *s)
{
    return ui_open(u, UI_S_PICKER, s, VL_BACKUP, ":");
}

/* [ and ] where no screen steps through runs: the previous / next cluster */
static int ui_act_cluster(ui *u, int delta)
{
    if (!u->fleet || u->fleet->n < 2) {
        ui_message(u, "one context watched (:ctx picks another)");
        return UI_REDRAW;
    }
    app *a = ui_adjacent_cluster(u, delta);
    if (!a) {
        ui_message(u, delta < 0 ? "the first cluster" : "the last cluster");
        return UI_REDRAW;
    }
    ui_switch_app(u, a);
    return UI_REDRAW;
}

static int ui_act_prev_cluster(ui *u, ui_screen *s)
{
    (void)s;
    return ui_act_cluster(u, -1);
}

static int ui_act_next_cluster(ui *u, ui_screen *s)
{
    (void)s;
    return ui_act_cluster(u, 1);
}

/* H: the health screen from any screen (one meaning everywhere; the health screen binds it to
 * nothing: it is open) */
static int ui_act_health(ui *u, ui_screen *s)
{
    return ui_open(u, UI_S_HEALTH, s, VL_BACKUP, NULL);
}

const ui_key ui_global_keys[] = {
    {UI_C_QUIT, NULL, ui_act_quit},
    {UI_C_HELP, NULL, ui_act_help},
    {UI_C_BACK, NULL, ui_act_back},
    {UI_C_REDRAW, NULL, ui_act_redraw},
    {UI_C_HEALTH, NULL, ui_act_health},
    {UI_C_COMMAND, NULL, ui_act_command},
    {UI_C_PREV_RUN, "previous cluster (the fleet's order)", ui_act_prev_cluster},
    {UI_C_NEXT_RUN, "next cluster (the fleet's order)", ui_act_next_cluster},
    {UI_C_BACKUP_NOW, NULL, tui_act_backup_now},
    {UI_C_PAUSE, NULL, tui_act_pause},
    {UI_C_CANCEL, NULL, tui_act_cancel},
    {UI_C_DELETE, NULL, tui_act_delete},
    {UI_C_COPY, NULL, tui_act_copy},
    {UI_C_NONE, NULL, NULL},
};

static int ui_binds(const ui_key *t, ui_cmd c)
{
    for (; c && t && t->cmd; t++)
        if (t->cmd == c) return 1;
    return 0;
}

static int ui_dispatch_table(ui *u, ui_screen *s, const ui_key *t, ui_cmd c)
{
    for (; c && t && t->cmd; t++)
        if (t->cmd == c) return t->fn(u, s);
    return UI_UNHANDLED;
}

static void ui_apply(ui *u, int r)
{
    if (r == UI_UNHANDLED) return;
    if (r & UI_QUIT) u->quit = 1;
    if (r & UI_FULL) u->full = 1;
    if (r & (UI_REDRAW | UI_FULL)) u->dirty = 1;
}

static void ui_handle_key(ui *u, int ch)
{
    ui_screen *s = ui_top(u);
    int r = UI_UNHANDLED;
    if (ch == KEY_RESIZE) {
        u->full = u->dirty = 1;
        return;
    }
    /* the key's meaning (keys.c), handled by the screen, else everywhere; a key two commands
     * share (N) means the one the screen binds */
    ui_cmd cs[4];
    int nc = ui_key_commands(ch, cs, 4);
    ui_cmd c = nc ? cs[0] : UI_C_NONE;
    for (int i = 0; i < nc; i++)
        if (s && ui_binds(s->keys, cs[i])) {
            c = cs[i];
            break;
        }
    /* d and y open the same describe pager, as velero describe and as YAML (Enter on a volume
     * or a health object: the object as it is, JSON); y is the screen's describe binding when it
     * has no y of its own; [ and ] keep the format of the describe screen they step from */
    if (c != UI_C_PREV_RUN && c != UI_C_NEXT_RUN)
        u->desc_fmt = c == UI_C_YAML       ? UI_DESC_YAML
                      : c == UI_C_DESCRIBE ? UI_DESC_SUMMARY
                                           : UI_DESC_JSON;
    if (c == UI_C_YAML && s && !ui_binds(s->keys, UI_C_YAML)) c = UI_C_DESCRIBE;
    /* too small to show anything: only quitting and redrawing, nothing done unseen */
    if (!u->head) {
        if (c == UI_C_QUIT || c == UI_C_REDRAW)
            ui_apply(u, ui_dispatch_table(u, s, ui_global_keys, c));
        return;
    }
    if (s && s->on_key) r = s->on_key(s, u, ch);
    if (r == UI_UNHANDLED && s) r = ui_dispatch_table(u, s, s->keys, c);
    if (r == UI_UNHANDLED) r = ui_dispatch_table(u, s, ui_global_keys, c);
    /* Esc on a screen that had nothing of its own to undo (the list without a filter) goes back,
     * to the fleet screen under a cluster's list */
    if (c == UI_C_BACK && r == UI_NOTHING && u->depth > 1) r = ui_act_back(u, s);
    ui_apply(u, r);
}

/* ---- drawing ----------------------------------------------------------------------------------
 */

static void ui_windows(ui *u)
{
    if (u->head) delwin(u->head);
    if (u->body) delwin(u->body);
    if (u->foot) delwin(u->foot);
    u->head = u->body = u->foot = NULL;
    getmaxyx(stdscr, u->rows, u->cols);
    if (u->rows < UI_MIN_ROWS || u->cols < UI_MIN_COLS) return;
    u->head = newwin(2, u->cols, 0, 0);
    u->body = newwin(u->rows - 3, u->cols, 2, 0);
    u->foot = newwin(1, u->cols, u->rows - 1, 0);
}

static void ui_draw_header(ui *u)
{
    WINDOW *w = u->head;
    app *a = u->app;
    app_conn c;
    char clock[32], buf[128];
    attr_t h = w_attr(W_HEADER);
    werase(w);
    w_clear_line(w, 0, 0, u->cols, h);
    int x = w_print(w, 0, 0, u->cols, h | A_BOLD, " veltop ");
    ui_screen *top = ui_top(u);
    if (top && top->fleet_wide && u->fleet) { /* about every cluster: no one context's lamp */
        char zone[16];
        x += w_print(w, 0, x, u->cols - x, h, " fleet of %zu contexts", u->fleet->n);
        fmt_clock(clock, sizeof clock, u->wall, 0);
        fmt_zone(zone, sizeof zone, u->wall);
        int cw = (int)strlen(clock) + 1 + (int)strlen(zone) + 1;
        w_print(w, 0, u->cols - cw, cw, h | A_BOLD, "%s %s", clock, zone);
        if (top->title && (int)strlen(top->title) + 2 < u->cols)
            w_print(w, 1, u->cols - (int)strlen(top->title) - 1, (int)strlen(top->title), A_BOLD,
                    "%s", top->title);
        return;
    }
    x += w_print(w, 0, x, u->cols - x, h, " ctx ");
    x += w_text(w, 0, x, 24, a->context, h | A_BOLD);
    x += w_print(w, 0, x, u->cols - x, h, "  ns ");
    x += w_text(w, 0, x, 20, a->ns, h | A_BOLD);
    x += w_print(w, 0, x, u->cols - x, h, "  ");
    x += w_print(w, 0, x, u->cols - x, h | A_BOLD, "%s", tui_actions_mode(u)); /* actkeys.h */
    x += w_print(w, 0, x, u->cols - x, h, "  ");
    char zone[16];
    fmt_clock(clock, sizeof clock, u->wall, 0);
    fmt_zone(zone, sizeof zone, u->wall);
    int cw = (int)strlen(clock) + 1 + (int)strlen(zone) + 1, right = u->cols - cw;
    w_text(w, 0, x, right - x - 1, a->server, h);
    w_print(w, 0, right, cw, h | A_BOLD, "%s %s", clock, zone);

    /* line 2: connection lamp and the screen title */
    app_connection(a, u->now, &c);
    u->stale_since = c.stale_since;
    x = 0;
    long hist = 0;
    const char *dot = u->utf8 ? "\u25cf" : "*";
    if (c.silent_s > 0) {
        char age[32];
        x += w_print(w, 1, x, u->cols, w_attr(W_BAD) | A_BOLD, " %s not responding for %s", dot,
                     fmt_duration(age, sizeof age, c.silent_s));
    } else if (c.live) {
        x += w_print(w, 1, x, u->cols, w_attr(W_GOOD) | A_BOLD, " %s live", dot);
    } else if (c.retrying && c.refused) { /* the server answers, and says no: not an outage */
        x += w_print(w, 1, x, u->cols, w_attr(W_BAD) | A_BOLD, " %s %s (attempt %d, next in %.0fs)",
                     dot, c.refused == 401 ? "unauthorized" : "forbidden", c.attempt,
                     c.next_try_s < 0 ? 0 : c.next_try_s);
    } else if (c.retrying && !c.attempt) {
        x += w_print(w, 1, x, u->cols, w_attr(W_WARN) | A_BOLD, " %s re-listing (next in %.0fs)",
                     dot, c.next_try_s < 0 ? 0 : c.next_try_s);
    } else if (c.retrying) {
        x += w_print(w, 1, x, u->cols, w_attr(W_WARN) | A_BOLD,
                     " %s retrying (attempt %d, next in %.0fs)", dot, c.attempt,
                     c.next_try_s < 0 ? 0 : c.next_try_s);
    } else if (c.error[0]) {
        x += w_print(w, 1, x, u->cols, w_attr(W_BAD) | A_BOLD, " %s error", dot);
    } else if (a->load_phase == APP_LOAD_FLIGHT) { /* in flight first (app.h) */
        x += w_print(w, 1, x, u->cols, w_attr(W_DIM) | A_BOLD,
                     " %s loading the volumes of the runs in flight", dot);
    } else if (a->load_phase == APP_LOAD_HISTORY && app_history_loading(a, &hist)) {
        char n[32];
        x += w_print(w, 1, x, u->cols, w_attr(W_DIM) | A_BOLD,
                     " %s loading history: %s volumes listed", dot,
                     fmt_count(n, sizeof n, (int64_t)hist));
    } else {
        x += w_print(w, 1, x, u->cols, w_attr(W_DIM) | A_BOLD, " %s connecting", dot);
    }
    char skew[64];
    if (fmt_clock_offset(skew, sizeof skew, model_clock_offset(ui_model(u), NULL))[0])
        x += w_print(w, 1, x, u->cols - x, w_attr(W_WARN), "  %s", skew);
    if (c.stale_since > 0 && c.silent_s <= 0) {
        char age[32];
        x += w_print(w, 1, x, u->cols - x, w_attr(W_WARN), "  data stale for %s",
                     fmt_duration(age, sizeof age, u->now - c.stale_since));
    }
    if (c.error[0] && !c.live) {
        x += w_print(w, 1, x, u->cols - x, w_attr(W_BAD), "  ");
        x += w_text(w, 1, x, u->cols - x - 1, c.error, w_attr(W_BAD));
    }
    ui_screen *s = ui_top(u);
    if (s && s->title && x + 4 + (int)strlen(s->title) < u->cols) {
        snprintf(buf, sizeof buf, "%s", s->title);
        w_print(w, 1, u->cols - (int)strlen(buf) - 1, (int)strlen(buf), A_BOLD, "%s", buf);
    }
}

/* The hint cut at whole "key:word" pairs to fit width columns, keeping "?:help" last. */
static void ui_fit_hint(char *out, size_t n, const char *hint, int width)
{
    snprintf(out, n, "%s", hint);
    if ((int)strlen(out) <= width) return;
    const char *tail = "  ?:help";
    char *help = strstr(out, "?:help");
    if (help) *help = 0; /* pairs before it */
    size_t keep = 0;
    for (char *p = out; *p;) {
        char *sep = strstr(p, "  ");
        size_t end = sep ? (size_t)(sep - out) : strlen(out);
        if ((int)(end + strlen(tail)) > width) break;
        keep = end;
        if (!sep) break;
        p = sep + 2;
    }
    if (!help) {
        out[keep] = 0;
        return;
    }
    out[keep] = 0;
    if ((int)(keep + strlen(tail)) <= width && n > keep + strlen(tail))
        snprintf(out + keep, n - keep, "%s", keep ? tail : tail + 2);
}

static void ui_draw_footer(ui *u)
{
    WINDOW *w = u->foot;
    attr_t h = w_attr(W_HEADER);
    werase(w);
    w_clear_line(w, 0, 0, u->cols, h);
    ui_screen *s = ui_top(u);
    if (u->msg[0] && u->now < u->msg_until) {
        w_text(w, 0, 1, u->cols - 2, u->msg, h | A_BOLD);
        return;
    }
    const char *hint = s && s->hint ? s->hint(s, u) : NULL;
    char fit[256];
    ui_fit_hint(fit, sizeof fit, hint ? hint : UI_HINT_END, u->cols - 2);
    int x = w_print(w, 0, 1, u->cols - 2, h, "%s", fit) + 1;
    if (s && s->fleet_wide) return; /* the fleet screen has its totals */
    /* right: what is moving and what is stuck, over every run (filter or not) */
    model *m = ui_model(u);
    size_t running = 0, stalled = 0;
    for (size_t i = 0; i < m->n_runs; i++) {
        const model_run *r = m->runs[i];
        if (!r->run || !vl_phase_active(r->run->phase_id)) continue;
        running++;
        run_answer a;
        ui_answer(u, r, &a);
        stalled += a.stalled == ANS_YES;
    }
    char st[32] = "", total[32];
    if (stalled) snprintf(st, sizeof st, "  %zu stalled", stalled);
    snprintf(total, sizeof total, "  %zu runs", m->n_runs);
    /* the whole summary, else without the total, else nothing (narrow terminal, long hint) */
    for (int variant = 0; variant < 2; variant++) {
        const char *tot = variant ? "" : total;
        int rw = snprintf(NULL, 0, "%zu in progress%s%s", running, st, tot);
        if (x + 2 + rw + 1 > u->cols) continue;
        int rx = u->cols - rw - 1;
        rx += w_print(w, 0, rx, rw, h, "%zu in progress", running);
        if (stalled) rx += w_print(w, 0, rx, rw, h | A_BOLD, "%s", st);
        w_print(w, 0, rx, u->cols - rx, h, "%s", tot);
        return;
    }
}

/* Alerts of the cluster shown, or of every cluster of a fleet, each naming its context, each
 * judged on its own data time. */
static void ui_alerts(ui *u)
{
    if (!u->fleet || u->fleet->n < 2) {
        alert_ui_tick_ctx(ui_answer_ctx(u), u->app->model, u->app->context, 0);
        return;
    }
    for (size_t i = 0; i < u->fleet->n; i++) {
        app *a = u->fleet->m[i]->app;
        if (!a) continue;
        ans_ctx c; /* its own data time and freshness; no health needed to judge a stall */
        answer_ctx_of_app(a, NULL, u->now, u->wall, &c);
        alert_ui_tick_ctx(&c, a->model, a->context, 1);
    }
}

static unsigned long ui_fleet_gen(ui *u)
{
    unsigned long g = 0;
    if (u->fleet)
        for (size_t i = 0; i < u->fleet->n; i++)
            if (u->fleet->m[i]->app)
                g += u->fleet->m[i]->app->model->gen + u->fleet->m[i]->app->gen_status;
    return g;
}

static void ui_draw(ui *u)
{
    if (u->full) {
        clearok(curscr, TRUE);
        u->full = 0;
    }
    if (!u->head) {
        erase();
        /* one line when it fits, else one short line per part, centred, cut to the width */
        char full[128], size[32], need[32];
        snprintf(size, sizeof size, "%dx%d", u->cols, u->rows);
        snprintf(need, sizeof need, "needs %dx%d", UI_MIN_COLS, UI_MIN_ROWS);
        snprintf(full, sizeof full, "terminal too small: %s, veltop %s (q quits)", size, need);
        const char *parts[] = {"terminal too small:", size, need, "q quits"};
        const char *one[] = {full};
        const char **msg = parts;
        int n = 4;
        if ((int)strlen(full) <= u->cols) {
            msg = one;
            n = 1;
        }
        int y0 = u->rows > n ? (u->rows - n) / 2 : 0;
        for (int i = 0; i < n && y0 + i < u->rows; i++) {
            int len = (int)strlen(msg[i]);
            mvaddnstr(y0 + i, u->cols > len ? (u->cols - len) / 2 : 0, msg[i], u->cols);
        }
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    ui_alerts(u); /* bell, title, --notify */
    ui_draw_header(u);
    werase(u->body);
    ui_screen *s = ui_top(u);
    if (s && s->draw) s->draw(s, u, u->body, u->rows - 3, u->cols);
    ui_draw_footer(u);
    wnoutrefresh(u->head);
    wnoutrefresh(u->body);
    wnoutrefresh(u->foot);
    doupdate();
}

/* ---- input and signals ----------------------------------------------------------------------- */

static void ui_on_stdin(void *arg, int fd, short revents)
{
    ui *u = arg;
    (void)fd;
    (void)revents;
    int ch;
    while (!u->quit && (ch = getch()) != ERR) ui_handle_key(u, ch);
}

static void ui_resize(ui *u)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    ui_windows(u);
    u->full = u->dirty = 1;
}

static void ui_on_signal_pipe(void *arg, int fd, short revents)
{
    ui *u = arg;
    unsigned char sig[64];
    (void)revents;
    ssize_t n;
    while ((n = read(fd, sig, sizeof sig)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (sig[i] == SIGWINCH) {
                ui_resize(u);
            } else {
                u->quit = 1;
                /* Ctrl-C (SIGINT) is the user quitting, as q; TERM and HUP end the program */
                if (!u->signalled && sig[i] != SIGINT) u->signalled = sig[i];
            }
        }
    }
}

static void ui_signal_handler(int sig)
{
    int saved = errno;
    if (ui_signal_target && ui_signal_target->sigpipe[1] >= 0) {
        unsigned char c = (unsigned char)sig;
        ssize_t r = write(ui_signal_target->sigpipe[1], &c, 1);
        (void)r;
    }
    errno = saved;
}

static void ui_on_change(void *arg)
{
    ui *u = arg;
    (void)u; /* the loop below compares generations after every wake-up */
}

int ui_run(ui *u)
{
    const char *cs = nl_langinfo(CODESET);
    u->utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
    san_set_ascii(!u->utf8);

    /* Nothing a library or child writes may land on the screen: stderr goes to /dev/null (or
     * $VELTOP_LOG) while curses runs. */
    int saved_err = dup(STDERR_FILENO);
    const char *log = getenv("VELTOP_LOG");
    int nfd =
        open(log && *log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (nfd >= 0) {
        dup2(nfd, STDERR_FILENO);
        close(nfd);
    }

    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* Home and End as terminals and multiplexers send them whatever $TERM says (tmux and screen:
     * CSI 1~ / 4~, rxvt: 7~ / 8~, xterm: CSI H / F or SS3 H / F) */
    static const char *homes[] = {"\033[1~", "\033[7~", "\033[H", "\033OH"};
    static const char *ends[] = {"\033[4~", "\033[8~", "\033[F", "\033OF"};
    for (size_t i = 0; i < 4; i++) {
        if (key_defined(homes[i]) == 0) define_key(homes[i], KEY_HOME);
        if (key_defined(ends[i]) == 0) define_key(ends[i], KEY_END);
    }
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    u->color = has_colors() && !getenv("NO_COLOR");
    w_init(u->color, u->utf8);

    if (pipe2(u->sigpipe, O_CLOEXEC | O_NONBLOCK) == 0) {
        ui_signal_target = u;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = ui_signal_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGWINCH, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        u->sig_id = kc_loop_watch_fd(u->app->loop, u->sigpipe[0], POLLIN, ui_on_signal_pipe, u);
    }
    u->stdin_id = kc_loop_watch_fd(u->app->loop, STDIN_FILENO, POLLIN, ui_on_stdin, u);
    u->app->on_change = ui_on_change;
    u->app->on_change_arg = u;
    u->app->hold_for_frame = 1;
    if (u->fleet)
        for (size_t i = 0; i < u->fleet->n; i++)
            if (u->fleet->m[i]->app) {
                u->fleet->m[i]->app->on_change = ui_on_change;
                u->fleet->m[i]->app->on_change_arg = u;
            }

    u->started = kc_now_ms() / 1000.0;
    if (!u->depth) ui_open(u, UI_S_LIST, NULL, VL_BACKUP, NULL);
    ui_windows(u);
    u->dirty = 1;
    u->seen_gen = (unsigned long)-1;
    while (!u->quit) {
        int64_t now_ms = kc_now_ms();
        int wait;
        /* the runs in flight are whole and the history waits for a frame of them: that frame
         * is the one the user opened veltop for, and is not paced behind the rows' frames */
        int flight_frame = u->app->release_timer && !u->flight_drawn;
        if (u->dirty) {
            wait = flight_frame ? 0 : (int)(u->last_frame_ms + UI_FRAME_MS - now_ms);
            if (wait < 0) wait = 0;
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            wait = 1000 - (int)(ts.tv_nsec / 1000000) + 2; /* just after the next second */
        }
        kc_loop_run_once(u->app->loop, wait);
        now_ms = kc_now_ms();
        u->now = now_ms / 1000.0;
        u->wall = kc_wall_now();
        app_sync_clock(u->app);
        if ((long)u->wall != u->seen_second) {
            u->seen_second = (long)u->wall; /* visible clocks tick */
            u->dirty = 1;
        }
        if (ui_model(u)->gen != u->seen_gen || u->app->gen_status != u->seen_status) u->dirty = 1;
        ui_screen *top = ui_top(u);
        if (top && top->fleet_wide && ui_fleet_gen(u) != u->seen_fleet) u->dirty = 1;
        flight_frame = u->app->release_timer && !u->flight_drawn;
        if (u->dirty && !u->quit && (flight_frame || now_ms - u->last_frame_ms >= UI_FRAME_MS)) {
            if (flight_frame) u->flight_drawn = 1;
            /* rows show and sort as the lists arrive (at most a frame every UI_FRAME_MS);
             * volume sums at most 4 times a second (O(volumes)) */
            /* ... and at once when the history waits for a frame of the runs in flight */
            if (ui_model(u)->vols_dirty && (u->now - u->vols_at >= 0.25 || u->app->release_timer)) {
                model_refresh_volumes(ui_model(u));
                u->vols_at = u->now;
            }
            if (ui_model(u)->gen != u->seen_gen) {
                view_rebuild(&u->view, ui_model(u));
                u->seen_gen = ui_model(u)->gen;
            }
            u->seen_status = u->app->gen_status;
            u->seen_fleet = ui_fleet_gen(u);
            u->dirty = 0;
            ui_draw(u);
            u->last_frame_ms = now_ms;
            if (!u->app->model->vols_dirty) app_frame_drawn(u->app);
            if (u->fleet)
                for (size_t i = 0; i < u->fleet->n; i++)
                    if (u->fleet->m[i]->app) app_frame_drawn(u->fleet->m[i]->app);
        }
    }

    kc_loop_unwatch_fd(u->app->loop, u->stdin_id);
    if (u->sig_id >= 0) kc_loop_unwatch_fd(u->app->loop, u->sig_id);
    u->app->on_change = NULL;
    if (u->fleet)
        for (size_t i = 0; i < u->fleet->n; i++)
            if (u->fleet->m[i]->app) u->fleet->m[i]->app->on_change = NULL;
    if (u->head) delwin(u->head);
    if (u->body) delwin(u->body);
    if (u->foot) delwin(u->foot);
    u->head = u->body = u->foot = NULL;
    endwin();
    signal(SIGWINCH, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    ui_signal_target = NULL;
    if (u->sigpipe[0] >= 0) close(u->sigpipe[0]);
    if (u->sigpipe[1] >= 0) close(u->sigpipe[1]);
    if (saved_err >= 0) {
        dup2(saved_err, STDERR_FILENO);
        close(saved_err);
    }
    /* ended by a signal: say so as a program the signal killed does (the caller cleans up, then
     * re-raises it: ui_exit_signal) */
    return u->signalled ? 128 + u->signalled : 0;
}

int ui_exit_signal(int rc)
{
    return rc > 128 && (rc - 128 == SIGTERM || rc - 128 == SIGHUP) ? rc - 128 : 0;
}

int ui_terminal_check(char *why, size_t n)
{
    const char *t = getenv("TERM");
    int err = 0;
    if (!t || !*t) {
        snprintf(why, n,
                 "TERM is not set: the full-screen view needs a terminal type such as "
                 "xterm-256color (or use --once for a one-shot table)");
        return -1;
    }
    if (setupterm(t, STDOUT_FILENO, &err) != OK) {
        snprintf(why, n,
                 "unknown terminal type TERM=%.40s (no terminfo entry): the full-screen view needs "
                 "a terminal such as xterm-256color (or use --once for a one-shot table)",
                 t);
        return -1;
    }
    const char *cup = tigetstr("cup");
    int ok = cup && cup != (char *)-1;
    del_curterm(cur_term);
    if (!ok) {
        snprintf(why, n,
                 "TERM=%.40s cannot move the cursor: the full-screen view needs a terminal such as "
                 "xterm-256color (or use --once for a one-shot table)",
                 t);
        return -1;
    }
    return 0;
}
