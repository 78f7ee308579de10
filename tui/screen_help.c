/* screen_help.c: the keys of the screen underneath, the global keys, then the rest of the key
 * table (keys.c): every key, written from the table and the screens' bindings; scrolls when it
 * does not fit; ? or Esc closes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "widgets.h"

typedef struct help_state {
    const ui_key *keys; /* the screen we were called from */
    const char *title;
    int top;  /* first line shown */
    int page; /* lines shown at the last draw */
    int n;    /* lines at the last draw */
} help_state;

/* Draws line i of the help if it is on screen (top .. top+rows). */
typedef struct help_out {
    WINDOW *w;
    int top, rows, i;
} help_out;

static int help_visible(help_out *o)
{
    return o->i >= o->top && o->i < o->top + o->rows;
}

static void help_title(help_out *o, int colw, const char *title)
{
    if (help_visible(o)) w_print(o->w, o->i - o->top, 1, colw, A_BOLD | A_UNDERLINE, "%s", title);
    o->i++;
}

/* Wrapped text at column x, width columns, one help line per row. */
static void help_text(help_out *o, int x, int width, const char *text, attr_t a)
{
    int n = w_wrap(NULL, 0, 0, width, 0, 0, text, 0);
    for (int r = 0; r < n; r++, o->i++)
        if (help_visible(o) && o->w) w_wrap(o->w, o->i - o->top, x, width, r, 1, text, a);
}

static int help_binds(const ui_key *t, ui_cmd cmd)
{
    for (; t && t->cmd; t++)
        if (t->cmd == cmd) return 1;
    return 0;
}

/* One key's line(s): the words wrap under themselves when the terminal is narrow. */
static void help_row(help_out *o, int colw, const char *label, const char *words)
{
    int n = w_wrap(NULL, 0, 0, colw - 17, 0, 0, words, 0);
    for (int r = 0; r < n; r++, o->i++) {
        if (!help_visible(o) || !o->w) continue;
        int y = o->i - o->top;
        if (!r) w_print(o->w, y, 3, 14, w_attr(W_ACTIVE), "%s", label);
        w_wrap(o->w, y, 18, colw - 17, r, 1, words, 0);
    }
}

/* A table's keys; those that skip binds are left out (the screen's own binding of a key that
 * works everywhere is the one that acts, and is listed with the screen's). */
static void help_table(help_out *o, int colw, const char *title, const ui_key *t,
                       const ui_key *skip)
{
    help_title(o, colw, title);
    for (; t && t->cmd; t++) {
        const ui_command *c = ui_command_of(t->cmd);
        if (!c || (skip && help_binds(skip, t->cmd))) continue;
        help_row(o, colw, c->label, t->help ? t->help : c->help);
        /* y is describe as YAML wherever describe is (ui.c) */
        if (t->cmd == UI_C_DESCRIBE && !help_binds(t, UI_C_YAML)) {
            const ui_command *y = ui_command_of(UI_C_YAML);
            help_row(o, colw, y->label, y->help);
        }
    }
    o->i++; /* a blank line after each table */
}

/* The rest of the key table (keys.c), under its groups: every key of the program is in help, the
 * ones that act on other screens last. */
static void help_rest(help_out *o, int colw, const ui_key *screen)
{
    help_title(o, colw, "On other screens");
    const char *group = NULL;
    for (const ui_command *c = ui_commands; c->cmd; c++) {
        if (help_binds(screen, c->cmd) || help_binds(ui_global_keys, c->cmd)) continue;
        if (c->cmd == UI_C_YAML && help_binds(screen, UI_C_DESCRIBE)) continue; /* listed there */
        if (!group || strcmp(group, c->where)) {
            group = c->where;
            if (help_visible(o) && o->w)
                w_print(o->w, o->i - o->top, 2, colw - 1, A_DIM, "%s", group);
            o->i++;
        }
        help_row(o, colw, c->label, c->help);
    }
    o->i++;
}

