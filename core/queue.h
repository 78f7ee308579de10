/* queue.h: why a backup is not running (issue 26, part 1). Velero's backup queue controller
 * (reference/velero-api.md, "Queue, item operations, repositories") moves a Queued backup to
 * ReadyToStart only while fewer backups run than --concurrent-backups (the server pod's args;
 * default 1) and no earlier backup (in flight, ReadyToStart, or Queued ahead of it) overlaps its
 * namespaces. This judges a waiting backup against the model: its position, the runs ahead of
 * it, which of those two holds it (naming the overlapping backup), and when it may start (the
 * runs ahead's ETAs, from the run answer). Unknown is a value: a limit that cannot be read (no
 * pod list, no server pod) says why. Pure: times are passed in (through the answer context). */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "health.h"

#define QUEUE_MAX_AHEAD 16    /* runs ahead named (the count is exact beyond) */
#define QUEUE_DEAD_S    300.0 /* nothing in flight, the head waiting this long: dead queue */
#define QUEUE_READY_STUCK_S                                                                        \
    300.0 /* ReadyToStart this long: the backup controller is not taking it */

/* What holds a waiting backup, in the order Velero's queue controller checks. */
typedef enum {
    QUEUE_WHY_NONE,    /* nothing Velero waits on holds it (the queue controller has not moved) */
    QUEUE_WHY_LIMIT,   /* the concurrency limit is full */
    QUEUE_WHY_OVERLAP, /* an earlier backup overlaps its namespaces (overlap names it) */
    QUEUE_WHY_AHEAD,   /* an earlier Queued backup goes first (Velero's queue is in order) */
    QUEUE_WHY_UNKNOWN  /* the limit cannot be read and nothing else holds it: limit_why */
} queue_why;

typedef struct queue_wait {
    int waiting;       /* a backup in New, Queued or ReadyToStart: the rest is meaningful */
    int64_t position;  /* Velero's queuePosition; else its place among the waiting (1-based) */
    int position_ours; /* 1: position counted by veltop (Velero gave none: New, ReadyToStart) */
    double waited;     /* seconds since it was created (in our seconds); 0 unknown */
    /* the runs ahead: in flight, ReadyToStart, and waiting ahead of it; the first
     * QUEUE_MAX_AHEAD named, in flight first */
    const model_run *ahead[QUEUE_MAX_AHEAD];
    size_t n_ahead, n_ahead_running, n_ahead_queued;
    /* --concurrent-backups: limit_known 0 when the server pod cannot be read (limit_why) */
    int limit, limit_known, limit_default; /* limit_default: the flag is not given (1) */
    char limit_why[256];
    queue_why why;
    int limit_full;           /* running >= limit (limit known) */
    const model_run *overlap; /* the earliest run ahead whose namespaces overlap its own */
    /* the estimated start: unix seconds (our clock) when enough runs ahead are expected to end,
     * from their ETAs; start_known 0 with start_why when it cannot be said */
    int start_known;
    double start;
    char start_why[160];
} queue_wait;

struct ans_ctx;
/* The queue facts of backup r (q->waiting 0 for anything else). Calls answer_run for the runs
 * in flight ahead of it (their ETAs); those are not waiting, so this does not recurse. */
void queue_judge(const struct ans_ctx *c, const model_run *r, queue_wait *q);
/* The caveat every estimated start carries. */
#define QUEUE_START_CAVEAT "if the runs ahead end as their ETAs say"
/* "the concurrency limit is full", "its namespaces overlap", ... (for JSON and metrics: a code) */
const char *queue_why_code(queue_why w); /* "limit", "overlap", "ahead", "none", "unknown" */
/* The answer to "why is this backup not running?" as one sentence into buf: "2 of 2 backups
 * running (--concurrent-backups=2): a, b" / "its namespaces overlap backup x (InProgress)" ...
 * Names are raw: the caller sanitises for a terminal. Returns buf. */
char *queue_why_text(char *buf, size_t n, const queue_wait *q);

/* The short answer for a list row, in place of an ETA: "#3, limit 2 full", "#2, overlaps
 * nightly-x", "#2, limit 2 full, overlaps nightly-x" (both hold it), "#4, 3 queued ahead", "#1,
 * limit unknown", "#1, nothing holds it" (the position is Velero's queuePosition, or counted).
 * Names raw: the caller sanitises. Returns buf. */
char *queue_why_short(char *buf, size_t n, const queue_wait *q);

/* The backup queue of one cluster at a glance (the health screen's queue line): how many wait,
 * the oldest, how many run and the limit, and the two diagnoses. known 0 when the backups
 * cannot be read (why says so): then nothing else is meaningful. */
typedef struct queue_summary {
    int known;
    char why[200];
    size_t n_waiting, n_running;
    const model_run *oldest;    /* the waiting backup created first */
    double oldest_age;          /* seconds since its creation (cluster clock); 0 unknown */
    const model_run *dead_head; /* a dead queue's head (queue_dead), NULL when it moves */
    double dead_since;
    const model_run *ready_stuck; /* the first ReadyToStart backup not taken (queue_ready_stuck) */
    double ready_since;
    size_t n_ready_stuck;
} queue_summary;
/* The queue of m's backups at now (cluster seconds). */
void queue_summarise(const model *m, double now, queue_summary *out);
/* Marks s unknown: the backups cannot be read (why: "forbidden", the list's error). */
void queue_summary_unread(queue_summary *s, const char *why);
/* The summary as one line into buf: "5 waiting (oldest q1, 1m02s), 2 in progress", "nothing
 * waiting", "unknown: cannot read backups: forbidden"; then the diagnoses: "; dead: nothing in
 * progress for 10m00s while q1 (Queued) waits at its head", "; ReadyToStart stuck: x for 6m00s".
 * Names raw: the caller sanitises. Returns buf. */
char *queue_summary_line(const queue_summary *s, double now, char *buf, size_t n);

/* Whether the namespaces of two backups overlap (included "" / "*" is every namespace; other
 * wildcards are matched against the other's names, as veltop does not list the cluster's
 * namespaces; a namespace excluded by either does not count). */
int queue_ns_overlap(const vl_run *a, const vl_run *b);

/* The dead queue (a diagnosis): nothing in flight in r's Velero namespace while r, a waiting
 * backup, is the head of its queue (or any waiting backup while the head waits): 1 with the
 * head and since when (cluster seconds: the newest of the head's creation and the last backup's
 * completion there), when that is more than QUEUE_DEAD_S before now (cluster seconds). */
int queue_dead(const model *m, const model_run *r, double now, const model_run **head,
               double *since);
/* A ReadyToStart backup the backup controller has not taken for QUEUE_READY_STUCK_S: 1 with
 * since (its last status write, managedFields: when it became ReadyToStart; else its creation). */
int queue_ready_stuck(const model_run *r, double now, double *since);
