/* app.h: the veltop program's model (runs, volumes, their trackers) and the app that fills it from
 * reflectors over the event loop. The model is plain data so tests can build one by hand. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "estimator.h"
#include "kubeclient/client.h"
#include "kubeclient/download.h"
#include "kubeclient/liveness.h"
#include "kubeclient/loop.h"
#include "kubeclient/reflector.h"
#include "kubeclient/store.h"
#include "kubeclient/velero.h"

/* ---- model ---------------------------------------------------------------------------------- */

/* Progress of one resource type of a run, with its own tracker (rate/ETA of the active one). */
typedef struct model_res {
    char *resource; /* "pods", "deployments.apps" */
    int64_t done, total;
    est *est;
    unsigned flags; /* derived rows: MODEL_RES_* */
} model_res;

#define MODEL_RES_ACTIVE   1u /* being worked on (the log says so), whatever its count */
#define MODEL_RES_ESTIMATE 2u /* its total is an estimate: shown "of ~N" */
#define MODEL_RES_NO_TOTAL 4u /* no total known (nothing gave one): total 0, "of ?" */

/* Sum over the volumes (PVB/PVR/DU/DD) of a run. */
typedef struct model_vol_sum {
    int n, n_done, n_active, n_failed, n_canceled, n_pending;
    int n_unsized; /* not sized yet (model_volume_unsized): bytes_total is not their total */
    int64_t bytes_done, bytes_total;
} model_vol_sum;

/* One PodVolumeBackup/Restore or DataUpload/Download, joined to its run by label. */
typedef struct model_volume {
    vl_kind kind;
    uint32_t join_key;    /* private: what joins it to its run (run-name label, run-uid hash) */
    char *name;           /* vol->meta.name ("" if none): borrowed with vol, never freed */
    const vl_volume *vol; /* current decoded state; owned by the store (or the test) */
    est *bytes;           /* tracker of bytes_done */
    size_t pos;           /* private: index in model.vols */
} model_volume; /* join_key beside kind: 40 bytes, one 64-byte malloc chunk with its index node
                   (model.c's model_vol_block) where it was 80: 50 000 volumes, 0.8 MB */

/* A phase of a run as veltop saw it: the cluster's clock when it saw the run in it. */
typedef struct model_seen {
    double at;         /* cluster time (model_cluster_now of the wall time it arrived) */
    int32_t queue_pos; /* status.queuePosition then (Queued), 0 none */
    uint8_t phase;     /* vl_phase */
} model_seen;
#define MODEL_MOVES_MAX 12 /* phase changes kept per run (then the last is overwritten) */

typedef struct model_run {
    vl_kind kind : 8; /* VL_BACKUP or VL_RESTORE */
    /* alert.c's memory of what it last saw of this run (phase, stalled), 0 = not seen yet */
    uint8_t alert_seen, alert_phase, alert_stalled;
    uint32_t uid_hash; /* vl_uid_hash of its uid, 0 none (here, not in a padded slot of its own) */
    char *name;        /* owned copy of meta.name (raw; sanitise before display) */
    const char *label; /* the value its volumes' run-name label holds: name, or GetValidName(name)
                          for names over 63 characters (in the run's own block) */
    const vl_run *run; /* current decoded state; owned by the store (or the test) */
    est *items;        /* tracker of items_done */
    double attached;   /* monotonic seconds when first seen */
    /* per resource, from status.resourceProgress (vl_run.resources), in the order given */
    model_res *res;
    /* Hook for runs without resourceProgress: per-resource progress derived from the Velero
     * log (h7's log parser calls model_run_set_derived). Shown when n_res == 0. */
    model_res *derived;
    uint32_t n_res, n_derived;
    /* Why the per-resource rows are missing or incomplete (malloc'd, NULL: nothing to say), for
     * --once: "not fetched: ...", a download's error, "cut at ..." (model_run_set_note). */
    char *res_note;
    /* its async plugin operations (itemops.h), NULL until the fetcher (opsfetch.h) first read
     * them or failed to: owned, freed with the run */
    struct itemops *item_ops;
    model_vol_sum vols; /* recomputed by model_refresh_volumes */
    /* the phase it was in when veltop first saw it (entered then or before), and the phase
     * changes veltop saw after that (entered then, within the watch's latency): the timeline */
    model_seen first_seen;
    model_seen *moves; /* allocated at the first change (most runs never change while watched) */
    uint8_t n_moves;
    uint8_t seeded, finished;
    uint8_t derived_from_log; /* 1 once derived rows were set: the detail screen says so */
    uint32_t pos;             /* private: index in model.runs */

    /* the model holding it (its clock: model_wall_span) */
    const struct model *owner;
    /* private: its volumes, rebuilt by one pass over every volume when what joins volumes to
     * runs changed (model_run_volumes), not a pass per run and call */
    struct model_volume **joined;
    uint32_t n_joined, cap_joined;
    /* private: what places it in its schedule's history (model_schedule_runs), 0 not there */
    uint64_t hist_key;
} model_run;

