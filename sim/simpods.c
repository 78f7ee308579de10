/* simpods.c: the simulated Velero namespace's pods (simpods.h), as a real cluster shows them:
 * `velero install` labels the server deploy=velero, component=velero and node-agents
 * name=node-agent, role=node-agent, component=velero; the Helm chart labels the server
 * name=velero, app.kubernetes.io/name=velero, app.kubernetes.io/instance=velero and node-agents
 * name=node-agent, role=node-agent plus the same app.kubernetes.io labels. ContainerStatus carries
 * the fields Kubernetes always sends (name, ready, restartCount, image, imageID, started). */
#include "simpods.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubeclient/util.h"

#define SIMPODS_VERSION "v1.18.2" /* the image tag unless velero.version says */
#define SIMPODS_IMAGE_ID                                                                           \
    "docker.io/velero/velero@sha256:"                                                              \
    "6f3c1be5b8f2c9a4d7e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6"

struct simpods {
    simstore *store;
    char *ns, *server;
    const scn_cluster *cl;
    int helm;
    double epoch, started;
    int created;
    int restart_state; /* 0 before, 1 down, 2 back */
    int bsl_done;
    char **agents; /* pod name per node (NULL: missing) */
    char **nodes;
    size_t n_nodes;
    char *image; /* velero/velero:TAG (velero.version) */
};

static void sp_time(cJSON *o, const char *key, double t)
{
    char buf[40];
    kc_format_time(t, buf, sizeof buf);
    cJSON_AddStringToObject(o, key, buf);
}

static cJSON *sp_pod(simpods *p, const char *name, double created)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", "v1");
    cJSON_AddStringToObject(o, "kind", "Pod");
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", p->ns);
    sp_time(md, "creationTimestamp", created);
    cJSON_AddObjectToObject(md, "labels");
    return o;
}

static cJSON *sp_labels(cJSON *o)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"),
                                            "labels");
}

static void sp_spec(const char *image, cJSON *o, const char *ctr, const char *node)
{
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON *ctrs = cJSON_AddArrayToObject(spec, "containers");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", ctr);
    cJSON_AddStringToObject(c, "image", image);
    cJSON_AddItemToArray(ctrs, c);
    if (node) cJSON_AddStringToObject(spec, "nodeName", node);
}

/* status: phase, conditions and one container status. restarts > 0 adds lastState. */
static cJSON *sp_status(const char *image, const char *phase, const char *ctr, int ready,
                        double started, int restarts, double last_start, double last_end,
                        const char *reason, int exit_code, const char *waiting)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "phase", phase);
    cJSON *conds = cJSON_AddArrayToObject(st, "conditions");
    static const char *const types[] = {"Initialized", "Ready", "ContainersReady", "PodScheduled"};
    for (int i = 0; i < 4; i++) {
        cJSON *c = cJSON_CreateObject();
        int ok = i == 1 || i == 2 ? ready : strcmp(phase, "Pending") || i == 3;
        cJSON_AddStringToObject(c, "type", types[i]);
        cJSON_AddStringToObject(c, "status", ok ? "True" : "False");
        cJSON_AddItemToArray(conds, c);
    }
    sp_time(st, "startTime", started);
    if (!strcmp(phase, "Pending")) return st;
    cJSON *css = cJSON_AddArrayToObject(st, "containerStatuses");
    cJSON *cs = cJSON_CreateObject();
    cJSON_AddStringToObject(cs, "name", ctr);
    cJSON *state = cJSON_AddObjectToObject(cs, "state");
    if (waiting) {
        cJSON *w = cJSON_AddObjectToObject(state, "waiting");
        cJSON_AddStringToObject(w, "reason", waiting);
    } else {
        sp_time(cJSON_AddObjectToObject(state, "running"), "startedAt",
                restarts ? last_end + 1 : started);
    }
    cJSON *last = cJSON_AddObjectToObject(cs, "lastState");
    if (restarts) {
        cJSON *t = cJSON_AddObjectToObject(last, "terminated");
        cJSON_AddNumberToObject(t, "exitCode", exit_code);
        cJSON_AddStringToObject(t, "reason", reason);
        sp_time(t, "startedAt", last_start);
        sp_time(t, "finishedAt", last_end);
        cJSON_AddStringToObject(t, "containerID", "containerd://0a1b2c3d4e5f");
    }
    cJSON_AddBoolToObject(cs, "ready", ready);
    cJSON_AddNumberToObject(cs, "restartCount", restarts);
    cJSON_AddStringToObject(cs, "image", image);
    cJSON_AddStringToObject(cs, "imageID", SIMPODS_IMAGE_ID);
    cJSON_AddStringToObject(cs, "containerID", "containerd://5f4e3d2c1b0a");
    cJSON_AddBoolToObject(cs, "started", !waiting);
    cJSON_AddItemToArray(css, cs);
    return st;
}

