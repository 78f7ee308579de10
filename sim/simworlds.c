/* simworlds.c: the built-in worlds of the fleet demo (simworlds.h), in the scenario language of
 * sim/SCENARIOS.md. */
#include "simworlds.h"

#include <string.h>

/* Hourly backups, the last one 30 min ago; a big backup in flight for another half hour. */
static const char healthy[] =
    "namespaces: [shop, billing]\n"
    "runs:\n"
    "  - {kind: backup, name: hourly-1, start: -90m, schedule: hourly, rate: 20,\n"
    "     resources: [{name: pods, items: 40}, {name: configmaps, items: 60}]}\n"
    "  - {kind: backup, name: hourly-2, start: -30m, schedule: hourly, rate: 20,\n"
    "     resources: [{name: pods, items: 40}, {name: configmaps, items: 60}]}\n"
    "  - kind: backup\n"
    "    name: adhoc-full\n"
    "    start: 0\n"
    "    rate: 2\n"
    "    resources: [{name: configmaps, items: 4000}]\n"
    "schedules:\n"
    "  - name: hourly\n"
    "    schedule: \"@every 1h\"\n"
    "    template: {rate: 20, resources: [{name: pods, items: 40}]}\n";

/* A restore drill whose items stop moving a few seconds in (and never resume). */
static const char stalled_restore[] =
    "namespaces: [shop]\n"
    "runs:\n"
    "  - {kind: backup, name: nightly-1, start: -3h, rate: 20, resources: [{name: pods, items: "
    "40}]}\n"
    "  - kind: restore\n"
    "    name: restore-drill\n"
    "    backup: nightly-1\n"
    "    start: 1\n"
    "    rate: 5\n"
    "    pace: [{at: 4s, factor: 0.00001}]\n"
    "    resources: [{name: configmaps, items: 500}]\n";

/* A daily schedule made three days ago that never ran: overdue. "@every 24h", not a cron time:
 * the sim fires it 24 h after it starts (after its newest backup, else the start), so that it
 * stays overdue all day long (a "0 1 * * *" would fire at 01:00 and be fine from then on). */
static const char overdue[] =
    "namespaces: [shop]\n"
    "runs:\n"
    "  - {kind: backup, name: manual-1, start: -2h, rate: 20, resources: [{name: pods, items: "
    "40}]}\n"
    "schedules:\n"
    "  - name: nightly\n"
    "    schedule: \"@every 24h\"\n"
    "    created: -3d\n"
    "    template: {resources: [{name: pods, items: 5}]}\n";

const char *simworlds_text(const char *name)
{
    if (!name) return NULL;
    if (!strcmp(name, "fleet-healthy")) return healthy;
    if (!strcmp(name, "fleet-stalled-restore")) return stalled_restore;
    if (!strcmp(name, "fleet-overdue")) return overdue;
    return NULL;
}