typedef struct model {
    model_run **runs; /* unordered; screens sort their own view */
    size_t n_runs, cap_runs;
    model_volume **vols;
    size_t n_vols, cap_vols;
    unsigned long gen; /* bumps on every change: screens redraw when it moved */
    int vols_dirty;    /* run/volume sums need model_refresh_volumes (done lazily, per frame) */
    void *run_index, *vol_index; /* private: (kind, name) -> object */
    void *label_index; /* private: (kind, label) -> run, for runs whose label is not their name */
    /* Shared, never sampled tracker of objects first seen finished (rate/ETA unknown: -1), so
     * 10 000 old runs and their volumes cost no sample rings. Compare, never free. */
    est *idle_est;
    /* The cluster's clock against ours (model_set_clock): 1:1 for a real cluster; --demo --speed N
     * runs the sim's clock N times faster, and every duration read from the cluster's
     * timestamps is divided by N, so rates, ETAs and durations are true in wall time. A real
     * cluster's clock may be off ours: clock_offset (the cluster's minus ours, from the API
     * server's Date headers: kc_client_clock_offset) is added, so every cluster timestamp is
     * judged on the cluster's clock. */
    double clock_scale, clock_wall0, clock_cluster0;
    /* private: bumps when the joins must be built again (a volume or run goes, or what joins
     * them changes); the runs' volume lists are as of join_built, and a volume or run that comes
     * while they are current is joined at once */
    unsigned long join_gen, join_built;
    /* private: volumes naming a run that is not there (yet), as of the last join, by the label
     * they name: a run that comes takes its own from them, instead of a new pass over every
     * volume; n_orphans of them are still waiting */
    struct model_orphans *orphans;
    size_t n_orphans;
    /* private: the schedules' finished runs, sorted (model_schedule_runs), as of hist_built; bumps
     * when a run enters, leaves or changes its place in that history */
    struct model_run **hist;
    size_t n_hist, cap_hist;
    unsigned long hist_gen, hist_built;
    double clock_offset;
    int clock_offset_known;
    /* the history's volumes are still arriving (in flight first, app.h): the finished runs'
     * volume sums are partial, so no answer leans on them yet (runeta_history) */
    int vols_partial;
} model;

model *model_new(void);
void model_free(model *m);

/* now = monotonic seconds; wall = unix seconds (for est_seed from startTimestamp). The run and
 * volume pointers are borrowed: the caller keeps them valid until the next upsert/remove. */
model_run *model_upsert_run(model *m, const vl_run *r, double now, double wall);
void model_remove_run(model *m, vl_kind kind, const char *name);
model_run *model_find_run(const model *m, vl_kind kind, const char *name);
void model_upsert_volume(model *m, const vl_volume *v, double now);
void model_remove_volume(model *m, vl_kind kind, const char *name);
/* Volumes join their run by the velero.io/backup-uid / restore-uid label where both have a uid,
 * else by the run-name label, which holds GetValidName(name) (vl_valid_label), never by the raw
 * name. */
/* Volumes of a run (PVB+DU for a backup, PVR+DD for a restore); returns the count, fills up to
 * max pointers into out (out may be NULL to count). */
size_t model_run_volumes(const model *m, const model_run *r, model_volume **out, size_t max);
/* A volume whose size is not known yet: not finished and no totalBytes (Velero's TotalBytes is
 * omitempty, so a volume in progress may carry bytesDone alone). Its total is unknown, not 0. */
int model_volume_unsized(const vl_volume *v);
/* The newest finished runs (Completed or PartiallyFailed, with start and completion times) of
 * kind's schedule that started before `before` (<= 0: any), up to max, newest first, from an
 * index built once when such runs come, go or change: the history of every row on screen must
 * not cost a pass over 10 000 runs each. Returns the count. */
size_t model_schedule_runs(const model *m, vl_kind kind, const char *schedule, double before,
                           const model_run **out, size_t max);
/* Recomputes vols of every run, O(volumes); changes only mark vols_dirty, the screens and
 * --once call this before showing the sums. */
