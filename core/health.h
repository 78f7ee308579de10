/* health.h: "are my backups OK?": Schedules (next run, overdue, recent runs' trend), storage
 * locations (BSL, VSL), the Velero server pod and the node-agents, computed from the stores and
 * the model at one instant. Pure: no curses, no clock (times are passed in). */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "cron.h"
#include "kubeclient/daemonset.h"
#include "kubeclient/pod.h"
#include "repo.h"

#define HEALTH_TREND  8  /* finished runs of a schedule kept for its trend */
#define HEALTH_RECENT 10 /* finished runs of a schedule whose outcomes are counted */

typedef struct health_schedule {
    const vl_schedule *s;
    int cron_ok;
    char cron_err[160];
    cron_due due;
    const vl_run *last;  /* the newest backup of the schedule (by start, else creation), or NULL */
    double last_success; /* start of the newest Completed backup; 0 none (or unknown: below) */
    int runs_unknown;    /* the backups cannot be read: last, last_success, the trend and
                            overdue are unknown, not none (health_set_unread) */
    /* the last finished runs, oldest first: duration (s), items and volume bytes */
    int n_trend;
    double dur[HEALTH_TREND];
    int64_t items[HEALTH_TREND], bytes[HEALTH_TREND];
    int bytes_loading; /* the history's volumes are still arriving (model.vols_partial): bytes
                          holds what came so far, not the runs' bytes */
    vl_phase phase[HEALTH_TREND]; /* their outcomes (the sparkline tells failed runs apart) */
    double typical;               /* median duration of the trend (0 none): the overdue grace */
    /* the outcomes of the last HEALTH_RECENT finished runs: "last 10: 2 ok, 5 partial, 3 failed"
     * (failed: Failed and FailedValidation) */
    int n_recent, n_ok, n_partial, n_failed;
    const vl_run *last_finished; /* the newest finished run, or NULL */
} health_schedule;

typedef struct health_agent {
    const char *node; /* borrowed from the pod */
    const kc_pod *pod;
} health_agent;

#define HEALTH_MAX_NODES 64 /* nodes named as having no node-agent pod */

/* The lists the health picture is made of: one not read makes what it would say unknown. */
typedef enum {
    HEALTH_IN_SCHEDULES,
    HEALTH_IN_BACKUPS, /* a schedule's last success, its trend and overdue come from them */
    HEALTH_IN_BSLS,
    HEALTH_IN_PODS,       /* the Velero server and the node-agents */
    HEALTH_IN_REPOS,      /* backuprepositories: maintenance (repos) */
    HEALTH_IN_JOBS,       /* batch/v1 jobs: the repositories' maintenance jobs (repos), shown under
                           * each repository: not read, the health answer is not whole, as the lamp
                           * (forbidden) and --once's exit status (5) already said */
    HEALTH_IN_VSLS,       /* volumesnapshotlocations: shown beside the BSLs */
    HEALTH_IN_DAEMONSETS, /* apps/v1 daemonsets: how many node-agents there should be */
    HEALTH_NIN
    /* every list the app reads is a health input or said elsewhere: health_input_of_list */
} health_input;

/* The one judgement of health (health_judge): every surface says this word. */
typedef enum {
    HEALTH_OK,        /* every input read, nothing needs attention */
    HEALTH_ATTENTION, /* something that was read needs attention (whatever is unknown) */
    HEALTH_UNKNOWN    /* nothing read needs attention, but an input it needs is not known */
} health_verdict;

