/* itemops.h: a run's asynchronous plugin operations (velero-api.md "Queue, item operations,
 * repositories"): the BackupItemOperations / RestoreItemOperations artifact parsed, kept across
 * refreshes (a tracker per operation for its rate and ETA), joined to the DataUpload/DataDownload
 * a data mover's operation is (so one transfer is shown once), and judged stalled when its
 * progress has not moved for longer than the run's item operation timeout. Pure: no clock, no
 * network (core/opsfetch.h fetches it). Unknown is a value: an artifact that cannot be read leaves
 * the operations unknown with the reason, never "no operations". */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "estimator.h"
#include "kubeclient/util.h"

#define ITEMOPS_MAX_OPS           4096 /* operations kept per run; the rest are counted */
#define ITEMOPS_MAX_BYTES         ((size_t)16 << 20) /* the artifact, decompressed */
#define ITEMOPS_REFRESH_S         30.0               /* at most one refresh per run this often */
#define ITEMOPS_DEFAULT_TIMEOUT_S (4 * 3600.0)       /* Velero's default itemOperationTimeout */

typedef struct itemop {
    /* spec: exact server text (sanitise before a terminal) */
    char *id;                           /* operationID */
    char *plugin;                       /* backupItemAction / restoreItemAction */
    char *group, *resource, *ns, *name; /* resourceIdentifier */
    /* status */
    char *phase;                      /* New, InProgress, Completed, Failed ("" when absent) */
    char *error;                      /* NULL none */
    char *units;                      /* operationUnits, NULL none */
    char *description;                /* NULL none */
    int64_t done, total;              /* nCompleted, nTotal (omitempty: absent is 0) */
    int has_total;                    /* nTotal given (> 0) */
    double created, started, updated; /* unix seconds on the cluster's clock; 0 absent */
    /* kept across refreshes */
    est *est;        /* nCompleted at each refresh (monotonic time) */
    double moved_at; /* cluster time of its last progress: updated, or the refresh that saw
                        nCompleted change, else started or created */
} itemop;

typedef struct itemops {
    int known;        /* 1: ops is the artifact as of fetched_at */
    char reason[512]; /* known 0: why not ("" while not fetched yet) */
    itemop *ops;
    size_t n;
    size_t cut;        /* operations past ITEMOPS_MAX_OPS, left out */
    double fetched_at; /* cluster time of the last read; 0 never */
    double fetched_mono;
    double next_mono; /* the fetcher's: no read before this (monotonic s) */
} itemops;

itemops *itemops_new(void);
void itemops_free(itemops *io); /* NULL is a no-op */

/* Parses the artifact's JSON (an array of {spec, status}; `restore` picks the restore* keys;
 * resourceIdentifier's keys as Go writes them, Group/Resource/Namespace/Name, any case) into a
 * new array (*ops, *n; free each with itemop_clear). More than ITEMOPS_MAX_OPS: the rest counted
 * in *cut. Returns 0, or -1 with err when it is not such an array. */
int itemops_parse(const char *json, size_t len, int restore, itemop **ops, size_t *n, size_t *cut,
                  kc_err *err);
void itemop_clear(itemop *o);

/* A read: the fresh operations (taken, array freed) replace the old, each keeping its tracker and
 * its moved_at by operationID; samples at monotonic mono, cluster time cluster_now. */
void itemops_update(itemops *io, itemop *fresh, size_t n, size_t cut, double mono,
                    double cluster_now);
/* A read that failed: unknown, why (the operations kept are not shown; their trackers wait for
 * the next read). */
void itemops_set_unknown(itemops *io, const char *why);

/* The join: out[i] (io->n of them, the caller's) is the run's DataUpload/DataDownload operation i
 * is (by the hash of its label velero.io/async-operation-id, confirmed by the PVC's name), NULL
 * where none is. Done on demand, so it never holds a volume that went. Returns how many joined. */
size_t itemops_join(const itemops *io, const model *m, const model_run *r,
                    const model_volume **out);

/* 1 for Completed and Failed. */
int itemop_finished(const itemop *o);
/* Its rate (units/s) and ETA (s) at monotonic now, < 0 unknown; one joined to volume vol (NULL:
 * none) has its volume's (runeta_volume), so the two rows agree. */
void itemop_rate_eta(const model *m, const itemop *o, const model_volume *vol, double now,
                     double wall, double *rate, double *eta);
/* The run's item operation timeout (spec.itemOperationTimeout, else Velero's 4h), seconds;
 * *is_default (may be NULL) says which. */
double itemops_timeout(const vl_run *r, int *is_default);
/* Stalled: not finished and its progress has not moved for longer than timeout at cluster time
 * cluster_now; *for_s (may be NULL): since how long. */
int itemop_stalled(const itemop *o, double timeout, double cluster_now, double *for_s);
/* "widgets.example.io shop/w-1" (group-qualified resource, namespace/name) into buf. */
char *itemop_target(const itemop *o, char *buf, size_t n);

/* Where the run's ETA may take its plugin operations from (r->item_ops, when known): over the
 * operations not joined to a volume (those the data movers already count) and not finished, the
 * longest ETA (*eta, s) at now; returns how many there are; *n_unknown of them have no ETA (no rate
 * yet, no total). */
int itemops_eta(const model *m, const model_run *r, double now, double wall, double *eta,
                int *n_unknown);

/* Of the same operations (not joined, not finished), how many moved within 3 of their refresh
 * periods: by their trackers, or before a tracker saw a move (first sight), by their own
 * evidence (moved_at: the plugin's `updated`) on the cluster's clock; *last_move (may be NULL):
 * the newest move (monotonic), < 0 none. wall: unix seconds of monotonic now. */
int itemops_moving(const model *m, const model_run *r, double now, double wall, double *last_move);

/* 1 while the run waits on its plugin operations (WaitingForPluginOperations*). */
int itemops_waiting(const vl_run *r);
