/* ui.h: the screen framework: a stack of screens (structs of callbacks), key -> action tables,
 * the header and footer, redraw coalescing and the terminal capabilities (UTF-8, colour). */
#pragma once
#include <curses.h>
#include <regex.h>
#include <stdio.h>

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

/* Commands: what a key means. One table (keys.c, as htop's) maps every key to one command, the
 * same on every screen; a screen binds the commands it handles to actions. Help, the footer keys,
 * --help and the manual page are written from the table. A new screen adds its commands here and
 * in keys.c, then binds them. */
typedef enum ui_cmd {
    UI_C_NONE,
    /* everywhere */
    UI_C_QUIT,
    UI_C_HELP,
    UI_C_BACK,
    UI_C_REDRAW,
    /* moving */
    UI_C_DOWN,
    UI_C_UP,
    UI_C_PGDN,
    UI_C_PGUP,
    UI_C_TOP,
    UI_C_BOTTOM,
    UI_C_LEFT,
    UI_C_RIGHT,
    UI_C_WRAP,
    /* one run */
    UI_C_PREV_RUN,
    UI_C_NEXT_RUN,
    UI_C_OPEN,
    UI_C_VOLUMES,
    UI_C_LOGS,
    UI_C_RESULTS,
    UI_C_DESCRIBE,
    UI_C_YAML,
    UI_C_HEALTH,
    /* finding and following */
    UI_C_FIND,
    UI_C_FOLLOW,
    /* the list */
    UI_C_SORT,
    UI_C_SORT_START,
    UI_C_SORT_NAME,
    UI_C_SORT_PHASE,
    UI_C_SORT_PROGRESS,
    /* the log pager */
    UI_C_NEXT_MATCH,
    UI_C_PREV_MATCH,
    UI_C_NEXT_ERROR,
    UI_C_LEVEL,
    UI_C_WRITE,
    /* several clusters */
    UI_C_COMMAND,
    UI_C_FORMAT,
    /* acting on the cluster (opt-in: tui/actions.c) */
    UI_C_BACKUP_NOW,
    UI_C_PAUSE,
    UI_C_CANCEL,
    UI_C_DELETE,
    UI_C_COPY,
    UI_C_N
} ui_cmd;

/* One row of the key table: a command, its keys, how help shows them, what it means. */
typedef struct ui_command {
    ui_cmd cmd;
    int keys[4];       /* characters or curses KEY_* codes, 0-terminated */
    const char *label; /* the keys as help shows them: "j/Down" */
    const char *help;  /* what it does on any screen: "next row (scroll down)" */
    const char *where; /* the group in --help and the manual: "everywhere", "moving", ... */
} ui_command;
extern const ui_command ui_commands[]; /* ends with cmd UI_C_NONE */
/* The command a key means (UI_C_NONE: none), and a command's row. A key means one command on a
 * screen; two commands share a key only when no screen binds both (N: the list's sort by NAME,
 * the pager's previous match): ui_key_commands gives them all, in the table's order. */
ui_cmd ui_key_command(int key);
int ui_key_commands(int key, ui_cmd *out, int max);
const ui_command *ui_command_of(ui_cmd cmd);
/* The keys in groups, for --help (one line per command, under group titles). */
void ui_keys_usage(FILE *f);

/* A screen's binding of a command to an action; a table ends with cmd UI_C_NONE. */
typedef struct ui_key {
    ui_cmd cmd;
    const char *help; /* this screen's words for it ("next run"); NULL: the command's help */
    ui_action_fn fn;
} ui_key;

/* A screen: the framework owns the stack and calls free when it pops one. */
struct ui_screen {
    const char *title;  /* shown in the header line, e.g. "Detail" */
    const ui_key *keys; /* this screen's command bindings (NULL: none) */
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
    int fleet_wide; /* about every cluster, not one: the header names the fleet, not a context */
    /* Optional: the API path of the selected object (a schedule, a volume...) into path; 0, or
     * -1 when nothing is selected. NULL: the screen is about the current run (ui_current_run).
     * The action and copy keys (tui/actions.c) act on it. */
    int (*object)(ui_screen *s, ui *u, char *path, size_t n);
    void *data; /* the screen's own state */
};

/* The screens the framework and the screens open by kind, through a registry of constructors
 * handed to ui_new (tui/screens.c fills it): no screen calls another's symbols, and ui.c none. */
typedef enum {
    UI_S_LIST,
    UI_S_DETAIL,
    UI_S_HEALTH,
    UI_S_HELP,
    UI_S_FLEET,    /* one row per cluster (several contexts) */
    UI_S_PICKER,   /* the `:` prompt (name ":"), or the context picker (name NULL: `:ctx`) */
    UI_S_DESCRIBE, /* an object described live: name = its API path */
    UI_S_PODLOG,   /* a pod's log in the pager: name = the pod (a maintenance job's) */
    UI_S_N
} ui_screen_kind;
/* A constructor: from = the screen underneath (help shows its keys), kind/name = the run (detail);
 * UI_S_DESCRIBE: name = the object's API path. */
typedef ui_screen *(*ui_screen_ctor)(ui *u, const ui_screen *from, vl_kind kind, const char *name);
extern const ui_screen_ctor tui_screens[UI_S_N]; /* screens.c: this program's screens */
/* Pushes a new screen of that kind; returns UI_REDRAW (UI_NOTHING when none is registered). */
int ui_open(ui *u, ui_screen_kind k, const ui_screen *from, vl_kind kind, const char *name);

/* Creation and the main loop (main.c). ui takes nothing it does not own except the app. */
ui *ui_new(app *a, const ui_screen_ctor *screens);
void ui_free(ui *u);
/* Runs curses until quit (q, Ctrl-C); returns 0, or 128 + the signal (SIGTERM, SIGHUP) that ended
 * it, the terminal restored either way. stdin is watched through the app's loop. */
