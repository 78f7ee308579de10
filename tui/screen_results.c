/* screen_results.c: a run's BackupResults / RestoreResults artifact (via a DownloadRequest):
 * errors and warnings grouped under Velero, Cluster and each namespace. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "drill.h"
#include "kubeclient/download.h"
#include "kubeclient/util.h"
#include "results.h"
#include "widgets.h"

typedef struct results_state {
    vl_kind kind;
    char *name;
    ui *u;
    int started, done;
    kc_download *dl;
    kc_buf body;
    kc_err err;
    rs_doc doc; /* the parsed artifact (results.h) */
    int top, rows;
    int nowrap, hx; /* long lines wrap (W: off, then Left/Right scroll them sideways) */
} results_state;

static const w_role results_role[] = {
    [RS_NORMAL] = W_NORMAL, [RS_ERROR] = W_BAD, [RS_WARNING] = W_WARN, [RS_DIM] = W_DIM};

static void results_parse(results_state *st)
{
    rs_parse(&st->doc, st->body.data, st->body.len, &st->err);
    kc_buf_free(&st->body);
}

static void results_data(void *arg, const char *d, size_t n)
{
    results_state *st = arg;
    kc_buf_append(&st->body, d, n);
    ui_invalidate(st->u);
}

static void results_done(void *arg, const kc_err *err)
{
    results_state *st = arg;
    st->done = 1;
    st->err = *err;
    if (!err->msg[0]) results_parse(st);
    ui_invalidate(st->u);
}

static void results_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    results_state *st = s->data;
    st->u = u;
    const char *what = st->kind == VL_BACKUP ? "backup" : "restore";
    if (!st->started) {
        st->started = 1;
        model_run *r = model_find_run(ui_model(u), st->kind, st->name);
        if (r && r->run && !drill_log_stored(r->run)) {
            st->done = 1;
            kc_err_set(&st->err, "results are written when the %s finishes (phase %s)", what,
                       r->run->phase ? r->run->phase : "New");
        } else {
            app *a = ui_app(u);
            kc_download_opts o = {.ns = a->ns,
                                  .kind =
                                      st->kind == VL_BACKUP ? "BackupResults" : "RestoreResults",
                                  .target = st->name};
            st->dl = app_download(a, &o, results_data, results_done, st);
        }
    }
    int x = w_print(w, 0, 0, cols, A_BOLD, "Results of %s ", what);
    x += w_text(w, 0, x, cols - x, st->name, A_BOLD);
    if (!st->done) {
        w_print(w, 0, x, cols - x, w_attr(W_ACTIVE), "  %s...",
                st->dl ? kc_download_state_name(kc_download_state(st->dl)) : "");
        return;
    }
    if (st->err.msg[0]) {
        w_text(w, 2, 0, cols, st->err.msg, w_attr(st->dl ? W_BAD : W_DIM));
        return;
    }
    w_print(w, 0, x, cols - x, w_attr(W_DIM), "  %d error%s, %d warning%s", st->doc.nerr,
            st->doc.nerr == 1 ? "" : "s", st->doc.nwarn, st->doc.nwarn == 1 ? "" : "s");
    st->rows = rows - 2;
    /* the last top that still fills the screen: lines may take several rows when wrapped */
    int max_top = (int)st->doc.n, used = 0;
    while (max_top > 0) {
        const rs_line *l = &st->doc.lines[max_top - 1];
        int r = st->nowrap ? 1 : w_wrap(NULL, 0, 0, cols - l->indent, 0, 0, l->text, 0);
        if (used + r > st->rows) break;
        used += r;
        max_top--;
    }
    if (st->top > max_top) st->top = max_top;
    if (st->top < 0) st->top = 0;
    int y = 2;
    for (size_t i = (size_t)st->top; i < st->doc.n && y < rows; i++) {
        const rs_line *l = &st->doc.lines[i];
        attr_t a = w_attr(results_role[l->role]) | (l->bold ? A_BOLD : 0);
        if (st->nowrap) {
            w_text_from(w, y++, l->indent, cols - l->indent, st->hx, l->text, a);
            continue;
        }
        y += w_wrap(w, y, l->indent, cols - l->indent, 0, rows - y, l->text, a);
    }
}

