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
#define WAIT_INTERVAL_S 10.0 /* --interval's default */

/* How --wait writes: */
typedef struct wait_opts {
    double timeout_s;  /* > 0: give up after this long (exit 6) */
    double interval_s; /* piped: a line at most this often, unless the phase or verdict changes */
    int tty;           /* out is a terminal: one line rewritten in place, within its width */
    int utc;           /* piped lines' timestamps in UTC ("Z"), else local with its offset */
} wait_opts;

/* Runs a's loop until the run ends (or o->timeout_s passes); progress to out (a terminal: one
 * line rewritten in place within its width; elsewhere a line per change, each starting with an
 * RFC 3339 timestamp, repeated at most every o->interval_s unless the phase or the verdict
 * changes), while the data is not current "(cluster not answering since T)", and after a run
 * that did not complete its failure reason and diagnosis; the reason for exit 1 or 6 to err.
 * Returns the exit status. */
int wait_run(app *a, vl_kind kind, const char *name, const wait_opts *o, FILE *out, FILE *err);
/* The progress line of run r from its answer a, the run's answer as every surface words it:
 * kind and name, phase, items ("120/~400"), bytes, stalled and for how long (and what), the rate
 * of what the end waits on (bytes/s for a volume or data mover), the ETA (answer_eta_line's
 * phrase; answer_eta_cell's when short of room), what the end waits on (part and volume), and
 * "(cluster not answering since T)" while stale. width > 0: at most that many terminal columns,
 * the least important fields shortened or dropped first, never a number cut; 0: whole. key gets
 * the verdict (phase, stalled, waiting part, ETA kind, stale): what is news when it changes. */
void wait_describe(const run_answer *a, const model_run *r, int width, char *line, size_t n,
                   char *key, size_t kn);
/* An RFC 3339 timestamp of unix time wall: "2026-12-07T17:05:02+01:00" (local, with its offset),
 * or "2026-12-07T16:05:02Z" with utc. */
char *wait_stamp(char *buf, size_t n, double wall, int utc);
/* Piped: 1 when a line is due: its verdict (key) changed, or interval seconds passed since the
 * last line (since_last) and its text is not the last one's. */
int wait_news(const char *key, const char *last_key, const char *line, const char *last_line,
              double since_last, double interval);
