/* scenario.h: what the simulated Velero server does: runs (backups, restores) with their
 * resources, volumes and outcomes, and schedules; loaded from YAML or built in (demo, empty). */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef enum { SCN_BACKUP, SCN_RESTORE } scn_kind;

typedef enum {
    SCN_KOPIA,
    SCN_RESTIC,
    SCN_RESTIC_REAL, /* runs the real restic binary over generated data */
    SCN_DATAMOVER    /* DataUpload / DataDownload of a PVC */
} scn_uploader;

typedef struct scn_resource {
    char *name; /* group-qualified resource as Velero logs it: "pods", "deployments.apps" */
    int items;  /* final number of items */
    int added;  /* items plugins add: the estimate grows by this when the resource starts */
} scn_resource;

typedef struct scn_volume {
    scn_uploader uploader;
    char *pod, *ns, *volume; /* pod volumes */
    char *pvc;               /* datamover */
    char *node;              /* NULL = worker-<n> */
    int64_t size;            /* bytes */
    double rate;             /* bytes per simulated second */
    double stall_after;      /* fraction; < 0 = never */
    double stall_for;        /* seconds; 0 = for good */
    double fail_after;       /* fraction; < 0 = never */
    char *fail_message;
    int stuck_in; /* SCN_STUCK_*: stays in that phase for good (no node-agent, stuck exposer) */
    int unsized;  /* status.progress.totalBytes omitted until it ends (Velero #7851) */
} scn_volume;

enum { SCN_STUCK_NONE, SCN_STUCK_NEW, SCN_STUCK_ACCEPTED, SCN_STUCK_PREPARED };

/* An asynchronous plugin operation that is not a data mover's (a DataUpload/DataDownload's is
 * its volume's): a BackupItemAction/RestoreItemAction v2 returned an operation ID for an item,
 * and reports nCompleted of nTotal in its own units until it is done. */
typedef struct scn_op {
    char *plugin;       /* backupItemAction / restoreItemAction ("example.io/widget-backupper") */
    char *resource;     /* group-qualified resource of the item ("widgets.example.io") */
    char *ns, *name;    /* the item (ns NULL: cluster-scoped) */
    char *id;           /* operationID; NULL: "<run>-op-<n>" */
    char *units;        /* operationUnits; NULL: "Items" */
    char *description;  /* status.description while it runs; NULL: "InProgress" */
    int64_t total;      /* nTotal */
    double rate;        /* units per simulated second */
    double stall_after; /* fraction of total after which it stops for good; < 0 = never */
} scn_op;

typedef struct scn_run {
    scn_kind kind;
    char *name;
    double start;  /* simulated seconds from the sim's start */
    char *outcome; /* "Completed", "PartiallyFailed", "Failed"; NULL = derived */
    double rate;   /* items per second */
    int errors, warnings;
    char *failure_reason;
    double fail_at; /* fraction */
    double ttl;     /* seconds */
    char *storage_location;
    char *backup;   /* restores: spec.backupName */
    char *schedule; /* backups made by a schedule */
    char **namespaces;
    size_t n_namespaces;
    char **label_keys, **label_values; /* metadata.labels of the run besides Velero's */
    size_t n_labels;
    int hooks_attempted, hooks_failed;
    int extra_list_keys; /* a hostile artifact: this many more keys in its resource list */
    char *list_text;     /* a broken artifact: its resource list is this text instead */
    scn_resource *resources;
    size_t n_resources;
    scn_volume *volumes;
    size_t n_volumes;
    scn_op *ops; /* `operations:` (plugin operations besides the data movers') */
    size_t n_ops;
    int queued; /* backups: stays Queued for good, behind the runs in progress */
    int hang;   /* stays in its phase for good once all items and volumes are done */
    /* (mf) > 0: the run hangs (as hang) and its last status write, and its volumes', was this
     * many seconds before the sim's start: start is moved back so that it is. */
    double idle_for;
    /* Pacing over the run's life (i9): from pace_at[i] seconds after its items start, items and
     * bytes move at pace_factor[i] x their rates; jitter j multiplies that by a seeded factor in
     * [1 - j, 1 + j] drawn per 5 s (the same for the same seed and run name). */
    double *pace_at, *pace_factor;
    size_t n_pace;
    double jitter;
} scn_run;

typedef struct scn_schedule {
    char *name;
    char *cron;
    int paused;
    double created; /* creationTimestamp offset from the sim's start (default 0) */
    scn_run tmpl;   /* kind backup; name/start unused */
} scn_schedule;

/* One maintenance of a BackupRepository (status.recentMaintenance[]): when it ended, offset from
 * the sim's start (it started a minute before), how, and its message. */
typedef struct scn_repo_maint {
    char *result; /* "Succeeded" or "Failed" */
    char *message;
    double at;
} scn_repo_maint;

/* One maintenance Job of a repository (sim/simrepo.c), static: batch/v1 Job labelled
 * velero.io/repo-name, and its pod (job-name=<job>) with its log. */
