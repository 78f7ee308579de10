/* alert.h: tells the operator when a run finishes, fails or stalls while veltop watches: a
 * terminal bell and the terminal's title (on by default; --no-bell), and --notify CMD run
 * without waiting (sh -c, from the loop, reaped) with the event in its environment:
 * VELTOP_EVENT (finished|failed|stalled), VELTOP_KIND (backup|restore), VELTOP_RUN, VELTOP_PHASE,
 * and VELTOP_CONTEXT (the kubeconfig context of the run's cluster).
 */
#pragma once
#include <stddef.h>
#include <sys/types.h>

#include "answer.h"
#include "app.h"

typedef enum { ALERT_NONE, ALERT_FINISHED, ALERT_FAILED, ALERT_STALLED } alert_event;

/* Pure: the event of a run going from (phase, stalled) before to now. */
alert_event alert_classify(vl_phase before, int stalled_before, vl_phase now, int stalled_now);
const char *alert_event_name(alert_event e); /* "finished", "failed", "stalled" */

void alert_configure(int ring, const char *notify_cmd); /* notify_cmd NULL: none (copied) */

/* One pass over the model m with the answers' context c (stalled is the run answer's; while
 * c->stale nothing is judged): fires the events since the last pass, and reaps finished --notify
 * children. Returns the events fired; title gets the last one's text ("veltop: backup b1
 * Failed"), or "... moving again" when a run that stalled moves again (no event), when title !=
 * NULL. A run seen for the first time fires nothing (veltop starting is no news). */
int alert_scan(const ans_ctx *c, model *m, char *title, size_t titlen, int *ring);
/* The same for the cluster of context (VELTOP_CONTEXT; NULL none), named in the title too when
 * in_title ("veltop: prod: backup b1 Failed": several clusters are watched). */
int alert_scan_ctx(const ans_ctx *c, model *m, const char *context, int in_title, char *title,
                   size_t titlen, int *ring);
/* For the full screen: alert_scan, then the bell (curses beep) and the title (OSC 2). */
void alert_ui_tick(const ans_ctx *c, model *m);
void alert_ui_tick_ctx(const ans_ctx *c, model *m, const char *context, int in_title);
/* Starts cmd for an event; returns the child's pid (> 0) or -1. Reaped by alert_reap. */
pid_t alert_notify(const char *cmd, alert_event e, vl_kind kind, const char *run,
                   const char *phase);
pid_t alert_notify_ctx(const char *cmd, alert_event e, const char *context, vl_kind kind,
                       const char *run, const char *phase);
int alert_reap(void); /* reaps finished children (WNOHANG); returns how many are still running */