void model_refresh_volumes(model *m);
/* Replaces the log-derived per-resource progress of a run (copied), feeding its trackers; flags
 * (MODEL_RES_* per row) may be NULL. */
void model_run_set_derived(model *m, model_run *r, const vl_res_progress *res, size_t n,
                           const unsigned char *flags, double now);
/* Replaces r->res_note with a copy of note (NULL clears it). */
void model_run_set_note(model_run *r, const char *note);
/* The rows the detail screen shows: res when the server gives resourceProgress, else derived. */
const model_res *model_run_resources(const model_run *r, size_t *n, int *from_log);

/* The cluster's clock reads cluster0 + (wall - wall0) x scale (scale <= 0: 1:1, the default). */
void model_set_clock(model *m, double wall0, double cluster0, double scale);
/* A 1:1 cluster clock reads wall + offset (s; > 0 ahead of ours); known = 0: not estimated yet
 * (the offset is then 0). Ignored while a scale is set (the demo's clock is known exactly). */
void model_set_clock_offset(model *m, double offset, int known);
/* The offset in force (0 under a scale or before an estimate); known may be NULL. */
double model_clock_offset(const model *m, int *known);
double model_cluster_now(const model *m, double wall); /* the cluster's clock at our wall time */
/* A cluster timestamp on our clock, for showing beside our clock (model_cluster_now's inverse);
 * t <= 0 (unknown) is returned as it is. */
double model_local_time(const model *m, double cluster_t);
double model_wall_span(const model *m, double cluster_s); /* a span of cluster time, in ours */
/* A cluster timestamp on our clock: from the clock's start (cluster0) on, scaled as the clock
 * runs; before it (a --demo's history, yesterday's nightly) as it is, so history keeps its true
 * times. wall: now. */
double model_wall_time(const model *m, double cluster_t, double wall);

/* The item rate (items/s, < 0 unknown) and ETA (s, < 0 unknown) of a run at monotonic now. */
double model_run_rate(const model_run *r, double now);
double model_run_eta(const model_run *r, double now);
/* Duration so far (in progress) or whole (finished), seconds; < 0 when not started. */
double model_run_duration(const model_run *r, double wall);
/* 1 while a run's item total is an estimate (shown "~N"): Velero re-estimates it throughout the
 * item pass (InProgress), and any total seen to change is one until the run ends; not once exact
 * log-derived rows count every item done (its last patch). */
int model_run_total_estimated(const model_run *r);

/* ---- list view: sort, filter, selection ---------------------------------------------------- */

typedef enum { VIEW_SORT_START, VIEW_SORT_NAME, VIEW_SORT_PHASE, VIEW_SORT_PROGRESS } view_sort;

typedef struct view {
    view_sort sort;
    int reverse;      /* the sort the other way round (its column's key pressed again) */
    int kinds;        /* 0: backups and restores; else 1 << VL_BACKUP or 1 << VL_RESTORE only */
    char filter[128]; /* as k9s' `/`: words, all must match: a POSIX extended regular expression
                       * (case-insensitive) matching the name, phase or schedule, ns:NAME,
                       * schedule:NAME, phase:NAME, label:k=v; "!WORDS" the runs they do not
                       * match; "-l k=v,k2!=v2,k3" a label selector */
    char filter_error[160]; /* why the filter matches nothing (a bad regular expression); "" */
    model_run **rows;       /* the visible rows in order (pointers into the model) */
    size_t n_rows, cap_rows;
    int sel;          /* index into rows, -1 when empty */
    int top;          /* first row shown */
    vl_kind sel_kind; /* the selected run (sel_name malloc'd, NULL when none): selection follows */
    char *sel_name;   /* it, whatever the length of its name */
} view;

void view_init(view *v);
void view_clear(view *v);
/* Rebuilds rows from the model with the sort and filter; keeps the selection on the same run
 * (by kind and name) if still visible, else clamps the index. Until a run is chosen
 * (view_select), the selection is a row index (0: the newest), not a run. */
void view_rebuild(view *v, const model *m);
void view_select(view *v, int idx); /* clamps; records the selected run's name */
model_run *view_selected(const view *v);
/* Selects the newest run in progress (for `f`); returns 1 if one was found. */
int view_follow(view *v);

/* ---- app: loop, client, reflectors, stores ------------------------------------------------- */

