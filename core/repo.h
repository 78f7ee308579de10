/* repo.h: "is repository maintenance keeping up?": each BackupRepository (kubeclient/backuprepo.h)
 * judged at one instant: its phase, how long since its last successful maintenance against its
 * maintenanceFrequency (overdue), and its recent maintenance results (the streak of failures
 * that ends with the newest, and its message). One judgement, which the health screen,
 * --once (table and JSON) and the exporter all render. Pure: no curses, no clock (times are
 * passed in). */
#pragma once
#include <stddef.h>

#include "app.h"
#include "kubeclient/backuprepo.h"
#include "kubeclient/job.h"
#include "kubeclient/pod.h"

#define REPO_DEFAULT_FREQUENCY_S (7 * 86400.0) /* Velero's defaultMaintainFrequency */
/* Velero starts a maintenance once lastMaintenanceTime + frequency has passed, on the repository
 * controller's next pass (every 5 minutes): overdue is later than that. */
#define REPO_OVERDUE_GRACE_S 300.0
#define REPO_RECENT_KEPT     25 /* recentMaintenance entries Velero keeps (the oldest drop) */

#define REPO_JOBS_KEPT 8 /* maintenance jobs kept per repository (Velero keeps 3 by default) */

typedef struct repo_row {
    const kc_repo *r;
    double frequency;      /* s: spec.maintenanceFrequency, else Velero's default */
    int frequency_default; /* 1: the spec gives none (or one that is not a Go duration) */
    double age;            /* s since the last success (lastMaintenanceTime); < 0 never/unknown */
    double due;            /* when the next maintenance is due (cluster's clock); 0 unknown */
    int overdue;           /* due + REPO_OVERDUE_GRACE_S has passed */
    int failed_streak;     /* Failed results that end the recent list (0: the newest succeeded) */
    int streak_at_least;   /* the whole kept list failed and Velero drops older ones: the streak
                              is at least failed_streak, not exactly */
    const kc_repo_maint *newest; /* the newest recent result, NULL none */
    int not_ready;               /* phase NotReady */
    /* its maintenance Jobs (label velero.io/repo-name, kc_job_repo_label): newest first, at
     * most REPO_JOBS_KEPT; the first n_running of them are running (no Complete/Failed yet) */
    const kc_job *jobs[REPO_JOBS_KEPT];
    size_t n_jobs, n_jobs_all, n_running;
} repo_row;

typedef struct repo_report {
    repo_row *rows; /* sorted by name */
    size_t n;
    double now; /* the instant judged, on the cluster's clock */
    /* why the list is not known ("forbidden", "not listed yet", its error), "" when read: the
     * rows are then unknown, not none (repo_set_unread) */
    char unread[200];
    int n_failing, n_overdue, n_not_ready; /* rows needing attention, by kind */
    /* the maintenance jobs: jobs_unread says why they cannot be read ("forbidden", "not listed
     * yet"), "" when read (then a row without jobs has none) */
    char jobs_unread[200];
    kc_store *pods; /* the Velero namespace's pods (their job-name label), NULL unknown */
} repo_report;

/* From a store of kc_repo (NULL: none watched) at now (cluster's clock, unix seconds). */
repo_report *repo_build(kc_store *repos, double now);
/* Joins the maintenance jobs of store jobs (NULL: not watched) to the rows; jobs_known 0 with why
 * when they cannot be read (every row's jobs unknown, not none). pods: to find a job's pod. */
void repo_add_jobs(repo_report *rp, kc_store *jobs, int jobs_known, const char *why,
                   kc_store *pods);
/* A job's state: "running", "succeeded", "failed" (Complete/Failed conditions, else the counts). */
const char *repo_job_state(const kc_job *j);
/* The job's pod (label job-name=<job>; the newest), NULL when none is seen. */
const kc_pod *repo_job_pod(const repo_report *rp, const kc_job *j);
/* The row's maintenance jobs as one line into buf: "maintenance jobs: running
 * repo-maintain-job-1 (started 2m00s ago); last: failed 1h00m ago (took 40s), succeeded ..."
 * "maintenance jobs: none", "maintenance jobs: unknown (forbidden)". now: cluster clock. Raw
 * cluster text: sanitise before a terminal. Returns buf. */
char *repo_jobs_line(const repo_report *rp, const repo_row *w, char *buf, size_t n);

/* The list cannot be read, and why: no row is shown as none. */
void repo_set_unread(repo_report *rp, const char *why);
void repo_report_free(repo_report *rp);
/* 1 when the row needs attention: failing maintenance, overdue, or NotReady. */
int repo_attention(const repo_row *w);
/* The diagnosis of a row needing attention, the first that applies, into buf: "repository X:
 * maintenance failed 3 times, last: <message>" ("at least 25 times" when older ones were
 * dropped), "repository X: NotReady: <message>", "repository X: maintenance overdue by 2h 5m
 * (last 3h 5m ago, every 1h)" / "(never maintained, every 1h)"; "" when it needs none. Raw
 * cluster text: sanitise before a terminal. Returns buf. */
char *repo_diagnose(const repo_row *w, char *buf, size_t n);
/* "repositories 3 (1 failing, 1 overdue)", or "repositories: unknown (cannot read
 * backuprepositories: forbidden)". Returns buf. */
char *repo_summary(const repo_report *rp, char *buf, size_t n);
/* "cannot read backuprepositories: <why>", "" when read. Returns buf. */
char *repo_unknown(const repo_report *rp, char *buf, size_t n);
