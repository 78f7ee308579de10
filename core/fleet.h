/* fleet.h: several clusters watched at once: one app (client, reflectors, model) per context, all
 * on one loop, and a per-cluster summary for the fleet screen and the fleet snapshot, computed
 * from the cluster's model, its health picture and the run answers (answer.h): nothing here
 * judges an ETA or a stall of its own. Each member has its own kc_client: its own credentials
 * (an exec plugin per context, with its own timeout), its own reflectors and backoff, so that one
 * dead, slow or unauthorised cluster delays no other. */
#pragma once
#include <stddef.h>

#include "answer.h"
#include "app.h"
#include "health.h"
#include "kubeclient/kubeconfig.h"

/* The lamp of a cluster, in the order of how little of it can be read. */
typedef enum {
    FL_LIVE,         /* every list read and watched */
    FL_CONNECTING,   /* the first lists are on their way */
    FL_RETRYING,     /* a list fails and is retried (5xx, 429, a watch that broke) */
    FL_NO_VELERO,    /* listed, and nothing of Velero in that namespace */
    FL_FORBIDDEN,    /* the server answers, and refuses a list (403) */
    FL_UNAUTHORIZED, /* the credentials are rejected (401) or cannot be had (exec plugin) */
    FL_UNREACHABLE,  /* no answer: refused, timed out, never answered, stopped answering */
    FL_CONFIG        /* the context cannot be used: not in the kubeconfig, bad settings */
} fleet_lamp;

const char *fleet_lamp_name(fleet_lamp l); /* "live", "unreachable", "no Velero", ... */

/* A cluster that said nothing at all for this long is unreachable (a black-holed address: the
 * connection is never answered): under the 10 s, and before --once's deadline. */
#define FLEET_SILENT_S 8.0

typedef struct fleet_sum {
    fleet_lamp lamp;
    char why[1100]; /* the lamp's reason ("" live), naming the list or the error */
    int reachable;  /* the API server answers */
    int listed;     /* the backups and restores are in (else every count below is unknown) */

    char version[64]; /* the Velero server's image tag; "" unknown */

    /* runs in flight (answer.active), of which stalled (answer: stalled yes); the one ending
     * last among those with an ETA */
    int n_active, n_stalled, n_eta_unknown;
    vl_kind stalled_kind; /* of the first stalled one (the headline) */
    char last_name[256];  /* the run ending last, "" none */
    vl_kind last_kind;
    double last_eta; /* seconds from the data's time */
    ans_eta_kind last_eta_kind;

    /* finished in the last 24 h (by completion, else start time) */
    int day_completed, day_partial, day_failed;

    /* schedules: overdue count; the one whose last success is oldest against its interval */
    int sched_known; /* the schedules were read (else the three below are unknown) */
    int n_schedules, n_overdue;
    char sched_name[256];
    double sched_age;      /* seconds since its last successful backup; < 0 never */
    double sched_interval; /* its interval in seconds; 0 unknown */
    /* restore readiness (readiness.h): schedules whose newest restorable backup is older than
     * READY_STALE_INTERVALS intervals, and the first of them by name; ready_known 0 (ready_why
     * says why) when the schedules or their backups cannot be read */
    int ready_known, n_ready_stale;
    char ready_stale_name[256], ready_why[256];

    int bsl_known, bsl_available, bsl_total;
    int agents_known, agents_ready, agents_total;

    int warn;  /* a diagnosis rule fires for a run not finished */
    int wrong; /* something wrong: a run Failed/PartiallyFailed in 24 h, a run stalled, a
                  schedule overdue, a storage location unavailable */
    int n_bsl_unavailable;
    unsigned missing; /* ANS_MISS_* of the lists not visible */

    /* the health picture's one judgement (health_judge) and what it could not read
     * (health_unknown); HEALTH_UNKNOWN while the runs are not listed */
    health_verdict health;
    char health_unknown[512];
    /* lists health needs that the answers' own "incomplete" does not name, not read:
     * "schedules forbidden, backupstoragelocations forbidden" ("" none) */
    char lists_unread[256];
} fleet_sum;

/* The model's part of the summary (runs, schedules, locations, pods): pure, for tests over a
 * synthetic model. c: the answer context (c->m the model; its now/wall the data's time); h may
 * be NULL (schedules, locations and pods unknown); wall: unix seconds now (the 24 h window).
 * The lamp is left FL_LIVE: the member's connection decides it (fleet_member_summary). */
void fleet_summarize(const ans_ctx *c, const health *h, double wall, fleet_sum *out);

/* ---- the judgement of a context: one rule for the exit status and the JSON ------------- */

/* What --once's exit status (one context and several) and the JSON's summary.wrong, warning
 * and incomplete all say of a context: derived from its summary by fleet_judge, and nowhere
 * else. */
