/* simworlds.h: built-in scenario worlds by name (besides "demo" and "empty"), so that a fleet of
 * simulated clusters (veltop-sim --fleet, veltop --demo --fleet) needs no file on disk. */
#pragma once

/* The YAML text of a built-in world ("fleet-healthy", "fleet-stalled-restore",
 * "fleet-overdue"), NULL when name is none of them. */
const char *simworlds_text(const char *name);