static int results_scroll(ui_screen *s, int d)
{
    results_state *st = s->data;
    st->top += d;
    if (st->top < 0) st->top = 0;
    return UI_REDRAW;
}
static int results_down(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, 1);
}
static int results_up(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, -1);
}
static int results_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, 20);
}
static int results_pgup(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, -20);
}
static int results_home(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, -1000000);
}
static int results_end(ui *u, ui_screen *s)
{
    (void)u;
    return results_scroll(s, 1000000);
}
static int results_wrap(ui *u, ui_screen *s)
{
    results_state *st = s->data;
    st->nowrap = !st->nowrap;
    st->hx = 0;
    ui_message(u, "wrap %s", st->nowrap ? "off: Left/Right scroll sideways" : "on");
    return UI_REDRAW;
}
static int results_left(ui *u, ui_screen *s)
{
    (void)u;
    results_state *st = s->data;
    st->hx = st->hx > 20 ? st->hx - 20 : 0;
    return UI_REDRAW;
}
static int results_right(ui *u, ui_screen *s)
{
    (void)u;
    results_state *st = s->data;
    if (st->nowrap) st->hx += 20;
    return UI_REDRAW;
}
static int results_prev(ui *u, ui_screen *s)
{
    (void)s;
    return drill_step(u, -1, screen_results_new);
}
static int results_next(ui *u, ui_screen *s)
{
    (void)s;
    return drill_step(u, 1, screen_results_new);
}

static const ui_key results_keys[] = {
    {UI_C_DOWN, "scroll down", results_down},
    {UI_C_UP, "scroll up", results_up},
    {UI_C_PGDN, NULL, results_pgdn},
    {UI_C_PGUP, NULL, results_pgup},
    {UI_C_TOP, "first line", results_home},
    {UI_C_BOTTOM, "last line", results_end},
    {UI_C_WRAP, "wrap long lines on/off (on at first)", results_wrap},
    {UI_C_LEFT, NULL, results_left},
    {UI_C_RIGHT, NULL, results_right},
    {UI_C_PREV_RUN, "previous run (in the list's order)", results_prev},
    {UI_C_NEXT_RUN, "next run", results_next},
    {UI_C_LOGS, "log of this run", drill_open_logs},
    {UI_C_VOLUMES, "volumes of this run", drill_open_volumes},
    {UI_C_DESCRIBE, "describe this run", drill_open_describe},
    {UI_C_NONE, NULL, NULL},
};

static void results_enter(ui_screen *s, ui *u)
{
    results_state *st = s->data;
    st->u = u;
    ui_set_current_run(u, st->kind, st->name);
}

static void results_free(ui_screen *s)
{
    results_state *st = s->data;
    kc_download_free(st->dl);
    kc_buf_free(&st->body);
    rs_doc_free(&st->doc);
    free(st->name);
    free(st);
    free(s);
}

static const char *results_hint(ui_screen *s, ui *u)
{
    (void)s;
    (void)u;
    return "j/k:scroll  [/]:run  l:log  v:volumes  Esc:back  " UI_HINT_END;
}

ui_screen *screen_results_new(vl_kind kind, const char *name)
{
    ui_screen *s = xcalloc(1, sizeof *s);
    results_state *st = xcalloc(1, sizeof *st);
    st->kind = kind;
    st->name = xstrdup(name);
    s->title = "Results";
    s->keys = results_keys;
    s->draw = results_draw;
    s->enter = results_enter;
    s->free = results_free;
    s->hint = results_hint;
    s->data = st;
    return s;
}