typedef struct scn_repo_job {
    char *name;      /* NULL: Velero's GenerateJobName (<repo>-maintain-job-<ms of start>) */
    double start;    /* offset of its start from the sim's start */
    double duration; /* seconds it ran (Succeeded / Failed) */
    char *result;    /* "Succeeded", "Failed" or "Running" */
    /* Running only: "Succeeded" or "Failed" when it ends, duration after its start (its log
     * lines are written as their time comes, its Job and pod then finish); NULL: runs on */
    char *ends;
    char *message; /* a Failed job's condition message */
    char **log;    /* its pod's log lines, spread over its run */
    size_t n_log;
} scn_repo_job;

/* A BackupRepository (sim/simrepo.c), static: its status as given. */
typedef struct scn_repo {
    char *name, *volume_ns, *bsl, *type; /* bsl NULL: "default"; type NULL: "kopia" */
    char *phase, *message;               /* phase NULL: "Ready" */
    double frequency;                    /* spec.maintenanceFrequency, s (0: Velero's 7 days) */
    int has_last;                        /* status.lastMaintenanceTime given */
    double last;                         /* its offset from the sim's start */
    scn_repo_maint *recent;              /* oldest first, as Velero keeps them */
    size_t n_recent;
    scn_repo_job *jobs; /* its maintenance Jobs (`jobs:`) */
    size_t n_jobs;
} scn_repo;

/* The cluster around Velero (sim/simpods.c): install layout, node-agents, a server restart, the
 * storage location's phase. */
typedef struct scn_cluster {
    int helm;     /* 1: the Helm chart's pod labels, 0: `velero install`'s */
    char **nodes; /* a node-agent pod per node; NULL = worker-1..3 */
    size_t n_nodes;
    char **agents_missing; /* nodes without a node-agent pod */
    size_t n_agents_missing;
    char **agents_not_ready; /* nodes whose node-agent is not ready */
    size_t n_agents_not_ready;
    int has_restart;               /* the server container restarts at restart_at */
    double restart_at, down_for;   /* offset; seconds not ready after it */
    char *restart_reason;          /* default OOMKilled */
    int restart_exit_code;         /* default 137 */
    char *bsl_phase, *bsl_message; /* the default BSL's phase from bsl_at on (NULL: Available) */
    char *bsl_name;                /* that BSL (NULL: "default"; another name is created) */
    double bsl_at;
    /* velero.concurrent_backups: the server runs with --concurrent-backups=N and its queue
     * controller holds backups as Velero's does (at most N at once, none overlapping an earlier
     * one's namespaces); 0: not given, every backup starts at once (the sim before the queue) */
    int concurrent_backups;
    char *version; /* velero.version: the server's and node-agents' image tag (NULL: v1.18.2) */
} scn_cluster;

/* 1 when node has a ready node-agent in this scenario. */
int scn_agent_ready(const scn_cluster *c, const char *node);

typedef struct scenario {
    int has_epoch;
    int resource_progress; /* `resource_progress: true`: runs write status.resourceProgress */
    double epoch;          /* unix seconds of the sim's start when has_epoch */
    char **namespaces;
    size_t n_namespaces;
    scn_run *runs;
    size_t n_runs;
    scn_schedule *schedules;
    size_t n_schedules;
    scn_repo *repos; /* `repositories:` */
    size_t n_repos;
    scn_cluster cluster;
} scenario;

/* Loads "demo", "empty" or a YAML file. NULL with err ("file:line: message") on failure. */
scenario *scenario_load(const char *name_or_path, unsigned seed, char *err, size_t errlen);
/* As scenario_load, with the cluster's clock reading now (unix seconds) at the start: "demo"
 * places its history (nightly backups at 01:00 of the cluster's days) by it. */
scenario *scenario_load_at(const char *name_or_path, unsigned seed, double now, char *err,
                           size_t errlen);
/* Parses YAML text; `file` only names it in messages. */
scenario *scenario_parse(const char *text, size_t len, const char *file, char *err, size_t errlen);
void scenario_free(scenario *s);

/* Deep copy of a run (for schedule templates). */
void scn_run_copy(scn_run *dst, const scn_run *src);
void scn_run_clear(scn_run *r);
/* Fills a run with the defaults (rate 10, fail_at 0.5, ttl 720h, location "default"). */
void scn_run_defaults(scn_run *r);

/* Parses "200Mi", "1G", "123" into bytes; "90s", "-2h", "5m", "1.5" into seconds. -1 on error. */
int scn_parse_bytes(const char *s, double *out);
int scn_parse_duration(const char *s, double *out);

/* A minimal cron: 5 fields (each "*", N, a-b, a,b, or a step "/N" after "*" or a range) or
 * "@every <duration>". */
typedef struct scn_cron {
    int every;                         /* seconds for @every, else 0 */
    uint64_t min, hour, dom, mon, dow; /* bit sets */
} scn_cron;
int scn_cron_parse(const char *spec, scn_cron *c, char *err, size_t errlen);
/* The first firing time strictly after t (unix seconds, UTC); `origin` anchors @every. */
double scn_cron_next(const scn_cron *c, double origin, double t);