int ui_run(ui *u);
/* The signal ui_run's status rc says ended it (the program re-raises it once cleaned up, so its
 * parent sees it killed by that signal); 0 when none. */
int ui_exit_signal(int rc);

/* 0 when $TERM names a terminal that can run the full-screen view (known to terminfo, cursor
 * addressing); else -1 with one line (no "veltop: " prefix) saying what is needed. */
int ui_terminal_check(char *why, size_t n);

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
/* One key into a filter prompt's line (buf of n bytes; *prompting 1 while it is open): Esc
 * clears and closes, Enter closes, Backspace erases, Ctrl-U clears, printable ASCII is added.
 * UI_REDRAW when the line or the prompt changed, UI_NOTHING for another key, UI_QUIT for
 * Ctrl-C. */
int ui_prompt_edit(char *buf, size_t n, int *prompting, int ch);
/* A screen's `/` filter, as k9s': a POSIX extended regular expression (any case) matching one
 * of an object's fields; "!RE" the objects it does not match; "-l k=v,k2!=v2,k3" a label
 * selector (key=value, key!=value, key present). */
typedef struct ui_filter {
    int active;   /* a filter is set (else everything matches) */
    int invert;   /* "!RE" */
    int labels;   /* "-l ...": sel holds the selector */
    int compiled; /* re is compiled (ui_filter_free frees it) */
    regex_t re;
    char sel[128];
    char error[160]; /* why nothing matches (not a regular expression); "" */
} ui_filter;
/* Compiles text into f; 0, or -1 with f->error set (then nothing matches). */
int ui_filter_compile(ui_filter *f, const char *text);
/* 1 when the object (its nf fields, NULL ones skipped, and its nl labels) is kept by f. */
int ui_filter_match(const ui_filter *f, const char *const *fields, size_t nf, char *const *lk,
                    char *const *lv, size_t nl);
void ui_filter_free(ui_filter *f);
int ui_utf8(ui *u);  /* 1: UTF-8 block bars and symbols; 0: ASCII */
int ui_color(ui *u); /* 1: colours in use */
/* The run the user is looking at (list selection or the detail screen's run); NULL if none. */
model_run *ui_current_run(ui *u);
void ui_set_current_run(ui *u, vl_kind kind, const char *name);
/* The list's view (sort, filter, rows, selection); rebuilt by the framework when the model moves.
 */
view *ui_view(ui *u);
/* The list's current visible order (for [ and ] in screens about one run). */
model_run *ui_adjacent_run(ui *u, int delta); /* delta -1 previous, +1 next; NULL at an end */
/* The format a describe screen opens in: what the key that opened it asked for (d: velero
 * describe, y: YAML). */
enum { UI_DESC_JSON, UI_DESC_YAML, UI_DESC_SUMMARY };
int ui_describe_format(ui *u);
void ui_set_describe_format(ui *u, int fmt); /* [ and ] in a describe screen keep its format */
/* A transient message in the footer (a few seconds). */
void ui_message(ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Asks for a redraw from outside a key handler (async data arrived). */
void ui_invalidate(ui *u);

/* The health picture of this frame (health.h), shared by every screen drawing it. */
struct health;
struct ans_ctx;
struct run_answer;
const struct health *ui_health(ui *u);
/* The one judgement of run r (answer.h) at this frame: every screen renders it, none computes
 * its own; and the context the frame's answers are computed against. */
void ui_answer(ui *u, const model_run *r, struct run_answer *out);
const struct ans_ctx *ui_answer_ctx(ui *u);

/* Screens of this program (constructors, registered in screens.c). */
ui_screen *screen_list_new(void);
ui_screen *screen_detail_new(vl_kind kind, const char *name);
ui_screen *screen_help_new(void);
void screen_help_set(ui_screen *help, const ui_screen *from); /* shows from's keys */
ui_screen *screen_health_new(void);
ui_screen *screen_fleet_new(void);
ui_screen *screen_picker_new(int command); /* command: the `:` prompt */

/* ---- several clusters (core/fleet.h) ------------------------------------------------------ */
struct fleet;
/* Adds a member for a context of the kubeconfig not yet watched; returns its app or NULL (why
 * in err). */
typedef app *(*ui_ctx_add_fn)(void *arg, const char *context, char *err, size_t errlen);
/* The clusters the ui can show: the fleet's members, and the kubeconfig's context names (NULL:
 * the members only) that the picker offers, added through add when chosen. Not owned. */
void ui_set_fleet(ui *u, struct fleet *f, char *const *names, size_t n_names, ui_ctx_add_fn add,
                  void *arg);
struct fleet *ui_fleet(ui *u);
/* The picker's names: the kubeconfig's when set, else the members'. */
size_t ui_context_names(ui *u, char *const **names);
/* Makes a the app every screen shows (ui_app) with a fresh view; the stack is kept. */
void ui_switch_app(ui *u, app *a);
/* Shows a cluster's list: ui_switch_app, then the stack down to the fleet screen (when several
 * clusters are watched) with that cluster's list on top. By name: a member, else added. */
int ui_show_cluster(ui *u, app *a);
int ui_show_context(ui *u, const char *context);
/* The fleet screen's order (worst first), for [ and ] on other screens. */
void ui_set_fleet_order(ui *u, app *const *order, size_t n);
/* The cluster delta steps from the current one in that order; NULL when none. */
app *ui_adjacent_cluster(ui *u, int delta);

/* The bindings of every screen (quit, help, back, redraw), shown last in help. */
extern const ui_key ui_global_keys[];
/* The footer's key hints, in one style: "key:word" pairs two spaces apart, ending with
 * "?:help". */
#define UI_HINT_END "?:help  q:quit"