typedef struct health {
    health_schedule *sch; /* sorted by name */
    size_t n_sch;
    const vl_bsl **bsl, **vsl; /* sorted by name */
    size_t n_bsl, n_vsl;
    const kc_pod *server; /* the Velero server pod (kc_pod_pick_server), NULL if none */
    size_t n_servers;     /* candidates seen */
    health_agent *agents; /* sorted by node */
    size_t n_agents;
    int pods_known; /* the pod list is in (else server/agents are unknown, not missing) */
    /* the node-agent DaemonSet (named node-agent) when the DaemonSets are listed: its
     * status.desiredNumberScheduled is how many node-agents there should be */
    const kc_daemonset *agent_ds;
    int ds_known; /* the DaemonSet list is in (else the desired count is unknown) */
    /* nodes known to need a node-agent (a pod volume or the server runs there) that have none,
     * sorted; borrowed strings */
    const char *nodes_without[HEALTH_MAX_NODES];
    size_t n_nodes_without;
    /* parallel to bsl: when veltop first saw it Unavailable (0: available, or unknown) */
    double *bsl_since;
    /* summary counts */
    int n_overdue, n_bsl_unavailable, n_agents_ready;
    double now;          /* the instant judged, on the cluster's clock (model_cluster_now) */
    int n_sched_failing; /* schedules whose newest finished run did not complete */
    /* the backup repositories judged (core/repo.h), owned; NULL when not built (health_build
     * alone): then nothing is said about them */
    repo_report *repos;
    /* why each input is not known ("forbidden", "not listed yet", the list's error), "" when it
     * was read: health_set_unread */
    char unread[HEALTH_NIN][200];
    /* restore readiness per schedule (readiness.h), health_of_app's; NULL from health_build */
    struct readiness *ready;
    /* the backup queue (queue.h: length, oldest, dead queue, ReadyToStart stuck), owned;
     * unknown while the backups are not read */
    struct queue_summary *queue;
} health;

/* The number of node-agents there should be: the DaemonSet's desired count when known, else the
 * pods seen (-1 when neither is known). */
int health_agents_wanted(const health *h);

/* Any store may be NULL (not watched); pods_known 0 marks the pods unread ("not listed"). The
 * trend's bytes are m's volume sums as last refreshed (model_refresh_volumes is O(volumes): its
 * caller's cadence). wall: unix seconds, ours (m's clock turns it into the cluster's: h->now). */
health *health_build(model *m, kc_store *schedules, kc_store *bsls, kc_store *vsls, kc_store *pods,
                     int pods_known, double wall);
/* Marks input in of h as not read, with why ("forbidden", "unauthorized", the list's error):
 * what it would say becomes unknown (for the backups: every schedule's last success, trend and
 * overdue; for the pods: the server and node-agents). */
void health_set_unread(health *h, health_input in, const char *why);
/* The name of an input's list: "schedules", "backups", "backupstoragelocations", "pods",
 * "backuprepositories". */
const char *health_input_name(health_input in);
/* The health input a list the app reads (APP_R_*) is; -1 when another answer says it is not
 * read (the restores: the runs, --once's exit 1; the volumes: the answers' own "incomplete");
 * -2 for a list no one names (a bug: test_health checks every list is one or the other). */
int health_input_of_list(int refl);
/* What "incomplete" says of an input not read ("jobs forbidden", "schedules: <the error>"),
 * the same words in --once's stderr and JSON and --serve's veltop_cluster_incomplete_info; NULL
 * when it was read, or when the answers name it (pods: "pods forbidden") or the runs (backups). */
const char *health_incomplete(const health *h, health_input in, char *buf, size_t n);
/* What h could not see, into buf: "cannot read pods: forbidden; cannot read schedules: ...",
 * lists with the same reason together ("cannot read pods, backups: forbidden"); "" when every
 * input was read. Returns buf. */
char *health_unknown(const health *h, char *buf, size_t n);
/* Adds the node-agent DaemonSet of daemonsets (any may be NULL: not watched) to h. */
void health_set_daemonsets(health *h, kc_store *daemonsets, int known);
/* When storage location name was first seen Unavailable (h->bsl_since), 0 when not. */
double health_bsl_since(const health *h, const char *name);
/* "last 10: 2 ok, 5 partial, 3 failed" for hs into buf ("" when it has no finished run). */
char *health_outcomes(const health_schedule *hs, char *buf, size_t n);
void health_free(health *h);
/* The node-agent pod on node (the ready one if several); NULL when none runs there. */
const kc_pod *health_agent_on(const health *h, const char *node);
const vl_bsl *health_bsl(const health *h, const char *name);
/* The one judgement of health, which the list's header, the health screen, --once (table and
 * JSON) and the fleet row all give: ATTENTION when something read needs it, else UNKNOWN when an
 * input is not read (health_unknown says which and why), else OK. buf gets the one-liner of what
 * was read ("schedules 2 (1 overdue)  BSL 1/2 available  server ready (2 restarts)  node-agents
 * 2/3 ready"), nothing about what was not. */
health_verdict health_judge(const health *h, char *buf, size_t n);
/* "OK", "ATTENTION", "unknown". */
const char *health_verdict_name(health_verdict v);
/* From app a's stores and model (health_build over them); each list not read (forbidden,
 * failing, not in yet) is marked unread with its reflector's reason. */
health *health_of_app(app *a, double wall);
