/* drill.h: the drill-down screens about one run (volumes `v`, logs `l`, results `r`), the actions
 * the list and detail screens bind to those keys, and the log-derived per-resource progress
 * service for runs without status.resourceProgress. */
#pragma once
#include "app.h"
#include "logderive.h"
#include "ui.h"

ui_screen *screen_volumes_new(vl_kind kind, const char *name);
/* The volumes screen s shows the rows re matches (its / filter; `:pvb`, `:du` ... set it). */
void drill_volumes_filter(ui_screen *s, const char *re);
int drill_is_volumes(const ui_screen *s); /* s is a volumes screen (of ui_current_run) */
ui_screen *screen_logs_new(vl_kind kind, const char *name);
ui_screen *screen_results_new(vl_kind kind, const char *name);
/* y: the whole object, pretty-printed and sanitised, in the log pager (search, wrap, write). */
ui_screen *screen_describe_run_new(vl_kind kind, const char *name);
ui_screen *screen_describe_volume_new(const model_volume *mv, const char *ns);
/* y on an object that is not a run or a volume: path is its API path
 * ("/apis/velero.io/v1/namespaces/velero/schedules/nightly"); NULL when path names none. Opened
 * by ui_open(UI_S_DESCRIBE, name = path). */
ui_screen *screen_describe_path_new(const char *path);
/* A pod's whole log (in the Velero namespace) in the log pager: a repository maintenance job's
 * pod, from the health screen (ui_open(UI_S_PODLOG, name = the pod)). NULL when pod is empty. */
ui_screen *screen_podlog_new(const char *pod);

/* Key actions for the list and detail screens: open the screen for ui_current_run(u). */
int drill_open_volumes(ui *u, ui_screen *s);
int drill_open_logs(ui *u, ui_screen *s);
int drill_open_results(ui *u, ui_screen *s);
int drill_open_describe(ui *u, ui_screen *s);

/* [ and ]: the run before/after the current one in the list's order, made current and selected
 * in the list; NULL (and a message saying so) at either end. */
model_run *drill_adjacent(ui *u, int delta);
/* [ and ] on a screen that shows one run's data: replaces the top screen by ctor's screen for the
 * adjacent run. */
int drill_step(ui *u, int delta, ui_screen *(*ctor)(vl_kind, const char *));

/* Stored logs are available (logderive_log_stored: the data module says, the screens ask). */
static inline int drill_log_stored(const vl_run *r)
{
    return logderive_log_stored(r);
}
