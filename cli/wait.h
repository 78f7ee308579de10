/* wait.h: `veltop --wait backup/NAME` (or restore/NAME): no full screen; follows one run until it
 * ends, printing its progress (one updating line on a terminal, a line per change elsewhere), and
 * exits 0 Completed, 3 PartiallyFailed, 4 Failed/FailedValidation, 1 unreachable or not found,
 * 6 when --timeout passed first. */
#pragma once
#include <stdio.h>

#include "answer.h"
#include "app.h"

enum {
    WAIT_COMPLETED = 0,
    WAIT_UNREACHABLE = 1,
    WAIT_PARTIALLY_FAILED = 3,
    WAIT_FAILED = 4,
    WAIT_TIMEOUT = 6
};

/* Parses "backup/NAME" / "restore/NAME" (also backups/, restores/); 0 ok, -1 with err. */
int wait_parse(const char *target, vl_kind *kind, char *name, size_t n, char *err, size_t errlen);
/* Runs a's loop until the run ends (or timeout_s passes, when > 0); progress to out (tty: one
 * line rewritten in place), while the data is not current "(cluster not answering since T)",
 * and after a run that did not complete its failure reason and diagnosis; the reason for exit
 * 1 or 6 to err. Returns the exit status. */
int wait_run(app *a, vl_kind kind, const char *name, double timeout_s, int tty, FILE *out,
             FILE *err);
/* The progress line of run r from its answer a: phase, items, bytes, stalled, rates, ETA (as
 * every surface says it); key gets what is news when it changes (not the moving figures). */
void wait_describe(const run_answer *a, const model_run *r, char *line, size_t n, char *key,
                   size_t kn);
