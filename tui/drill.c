/* drill.c: opening the drill-down screens (volumes, logs, results) for the current run. */
#include "drill.h"

static int drill_open(ui *u, ui_screen *(*ctor)(vl_kind, const char *))
{
    model_run *r = ui_current_run(u);
    if (!r) {
        ui_message(u, "no run selected");
        return UI_REDRAW;
    }
    ui_push(u, ctor(r->kind, r->name));
    return UI_REDRAW;
}

int drill_open_volumes(ui *u, ui_screen *s)
{
    (void)s;
    return drill_open(u, screen_volumes_new);
}

int drill_open_logs(ui *u, ui_screen *s)
{
    (void)s;
    return drill_open(u, screen_logs_new);
}

int drill_open_results(ui *u, ui_screen *s)
{
    (void)s;
    return drill_open(u, screen_results_new);
}
