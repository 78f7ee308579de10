/* wait.h: `veltop --wait backup/NAME` (or restore/NAME): no full screen; follows one run until it
 * ends, printing its progress (one updating line on a terminal, a line per change elsewhere), and
 * exits 0 Completed, 3 PartiallyFailed, 4 Failed/FailedValidation, 1 unreachable or not found. */
#pragma once
#include <stdio.h>

#include "app.h"

enum { WAIT_COMPLETED = 0, WAIT_UNREACHABLE = 1, WAIT_PARTIALLY_FAILED = 3, WAIT_FAILED = 4 };

/* Parses "backup/NAME" / "restore/NAME" (also backups/, restores/); 0 ok, -1 with err. */
int wait_parse(const char *target, vl_kind *kind, char *name, size_t n, char *err, size_t errlen);
/* Runs a's loop until the run ends; progress to out (tty: one line rewritten in place), the
 * reason for exit 1 to err. Returns the exit status. */
int wait_run(app *a, vl_kind kind, const char *name, int tty, FILE *out, FILE *err);
