/* screen_picker.c: the `:` prompt (Velero's short names, as k9s) and the context picker (`:ctx`):
 * the kubeconfig's contexts (or the fleet's) filtered as you type; Enter shows the chosen one's
 * list (ui_show_context: a member, else added to the fleet). `:ctx NAME` goes there at once. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drill.h"
#include "fleet.h"
#include "kubeclient/util.h"
#include "ui.h"
#include "widgets.h"

typedef struct picker_state {
    int command;    /* the `:` prompt: text is a command ("ctx NAME") */
    char text[256]; /* what was typed */
    int sel, top;
} picker_state;

static picker_state *picker_of(ui_screen *s)
{
    return s->data;
}

/* The names to pick from: the kubeconfig's, else the fleet's members, else the one shown. */
static size_t picker_names(ui *u, const char ***out)
{
    char *const *names;
    size_t n = ui_context_names(u, &names);
    fleet *f = ui_fleet(u);
    const char **v;
    if (n) {
        v = xcalloc(n, sizeof *v);
        for (size_t i = 0; i < n; i++) v[i] = names[i];
    } else if (f && f->n) {
        n = f->n;
        v = xcalloc(n, sizeof *v);
        for (size_t i = 0; i < n; i++) v[i] = f->m[i]->context;
    } else {
        n = 1;
        v = xcalloc(1, sizeof *v);
        v[0] = ui_app(u)->context;
    }
    *out = v;
    return n;
}

/* The filter: the text, or in command mode what follows "ctx"; NULL when the command is not
 * ctx (no list shown). */
static const char *picker_filter(const picker_state *st)
{
    if (!st->command) return st->text;
    const char *t = st->text;
    while (*t == ' ') t++;
    if (strncmp(t, "ctx", 3) || (t[3] && t[3] != ' ')) return NULL;
    t += 3;
    while (*t == ' ') t++;
    return t;
}

/* The names matching the filter (case-insensitive substring), in order; returns the count. */
static size_t picker_matches(const char **names, size_t n, const char *filter, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!*filter || strcasestr(names[i], filter)) idx[k++] = i;
    return k;
}

/* The `:` commands: Velero's short names (velero CLI and its CRDs' shortNames), as k9s takes
 * them; what each shows. */
typedef enum { PC_BACKUPS, PC_RESTORES, PC_HEALTH, PC_VOLUMES, PC_QUIT } picker_go;
static const struct picker_cmd {
    const char *names[4]; /* the short name first */
    picker_go go;
    vl_kind vol; /* PC_VOLUMES: the kind of volume */
    const char *what;
} picker_cmds[] = {
    {{"bak", "backup", "backups"}, PC_BACKUPS, 0, "backups"},
    {{"rst", "restore", "restores"}, PC_RESTORES, 0, "restores"},
    {{"sched", "schedule", "schedules"}, PC_HEALTH, 0, "schedules (health)"},
    {{"bsl", "backupstoragelocation", "backupstoragelocations"},
     PC_HEALTH,
     0,
     "storage locations (health)"},
    {{"vsl", "volumesnapshotlocation", "volumesnapshotlocations"},
     PC_HEALTH,
     0,
     "snapshot locations (health)"},
    {{"repo", "backuprepository", "backuprepositories"}, PC_HEALTH, 0, "repositories (health)"},
    {{"pvb", "podvolumebackup", "podvolumebackups"},
     PC_VOLUMES,
     VL_PVB,
     "pod volume backups of the run"},
    {{"pvr", "podvolumerestore", "podvolumerestores"},
     PC_VOLUMES,
     VL_PVR,
     "pod volume restores of the run"},
    {{"du", "dataupload", "datauploads"}, PC_VOLUMES, VL_DU, "data uploads of the run"},
    {{"dd", "datadownload", "datadownloads"}, PC_VOLUMES, VL_DD, "data downloads of the run"},
    {{"q", "quit"}, PC_QUIT, 0, "quit"},
};
#define PICKER_NCMDS (sizeof picker_cmds / sizeof picker_cmds[0])

static const struct picker_cmd *picker_command(const char *word)
{
    for (size_t i = 0; i < PICKER_NCMDS; i++)
        for (int j = 0; j < 4 && picker_cmds[i].names[j]; j++)
            if (!strcasecmp(word, picker_cmds[i].names[j])) return &picker_cmds[i];
    return NULL;
}