static void sp_create_in(simpods *p, const char *plural, cJSON *o)
{
    int status = 0;
    char *msg = NULL;
    cJSON *got = simstore_create(p->store, plural, p->ns, o, &status, &msg);
    free(msg);
    cJSON_Delete(got);
}

static int sp_replace_status(cJSON *obj, void *arg)
{
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", cJSON_Duplicate(arg, 1));
    return 1;
}

static void sp_log(simpods *p, const char *pod, double t, const char *msg, const char *src)
{
    char ts[40], line[512];
    kc_format_time(t, ts, sizeof ts);
    snprintf(line, sizeof line, "time=\"%s\" level=info msg=\"%s\" logSource=\"%s\"", ts, msg, src);
    simstore_log_append(p->store, pod, t, line);
}

simpods *simpods_new(simstore *store, const char *ns, const char *server, const scn_cluster *cl,
                     int helm, double epoch)
{
    simpods *p = xcalloc(1, sizeof *p);
    p->store = store;
    p->ns = xstrdup(ns);
    p->server = xstrdup(server);
    p->cl = cl;
    p->image = xasprintf("velero/velero:%s", cl->version ? cl->version : SIMPODS_VERSION);
    p->helm = helm || cl->helm;
    p->epoch = epoch;
    static const char *const dflt[] = {"worker-1", "worker-2", "worker-3"};
    p->n_nodes = cl->n_nodes ? cl->n_nodes : 3;
    p->nodes = xcalloc(p->n_nodes, sizeof *p->nodes);
    p->agents = xcalloc(p->n_nodes, sizeof *p->agents);
    for (size_t i = 0; i < p->n_nodes; i++) {
        p->nodes[i] = xstrdup(cl->n_nodes ? cl->nodes[i] : dflt[i]);
        int missing = 0;
        for (size_t k = 0; k < cl->n_agents_missing; k++)
            missing |= !strcmp(cl->agents_missing[k], p->nodes[i]);
        /* DaemonSet pod names: node-agent-<5 chars>, stable per node */
        static const char al[] = "bcdfghjklmnpqrstvwxz2456789";
        char suf[6];
        uint32_t h = 2166136261u;
        for (const char *s = p->nodes[i]; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
        for (int k = 0; k < 5; k++, h /= 27) suf[k] = al[h % 27];
        suf[5] = 0;
        if (!missing) p->agents[i] = xasprintf("node-agent-%s", suf);
    }
    return p;
}

void simpods_free(simpods *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n_nodes; i++) {
        free(p->nodes[i]);
        free(p->agents[i]);
    }
    free(p->nodes);
    free(p->agents);
    free(p->image);
    free(p->ns);
    free(p->server);
    free(p);
}

const char *simpods_agent(const simpods *p, const char *node)
{
    for (size_t i = 0; p && node && i < p->n_nodes; i++)
        if (!strcmp(p->nodes[i], node)) return p->agents[i];
    return NULL;
}

static cJSON *sp_server_status(simpods *p, double now)
{
    const scn_cluster *cl = p->cl;
    double t = p->epoch + cl->restart_at;
    if (!cl->has_restart || now < t)
        return sp_status(p->image, "Running", "velero", 1, p->started, 0, 0, 0, NULL, 0, NULL);
    int down = now < t + cl->down_for;
    return sp_status(p->image, "Running", "velero", !down, p->started, 1, p->started, t,
                     cl->restart_reason ? cl->restart_reason : "OOMKilled",
                     cl->restart_exit_code ? cl->restart_exit_code : 137,
                     down && cl->down_for > 10 ? "CrashLoopBackOff" : NULL);
}

