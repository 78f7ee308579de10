/* simlogtext.h: (internal to the sim's controller) the Velero server's log lines of a planned
 * run, text as Velero v1.18.1 writes it (logrus text or JSON), with their simulated times. */
#pragma once
#include "simplan.h"

/* A backup's lines (and its errors and warnings, with their results entries); failed: the run
 * ends Failed at r->t_fail; t_items_end: when its last item is backed up. */
void slt_plan_backup(const sp_ctx *c, sp_run *r, int failed, double t_items_end);
void slt_plan_restore(const sp_ctx *c, sp_run *r, int failed);
