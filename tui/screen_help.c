/* screen_help.c: the keys of the screen underneath and the global keys, from their key tables. */
#include <stdio.h>
#include <stdlib.h>

#include "ui.h"
#include "widgets.h"

typedef struct help_state {
    const ui_key *keys; /* the screen we were called from */
    const char *title;
} help_state;

static int help_table(WINDOW *w, int y, int x, int rows, int colw, const char *title,
                      const ui_key *t)
{
    if (y >= rows) return y;
    w_print(w, y++, x, colw, A_BOLD | A_UNDERLINE, "%s", title);
    for (; t && t->key; t++) {
        if (!t->label) continue;
        if (y >= rows) break;
        w_print(w, y, x + 2, 12, w_attr(W_ACTIVE), "%s", t->label);
        w_print(w, y, x + 14, colw - 14, 0, "%s", t->help);
        y++;
    }
    return y + 1;
}

static void help_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    help_state *h = s->data;
    (void)u;
    int colw = cols > 120 ? 70 : cols - 2;
    int y = help_table(w, 0, 1, rows, colw, h->title ? h->title : "This screen", h->keys);
    y = help_table(w, y, 1, rows, colw, "Everywhere", ui_global_keys);
    static const char *notes[] = {
        "Rate: least-squares slope over the last minute, seeded from the start average.",
        "ETA = remaining / rate, and the clock time it ends; ~N: total is an estimate.",
        "\"stalled\": no progress for 3x the usual interval (items 1 s, bytes 10 s).",
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0] && y < rows; i++)
        w_print(w, y++, 1, cols - 2, A_DIM, "%s", notes[i]);
}

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
    return "Esc:back  q:quit";
}

ui_screen *screen_help_new(void)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = "Help";
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