static void sp_server_labels(const simpods *p, cJSON *l)
{
    if (p->helm) {
        cJSON_AddStringToObject(l, "name", "velero");
        cJSON_AddStringToObject(l, "app.kubernetes.io/name", "velero");
        cJSON_AddStringToObject(l, "app.kubernetes.io/instance", "velero");
    } else {
        cJSON_AddStringToObject(l, "component", "velero");
        cJSON_AddStringToObject(l, "deploy", "velero");
    }
    cJSON_AddStringToObject(l, "pod-template-hash", "7d8f9c6b54");
}

/* The server container's args: "server", and --concurrent-backups=N when the scenario sets
 * velero.concurrent_backups (as `velero install --concurrent-backups`... writes it into the
 * Deployment; veltop reads the limit from there). */
static void sp_server_args(const simpods *p, cJSON *pod)
{
    if (p->cl->concurrent_backups <= 0) return;
    cJSON *ctrs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pod, "spec"),
                                                   "containers");
    cJSON *ctr = cJSON_GetArrayItem(ctrs, 0);
    if (!ctr) return;
    cJSON *args = cJSON_GetObjectItemCaseSensitive(ctr, "args");
    if (!cJSON_IsArray(args)) {
        cJSON_DeleteItemFromObjectCaseSensitive(ctr, "args");
        args = cJSON_AddArrayToObject(ctr, "args");
        cJSON_AddItemToArray(args, cJSON_CreateString("server"));
    }
    char flag[48];
    snprintf(flag, sizeof flag, "--concurrent-backups=%d", p->cl->concurrent_backups);
    cJSON_AddItemToArray(args, cJSON_CreateString(flag));
}

static int sp_adopt_server(cJSON *obj, void *arg)
{
    simpods *p = arg;
    sp_server_args(p, obj);
    cJSON *ctr;
    cJSON_ArrayForEach(ctr, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(obj, "spec"), "containers"))
    { /* the image of velero.version */
        cJSON_DeleteItemFromObjectCaseSensitive(ctr, "image");
        cJSON_AddStringToObject(ctr, "image", p->image);
    }
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON_DeleteItemFromObjectCaseSensitive(md, "labels");
    sp_server_labels(p, cJSON_AddObjectToObject(md, "labels"));
    /* started with the sim's pod log (15 minutes before the start), not when vsim made it */
    cJSON_DeleteItemFromObjectCaseSensitive(md, "creationTimestamp");
    sp_time(md, "creationTimestamp", p->started);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", sp_server_status(p, p->started));
    return 1;
}

/* The node-agent DaemonSet as the DaemonSet controller reports it: every node should run one
 * (desiredNumberScheduled), a node in node_agents.missing has none (its pod cannot be
 * scheduled or created), one in not_ready runs one that is not ready. */
