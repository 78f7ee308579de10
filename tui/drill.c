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

int drill_open_describe(ui *u, ui_screen *s)
{
    (void)s;
    return drill_open(u, screen_describe_run_new);
}

model_run *drill_adjacent(ui *u, int delta)
{
    model_run *r = ui_adjacent_run(u, delta);
    if (!r) {
        ui_message(u, delta < 0 ? "this is the first run of the list"
                                : "this is the last run of the list");
        return NULL;
    }
    ui_set_current_run(u, r->kind, r->name);
    view *v = ui_view(u);
    for (size_t i = 0; i < v->n_rows; i++)
        if (v->rows[i] == r) view_select(v, (int)i);
    return r;
}

int drill_step(ui *u, int delta, ui_screen *(*ctor)(vl_kind, const char *))
{
    model_run *r = drill_adjacent(u, delta);
    if (!r) return UI_REDRAW;
    /* the same screen, for the next run: replace this one (which is freed) */
    ui_screen *next = ctor(r->kind, r->name);
    ui_pop(u);
    ui_push(u, next);
    return UI_REDRAW;
}
