/* simrepo.c: builds the sim's BackupRepositories from a scenario (simrepo.h), on the shape of
 * pkg/apis/velero/v1/backup_repository_types.go: spec volumeNamespace, backupStorageLocation,
 * repositoryType, maintenanceFrequency; status phase, message, lastMaintenanceTime and
 * recentMaintenance (oldest first). */
#include "simrepo.h"

#include <math.h>
#include <stdio.h>

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
