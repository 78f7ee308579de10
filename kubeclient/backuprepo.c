/* backuprepo.c: decodes velero.io/v1 BackupRepositories (backuprepo.h). Missing fields stay
 * unset: a repository not maintained yet has no lastMaintenanceTime and no recentMaintenance. */
#include "kubeclient/backuprepo.h"

#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

static const cJSON *repo_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static char *repo_str(const cJSON *o, const char *key)
{
    const cJSON *v = repo_get(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? xstrdup(v->valuestring) : NULL;
}

static double repo_time(const cJSON *o, const char *key)
{
    const cJSON *v = repo_get(o, key);
    double t = 0;
    if (!cJSON_IsString(v) || kc_parse_time(v->valuestring, &t)) return 0;
    return t;
}

kc_repo *kc_repo_decode(const cJSON *obj)
{
    if (!cJSON_IsObject(obj)) return NULL;
    kc_repo *r = xcalloc(1, sizeof *r);
    const cJSON *md = repo_get(obj, "metadata"), *spec = repo_get(obj, "spec"),
                *st = repo_get(obj, "status");
    r->name = repo_str(md, "name");
    r->ns = repo_str(md, "namespace");
    r->created = repo_time(md, "creationTimestamp");
    r->volume_ns = repo_str(spec, "volumeNamespace");
    r->bsl = repo_str(spec, "backupStorageLocation");
    r->type = repo_str(spec, "repositoryType");
    r->frequency = repo_str(spec, "maintenanceFrequency");
    r->phase = repo_str(st, "phase");
    r->message = repo_str(st, "message");
    r->last_maintenance = repo_time(st, "lastMaintenanceTime");
    const cJSON *rec = repo_get(st, "recentMaintenance");
    int n = cJSON_IsArray(rec) ? cJSON_GetArraySize(rec) : 0;
    int skip = n > KC_REPO_RECENT_MAX ? n - KC_REPO_RECENT_MAX : 0; /* keep the newest */
    if (n - skip > 0) r->recent = xcalloc((size_t)(n - skip), sizeof *r->recent);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, rec)
    {
        if (i++ < skip || !cJSON_IsObject(e)) continue;
        kc_repo_maint *m = &r->recent[r->n_recent++];
        m->result = repo_str(e, "result");
        m->failed = m->result && !strcmp(m->result, "Failed");
        m->message = repo_str(e, "message");
        m->started = repo_time(e, "startTimestamp");
        m->completed = repo_time(e, "completeTimestamp");
    }
    return r;
}

void kc_repo_free(kc_repo *r)
{
    if (!r) return;
    free(r->name);
    free(r->ns);
    free(r->volume_ns);
    free(r->bsl);
    free(r->type);
    free(r->frequency);
    free(r->phase);
    free(r->message);
    for (size_t i = 0; i < r->n_recent; i++) {
        free(r->recent[i].result);
        free(r->recent[i].message);
    }
    free(r->recent);
    free(r);
}

void *kc_repo_decode_any(const cJSON *obj)
{
    return kc_repo_decode(obj);
}

void kc_repo_release(void *r)
{
    kc_repo_free(r);
}