enum {
    APP_R_BACKUPS,
    APP_R_RESTORES,
    APP_R_PVBS,
    APP_R_PVRS,
    APP_R_DUS,
    APP_R_DDS,
    APP_R_SCHEDULES,
    APP_R_BSLS,
    APP_R_VSLS,       /* volumesnapshotlocations (decoded as vl_bsl: provider, phase) */
    APP_R_PODS,       /* pods of the Velero namespace (kubeclient/pod.h): server and node-agents */
    APP_R_DAEMONSETS, /* apps/v1 DaemonSets of the Velero namespace: the node-agent's counts */
    APP_R_REPOS,      /* backuprepositories (kubeclient/backuprepo.h): maintenance (core/repo.h) */
    APP_R_JOBS,       /* batch/v1 Jobs labelled velero.io/repo-name: repository maintenance runs */
    APP_NREFL
};

typedef struct app {
    kc_loop *loop;
    kc_client *client;
    char *context, *server, *ns; /* for the header */
    kc_store *stores[APP_NREFL];
    kc_reflector *refl[APP_NREFL];
    model *model;
    unsigned long gen_status;     /* bumps when a reflector status changes */
    kc_liveness *liveness;        /* is the server answering at all (liveness.h) */
    void (*on_change)(void *arg); /* called after any model or status change */
    void *on_change_arg;
    void *hooks;               /* private: per-store callback contexts */
    struct logderive *derive;  /* log-derived per-resource progress (logderive.h; set by ui_new) */
    struct opsfetch *opsfetch; /* plugin operations of waiting runs (opsfetch.h; set by ui_new) */
    char *cacert;              /* --cacert FILE's PEM text (owned), NULL when none */
    int stop; /* a signal asked the program to end: --once's waits give up at once */
    size_t cacert_len;
    /* A cluster of a fleet not opened yet: its volume stores keep whole only the volumes a
     * summary's answers read (app.c: those not finished, of runs not finished or not known, of
     * each (kind, schedule)'s newest finished run and of the schedules' histories), the others'
     * not at all; app_load_all_volumes lists them all. */
    int volumes_recent;
    const struct model_run **keep; /* private: those finished runs, sorted by address */
    size_t n_keep, cap_keep;
    unsigned long keep_gen, keep_built; /* private: runs changed / keep built as of */
    uint64_t *dropped; /* private: (kind, label) hashes of runs whose volumes were left out */
    size_t n_dropped, cap_dropped;
    uint64_t keep_timer;    /* private: app_keep_check pending */
    unsigned long relisted; /* the volume lists listed again as a left-out run was read again */
    /* storage locations seen Unavailable: since when veltop saw it so (first sight), by name;
     * forgotten when one is Available again */
    struct app_bsl_seen *bsl_seen;
    size_t n_bsl_seen;
    /* In flight first: the runs are listed, then the volumes of the runs not finished then (by
     * their run-name labels, app_selector_batches), then the history's volumes (the four whole
     * lists, started only when those are in, so that they never delay them). APP_LOAD_*. */
    int load_phase;
    struct app_flight *flight; /* private: the in-flight volume reflectors */
    size_t n_flight;
    char **
        flight_runs[2]; /* labels of the runs covered by them (sorted): [0] backups, [1] restores */
    size_t n_flight_runs[2];
    struct app_flight_rv *flight_rv[4]; /* private: newest resourceVersion of each of their
                                          volumes, per volume store, while both lists feed it */
    size_t n_flight_rv[4];
    uint64_t release_timer; /* the runs in flight are whole, the history's lists still held */
    int hold_for_frame;     /* a screen draws this app: the history waits for app_frame_drawn */
    int link;               /* APP_LINK_*: when the history's lists go out (in flight first) */
    int slow_link_ms; /* a runs list answering this late or later: a slow link (APP_SLOW_LINK_MS) */
} app;

/* In flight first, the history's lists go out held with the runs list; when the first runs
 * list's answer begins (app_on_status) the link is known: over a slow one they stay under way
 * (their bytes travel meanwhile), over a fast one they are withdrawn (kc_reflector_withdraw) and
 * asked for again once the runs in flight are whole (app_release_history): there they would
 * all be in at once, the server encoding them beside the lists that matter first. Slow: that
 * answer began APP_SLOW_LINK_MS or more after the list was asked for. */
enum { APP_LINK_UNKNOWN, APP_LINK_FAST, APP_LINK_SLOW };
#define APP_SLOW_LINK_MS 20

enum {
    APP_LOAD_RUNS,    /* listing backups and restores; no volume list started */
    APP_LOAD_FLIGHT,  /* listing the volumes of the runs in flight */
    APP_LOAD_HISTORY, /* those are in (and watched); listing every volume */
    APP_LOAD_DONE     /* every volume list is in */
};
/* The history's lists are held (kc_reflector_opts.held), or withdrawn (APP_LINK_*), until
 * the runs in flight are whole; with hold_for_frame, until a frame showed them (app_frame_drawn),
 * or this long after they were. */
