/* simrepo.c: builds the sim's BackupRepositories from a scenario (simrepo.h), on the shape of
 * pkg/apis/velero/v1/backup_repository_types.go: spec volumeNamespace, backupStorageLocation,
 * repositoryType, maintenanceFrequency; status phase, message, lastMaintenanceTime and
 * recentMaintenance (oldest first). */
#include "simrepo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/job.h"

#include "kubeclient/util.h"

char *simrepo_go_duration(double s, char *buf, size_t n)
{
    long long t = (long long)llround(s);
    if (t < 0) t = 0;
    long long h = t / 3600, m = t % 3600 / 60, sec = t % 60;
    if (h)
        snprintf(buf, n, "%lldh%lldm%llds", h, m, sec);
    else if (m)
        snprintf(buf, n, "%lldm%llds", m, sec);
    else
        snprintf(buf, n, "%llds", sec);
    return buf;
}

static void simrepo_time(cJSON *o, const char *key, double t)
{
    char ts[40];
    kc_format_time(floor(t), ts, sizeof ts);
    cJSON_AddStringToObject(o, key, ts);
}

cJSON *simrepo_object(const scn_repo *r, const char *ns, double epoch)
{
    const char *bsl = r->bsl ? r->bsl : "default", *type = r->type ? r->type : "kopia";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(o, "kind", "BackupRepository");
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", r->name);
    cJSON_AddStringToObject(md, "namespace", ns);
    /* created before its oldest maintenance */
    double created = epoch - 86400 * 30;
    for (size_t i = 0; i < r->n_recent; i++)
        if (epoch + r->recent[i].at - 3600 < created) created = epoch + r->recent[i].at - 3600;
    simrepo_time(md, "creationTimestamp", created);
    /* the labels pkg/repository/util gives it */
    cJSON *l = cJSON_AddObjectToObject(md, "labels");
    cJSON_AddStringToObject(l, "velero.io/repository-type", type);
    cJSON_AddStringToObject(l, "velero.io/storage-location", bsl);
    cJSON_AddStringToObject(l, "velero.io/volume-namespace", r->volume_ns);
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddStringToObject(spec, "backupStorageLocation", bsl);
    char d[48];
    simrepo_go_duration(r->frequency > 0 ? r->frequency : 7 * 86400.0, d, sizeof d);
    cJSON_AddStringToObject(spec, "maintenanceFrequency", d);
    cJSON_AddStringToObject(spec, "repositoryType", type);
    cJSON_AddStringToObject(spec, "volumeNamespace", r->volume_ns);
    cJSON *st = cJSON_AddObjectToObject(o, "status");
    if (r->has_last) simrepo_time(st, "lastMaintenanceTime", epoch + r->last);
    if (r->message) cJSON_AddStringToObject(st, "message", r->message);
    cJSON_AddStringToObject(st, "phase", r->phase ? r->phase : "Ready");
    if (r->n_recent) {
        cJSON *rec = cJSON_AddArrayToObject(st, "recentMaintenance");
        for (size_t i = 0; i < r->n_recent; i++) {
            cJSON *e = cJSON_CreateObject();
            simrepo_time(e, "completeTimestamp", epoch + r->recent[i].at);
            if (r->recent[i].message) cJSON_AddStringToObject(e, "message", r->recent[i].message);
            cJSON_AddStringToObject(e, "result", r->recent[i].result);
            simrepo_time(e, "startTimestamp", epoch + r->recent[i].at - 60);
            cJSON_AddItemToArray(rec, e);
        }
    }
    return o;
}

char *simrepo_job_name(const scn_repo *r, const scn_repo_job *j, double t, char *buf, size_t n)
{
    if (j->name) {
        snprintf(buf, n, "%s", j->name);
        return buf;
    }
    long long ms = (long long)llround(t * 1000.0);
    snprintf(buf, n, "%s-maintain-job-%lld", r->name, ms);
    if (strlen(buf) > 63) snprintf(buf, n, "repo-maintain-job-%lld", ms);
    return buf;
}

static cJSON *simrepo_meta(cJSON *o, const char *api, const char *kind, const char *name,
                           const char *ns, double created)
{
    cJSON_AddStringToObject(o, "apiVersion", api);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    simrepo_time(md, "creationTimestamp", created);
    return cJSON_AddObjectToObject(md, "labels");
}