/* Runs a command that is not ctx; the picker is popped (s freed) first. */
static int picker_run(ui *u, ui_screen *s, const char *t)
{
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(t, " "), t);
    const struct picker_cmd *c = picker_command(word);
    if (!c) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "unknown command '%.60s' (bak rst sched bsl vsl repo pvb pvr du dd ctx q)", t);
        ui_pop(u);
        ui_message(u, "%s", msg);
        return UI_REDRAW;
    }
    (void)s;
    ui_pop(u);
    switch (c->go) {
    case PC_QUIT:
        return UI_QUIT;
    case PC_BACKUPS:
    case PC_RESTORES: {
        ui_show_cluster(u, ui_app(u)); /* this cluster's list, on top */
        view *v = ui_view(u);
        v->kinds = 1 << (c->go == PC_BACKUPS ? VL_BACKUP : VL_RESTORE);
        view_rebuild(v, ui_model(u));
        return UI_REDRAW;
    }
    case PC_HEALTH:
        return ui_open(u, UI_S_HEALTH, ui_top(u), VL_BACKUP, NULL);
    case PC_VOLUMES: {
        model_run *r = ui_current_run(u);
        vl_kind want = c->vol == VL_PVB || c->vol == VL_DU ? VL_BACKUP : VL_RESTORE;
        if (!r || r->kind != want) {
            ui_message(u, "%s: select a %s first (its volumes are listed with it)", word,
                       want == VL_BACKUP ? "backup" : "restore");
            return UI_REDRAW;
        }
        const char *re = c->vol == VL_PVB   ? "^PodVolumeBackup$"
                         : c->vol == VL_PVR ? "^PodVolumeRestore$"
                         : c->vol == VL_DU  ? "^DataUpload$"
                                            : "^DataDownload$";
        ui_screen *under = ui_top(u);
        if (drill_is_volumes(under)) { /* on the run's volumes already: filtered in place */
            drill_volumes_filter(under, re);
            return UI_REDRAW;
        }
        int rc = drill_open_volumes(u, under);
        if (ui_top(u) != under) drill_volumes_filter(ui_top(u), re); /* the rows of that kind */
        return rc;
    }
    }
    return UI_REDRAW;
}

static int picker_choose(ui *u, ui_screen *s)
{
    picker_state *st = picker_of(s);
    const char *filter = picker_filter(st);
    if (!filter) {
        const char *t = st->text;
        while (*t == ' ') t++;
        return picker_run(u, s, t);
    }
    if (st->command && !*filter) { /* ":ctx" alone: the picker */
        st->command = 0;
        st->text[0] = 0;
        st->sel = 0;
        s->title = "Contexts";
        return UI_REDRAW;
    }
    const char **names;
    size_t n = picker_names(u, &names);
    size_t *idx = xcalloc(n, sizeof *idx);
    size_t k = picker_matches(names, n, filter, idx);
    char *pick = NULL;
    for (size_t i = 0; i < n && *filter; i++) /* an exact name wins over the selection */
        if (!strcmp(names[i], filter)) pick = xstrdup(names[i]);
    if (!pick && k && st->sel >= 0 && st->sel < (int)k) pick = xstrdup(names[idx[st->sel]]);
    free(idx);
    free(names);
    if (!pick) {
        ui_message(u, "no context matches '%s'", filter);
        return UI_REDRAW;
    }
    ui_pop(u); /* s is freed: only u from here */
    int r = ui_show_context(u, pick);
    free(pick);
    return r;
}

static int picker_on_key(ui_screen *s, ui *u, int ch)
{
    picker_state *st = picker_of(s);
    size_t len = strlen(st->text);
    if (ch == 27) {
        ui_pop(u);
        return UI_REDRAW;
    }
    if (ch == 3) return UI_QUIT;
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) return picker_choose(u, s);
    if (ch == KEY_DOWN || ch == 14 /* Ctrl-N */) {
        st->sel++;
    } else if (ch == KEY_UP || ch == 16 /* Ctrl-P */) {
        if (st->sel > 0) st->sel--;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (!len) {
            ui_pop(u);
            return UI_REDRAW;
        }
        st->text[len - 1] = 0;
        st->sel = 0;
    } else if (ch == 21) { /* Ctrl-U */
        st->text[0] = 0;
        st->sel = 0;
    } else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof st->text) {
        st->text[len] = (char)ch;
        st->text[len + 1] = 0;
        st->sel = 0;
    } else {
        return UI_NOTHING;
    }
    return UI_REDRAW;
}

