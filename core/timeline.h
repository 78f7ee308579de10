/* timeline.h: where a run has been: when it entered each phase (New, Queued with its position,
 * ReadyToStart, InProgress, WaitingForPluginOperations, Finalizing, the end) and how long it
 * stayed, from the object's own timestamps, the phase changes veltop saw (model_run's
 * first_seen/moves) and, for a run that finished before veltop watched it, its stored log's own
 * times; unknown where no source says. Pure: times are passed in. */
#pragma once
#include <stddef.h>

#include "app.h"
#include "logparse.h"

typedef enum {
    TL_UNKNOWN,  /* no source says when */
    TL_METADATA, /* metadata.creationTimestamp */
    TL_STATUS,   /* status.startTimestamp / completionTimestamp */
    TL_SEEN,     /* veltop saw it change into the phase then */
    TL_SEEN_BY,  /* it was in the phase when veltop first saw it: entered then or before */
    TL_LOG       /* the stored log's own time */
} tl_source;

typedef struct tl_entry {
    vl_phase phase;    /* the phase (its PartiallyFailed variant when the run went that way) */
    double entered;    /* cluster time (unix seconds); 0 unknown */
    tl_source src;     /* where entered comes from */
    double dur;        /* seconds spent in it (cluster time); < 0 unknown */
    int current;       /* the phase the run is in (dur: so far) */
    int32_t queue_pos; /* Queued: the position (the latest seen), 0 unknown */
} tl_entry;

/* Times a stored log gives (cluster time, 0 unknown): its first line (the item pass starts:
 * InProgress), the end of the item pass ("Backed up a total of N items"; a restore's "Done
 * waiting for all pod volume restores to complete" or "restore completed") and its last line. */
typedef struct tl_log {
    double first, items_done, last;
} tl_log;

#define TL_MAX 8

/* Feeds one parsed line of a stored log to log (lp_parse'd, its time field read). */
void timeline_log_line(tl_log *log, const lp_line *l);
/* The timeline of r at cluster time now: up to TL_MAX entries in order, the phases the run
 * went through or may have (unknown ones included), up to the one it is in. log may be NULL. */
size_t timeline_build(const model_run *r, double now, const tl_log *log, tl_entry *out);