cJSON *simrepo_job(const scn_repo *r, const scn_repo_job *j, const char *name, const char *ns,
                   double epoch)
{
    double start = epoch + j->start, end = start + j->duration;
    int running = !strcmp(j->result, "Running"), failed = !strcmp(j->result, "Failed");
    char label[80];
    cJSON *o = cJSON_CreateObject();
    cJSON *lb = simrepo_meta(o, "batch/v1", "Job", name, ns, start);
    /* maintenance.go: velero.io/repo-name = label.ReturnNameOrHash(repo.Name) */
    cJSON_AddStringToObject(lb, "velero.io/repo-name",
                            kc_job_repo_label(r->name, label, sizeof label));
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddNumberToObject(spec, "backoffLimit", 1);
    cJSON_AddNumberToObject(spec, "ttlSecondsAfterFinished", 86400);
    cJSON *st = cJSON_AddObjectToObject(o, "status");
    simrepo_time(st, "startTime", start);
    if (running) {
        cJSON_AddNumberToObject(st, "active", 1);
        cJSON_AddNumberToObject(st, "ready", 1);
        return o;
    }
    cJSON_AddNumberToObject(st, failed ? "failed" : "succeeded", 1);
    cJSON *conds = cJSON_AddArrayToObject(st, "conditions");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", failed ? "Failed" : "Complete");
    cJSON_AddStringToObject(c, "status", "True");
    simrepo_time(c, "lastProbeTime", end);
    simrepo_time(c, "lastTransitionTime", end);
    if (failed) {
        cJSON_AddStringToObject(c, "reason", "BackoffLimitExceeded");
        cJSON_AddStringToObject(
            c, "message", j->message ? j->message : "Job has reached the specified backoff limit");
    }
    cJSON_AddItemToArray(conds, c);
    if (!failed) simrepo_time(st, "completionTime", end);
    return o;
}

cJSON *simrepo_job_pod(const scn_repo *r, const scn_repo_job *j, const char *name, const char *pod,
                       const char *ns, double epoch)
{
    double start = epoch + j->start, end = start + j->duration;
    int running = !strcmp(j->result, "Running"), failed = !strcmp(j->result, "Failed");
    char label[80];
    cJSON *o = cJSON_CreateObject();
    cJSON *lb = simrepo_meta(o, "v1", "Pod", pod, ns, start);
    cJSON_AddStringToObject(lb, "job-name", name);
    cJSON_AddStringToObject(lb, "batch.kubernetes.io/job-name", name);
    cJSON_AddStringToObject(lb, "velero.io/repo-name",
                            kc_job_repo_label(r->name, label, sizeof label));
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddStringToObject(spec, "nodeName", "worker-1");
    cJSON_AddStringToObject(spec, "restartPolicy", "Never");
    cJSON *cs = cJSON_AddArrayToObject(spec, "containers");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", "velero-repo-maintenance-container");
    cJSON_AddStringToObject(c, "image", "velero/velero:v1.18.2");
    cJSON_AddItemToArray(cs, c);
    cJSON *st = cJSON_AddObjectToObject(o, "status");
    cJSON_AddStringToObject(st, "phase", running ? "Running" : failed ? "Failed" : "Succeeded");
    simrepo_time(st, "startTime", start);
    cJSON *css = cJSON_AddArrayToObject(st, "containerStatuses");
    cJSON *s1 = cJSON_CreateObject();
    cJSON_AddStringToObject(s1, "name", "velero-repo-maintenance-container");
    cJSON_AddBoolToObject(s1, "ready", running);
    cJSON_AddNumberToObject(s1, "restartCount", 0);
    cJSON *state = cJSON_AddObjectToObject(s1, "state");
    if (running) {
        simrepo_time(cJSON_AddObjectToObject(state, "running"), "startedAt", start);
    } else {
        cJSON *t = cJSON_AddObjectToObject(state, "terminated");
        cJSON_AddNumberToObject(t, "exitCode", failed ? 1 : 0);
        cJSON_AddStringToObject(t, "reason", failed ? "Error" : "Completed");
        if (failed && j->message) { /* maintenance.go's TerminationLogIndicator */
            char *m = xasprintf("Repo maintenance error: %s", j->message);
            cJSON_AddStringToObject(t, "message", m);
            free(m);
        }
        simrepo_time(t, "startedAt", start);
        simrepo_time(t, "finishedAt", end);
    }
    cJSON_AddItemToArray(css, s1);
    return o;
}