#define APP_HISTORY_HOLD_MS 500
/* A renderer drew a frame with the model's volumes current: the history's held lists may be
 * read now (in flight first). */
void app_frame_drawn(app *a);
/* Bounds of one in-flight volume list's label selector (the URL stays short). */
#define APP_FLIGHT_MAX_NAMES 50
#define APP_FLIGHT_MAX_BYTES 4096

/* When veltop first saw storage location name Unavailable (unix seconds), 0 when it is not (or
 * not known). */
double app_bsl_unavailable_since(const app *a, const char *name);

/* Starts reflectors for every resource in namespace ns over client (not owned). */
app *app_new(kc_loop *loop, kc_client *client, const char *context, const char *server,
             const char *ns);
void app_free(app *a);
/* The same, for a fleet's cluster not shown yet: what a summary reads (volumes_recent above). */
app *app_new_summary(kc_loop *loop, kc_client *client, const char *context, const char *server,
                     const char *ns);
/* The cluster is opened: every volume from now on (its four volume lists listed again, whole).
 * A no-op when they are whole already. */
void app_load_all_volumes(app *a);
/* Starts an artifact download (kc_download_start) whose object store is also trusted with
 * --cacert and the caCert of the BSL the run's backup lives in (a restore's: its backup's), as the
 * velero CLI trusts them. The run is o->target, a restore when o->kind starts with "Restore". */
kc_download *app_download(app *a, kc_download_opts *o, kc_download_data_fn data,
                          kc_download_done_fn done, void *arg);
/* The PEM text app_download trusts beside the system roots for that run, appended to out. */
void app_download_trust(app *a, int restore, const char *run, kc_buf *out);

/* Brings the model's clock offset (model_set_clock_offset) up to the client's estimate of the
 * API server's clock; done before every store change, and by the screens and --once per frame. */
void app_sync_clock(app *a);

/* 1 when every reflector completed its first list (or failed for good). */
int app_synced(const app *a);
/* 1 when the four volume lists (PodVolumeBackups/Restores, DataUploads/Downloads) were listed,
 * failed, or are retrying: until then volume bytes are still arriving (shown as loading). */
int app_volumes_listed(const app *a);

/* In flight first (the default) for every app started from now on, or (0) every list at once: for
 * --once, which waits for every list whatever the order, so the order would only cost it round
 * trips. */
void app_set_in_flight_first(int on);
/* 1 when run r's volumes are all in: every volume list is, or r was in flight when the runs
 * were listed and its in-flight volume lists are in (watched from then on). */
int app_run_volumes_listed(const app *a, const model_run *r);
/* 1 while the history's volumes are still arriving (the runs in flight may be whole already):
 * *listed (may be NULL) is how many volume objects the whole lists brought so far. */
int app_history_loading(const app *a, long *listed);
/* The label selectors "KEY in (v1,v2,...)" over vals, in order, each with at most max_vals
 * values and at most max_bytes characters (a value longer than that alone gets one of its own).
 * Returns how many, *out (malloc'd array of malloc'd strings) set. Empty values are skipped. */
size_t app_selector_batches(const char *key, const char *const *vals, size_t n, size_t max_vals,
                            size_t max_bytes, char ***out);

/* 1 when nothing of Velero is in the namespace: backups, restores and backup storage locations
 * all listed, and none of them there (a wrong -n, or Velero not installed). */
int app_no_velero(const app *a);

/* Connection summary for the header lamp. */
typedef struct app_conn {
    int live;          /* every reflector watching and the server answering */
    double silent_s;   /* > 0: the server has answered nothing for this long (liveness.h) */
    int retrying;      /* at least one waiting to retry */
    int attempt;       /* the highest attempt among retrying ones */
    double next_try_s; /* seconds until the earliest next try */
    char error[512];   /* the last error, "" when none */
    int refused;       /* 403 or 401: the error is the server refusing a list (RBAC, the
                          credentials), not an outage; the lamp says "forbidden"/"unauthorized" */
    /* monotonic seconds since when the runs' data is not known to be current: the oldest time a
     * listed resource's watch stopped (and has not resumed), or the last answer of a silent
     * server; 0 when current (gaps under APP_STALE_GRACE_S, a watch re-opening, are not stale) */
    double stale_since;
} app_conn;
#define APP_STALE_GRACE_S 2.0
void app_connection(const app *a, double now, app_conn *out);
