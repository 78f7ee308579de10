/* snapshot_health.c: the health and "why is it stuck?" parts of --once --json: "schedules",
 * "storageLocations", "velero", "nodeAgents" and per run "diagnosis", added to snapshot_json's
 * object (kept apart so the run snapshot stays one module). Strings are the server's exact text
 * (san_utf8), as there. */
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "health.h"
#include "kubeclient/util.h"
#include "sanitize.h"
#include "snapshot.h"

static void sh_str(cJSON *o, const char *k, const char *v)
{
    if (!v) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    char *s = san_utf8(v); /* the server's exact text: JSON escaping is its safety */
    cJSON_AddStringToObject(o, k, s);
    free(s);
}

static void sh_time(cJSON *o, const char *k, double t)
{
    if (t <= 0) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    char b[40];
    kc_format_time(t, b, sizeof b);
    cJSON_AddStringToObject(o, k, b);
}

static void sh_schedules(cJSON *root, const health *h)
{
    cJSON *a = cJSON_AddArrayToObject(root, "schedules");
    for (size_t i = 0; i < h->n_sch; i++) {
        const health_schedule *hs = &h->sch[i];
        cJSON *o = cJSON_CreateObject();
        sh_str(o, "name", hs->s->meta.name);
        sh_str(o, "schedule", hs->s->schedule);
        cJSON_AddBoolToObject(o, "paused", hs->s->paused);
        sh_time(o, "lastBackup", hs->s->last_backup);
        sh_str(o, "lastPhase", hs->last ? hs->last->phase : NULL);
        sh_time(o, "nextRun", hs->cron_ok && !hs->s->paused ? hs->due.next : 0);
        cJSON_AddBoolToObject(o, "overdue", hs->due.overdue);
        if (!hs->cron_ok) sh_str(o, "error", hs->cron_err);
        cJSON_AddItemToArray(a, o);
    }
}

static void sh_locations(cJSON *root, const health *h)
{
    cJSON *a = cJSON_AddArrayToObject(root, "storageLocations");
    for (size_t i = 0; i < h->n_bsl; i++) {
        const vl_bsl *b = h->bsl[i];
        cJSON *o = cJSON_CreateObject();
        sh_str(o, "name", b->meta.name);
        sh_str(o, "phase", b->phase);
        sh_time(o, "lastValidationTime", b->last_validated);
        sh_str(o, "message", b->message);
        cJSON_AddBoolToObject(o, "default", b->is_default);
        sh_str(o, "accessMode", b->access_mode ? b->access_mode : "ReadWrite");
        cJSON_AddItemToArray(a, o);
    }
}

static void sh_pods(cJSON *root, const health *h)
{
    const kc_pod *p = h->server;
    if (!p) {
        cJSON_AddNullToObject(root, "velero");
    } else {
        cJSON *o = cJSON_AddObjectToObject(root, "velero");
        sh_str(o, "pod", p->name);
        cJSON_AddBoolToObject(o, "ready", p->ready);
        cJSON_AddNumberToObject(o, "restarts", p->restarts);
        sh_time(o, "lastRestart", p->last_restart);
        sh_str(o, "lastRestartReason", p->last_reason);
        sh_str(o, "version", p->version);
    }
    cJSON *a = cJSON_AddArrayToObject(root, "nodeAgents");
    for (size_t i = 0; i < h->n_agents; i++) {
        cJSON *o = cJSON_CreateObject();
        sh_str(o, "node", h->agents[i].node);
        sh_str(o, "pod", h->agents[i].pod->name);
        cJSON_AddBoolToObject(o, "ready", h->agents[i].pod->ready);
        cJSON_AddItemToArray(a, o);
    }
}

char *snapshot_health_json(const health *h, const char *snapshot)
{
    cJSON *root = cJSON_Parse(snapshot);
    if (!root) return xstrdup(snapshot);
    sh_schedules(root, h);
    sh_locations(root, h);
    sh_pods(root, h);
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *esc = san_json_text(txt); /* DEL and C1 escaped too: exact, never raw */
    free(txt);
    char *out = xasprintf("%s\n", esc);
    free(esc);
    return out;
}
