/* snapshot_health.c: the health and "why is it stuck?" parts of --once --json: "schedules",
 * "storageLocations", "velero", "nodeAgents" and per run "diagnosis", added to snapshot_json's
 * object (kept apart so the run snapshot stays one module). Strings are the server's exact text
 * (san_utf8), as there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "health.h"
#include "kubeclient/util.h"
#include "readiness.h"
#include "sanitize.h"
#include "snapshot.h"

/* Restore readiness of schedule hs (readiness.h): "restorable" {backup, phase, errors,
 * ageSeconds, ...}, or null with "restorableUnknown" saying why (its backups cannot be read). A
 * known schedule with nothing restorable has backup null. */
static void sh_restorable(cJSON *o, const health *h, const health_schedule *hs)
{
    const ready_schedule *rs = ready_find(h->ready, hs->s->meta.name);
    if (!rs || !rs->known) {
        cJSON_AddNullToObject(o, "restorable");
        char *why = rs ? xasprintf("cannot read backups: %s", h->ready->backups_unread)
                       : xstrdup("not judged");
        snapshot_add_str(o, "restorableUnknown", why);
        free(why);
        return;
    }
    cJSON *r = cJSON_AddObjectToObject(o, "restorable");
    const vl_run *b = rs->backup;
    snapshot_add_str(r, "backup", b ? b->meta.name : NULL);
    snapshot_add_str(r, "phase", b ? b->phase : NULL);
    if (b)
        cJSON_AddNumberToObject(r, "errors", (double)b->errors);
    else
        cJSON_AddNullToObject(r, "errors");
    snapshot_add_time(r, "startTimestamp", b ? rs->taken : 0);
    if (b)
        cJSON_AddNumberToObject(r, "ageSeconds", floor(rs->age));
    else
        cJSON_AddNullToObject(r, "ageSeconds");
    if (rs->interval > 0)
        cJSON_AddNumberToObject(r, "intervalSeconds", rs->interval);
    else
        cJSON_AddNullToObject(r, "intervalSeconds");
    cJSON_AddBoolToObject(r, "stale", rs->stale);
    snapshot_add_str(r, "storageLocation", b ? b->storage_location : NULL);
    if (rs->bsl == RDY_UNKNOWN)
        cJSON_AddNullToObject(r, "bslAvailable");
    else
        cJSON_AddBoolToObject(r, "bslAvailable", rs->bsl == RDY_YES);
    snapshot_add_str(r, "bslReason", rs->bsl != RDY_YES && b ? rs->bsl_why : NULL);
    snapshot_add_time(r, "lastRestore", rs->restores_known ? rs->last_restore : 0);
    snapshot_add_str(r, "lastRestoreName", rs->restore ? rs->restore->meta.name : NULL);
    if (!rs->restores_known) snapshot_add_str(r, "lastRestoreUnknown", rs->restore_why);
}

static void sh_schedules(cJSON *root, const health *h)
{
    cJSON *a = cJSON_AddArrayToObject(root, "schedules");
    for (size_t i = 0; i < h->n_sch; i++) {
        const health_schedule *hs = &h->sch[i];
        cJSON *o = cJSON_CreateObject();
        snapshot_add_str(o, "name", hs->s->meta.name);
        snapshot_add_str(o, "schedule", hs->s->schedule);
        cJSON_AddBoolToObject(o, "paused", hs->s->paused);
        snapshot_add_time(o, "lastBackup", hs->s->last_backup);
        snapshot_add_str(o, "lastPhase", hs->last ? hs->last->phase : NULL);
        snapshot_add_time(o, "nextRun", hs->cron_ok && !hs->s->paused ? hs->due.next : 0);
        /* its backups not readable: whether one succeeded in time is unknown, not "no" */
        if (hs->runs_unknown)
            cJSON_AddNullToObject(o, "overdue");
        else
            cJSON_AddBoolToObject(o, "overdue", hs->due.overdue);
        if (hs->runs_unknown) {
            char *why = xasprintf("cannot read backups: %s", h->unread[HEALTH_IN_BACKUPS]);
            snapshot_add_str(o, "unknown", why);
            free(why);
        }
        if (!hs->cron_ok) snapshot_add_str(o, "error", hs->cron_err);
        /* how its last HEALTH_RECENT finished runs ended (null: its backups not readable) */
        cJSON *rc = hs->runs_unknown ? cJSON_AddNullToObject(o, "recent")
                                     : cJSON_AddObjectToObject(o, "recent");
        if (!hs->runs_unknown) {
            cJSON_AddNumberToObject(rc, "runs", hs->n_recent);
            cJSON_AddNumberToObject(rc, "completed", hs->n_ok);
            cJSON_AddNumberToObject(rc, "partiallyFailed", hs->n_partial);
            cJSON_AddNumberToObject(rc, "failed", hs->n_failed);
        }
        snapshot_add_str(o, "lastFinishedPhase",
                         hs->last_finished ? hs->last_finished->phase : NULL);
        sh_restorable(o, h, hs);
        cJSON_AddItemToArray(a, o);
    }
}

