/* ui.h: the screen framework: a stack of screens (structs of callbacks), key -> action tables,
 * the header and footer, redraw coalescing and the terminal capabilities (UTF-8, colour). */
#pragma once
#include <curses.h>

#include "app.h"

/* What an action or key handler asks for (flags, as htop's). */
enum {
    UI_NOTHING = 0,
    UI_REDRAW = 1,   /* something shown changed: redraw (diffed by ncurses) */
    UI_FULL = 2,     /* repaint the whole terminal (Ctrl-L) */
    UI_QUIT = 4,     /* leave the program */
    UI_UNHANDLED = 8 /* on_key: not mine, try the key tables */
};

typedef struct ui ui;
typedef struct ui_screen ui_screen;

typedef int (*ui_action_fn)(ui *u, ui_screen *s);

/* One entry of a key table; a table ends with an entry whose key is 0. */
typedef struct ui_key {
    int key;           /* a character or a curses KEY_* code */
    const char *label; /* as shown in help, e.g. "j/Down"; NULL: not listed (an alias) */
    const char *help;  /* "next row" */
    ui_action_fn fn;
} ui_key;

/* A screen: the framework owns the stack and calls free when it pops one. */
struct ui_screen {
    const char *title;  /* shown in the header line, e.g. "Detail" */
    const ui_key *keys; /* this screen's key table (NULL: none) */
    /* Draws the body into w (rows x cols, origin 0,0 = first body line). Sanitise cluster text
     * (widgets.h helpers do). */
    void (*draw)(ui_screen *s, ui *u, WINDOW *w, int rows, int cols);
    /* Optional: sees every key first (prompts); return UI_UNHANDLED to fall through to the
     * screen's table, then the global table. */
    int (*on_key)(ui_screen *s, ui *u, int ch);
    void (*enter)(ui_screen *s, ui *u); /* optional: became the top screen */
    void (*leave)(ui_screen *s, ui *u); /* optional: no longer the top screen (popped or covered) */
    void (*free)(ui_screen *s);         /* frees the screen (and data) */
    /* Optional footer hint (keys), NULL for the default. */
    const char *(*hint)(ui_screen *s, ui *u);
    void *data; /* the screen's own state */
};

/* Creation and the main loop (main.c). ui takes nothing it does not own except the app. */
ui *ui_new(app *a);
void ui_free(ui *u);
/* Runs curses until quit; returns 0. stdin is watched through the app's loop. */
int ui_run(ui *u);

/* The screen stack. */
void ui_push(ui *u, ui_screen *s);
void ui_pop(ui *u); /* never pops the last (list) screen */
ui_screen *ui_top(ui *u);

/* Access for screens. */
app *ui_app(ui *u);
model *ui_model(ui *u);
double ui_now(ui *u);  /* monotonic seconds of this frame */
double ui_wall(ui *u); /* unix seconds of this frame */
/* Monotonic time the data on screen is valid at: now while live, the moment the connection was
 * lost while it is down (rates, ETAs and stalls are judged then: no data is not a stall). */
double ui_data_now(ui *u);
int ui_stale(ui *u); /* 1 while the data is stale (the connection is down) */
int ui_utf8(ui *u);  /* 1: UTF-8 block bars and symbols; 0: ASCII */
int ui_color(ui *u); /* 1: colours in use */
/* The run the user is looking at (list selection or the detail screen's run); NULL if none. */
model_run *ui_current_run(ui *u);
void ui_set_current_run(ui *u, vl_kind kind, const char *name);
/* 1 while a run's item total is an estimate (shown "~N"): Velero re-estimates it throughout the
 * item pass (InProgress), and any total seen to change is one until the run ends; not once exact
 * log-derived rows count every item done (its last patch). */
int ui_total_estimated(const model_run *r);
/* The list's view (sort, filter, rows, selection); rebuilt by the framework when the model moves.
 */
view *ui_view(ui *u);
/* The list's current visible order (for [ and ] in screens about one run). */
model_run *ui_adjacent_run(ui *u, int delta); /* delta -1 previous, +1 next; NULL at an end */
/* A transient message in the footer (a few seconds). */
void ui_message(ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Asks for a redraw from outside a key handler (async data arrived). */
void ui_invalidate(ui *u);

/* Screens of this program (constructors). */
ui_screen *screen_list_new(void);
ui_screen *screen_detail_new(vl_kind kind, const char *name);
ui_screen *screen_help_new(void);
void screen_help_set(ui_screen *help, const ui_screen *from); /* shows from's keys */

/* The global key table (q, ?, Ctrl-L) for the help screen. */
extern const ui_key ui_global_keys[];