static void picker_draw(ui_screen *s, ui *u, WINDOW *w, int rows, int cols)
{
    picker_state *st = picker_of(s);
    int x = w_print(w, 0, 1, cols - 2, A_BOLD, "%s", st->command ? ":" : "context: ");
    x += w_text(w, 0, 1 + x, cols - 3 - x, st->text, A_NORMAL);
    w_print(w, 0, 1 + x, 2, A_REVERSE, " ");
    const char *filter = picker_filter(st);
    if (!filter) { /* the commands the text begins, as you type */
        const char *t = st->text;
        while (*t == ' ') t++;
        size_t tl = strcspn(t, " ");
        int y = 2;
        if (!tl || !strncasecmp("ctx", t, tl))
            w_print(w, y++, 1, cols - 2, A_NORMAL, "%-6s %s", "ctx",
                    "pick a context (ctx NAME: show it)");
        for (size_t i = 0; i < PICKER_NCMDS && y < rows; i++) {
            int hit = !tl;
            for (int j = 0; j < 4 && picker_cmds[i].names[j] && !hit; j++)
                hit = !strncasecmp(picker_cmds[i].names[j], t, tl);
            if (hit)
                w_print(w, y++, 1, cols - 2, A_NORMAL, "%-6s %s", picker_cmds[i].names[0],
                        picker_cmds[i].what);
        }
        if (y == 2)
            w_print(w, y, 1, cols - 2, w_attr(W_BAD), "no command begins '%.*s'", (int)tl, t);
        return;
    }
    const char **names;
    size_t n = picker_names(u, &names);
    size_t *idx = xcalloc(n, sizeof *idx);
    size_t k = picker_matches(names, n, filter, idx);
    if (st->sel >= (int)k) st->sel = k ? (int)k - 1 : 0;
    int body = rows - 2;
    if (st->sel < st->top) st->top = st->sel;
    if (st->sel >= st->top + body) st->top = st->sel - body + 1;
    w_print(w, 1, 1, cols - 2, w_attr(W_DIM), "%zu of %zu contexts", k, n);
    fleet *f = ui_fleet(u);
    for (int r = 0; r < body && st->top + r < (int)k; r++) {
        size_t i = idx[st->top + r];
        int selected = st->top + r == st->sel;
        attr_t a = selected ? w_attr(W_SELECTED) : A_NORMAL;
        if (selected) w_clear_line(w, 2 + r, 0, cols, a);
        int shown = !strcmp(names[i], ui_app(u)->context), watched = shown;
        for (size_t m = 0; f && m < f->n && !watched; m++)
            watched = !strcmp(f->m[m]->context, names[i]);
        w_print(w, 2 + r, 1, 2, a | A_BOLD, "%s", shown ? ">" : " ");
        w_text(w, 2 + r, 3, cols - 16, names[i], a | (shown ? A_BOLD : 0));
        if (watched && cols > 30)
            w_print(w, 2 + r, cols - 10, 9, selected ? a : w_attr(W_DIM), "watched");
    }
    free(idx);
    free(names);
}

static const char *picker_hint(ui_screen *s, ui *u)
{
    (void)u;
    return picker_of(s)->command && !picker_filter(picker_of(s))
               ? "type:command  Enter:run  Esc:close"
               : "type:filter  Up/Down:move  Enter:show  Esc:close";
}

static void picker_free_screen(ui_screen *s)
{
    free(s->data);
    free(s);
}

ui_screen *screen_picker_new(int command)
{
    ui_screen *s = xcalloc(1, sizeof(*s));
    s->title = command ? "Command" : "Contexts";
    s->on_key = picker_on_key;
    s->draw = picker_draw;
    s->free = picker_free_screen;
    s->hint = picker_hint;
    picker_state *st = xcalloc(1, sizeof(picker_state));
    st->command = command;
    s->data = st;
    return s;
}
