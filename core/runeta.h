/* runeta.h: the whole run's answers (design.md "Rate, ETA, stall"): one ETA along what gates the
 * run's end (items and pod volumes, then the data movers in WaitingForPluginOperations, then
 * Finalizing), one "last progress" and one "stalled" over everything the run waits on, and the
 * schedule's history as the ETA's prior. Pure functions over the model: times are passed in. */
#pragma once
#include <stdint.h>

#include "app.h"

/* The parts of a run's critical path, in the order they end. */
typedef enum { RE_ITEMS, RE_PODVOLS, RE_DATAMOVER, RE_FINAL, RE_NPARTS } re_part;

typedef enum {
    RE_ABSENT,  /* the run has none of it (no pod volumes, no data movers) */
    RE_PENDING, /* not started yet */
    RE_ACTIVE,  /* moving */
    RE_STALLED, /* started, nothing moved for 3 of its update intervals */
    RE_DONE
} re_state;

/* One part of the critical path. */
typedef struct re_stage {
    re_state state;
    int n, n_done;               /* volumes: count, finished */
    int n_unknown;               /* volumes whose time left is unknown (unsized, or no rate) */
    int n_unsized;               /* ... of them not sized (no totalBytes: model_volume_unsized) */
    int n_borrowed;              /* sized volumes not moving yet, timed at their siblings' rate */
    int n_stalled;               /* volumes stalled (the part may still be moving) */
    int n_rated;                 /* volumes moving with a rate of their own (summed in rate) */
    double done_rate;            /* the finished volumes' whole-run averages, summed */
    int n_done_rated;            /* ... over this many */
    int64_t done, total;         /* items, or bytes of the volumes */
    double rate;                 /* per second (items or bytes); < 0 unknown */
    double eta;                  /* seconds until this part ends, from now; < 0 unknown */
    int bound;                   /* eta is only a lower bound (a volume not sized, or stalled) */
    double stalled_for;          /* seconds, when RE_STALLED */
    const model_volume *last;    /* volumes: the one that ends last */
    const model_volume *stalled; /* volumes: a stalled one (the longest stalled) */
} re_stage;

/* The typical run of a schedule: its last completed runs (up to RE_HISTORY_MAX). */
#define RE_HISTORY_MAX 10
typedef struct re_history {
    int n;                            /* runs used; 0 = no history */
    double dur_med, dur_min, dur_max; /* seconds */
    double items_med, bytes_med;      /* typical items and volume bytes */
    int loading; /* not used yet: the history's volumes are still arriving (model.vols_partial) */
} re_history;

typedef struct runeta {
    int active;       /* the run is in flight (otherwise nothing below but history is set) */
    double eta;       /* seconds to the run's end; < 0 unknown */
    int bound;        /* eta is a lower bound ("≥ 3m") */
    int from_history; /* the eta leans on the schedule's history (little live evidence yet) */
    int unknown_only; /* nothing known is left to project: what remains is volumes not sized or
                         with no rate to time them by, or items not counted (eta then holds
                         only the fixed steps after them, no projection; the history may) */
    re_part waiting;  /* the part the end waits on now (the one ending last) */
    const model_volume *waiting_vol; /* ... and the volume, when it is one */
    int64_t waiting_left;            /* its bytes (or items) left */
    double waiting_rate;             /* its rate, < 0 unknown */
    double last_progress; /* monotonic time of the newest change of anything waited on; < 0 */
    int stalled;          /* nothing the run waits on moved for 3 of its update intervals */
    double stalled_for;
    re_part stalled_part;            /* what stalled (the part the end waits on) */
    const model_volume *stalled_vol; /* ... and the volume, when it is one */
    int part_stalled;                /* a part the end needs is stalled while others move */
    int64_t bytes_done, bytes_total; /* over every volume of the run */
    double bytes_rate;               /* sum of the moving volumes' rates; < 0 unknown */
    re_stage part[RE_NPARTS];
    re_history hist;
    /* waiting on plugin operations whose artifact was read (itemops.h): those no data mover
     * counts (another plugin's) not finished, and the longest of their ETAs (s, < 0 none) */
    int ops_left;
    double ops_eta;
    int end_from_ops; /* they end last: the ETA is theirs */
    /* waiting on plugin operations whose artifact was not read (a snapshot without --details)
     * while the status counts more of them in flight than data movers left: another plugin's
     * may be what moves, so nothing seen stalled makes the run stalled (stalled unknown) */
    int ops_unseen;
} runeta;

/* Seconds Finalizing is assumed to take without history, and the item-operation sync period
 * (Velero's --item-operation-sync-frequency, 10 s): a finished data mover is seen by the run up
 * to one period later. */
#define RE_FINALIZE_S 1.0
#define RE_OPS_SYNC_S 10.0

/* The run's answers at monotonic now (wall = unix seconds of the same instant). Volume sums of
 * the model need not be fresh. */
void runeta_compute(const model *m, const model_run *r, double now, double wall, runeta *out);
/* The schedule's history of r: completed runs of the same schedule (label velero.io/schedule-name)
 * that started before r, newest first, up to RE_HISTORY_MAX. Returns h->n. */
int runeta_history(const model *m, const model_run *r, re_history *h);
/* Combines a live ETA with the history's prior: elapsed seconds so far; the prior gives way to
 * the live figure as the run's progress (elapsed / (elapsed + live)) grows, and the live figure
 * alone counts from 30 % on. live_bound: 0 the live figure is the whole picture; 1 it is a
 * bound (items not counted, a volume not sized or stalled): a longer prior replaces it; 2 it is
 * a bound only because volumes may still come: a longer prior replaces it when its runs moved
 * volume bytes, else it is blended as 0. Returns the ETA; *from_history is set when the prior
 * weighs more than the live figure. */
double runeta_blend(double live, int live_bound, double elapsed, const re_history *h,
                    int *from_history);
/* Short name of a part for the screens: "items", "pod volumes", "data mover", "finalizing". */
const char *runeta_part_name(re_part p);
/* "payments/postgres-0:pgdata", or the PVC for data movers; into buf. */
char *runeta_vol_label(char *buf, size_t n, const model_volume *v);
/* One volume's rate (bytes/s) and ETA (s) as the run's ETA counts them: its recent slope blended
 * with its average since its start, stalled time left out; < 0 unknown (a stalled volume: its
 * rate before it stopped, and no ETA). For the volume rows, so they agree with the run's line. */
void runeta_volume(const model *m, const model_volume *mv, double now, double wall, double *rate,
                   double *eta);
/* Whether volume mv (not finished) is stalled, and for how long (seconds, into *since when not
 * NULL): its tracker's verdict, or at first sight (no move watched yet) the API server's write
 * time of its status (managedFields), 3 of Velero's 10 s byte updates old or more. The one
 * judgement of a volume's stall: the run's parts count it (n_stalled, not in the rate) and the
 * volume rows show it. */
int runeta_volume_stalled(const model *m, const model_volume *mv, double now, double wall,
                          double *since);
