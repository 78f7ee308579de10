/* readiness.h: "can I restore this schedule?": per schedule the newest backup that could be
 * restored (Completed, or PartiallyFailed with its errors), its age against the schedule's
 * interval, whether its storage location is available, and when a restore from the schedule last
 * completed; a schedule whose newest restorable backup is older than two intervals is a finding.
 * Built from the health picture (health.h) and the model's runs. Pure: times are passed in. */
#pragma once
#include <stddef.h>

#include "app.h"

struct health;

typedef enum { RDY_NO, RDY_YES, RDY_UNKNOWN } rdy_tri;

typedef struct ready_schedule {
    const char *schedule; /* its name, borrowed */
    int known;            /* its backups were read (else backup, age and stale are unknown) */
    const vl_run *backup; /* the newest restorable backup (by start, else creation); NULL none */
    double taken;         /* its start (else creation): the data's point in time, cluster clock */
    double age;           /* now - taken (s); < 0 when no restorable backup or not known */
    double interval;    /* seconds between the schedule's firings (cron_due.interval), 0 unknown */
    int stale;          /* the finding: not paused, interval known and the newest restorable
                           backup older than READY_STALE_INTERVALS intervals (none at all: the
                           schedule itself older than that) */
    rdy_tri bsl;        /* its backup's storage location is Available */
    char bsl_why[200];  /* for RDY_NO / RDY_UNKNOWN: the phase ("Unavailable"), "no such
                           location", "no phase yet", "cannot read backupstoragelocations: ..." */
    int restores_known; /* the last restore is known: the restores were read, and the
                           backups too unless one names the schedule (a restore names only its
                           backup, which must be seen to be the schedule's) */
    char restore_why[240]; /* why not: "cannot read restores: forbidden" */
    const vl_run *restore; /* the newest Completed restore from the schedule, NULL none */
    double last_restore;   /* its completion, cluster clock; 0 none */
} ready_schedule;

#define READY_STALE_INTERVALS 2

typedef struct readiness {
    ready_schedule *s; /* parallel to health.sch (sorted by name) */
    size_t n;
    int n_stale;
    double now; /* the instant judged, cluster clock (health.now) */
    /* why a list is not read ("" when read): the health picture's for backups and locations */
    char backups_unread[200], restores_unread[200], bsls_unread[200];
} readiness;

/* From h (its schedules, locations and unread marks: call after health_set_unread) and m's runs;
 * restores_unread: why the restores are not read, NULL or "" when they are. */
readiness *ready_build(const struct health *h, const model *m, const char *restores_unread);
void ready_free(readiness *r);
/* The schedule named name in r, NULL when none. */
const ready_schedule *ready_find(const readiness *r, const char *name);
/* One line for rs, on the health screen and in the health summary (names raw: the caller
 * sanitises): "restorable: nightly-20261206 (1d ago, Completed), BSL default Available, last
 * restore 3d ago"; "restorable: unknown (cannot read backups: forbidden)"; "restorable: none". */
char *ready_line(const readiness *r, const ready_schedule *rs, char *buf, size_t n);