typedef struct fleet_verdict {
    /* its runs could not be read: unreachable, unauthorized, unusable, the backups or restores
     * forbidden or failing (then wrong and warning are unknown) */
    int unreadable;
    /* read, but not all: a list the run answers or health need is not visible (forbidden,
     * failing), or there is no Velero in the namespace */
    int incomplete;
    /* read, and something is wrong: a run Failed or PartiallyFailed in the last 24 h, a run
     * stalled, a schedule overdue, a storage location unavailable; or incomplete */
    int wrong;
    int warning; /* a diagnosis rule fires for a run in flight */
    /* one line: what is wrong and what it lacks ("1 schedule overdue, no Velero in namespace
     * velero"), or why it could not be read */
    char why[1600];
    /* "incomplete" entries the run answers' own lists (answer.h) do not name: no Velero there,
     * a list retrying, health's lists not read */
    char inc[3][1100];
    int n_inc;
} fleet_verdict;

void fleet_judge(const fleet_sum *s, fleet_verdict *v);

/* Exit statuses of --once (README, doc/veltop.1 EXIT STATUS), all from fleet_judge: */
#define FLEET_EXIT_UNREADABLE 1  /* one context: its runs could not be read */
#define FLEET_EXIT_INCOMPLETE 5  /* one context: printed, but incomplete (or no Velero) */
#define FLEET_EXIT_WRONG      7  /* several: every context read; something wrong in one */
#define FLEET_EXIT_UNREAD     8  /* several: a context could not be read */
#define FLEET_EXIT_BOTH       9  /* several: both of the above */
#define FLEET_EXIT_NOFILE     10 /* the open-file limit left contexts unwatched (before the above) */
/* One context's status: 1 unreadable, 5 incomplete, else 0 (what is wrong in a complete
 * snapshot is its content, not a failure of --once). */
int fleet_exit_one(const fleet_verdict *v);
/* Several contexts' status: 8 when one is unreadable, 7 when one is wrong, 9 both, else 0. */
int fleet_exit_many(const fleet_verdict *v, size_t n);

/* How bad a summary is, for sorting worst first (higher = worse). */
int fleet_severity(const fleet_sum *s);
/* The headline of a cluster: "OK", "stalled restore", "unreachable", "2 failed", ... */
const char *fleet_headline(const fleet_sum *s, char *buf, size_t n);
/* "14 clusters: 12 OK, 1 stalled restore, 1 unreachable" (groups by headline, worst first). */
char *fleet_totals(const fleet_sum *sums, size_t n, char *buf, size_t len);
/* The judgement's totals (fleet_judge, the one --once's exit status and JSON summary use):
 * "10 clusters: 7 OK, 1 warning, 1 wrong, 1 unreachable" (OK, warning, wrong, then unreadable
 * ones by their lamp: connecting, unreadable, unreachable; classes of none left out). */
char *fleet_verdict_totals(const fleet_sum *sums, size_t n, char *buf, size_t len);

/* ---- the fleet: members on one loop ----------------------------------------------------- */

typedef struct fleet_member {
    char *context, *ns;
    kc_rest_config *cfg; /* owned; NULL when the context cannot be used (error says why) */
    kc_client *client;   /* owned */
    app *app;            /* owned; NULL with error */
    char error[1100];    /* the configuration's error, naming the context */
    double started;      /* monotonic seconds the member began */
    /* where the namespace holds no Velero: one cluster-wide `limit=1` list of storage locations
     * (when this user may) says where Velero is */
    kc_request *find;
    int find_state;     /* 0 not asked, 1 asking, 2 answered */
    char found_ns[128]; /* "" none found (or not allowed) */
} fleet_member;

typedef struct fleet {
    kc_loop *loop;
    fleet_member **m;
    size_t n;
    /* 1: members are added as summaries (app_new_summary: the volumes their answers read, not
     * every finished run's), loaded whole when a screen opens one (app_load_all_volumes) */
    int summary;
    /* contexts asked for and left out: the open-file limit (fd_limit) cannot hold their
     * connections (kubeclient/fdbudget.h); every surface says so, never "unreachable" */
    size_t not_watched;
    long fd_limit;
} fleet;

fleet *fleet_new(kc_loop *loop);
/* Adds a member for context in namespace ns: cfg (taken, may be NULL with error set: a context
 * missing from the kubeconfig, a bad file) gets its own client and app, started at once. */
fleet_member *fleet_add(fleet *f, const char *context, const char *ns, kc_rest_config *cfg,
                        const char *error);
void fleet_free(fleet *f);
/* "open-file limit 1024 reached: 40 contexts not watched; raise it with ulimit -n" into buf, ""
 * when every context asked for is watched. */
const char *fleet_not_watched(const fleet *f, char *buf, size_t n);

/* The member's summary at monotonic now / unix wall: the lamp from its reflectors, client and
 * liveness, then fleet_summarize over its model. */
void fleet_member_summary(fleet_member *fm, double now, double wall, fleet_sum *out);
/* 1 while the member's search for Velero's namespace (no Velero in the one watched) is on its
 * way: --once waits for it. */
int fleet_member_finding(const fleet_member *fm);
/* 1 when the member's row is final: listed (or its runs cannot be listed), or unreachable,
 * unauthorised, unusable. --once waits for every member to be. */
int fleet_member_settled(const fleet_member *fm, double now);