static void sp_daemonset(simpods *p)
{
    int desired = (int)p->n_nodes, current = 0, ready = 0;
    for (size_t i = 0; i < p->n_nodes; i++) {
        if (!p->agents[i]) continue;
        current++;
        int ok = 1;
        for (size_t k = 0; k < p->cl->n_agents_not_ready; k++)
            ok &= !!strcmp(p->cl->agents_not_ready[k], p->nodes[i]);
        ready += ok;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", "apps/v1");
    cJSON_AddStringToObject(o, "kind", "DaemonSet");
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", "node-agent");
    cJSON_AddStringToObject(md, "namespace", p->ns);
    sp_time(md, "creationTimestamp", p->started);
    cJSON_AddNumberToObject(md, "generation", 1);
    cJSON *l = cJSON_AddObjectToObject(md, "labels");
    cJSON_AddStringToObject(l, "component", "velero");
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON *sel = cJSON_AddObjectToObject(cJSON_AddObjectToObject(spec, "selector"), "matchLabels");
    cJSON_AddStringToObject(sel, "name", "node-agent");
    cJSON *tmpl = cJSON_AddObjectToObject(spec, "template");
    cJSON *tl = cJSON_AddObjectToObject(cJSON_AddObjectToObject(tmpl, "metadata"), "labels");
    cJSON_AddStringToObject(tl, "name", "node-agent");
    cJSON_AddStringToObject(tl, "role", "node-agent");
    cJSON *ctr = cJSON_CreateObject();
    cJSON_AddStringToObject(ctr, "name", "node-agent");
    cJSON_AddStringToObject(ctr, "image", p->image);
    cJSON *ctrs = cJSON_AddArrayToObject(cJSON_AddObjectToObject(tmpl, "spec"), "containers");
    cJSON_AddItemToArray(ctrs, ctr);
    cJSON *st = cJSON_AddObjectToObject(o, "status");
    cJSON_AddNumberToObject(st, "currentNumberScheduled", current);
    cJSON_AddNumberToObject(st, "desiredNumberScheduled", desired);
    cJSON_AddNumberToObject(st, "numberAvailable", ready);
    cJSON_AddNumberToObject(st, "numberMisscheduled", 0);
    cJSON_AddNumberToObject(st, "numberReady", ready);
    if (desired > ready) cJSON_AddNumberToObject(st, "numberUnavailable", desired - ready);
    cJSON_AddNumberToObject(st, "observedGeneration", 1);
    cJSON_AddNumberToObject(st, "updatedNumberScheduled", current);
    sp_create_in(p, "daemonsets", o);
}

void simpods_create(simpods *p, double now)
{
    if (p->created) return;
    p->created = 1;
    p->started = now - 900; /* as the sim's POD_LOG_WINDOW: the pod started 15 min before */
    cJSON *got = simstore_get(p->store, "pods", p->ns, p->server);
    if (got) /* made by vsim (--demo, veltop-sim): the layout's labels and our status on it */
        simstore_mutate(p->store, "pods", p->ns, p->server, sp_adopt_server, p);
    if (!got) {
        cJSON *o = sp_pod(p, p->server, p->started);
        sp_server_labels(p, sp_labels(o));
        sp_spec(p->image, o, "velero", "worker-1");
        sp_server_args(p, o);
        cJSON_AddItemToObject(o, "status", sp_server_status(p, now));
        sp_create_in(p, "pods", o);
    }
    cJSON_Delete(got);
    sp_daemonset(p);
    for (size_t i = 0; i < p->n_nodes; i++) {
        if (!p->agents[i]) continue;
        int ready = 1;
        for (size_t k = 0; k < p->cl->n_agents_not_ready; k++)
            ready &= !!strcmp(p->cl->agents_not_ready[k], p->nodes[i]);
        cJSON *o = sp_pod(p, p->agents[i], p->started);
        cJSON *l = sp_labels(o);
        cJSON_AddStringToObject(l, "name", "node-agent");
        cJSON_AddStringToObject(l, "role", "node-agent");
        if (p->helm) {
            cJSON_AddStringToObject(l, "app.kubernetes.io/name", "velero");
            cJSON_AddStringToObject(l, "app.kubernetes.io/instance", "velero");
        } else {
            cJSON_AddStringToObject(l, "component", "velero");
        }
        sp_spec(p->image, o, "node-agent", p->nodes[i]);
        cJSON_AddItemToObject(o, "status",
                              sp_status(p->image, "Running", "node-agent", ready, p->started, 0, 0,
                                        0, NULL, 0, ready ? NULL : "CrashLoopBackOff"));
        sp_create_in(p, "pods", o);
        sp_log(p, p->agents[i], p->started + 1, "Starting Velero node-agent server v1.18.2",
               "pkg/cmd/cli/nodeagent/server.go:170");
        if (ready)
            sp_log(p, p->agents[i], p->started + 3, "Starting controllers",
                   "pkg/cmd/cli/nodeagent/server.go:296");
        else
            sp_log(p, p->agents[i], p->started + 2,
                   "failed to start node-agent: error checking node-agent running: "
                   "context deadline exceeded",
                   "pkg/cmd/cli/nodeagent/server.go:180");
    }
}

static int sp_bsl(cJSON *obj, void *arg)
{
    const scn_cluster *cl = arg;
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "phase");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "message");
    cJSON_AddStringToObject(st, "phase", cl->bsl_phase);
    if (cl->bsl_message) cJSON_AddStringToObject(st, "message", cl->bsl_message);
    return 1;
}

