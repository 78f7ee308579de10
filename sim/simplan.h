/* simplan.h: (internal to the sim's controller) the plan of a run: its resources, items,
 * volumes, timeline and log lines, a pure function of the scenario run and the seeded random
 * state; simctl.c writes what the plan says at each simulated time, simlogtext.c writes the
 * plan's log-line text. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifacts.h"
#include "restic.h"
#include "scenario.h"

/* What planning reads besides the run: all of it fixed at start but the random state, which
 * advances as runs are planned (so a run's names depend on the seed and the runs before it). */
typedef struct sp_ctx {
    const char *ns;      /* the Velero namespace */
    double epoch;        /* simulated unix time of the sim's start */
    const scenario *scn; /* its default namespaces */
    uint64_t *rng;       /* seeded: names and uids */
    int log_json;        /* the server's --log-format json */
    unsigned long seed;  /* the scenario seed (pacing jitter) */
} sp_ctx;

/* One resource of a planned run: names for the log lines and the resource list. */
typedef struct sp_res {
    char *gr;        /* "deployments.apps" */
    char *bare;      /* "deployments" */
    char *list_key;  /* "apps/v1/Deployment" */
    char *groupkind; /* "Deployment.apps" */
    int namespaced;
    int items, added;
    int first; /* index of its first item in processing order */
} sp_res;

typedef struct sp_line {
    double t;
    int live_only; /* the server's own logger: its stdout only, not the run's stored log */
    char *text;
} sp_line;

typedef struct sp_vol {
    scn_volume *sv;
    char *name; /* object name */
    char *node;
    char *pod_uid, *pvc_uid, *op_id, *snapshot_id;
    double t_create, t_accept, t_prepare, t_start, t_end;
    double t_stall_begin;  /* when bytes stop moving, INFINITY = never */
    int fails;             /* ends Failed at t_end */
    double t_cancel;       /* parent failed: Canceled at this time, INFINITY = never */
    int cancel_asked;      /* spec.cancel was set through the API (simctl.c): Canceling from */
    double t_cancel_asked; /* this time, then Canceled at t_cancel */
    int exists, done, gone;
    cJSON *last;
    restic_job *real;           /* restic-real: the running job, NULL when simulated */
    const struct sp_run *owner; /* its run (pacing) */
    int real_state; /* 0 not started, 1 running, 2 finished, 3 fell back to simulation */
    int64_t real_total, real_done;
    double real_last_patch;
    char agent_phase[16]; /* the phase its node-agent last logged (simctl.c) */
} sp_vol;

/* A plugin operation besides the data movers' (scn_op): created when the item pass reaches its
 * item, moving at its rate from then, ending when its total is done (never when it stalls for
 * good). */
typedef struct sp_op {
    const scn_op *so;
    char *id;                         /* operationID */
    double t_created, t_stall, t_end; /* t_stall: when it stops moving, INFINITY = never */
} sp_op;

typedef struct sp_run {
    scn_run sr;
    int is_restore;
    char *uid;
    char *backup_schedule; /* restores: the schedule label of their backup */
    double t0, t_start, t_items0, t_fail, t_pass_end, t_ops_seen, t_final;
    const char *final_phase;
    int n_items, fail_item, est0;
    int errors; /* effective error count (Failed runs have at least 1) */
    sp_res *res;
    size_t nres;
    sp_vol *vols;
    size_t nvols;
    int n_du;
    sp_op *ops; /* plugin operations (not the data movers': those are the DataUploads) */
    size_t nops;
    sp_line *lines;
    size_t nlines, emitted;
    artifacts_result_entry *errs, *warns;
    char **msgs; /* storage for errs/warns messages */
    size_t nmsgs;
    int exists, finished, gone;
    cJSON *last;
    uint64_t pace_seed; /* jitter draws (pacing) */
    int queue_pos;      /* sr.queued: the queuePosition it keeps (simctl.c) */
    double hold;        /* seconds the queue controller holds it Queued past its usual start
                           (velero.concurrent_backups: simctl.c sets it, then plans it) */
} sp_run;

/* Plans r (its sr filled from the scenario): timeline, volumes, log lines, results. */
void sp_plan_run(const sp_ctx *c, sp_run *r);
void sp_run_free(sp_run *r); /* NULL is a no-op */

uint64_t sp_rng_next(uint64_t *st);
void sp_rng_suffix(uint64_t *rng, char *out, int n); /* n characters as generateName's */
char *sp_rng_uuid(uint64_t *st);                     /* malloc'd */
/* The apiserver's generateName "<run>-": the prefix cut to 58 characters, then the suffix. */
char *sp_generated_name(const char *run_name, const char *suffix);

const char *sp_run_ns(const sp_run *r, size_t k); /* the k-th namespace of the run's items */
size_t sp_run_nns(const sp_run *r);
/* The k-th item (0-based within its resource): namespace (NULL for cluster-scoped) and name. */
void sp_item_id(const sp_run *r, const sp_res *p, int k, const char **ns, char *name, size_t n);
int sp_items_at(const sp_run *r, double t);        /* items done at t, on the 1 s grid */
int sp_estimate_at(const sp_run *r, int done);     /* totalItems once done items are done */
double sp_item_time(const sp_run *r, int k);       /* when item k is done */
double sp_vol_bytes_at(const sp_vol *v, double t); /* bytes done at t, continuous */
int64_t sp_op_done_at(const sp_op *o, double t);   /* nCompleted of a plugin operation at t */
const char *sp_run_phase(const sp_run *r, double t);
int sp_run_failed(const sp_run *r);
int sp_vol_terminal_at(const sp_vol *v, double t);
