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

#define REPO_DEFAULT_FREQUENCY_S (7 * 86400.0) /* Velero's defaultMaintainFrequency */
/* Velero starts a maintenance once lastMaintenanceTime + frequency has passed, on the repository
 * controller's next pass (every 5 minutes): overdue is later than that. */
#define REPO_OVERDUE_GRACE_S 300.0
#define REPO_RECENT_KEPT     25 /* recentMaintenance entries Velero keeps (the oldest drop) */

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
} repo_row;

typedef struct repo_report {
    repo_row *rows; /* sorted by name */
    size_t n;
    double now; /* the instant judged, on the cluster's clock */
    /* why the list is not known ("forbidden", "not listed yet", its error), "" when read: the
     * rows are then unknown, not none (repo_set_unread) */
    char unread[200];
    int n_failing, n_overdue, n_not_ready; /* rows needing attention, by kind */
} repo_report;

/* From a store of kc_repo (NULL: none watched) at now (cluster's clock, unix seconds). */
repo_report *repo_build(kc_store *repos, double now);
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
