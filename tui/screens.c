/* screens.c: the registry of this program's screens that ui_open opens by kind, so that no
 * screen (and not the framework) calls another screen's constructor. */
#include <string.h>

#include "drill.h"
#include "ui.h"

static ui_screen *open_list(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)from, (void)kind, (void)name;
    return screen_list_new();
}

static ui_screen *open_detail(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)from;
    return name ? screen_detail_new(kind, name) : NULL;
}

static ui_screen *open_health(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)from, (void)kind, (void)name;
    return screen_health_new();
}

static ui_screen *open_help(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)kind, (void)name;
    ui_screen *h = screen_help_new();
    if (from) screen_help_set(h, from);
    return h;
}

static ui_screen *open_fleet(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)from, (void)kind, (void)name;
    return screen_fleet_new();
}

static ui_screen *open_picker(ui *u, const ui_screen *from, vl_kind kind, const char *name)
{
    (void)u, (void)from, (void)kind;
    return screen_picker_new(name && !strcmp(name, ":"));
}

static ui_screen *open_describe(ui *u, const ui_screen *from, vl_kind kind, const char *path)
{
    (void)u, (void)from, (void)kind;
    return screen_describe_path_new(path);
}

static ui_screen *open_podlog(ui *u, const ui_screen *from, vl_kind kind, const char *pod)
{
    (void)u, (void)from, (void)kind;
    return screen_podlog_new(pod);
}

const ui_screen_ctor tui_screens[UI_S_N] = {
    [UI_S_LIST] = open_list,         [UI_S_DETAIL] = open_detail, [UI_S_HEALTH] = open_health,
    [UI_S_HELP] = open_help,         [UI_S_FLEET] = open_fleet,   [UI_S_PICKER] = open_picker,
    [UI_S_DESCRIBE] = open_describe, [UI_S_PODLOG] = open_podlog,
};
