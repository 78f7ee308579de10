/* snapshot_repo.c: the repository-maintenance part of --once --json: "repositories" (one object
 * per BackupRepository, as core/repo.h judges it) and "repositoriesUnknown", added to the
 * snapshot's object. Unknown is null with its reason: a list that cannot be read makes
 * "repositories" null, not []. Strings are the server's exact text (snapshot_add_str). */
#include <math.h>
#include <stdlib.h>

#include "kubeclient/util.h"
#include "repo.h"
#include "sanitize.h"
#include "snapshot.h"

/* its maintenance Jobs (newest first, running ones first): null with maintenanceJobsUnknown
 * when the jobs cannot be read, never [] then */
static void sr_jobs(cJSON *o, const repo_report *rp, const repo_row *w)
{
    if (rp->jobs_unread[0]) {
        cJSON_AddNullToObject(o, "maintenanceJobs");
        snapshot_add_str(o, "maintenanceJobsUnknown", rp->jobs_unread);
        return;
    }
    cJSON *a = cJSON_AddArrayToObject(o, "maintenanceJobs");
    for (size_t i = 0; i < w->n_jobs; i++) {
        const kc_job *j = w->jobs[i];
        cJSON *x = cJSON_CreateObject();
        snapshot_add_str(x, "name", j->name);
        cJSON_AddStringToObject(x, "state", repo_job_state(j));
        snapshot_add_time(x, "startTime", j->started);
        snapshot_add_time(x, "endTime", j->ended);
        if (j->started > 0 && j->ended >= j->started)
            cJSON_AddNumberToObject(x, "durationSeconds", j->ended - j->started);
        else
            cJSON_AddNullToObject(x, "durationSeconds");
        snapshot_add_str(x, "message", j->message);
        const kc_pod *p = repo_job_pod(rp, j);
        snapshot_add_str(x, "pod", p ? p->name : NULL);
        cJSON_AddItemToArray(a, x);
    }
    cJSON_AddNullToObject(o, "maintenanceJobsUnknown");
}

static void sr_row(cJSON *a, const repo_report *rp, const repo_row *w)
{
    const kc_repo *r = w->r;
    cJSON *o = cJSON_CreateObject();
    snapshot_add_str(o, "name", r->name);
    snapshot_add_str(o, "volumeNamespace", r->volume_ns);
    snapshot_add_str(o, "storageLocation", r->bsl);
    snapshot_add_str(o, "repositoryType", r->type);
    snapshot_add_str(o, "phase", r->phase);
    snapshot_add_str(o, "message", r->message);
    /* the spec's text, and what it means in seconds (Velero's default when it gives none) */
    snapshot_add_str(o, "maintenanceFrequency", r->frequency);
    cJSON_AddNumberToObject(o, "maintenanceFrequencySeconds", w->frequency);
    cJSON_AddBoolToObject(o, "maintenanceFrequencyDefault", w->frequency_default);
    snapshot_add_time(o, "lastMaintenanceTime", r->last_maintenance);
    if (w->age >= 0)
        cJSON_AddNumberToObject(o, "lastMaintenanceAgeSeconds", floor(w->age));
    else
        cJSON_AddNullToObject(o, "lastMaintenanceAgeSeconds"); /* never succeeded */
    snapshot_add_time(o, "maintenanceDue", w->due);
    cJSON_AddBoolToObject(o, "overdue", w->overdue);
    cJSON_AddNumberToObject(o, "recentMaintenances", (double)r->n_recent);
    cJSON_AddNumberToObject(o, "failedStreak", w->failed_streak);
    cJSON_AddBoolToObject(o, "failedStreakAtLeast", w->streak_at_least);
    const kc_repo_maint *m = w->newest;
    if (!m) {
        cJSON_AddNullToObject(o, "lastResult");
    } else {
        cJSON *l = cJSON_AddObjectToObject(o, "lastResult");
        snapshot_add_str(l, "result", m->result);
        snapshot_add_time(l, "startTimestamp", m->started);
        snapshot_add_time(l, "completeTimestamp", m->completed);
        snapshot_add_str(l, "message", m->message);
    }
    char diag[1024];
    repo_diagnose(w, diag, sizeof diag);
    snapshot_add_str(o, "diagnosis", diag[0] ? diag : NULL);
    sr_jobs(o, rp, w);
    cJSON_AddItemToArray(a, o);
}

char *snapshot_repo_json(const repo_report *rp, const char *snapshot)
{
    cJSON *root = cJSON_Parse(snapshot);
    if (!root) return xstrdup(snapshot);
    if (!rp) { /* not judged: nothing to add */
        cJSON_Delete(root);
        return xstrdup(snapshot);
    }
    if (rp->unread[0]) {
        char why[256];
        cJSON_AddNullToObject(root, "repositories");
        snapshot_add_str(root, "repositoriesUnknown", repo_unknown(rp, why, sizeof why));
    } else {
        cJSON *a = cJSON_AddArrayToObject(root, "repositories");
        for (size_t i = 0; i < rp->n; i++) sr_row(a, rp, &rp->rows[i]);
        cJSON_AddNullToObject(root, "repositoriesUnknown");
    }
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *esc = san_json_text(txt); /* DEL and C1 escaped too: exact, never raw */
    free(txt);
    char *out = xasprintf("%s\n", esc);
    free(esc);
    return out;
}
