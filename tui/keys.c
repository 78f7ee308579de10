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
     "previous run (in the list's order), same screen; elsewhere the previous cluster",
     "one run"},
    {UI_C_NEXT_RUN,
     {']'},
     "]",
     "next run (in the list's order), same screen; elsewhere the next cluster",
     "one run"},
    {UI_C_OPEN, {'\r', '\n', KEY_ENTER}, "Enter", "open the selected row", "one run"},
    {UI_C_VOLUMES, {'v'}, "v", "the run's volumes", "one run"},
    {UI_C_LOGS, {'l'}, "l", "the run's log (live while it is in progress)", "one run"},
    {UI_C_RESULTS, {'r'}, "r", "the run's results: errors and warnings", "one run"},
    {UI_C_DESCRIBE,
     {'y'},
     "y",
     "describe: the whole object (run, volume, or what health lists) in the pager",
     "one run"},
    {UI_C_HEALTH,
     {'H'},
     "H",
     "health: schedules, storage locations, server and node-agent pods (from any screen)",
     "the cluster"},

    {UI_C_FIND, {'/'}, "/", "find: filter the list, search the log", "finding and following"},
    {UI_C_FOLLOW,
     {'f'},
     "f",
     "follow: the newest run in progress, the end of a live log",
     "finding and following"},

    {UI_C_SORT, {'s'}, "s", "next sort order (start, name, phase, progress)", "the list"},
    {UI_C_SORT_START, {'1'}, "1", "sort by start, newest first", "the list"},
    {UI_C_SORT_NAME, {'2'}, "2", "sort by name", "the list"},
    {UI_C_SORT_PHASE, {'3'}, "3", "sort by phase (running first)", "the list"},
    {UI_C_SORT_PROGRESS, {'4'}, "4", "sort by progress (least done first)", "the list"},

    {UI_C_NEXT_MATCH, {'n'}, "n", "next match of the search", "the log pager"},
    {UI_C_PREV_MATCH, {'N'}, "N", "previous match", "the log pager"},
    {UI_C_NEXT_ERROR, {'e'}, "e", "next error line", "the log pager"},
    {UI_C_LEVEL, {'L'}, "L", "level filter: all, error, warning, info, debug", "the log pager"},
    {UI_C_WRITE, {'w'}, "w", "write the lines shown to a new file", "the log pager"},

    {UI_C_FORMAT,
     {'o'},
     "o",
     "describe as JSON, YAML (as kubectl) or velero describe",
     "the log pager"},
    {UI_C_CONTEXTS,
     {'c'},
     "c",
     "contexts: pick the cluster to show, with a filter as you type",
     "several clusters"},
    {UI_C_COMMAND,
     {':'},
     ":",
     "a command: ctx (the picker) or ctx NAME (that context), as k9s",
     "several clusters"},

    /* opt-in (--allow-actions, or contexts.NAME.actions: true in the config file); each asks
     * first. k9s' keys where it has one (t triggers a CronJob, Ctrl-D deletes, Ctrl-K kills);
     * copy is Y (yank), not k9s' c: c has always been veltop's contexts picker */
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
     {'Y'},
     "Y",
     "copy the selected object's command (OSC 52; c stays contexts)",
     "the selected object"},
    {UI_C_NONE, {0}, NULL, NULL, NULL},
};

ui_cmd ui_key_command(int key)
{
    if (!key) return UI_C_NONE;
    for (const ui_command *c = ui_commands; c->cmd; c++)
        for (int i = 0; i < 4 && c->keys[i]; i++)
            if (c->keys[i] == key) return c->cmd;
    return UI_C_NONE;
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
