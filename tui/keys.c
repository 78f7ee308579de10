/* keys.c: the one key table: every key of the program and the command it means, the same on
 * every screen (as htop's key table). Screens bind commands, not keys (ui.h), so a key cannot mean
 * two things; help, --help and the manual page (doc/veltop.1, checked by tests/e2e/tui_keys.sh)
 * are written from here. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

const ui_command ui_commands[] = {
    {UI_C_QUIT, {'q', 3}, "q/Ctrl-C", "quit", "everywhere"},
    {UI_C_HELP, {'?'}, "?", "help: the keys of this screen (? or Esc closes it)", "everywhere"},
    {UI_C_BACK,
     {27, KEY_BACKSPACE, 127},
     "Esc/Backspace",
     "back to the previous screen",
     "everywhere"},
    {UI_C_REDRAW, {12}, "Ctrl-L", "redraw the whole screen", "everywhere"},

    {UI_C_DOWN, {'j', KEY_DOWN}, "j/Down", "next row (scroll down)", "moving"},
    {UI_C_UP, {'k', KEY_UP}, "k/Up", "previous row (scroll up)", "moving"},
    {UI_C_PGDN, {KEY_NPAGE, ' '}, "PgDn/Space", "page down", "moving"},
    {UI_C_PGUP, {KEY_PPAGE, 'b'}, "PgUp/b", "page up", "moving"},
    {UI_C_TOP, {'g', KEY_HOME}, "g/Home", "first row", "moving"},
    {UI_C_BOTTOM, {'G', KEY_END}, "G/End", "last row", "moving"},
    {UI_C_LEFT, {KEY_LEFT}, "Left", "scroll long lines left", "moving"},
    {UI_C_RIGHT, {KEY_RIGHT}, "Right", "scroll long lines right (when not wrapped)", "moving"},
    {UI_C_WRAP, {'W'}, "W", "wrap long lines on/off", "moving"},

    {UI_C_PREV_RUN,
     {'['},
     "[",
     "previous run (in the list's order), same screen; elsewhere the previous cluster (k9s' [ "
     "steps back through its commands: Esc does that here)",
     "one run"},
    {UI_C_NEXT_RUN,
     {']'},
     "]",
     "next run (in the list's order), same screen; elsewhere the next cluster (k9s' ] steps "
     "forward through its commands)",
     "one run"},
    {UI_C_OPEN, {'\r', '\n', KEY_ENTER}, "Enter", "open the selected row", "one run"},
    {UI_C_VOLUMES, {'v'}, "v", "the run's volumes", "one run"},
    {UI_C_LOGS, {'l'}, "l", "the run's log (live while it is in progress)", "one run"},
    {UI_C_RESULTS, {'r'}, "r", "the run's results: errors and warnings", "one run"},
    {UI_C_DESCRIBE,
     {'d'},
     "d",
     "describe: the object (run, volume, or what health lists) as velero describe shows it, "
     "in the pager (k9s' d)",
     "one run"},
    {UI_C_YAML,
     {'y'},
     "y",
     "the same object as YAML, as kubectl get -o yaml prints it (k9s' y; o there: JSON)",
     "one run"},
    {UI_C_HEALTH,
     {'H'},
     "H",
     "health: schedules, storage locations, server and node-agent pods (from any screen)",
     "the cluster"},

    {UI_C_FIND,
     {'/'},
     "/",
     "find: filter the list or health (regular expressions, !RE, -l key=value, as k9s), search "
     "the log",
     "finding and following"},
    {UI_C_FOLLOW,
     {'f'},
     "f",
     "follow: the newest run in progress, the end of a live log",
     "finding and following"},

    {UI_C_SORT,
     {'s'},
     "s",
     "next sort order (start, name, phase, progress); k9s' s opens a pod's shell, veltop has none",
     "the list"},
    /* Shift+the column's letter, as k9s; the digits stay for the habit of earlier versions. N is
     * also the log pager's previous match (as less): no screen binds both */
    {UI_C_SORT_START,
     {'1', 'S'},
     "1/S",
     "sort by STARTED, newest first (again: the other way)",
     "the list"},
    {UI_C_SORT_NAME, {'2', 'N'}, "2/N", "sort by NAME (again: the other way)", "the list"},
    {UI_C_SORT_PHASE,
     {'3', 'P'},
     "3/P",
     "sort by PHASE, running first (again: the other way)",
     "the list"},
    {UI_C_SORT_PROGRESS,
     {'4', 'I'},
     "4/I",
     "sort by ITEMS done, least done first (again: the other way)",
     "the list"},

    {UI_C_NEXT_MATCH, {'n'}, "n", "next match of the search", "the log pager"},
    {UI_C_PREV_MATCH,
     {'N'},
     "N",
     "previous match (as less; in the list N sorts by NAME)",
     "the log pager"},
    {UI_C_NEXT_ERROR, {'e'}, "e", "next error line", "the log pager"},
    {UI_C_LEVEL, {'L'}, "L", "level filter: all, error, warning, info, debug", "the log pager"},
    {UI_C_WRITE, {'w'}, "w", "write the lines shown to a new file", "the log pager"},

    {UI_C_FORMAT,
     {'o'},
     "o",
     "describe as JSON, YAML (as kubectl) or velero describe",
     "the log pager"},
    {UI_C_COMMAND,
     {':'},
     ":",
     "a command, as k9s: bak, rst (the list of backups, restores), sched, bsl, vsl, repo (health), "
     "pvb, pvr, du, dd (the run's volumes), ctx (pick a context, filtered as you type), ctx NAME",
     "several clusters"},

    /* opt-in (--allow-actions, or contexts.NAME.actions: true in the config file); each asks
     * first. k9s' keys where it has one (t triggers a CronJob, Ctrl-D deletes, Ctrl-K kills);
     * copy is k9s' c (the contexts picker moved to :ctx, as k9s) */
    {UI_C_BACKUP_NOW,
     {'t'},
     "t",
     "back up now from the selected schedule (--from-schedule)",
     "acting (opt-in, asks first)"},
    {UI_C_PAUSE,
     {'p'},
     "p",
     "pause or unpause the selected schedule",
     "acting (opt-in, asks first)"},
    {UI_C_CANCEL,
     {11},
     "Ctrl-K",
     "cancel the selected volume transfer (spec.cancel)",
     "acting (opt-in, asks first)"},
    {UI_C_DELETE,
     {4},
     "Ctrl-D",
     "delete the selected backup (a DeleteBackupRequest)",
     "acting (opt-in, asks first)"},
    {UI_C_COPY,
     {'c'},
     "c",
     "copy the selected object's command (OSC 52), as k9s' c",
     "the selected object"},
    {UI_C_NONE, {0}, NULL, NULL, NULL},
};

ui_cmd ui_key_command(int key)
{
    ui_cmd c;
    return ui_key_commands(key, &c, 1) ? c : UI_C_NONE;
}

int ui_key_commands(int key, ui_cmd *out, int max)
{
    int n = 0;
    if (!key) return 0;
    for (const ui_command *c = ui_commands; c->cmd && n < max; c++)
        for (int i = 0; i < 4 && c->keys[i]; i++)
            if (c->keys[i] == key) {
                out[n++] = c->cmd;
                break;
            }
    return n;
}

const ui_command *ui_command_of(ui_cmd cmd)
{
    for (const ui_command *c = ui_commands; c->cmd; c++)
        if (c->cmd == cmd) return c;
    return NULL;
}

void ui_keys_usage(FILE *f)
{
    const char *group = NULL;
    for (const ui_command *c = ui_commands; c->cmd; c++) {
        if (!group || strcmp(group, c->where)) {
            group = c->where;
            fprintf(f, "  %s:\n", group);
        }
        fprintf(f, "    %-14s %s\n", c->label, c->help);
    }
}