void simpods_tick(simpods *p, double now)
{
    const scn_cluster *cl = p->cl;
    if (cl->bsl_phase && !p->bsl_done && now >= p->epoch + cl->bsl_at) {
        const char *name = cl->bsl_name ? cl->bsl_name : "default";
        cJSON *got = simstore_get(p->store, "backupstoragelocations", p->ns, name);
        if (!got) { /* another location: a copy of default's spec, not the default */
            cJSON *dflt = simstore_get(p->store, "backupstoragelocations", p->ns, "default");
            if (dflt) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "apiVersion", "velero.io/v1");
                cJSON_AddStringToObject(o, "kind", "BackupStorageLocation");
                cJSON *md = cJSON_AddObjectToObject(o, "metadata");
                cJSON_AddStringToObject(md, "name", name);
                cJSON_AddStringToObject(md, "namespace", p->ns);
                sp_time(md, "creationTimestamp", p->started);
                cJSON *spec = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(dflt, "spec"), 1);
                cJSON_DeleteItemFromObjectCaseSensitive(spec, "default");
                cJSON_AddItemToObject(o, "spec", spec);
                cJSON *st = cJSON_AddObjectToObject(o, "status");
                sp_time(st, "lastValidationTime", now);
                cJSON_AddStringToObject(st, "phase", "Available");
                sp_create_in(p, "backupstoragelocations", o);
                cJSON_Delete(dflt);
            }
        }
        cJSON_Delete(got);
        p->bsl_done =
            simstore_mutate(p->store, "backupstoragelocations", p->ns, name, sp_bsl, (void *)cl);
    }
    if (!cl->has_restart) return;
    double t = p->epoch + cl->restart_at;
    int state = now < t ? 0 : now < t + cl->down_for ? 1 : 2;
    if (state == p->restart_state) return;
    p->restart_state = state;
    cJSON *st = sp_server_status(p, now);
    simstore_mutate(p->store, "pods", p->ns, p->server, sp_replace_status, st);
    cJSON_Delete(st);
    if (state == 2)
        sp_log(p, p->server, t + cl->down_for, "Starting Velero server v1.18.2 (-)",
               "pkg/cmd/server/server.go:438");
}

void simpods_mover(simpods *p, const char *kind_label, const char *name, const char *phase,
                   const char *node, double now)
{
    if (!phase || !name) return;
    int terminal = !strcmp(phase, "Completed") || !strcmp(phase, "Failed") ||
                   !strcmp(phase, "Canceled") || !strcmp(phase, "Canceling");
    int is_new = !strcmp(phase, "New");
    cJSON *got = simstore_get(p->store, "pods", p->ns, name);
    if (terminal || is_new) {
        if (got && terminal) {
            int status = 0;
            char *msg = NULL;
            cJSON_Delete(simstore_delete(p->store, "pods", p->ns, name, &status, &msg));
            free(msg);
        }
        cJSON_Delete(got);
        return;
    }
    int pending = !strcmp(phase, "Accepted");
    cJSON *st = sp_status(p->image, pending ? "Pending" : "Running", name, !pending, now, 0, 0, 0,
                          NULL, 0, NULL);
    if (!got) {
        cJSON *o = sp_pod(p, name, now);
        cJSON_AddStringToObject(sp_labels(o), kind_label, name);
        sp_spec(p->image, o, name, node);
        cJSON_AddItemToObject(o, "status", st);
        sp_create_in(p, "pods", o);
        return;
    }
    const char *was = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, "status"), "phase"));
    if (!was || strcmp(was, pending ? "Pending" : "Running"))
        simstore_mutate(p->store, "pods", p->ns, name, sp_replace_status, st);
    cJSON_Delete(st);
    cJSON_Delete(got);
}

void simpods_agent_log(simpods *p, const char *node, int restore, const char *name,
                       const char *phase, double now)
{
    const char *pod = simpods_agent(p, node);
    if (!pod) return;
    const char *kind = restore ? "PodVolumeRestore" : "PodVolumeBackup";
    const char *ctl = restore ? "podvolumerestore" : "podvolumebackup";
    const char *src = restore ? "pkg/controller/pod_volume_restore_controller.go"
                              : "pkg/controller/pod_volume_backup_controller.go";
    char ts[40], line[768];
    kc_format_time(now, ts, sizeof ts);
    snprintf(line, sizeof line,
             "time=\"%s\" level=info msg=\"%s %s\" controller=%s logSource=\"%s\" %s=%s/%s", ts,
             kind, phase, ctl, src, ctl, p->ns, name);
    simstore_log_append(p->store, pod, now, line);
}