static void sh_locations(cJSON *root, const health *h)
{
    cJSON *a = cJSON_AddArrayToObject(root, "storageLocations");
    for (size_t i = 0; i < h->n_bsl; i++) {
        const vl_bsl *b = h->bsl[i];
        cJSON *o = cJSON_CreateObject();
        snapshot_add_str(o, "name", b->meta.name);
        snapshot_add_str(o, "phase", b->phase);
        snapshot_add_time(o, "lastValidationTime", b->last_validated);
        snapshot_add_time(o, "unavailableSince", h->bsl_since ? h->bsl_since[i] : 0);
        snapshot_add_str(o, "message", b->message);
        cJSON_AddBoolToObject(o, "default", b->is_default);
        snapshot_add_str(o, "accessMode", b->access_mode ? b->access_mode : "ReadWrite");
        cJSON_AddItemToArray(a, o);
    }
}

static void sh_pods(cJSON *root, const health *h)
{
    const kc_pod *p = h->server;
    /* pods not visible (forbidden, failing): what they would say is unknown, not "none" */
    if (!h->pods_known || !p) {
        cJSON_AddNullToObject(root, "velero");
    } else {
        cJSON *o = cJSON_AddObjectToObject(root, "velero");
        snapshot_add_str(o, "pod", p->name);
        cJSON_AddBoolToObject(o, "ready", p->ready);
        cJSON_AddNumberToObject(o, "restarts", p->restarts);
        snapshot_add_time(o, "lastRestart", p->last_restart);
        snapshot_add_str(o, "lastRestartReason", p->last_reason);
        snapshot_add_str(o, "version", p->version);
    }
    cJSON *a = h->pods_known ? cJSON_AddArrayToObject(root, "nodeAgents")
                             : cJSON_AddNullToObject(root, "nodeAgents");
    for (size_t i = 0; h->pods_known && i < h->n_agents; i++) {
        cJSON *o = cJSON_CreateObject();
        snapshot_add_str(o, "node", h->agents[i].node);
        snapshot_add_str(o, "pod", h->agents[i].pod->name);
        cJSON_AddBoolToObject(o, "ready", h->agents[i].pod->ready);
        cJSON_AddItemToArray(a, o);
    }
    const kc_daemonset *ds = h->agent_ds;
    if (!ds || !ds->has_status) {
        cJSON_AddNullToObject(root, "nodeAgentDaemonSet");
    } else {
        cJSON *o = cJSON_AddObjectToObject(root, "nodeAgentDaemonSet");
        snapshot_add_str(o, "name", ds->name);
        cJSON_AddNumberToObject(o, "desired", ds->desired);
        cJSON_AddNumberToObject(o, "current", ds->current);
        cJSON_AddNumberToObject(o, "ready", ds->ready);
        cJSON_AddNumberToObject(o, "available", ds->available);
    }
    cJSON *nw = h->pods_known ? cJSON_AddArrayToObject(root, "nodesWithoutNodeAgent")
                              : cJSON_AddNullToObject(root, "nodesWithoutNodeAgent");
    for (size_t i = 0; h->pods_known && i < h->n_nodes_without; i++) {
        char *n = san_utf8(h->nodes_without[i]);
        cJSON_AddItemToArray(nw, cJSON_CreateString(n));
        free(n);
    }
}

/* The one judgement (health_judge): ok true, false (something read needs attention), or null
 * while an input it needs is not read, with "unknown" saying which and why. */
static void sh_summary(cJSON *root, const health *h)
{
    char buf[1024], unk[1024];
    health_verdict v = health_judge(h, buf, sizeof buf);
    health_unknown(h, unk, sizeof unk);
    cJSON *o = cJSON_AddObjectToObject(root, "health");
    if (v == HEALTH_UNKNOWN)
        cJSON_AddNullToObject(o, "ok");
    else
        cJSON_AddBoolToObject(o, "ok", v == HEALTH_OK);
    snapshot_add_str(o, "summary", buf);
    snapshot_add_str(o, "unknown", unk[0] ? unk : NULL);
}

char *snapshot_health_json(const health *h, const char *snapshot)
{
    cJSON *root = cJSON_Parse(snapshot);
    if (!root) return xstrdup(snapshot);
    sh_schedules(root, h);
    sh_locations(root, h);
    sh_pods(root, h);
    sh_summary(root, h); /* judged on the cluster's clock (h->now), as the screen's line */
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char *esc = san_json_text(txt); /* DEL and C1 escaped too: exact, never raw */
    free(txt);
    char *out = xasprintf("%s\n", esc);
    free(esc);
    return out;
}