static void help_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    help_state *h = s->data;
    (void)u;
    const char *notes[] = {
        "Rate: least-squares slope over the last minute, seeded from the start average.",
        "ETA = remaining / rate, and the clock time it ends; ~N: total is an estimate.",
        ui_utf8(u) ? "ETA 3m+: it may grow; \u224841m: it leans on the schedule's history."
                   : "ETA 3m+: it may grow; ~41m: it leans on the schedule's history.",
        "\"stalled\": still 3 intervals (items 1 s, bytes 10 s) and past its cadence.",
    };
    int colw = cols > 120 ? 90 : cols - 2;
    int nnotes = (int)(sizeof notes / sizeof notes[0]);
    /* the content's length first, to keep the scroll in range */
    help_out count = {NULL, 0, 0, 0};
    help_table(&count, colw, "", h->keys, NULL);
    help_table(&count, colw, "", ui_global_keys, h->keys);
    help_rest(&count, colw, h->keys);
    for (int i = 0; i < nnotes; i++) help_text(&count, 1, cols - 2, notes[i], 0);
    h->n = count.i;
    int view = h->n > rows ? rows - 1 : rows; /* a line for the position when it scrolls */
    h->page = view;
    if (h->top > h->n - view) h->top = h->n - view;
    if (h->top < 0) h->top = 0;
    help_out o = {w, h->top, view, 0};
    help_table(&o, colw, h->title ? h->title : "This screen", h->keys, NULL);
    help_table(&o, colw, "Everywhere", ui_global_keys, h->keys);
    help_rest(&o, colw, h->keys);
    for (int i = 0; i < nnotes; i++) help_text(&o, 1, cols - 2, notes[i], A_DIM);
    if (view < rows)
        w_print(w, rows - 1, 1, cols - 2, A_DIM, "lines %d-%d of %d (j/k, PgDn/PgUp, g/G)",
                h->top + 1, h->top + view, h->n);
}

static int help_scroll(ui_screen *s, int d)
{
    help_state *h = s->data;
    h->top += d;
    /* the end is known once drawn (a key may come before the first frame): the draw clamps */
    if (h->n && h->top > h->n - h->page) h->top = h->n - h->page;
    if (h->top < 0) h->top = 0;
    return UI_REDRAW;
}

static int help_down(ui *u, ui_screen *s)
{
    (void)u;
    return help_scroll(s, 1);
}
static int help_up(ui *u, ui_screen *s)
{
    (void)u;
    return help_scroll(s, -1);
}
static int help_pgdn(ui *u, ui_screen *s)
{
    (void)u;
    help_state *h = s->data;
    return help_scroll(s, h->page > 1 ? h->page - 1 : 1);
}
static int help_pgup(ui *u, ui_screen *s)
{
    (void)u;
    help_state *h = s->data;
    return help_scroll(s, -(h->page > 1 ? h->page - 1 : 1));
}
static int help_top(ui *u, ui_screen *s)
{
    (void)u;
    return help_scroll(s, -1000000);
}
static int help_bottom(ui *u, ui_screen *s)
{
    (void)u;
    return help_scroll(s, 1000000);
}
/* ? inside help closes it (help never stacks on help) */
static int help_close(ui *u, ui_screen *s)
{
    (void)s;
    ui_pop(u);
    return UI_REDRAW;
}

static const ui_key help_keys[] = {
    {UI_C_DOWN, "scroll down", help_down},
    {UI_C_UP, "scroll up", help_up},
    {UI_C_PGDN, NULL, help_pgdn},
    {UI_C_PGUP, NULL, help_pgup},
    {UI_C_TOP, "first line", help_top},
    {UI_C_BOTTOM, "last line", help_bottom},
    {UI_C_HELP, "close this help", help_close},
    {UI_C_NONE, NULL, NULL},
};

static void help_free(ui_screen *s)
{
    if (!s) return;
    free(s->data);
    free(s);
}

static const char *help_hint(ui_screen *s, ui *u)
{
    (void)s;
    (void)u;
    return "j/k:scroll  Esc:back  q:quit";
}

ui_screen *screen_help_new(void)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = "Help";
    s->keys = help_keys;
    s->draw = help_draw;
    s->free = help_free;
    s->hint = help_hint;
    s->data = xcalloc(1, sizeof(help_state));
    return s;
}

void screen_help_set(ui_screen *help, const ui_screen *from)
{
    help_state *h = help->data;
    if (!from) return;
    h->keys = from->keys;
    h->title = from->title;
}
