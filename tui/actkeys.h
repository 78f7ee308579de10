/* actkeys.h: the keys that change the cluster (backup now, pause/unpause, cancel a volume
 * transfer, delete a backup) behind a confirmation dialog, and the key that copies the command
 * for the selected object (OSC 52). Off unless the context's actions are on (core/actions.h). */
#pragma once
#include "actions.h"
#include "ui.h"

/* Who may act (not owned; NULL: nobody, read-only everywhere). Set before ui_run. */
void tui_actions_set_policy(const act_policy *p);
/* "actions on" or "read-only" for the context the screen shows (the header says it). */
const char *tui_actions_mode(ui *u);
/* Forgets a request still in flight (the ui is going away). */
void tui_actions_shutdown(void);

/* Bound in ui_global_keys: every screen, on its selected object. */
int tui_act_backup_now(ui *u, ui_screen *s);
int tui_act_pause(ui *u, ui_screen *s);
int tui_act_cancel(ui *u, ui_screen *s);
int tui_act_delete(ui *u, ui_screen *s);
int tui_act_copy(ui *u, ui_screen *s);
