/* simctl.c: the simulated Velero controller: plays a scenario's backups and restores over
 * simulated time on its own thread, writing everything through simstore (so watches see it),
 * feeding the server pod's log, and serving artifacts for DownloadRequests.
 *
 * Every run is planned once by simplan.c (its timeline, log lines and item list are pure
 * functions of the scenario and the seed; simlogtext.c writes the log lines' text); each tick
 * computes the status every object should have at the current simulated time and writes only what
 * changed. Item values sit on a 1 s grid and byte values on a 10 s grid from their start, as
 * Velero's tickers produce them. */
#include "simctl.h"
#include "simpods.h"

#include <math.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "artifacts.h"
#include "kubeclient/util.h"
#include "restic.h"
#include "scenario.h"
#include "simlog.h"
#include "simplan.h"
#include "simrepo.h"

#define TICK_MS        40
#define POD_LOG_WINDOW 900.0 /* the server pod started this long before the sim */
#define DR_TTL         600.0 /* DownloadRequest URL lifetime, real seconds */

struct simctl {
    simstore *store;
    simctl_opts opts;
    char *base_url, *ns, *pod, *restic;
    scenario *scn;
    double epoch;    /* simulated unix time at start */
    int64_t t0_ms;   /* monotonic ms at start */
    uint64_t rng;    /* seeded: names and uids */
    uint64_t tokrng; /* tokens: not seeded */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int stop;
    sp_run **runs;
    size_t nruns;
    double *sched_next;
    char *sched_missed; /* a firing passed while the schedule was paused */
    double last_bsl;
    double last_dr_scan;
    simstore_watch *adopt_w[2]; /* backups, restores: runs created by others */
    simstore_watch *dr_w;       /* downloadrequests: a pass only when one changed */
    int64_t dr_last_pass;       /* real ms of the last full pass (expiry, late targets) */
    double manual_now;          /* opts.manual: the simulated time simctl_advance set */
    int64_t act_scan_ms;        /* real ms of the last look for spec.cancel and deletions */
    struct sim_del {            /* DeleteBackupRequests in progress */
        char *dbr, *backup;
        double at; /* simulated time the backup is gone */
    } * dels;
    size_t ndels;
    struct token {
        char tok[40];
        char *kind, *target;
        double expires; /* wall clock */
    } * tokens;
    size_t ntokens;
    simpods *pods;   /* server, node-agent and data-mover pods (simpods.c) */
    struct sim_job { /* maintenance Jobs that end (`ends:`): their log written as it comes */
        const scn_repo_job *j;
        char name[128], pod[160];
        double start;  /* simulated time */
        size_t logged; /* log lines written so far */
        int ended;
    } * jobs;
    size_t njobs;
};

/* The cluster's wall clock: the real one off by the scenario's --clock-skew. */
static double sim_wall(const simctl *c)
{
    return kc_wall_now() + c->opts.clock_skew;
}

static double sim_now(const simctl *c)
{
    if (c->opts.manual) return c->manual_now;
    if (c->opts.freeze) return c->epoch + c->opts.freeze_at;
    return c->epoch + (double)(kc_now_ms() - c->t0_ms) / 1000.0 * c->opts.speed;
}

static void fmt_time(double t, char *buf, size_t n)
{
    kc_format_time(floor(t), buf, n);
}

static void add_time(cJSON *o, const char *key, double t)
{
    char ts[40];
    fmt_time(t, ts, sizeof ts);
    cJSON_AddStringToObject(o, key, ts);
}

/* ---- who writes (managedFields; doc/managedfields.md) ----
 * As Velero names its clients: the server `velero server` as "velero-server", the node-agent
 * `velero node-agent server` as "node-agent-server" (pkg/cmd/server/server.go,
 * pkg/cmd/cli/nodeagent/server.go: SetBasename(parent-name)), the CLI and the plugins (`velero
 * run-plugins`, which create DataUploads/DataDownloads) as the binary's name, "velero". */
#define MGR_SERVER "velero-server"
#define MGR_AGENT  "node-agent-server"
#define MGR_CLI    "velero"

static sim_mf_writer writer(const char *manager, double t)
{
    return (sim_mf_writer){.manager = manager, .operation = "Update", .time = t};
}

/* ---- desired state at a simulated time ---- */

/* A Queued backup's queuePosition at t. With velero.concurrent_backups, as Velero's queue
 * controller numbers them: 1 + the backups Queued at t created before it (it renumbers the
 * rest from 1 when one leaves); else the position a run queued for good keeps. */
static int queue_position(const simctl *c, const sp_run *r, double t)
{
    if (c->scn->cluster.concurrent_backups <= 0) return r->queue_pos ? r->queue_pos : 1;
    int pos = 1;
    for (size_t i = 0; i < c->nruns; i++) {
        const sp_run *e = c->runs[i];
        if (e == r || e->is_restore) continue;
        if ((e->t0 < r->t0 || (e->t0 == r->t0 && strcmp(e->sr.name, r->sr.name) < 0)) &&
            !strcmp(sp_run_phase(e, t), "Queued"))
            pos++;
    }
    return pos;
}

static cJSON *run_status(const simctl *c, const sp_run *r, double t)
{
    cJSON *st = cJSON_CreateObject();
    const char *phase = sp_run_phase(r, t);
    cJSON_AddStringToObject(st, "phase", phase);
    if (!strcmp(phase, "Queued"))
        cJSON_AddNumberToObject(st, "queuePosition", queue_position(c, r, t));
    if (t < r->t_start) return st;
    if (!r->is_restore) {
        cJSON_AddNumberToObject(st, "version", 1);
        cJSON_AddStringToObject(st, "formatVersion", "1.1.0");
        add_time(st, "expiration", r->t_start + r->sr.ttl);
    }
    add_time(st, "startTimestamp", r->t_start);
    if (t >= r->t_start + 0.1) { /* items collected */
        int done, total;
        int ended = t >= r->t_pass_end;
        if (ended && !sp_run_failed(r)) {
            done = total = r->n_items;
        } else {
            done = ended ? r->fail_item : sp_items_at(r, t);
            total = sp_estimate_at(r, done);
        }
        cJSON *pg = cJSON_AddObjectToObject(st, "progress");
        if (total) cJSON_AddNumberToObject(pg, "totalItems", total);
        if (done)
            cJSON_AddNumberToObject(pg, r->is_restore ? "itemsRestored" : "itemsBackedUp", done);
        if ((c->opts.resource_progress || c->scn->resource_progress) && r->nres) {
            cJSON *rp = cJSON_AddObjectToObject(st, "resourceProgress");
            for (size_t i = 0; i < r->nres; i++) {
                const sp_res *p = &r->res[i];
                int proc = done - p->first;
                if (proc < 0) proc = 0;
                if (proc > p->items) proc = p->items;
                int tot = done > p->first || (ended && !sp_run_failed(r)) ? p->items
                                                                          : p->items - p->added;
                cJSON *e = cJSON_AddObjectToObject(rp, p->gr);
                cJSON_AddNumberToObject(e, "processed", proc);
                cJSON_AddNumberToObject(e, "total", tot);
            }
        }
    }
    if (t >= r->t_pass_end) {
        if (r->errors) cJSON_AddNumberToObject(st, "errors", r->errors);
        if (r->sr.warnings) cJSON_AddNumberToObject(st, "warnings", r->sr.warnings);
        if (r->sr.hooks_attempted) {
            cJSON *h = cJSON_AddObjectToObject(st, "hookStatus");
            cJSON_AddNumberToObject(h, "hooksAttempted", r->sr.hooks_attempted);
            if (r->sr.hooks_failed) cJSON_AddNumberToObject(h, "hooksFailed", r->sr.hooks_failed);
        }
        if ((r->n_du || r->nops) && !sp_run_failed(r)) {
            /* the operations controller syncs every 10 s */
            double ts =
                t >= r->t_ops_seen ? t : r->t_pass_end + 10 * floor((t - r->t_pass_end) / 10);
            int ok = 0, bad = 0;
            for (size_t i = 0; i < r->nvols; i++) {
                const sp_vol *v = &r->vols[i];
                if (v->sv->uploader != SCN_DATAMOVER || ts < v->t_end) continue;
                if (v->fails)
                    bad++;
                else
                    ok++;
            }
            for (size_t i = 0; i < r->nops; i++) ok += ts >= r->ops[i].t_end;
            const char *pre = r->is_restore ? "restoreItemOperations" : "backupItemOperations";
            char k[64];
            snprintf(k, sizeof k, "%sAttempted", pre);
            cJSON_AddNumberToObject(st, k, r->n_du + (int)r->nops);
            snprintf(k, sizeof k, "%sCompleted", pre);
            if (ok) cJSON_AddNumberToObject(st, k, ok);
            snprintf(k, sizeof k, "%sFailed", pre);
            if (bad) cJSON_AddNumberToObject(st, k, bad);
        }
    }
    if (t >= r->t_final) {
        if (sp_run_failed(r) && r->sr.failure_reason)
            cJSON_AddStringToObject(st, "failureReason", r->sr.failure_reason);
        add_time(st, "completionTimestamp", r->t_final);
    }
    return st;
}

static cJSON *vol_status(const sp_run *r, const sp_vol *v, double t)
{
    int dm = v->sv->uploader == SCN_DATAMOVER;
    cJSON *st = cJSON_CreateObject();
    const char *phase = t < v->t_accept    ? "New"
                        : t < v->t_prepare ? "Accepted"
                        : t < v->t_start   ? "Prepared"
                        : t >= v->t_cancel ? "Canceled"
                        : t >= v->t_end    ? (v->fails ? "Failed" : "Completed")
                                           : "InProgress";
    if (v->t_cancel <= t && t < v->t_start) phase = "Canceled";
    /* spec.cancel: the node-agent marks it Canceling, stops the data path, then Canceled */
    if (v->cancel_asked && t >= v->t_cancel_asked && t < v->t_cancel &&
        (!strcmp(phase, "InProgress") || !strcmp(phase, "New") || !strcmp(phase, "Accepted") ||
         !strcmp(phase, "Prepared")))
        phase = "Canceling";
    cJSON_AddStringToObject(st, "phase", phase);
    if (t >= v->t_accept) {
        add_time(st, "acceptedTimestamp", v->t_accept);
        if (dm) cJSON_AddStringToObject(st, "acceptedByNode", v->node);
    }
    if (t >= v->t_prepare && (dm || r->is_restore)) cJSON_AddStringToObject(st, "node", v->node);
    cJSON *pg = cJSON_AddObjectToObject(st, "progress");
    if (t >= v->t_start) {
        add_time(st, "startTimestamp", v->t_start);
        if (!dm)
            cJSON_AddItemToObject(
                st, "path",
                cJSON_CreateString(r->is_restore ? "/host_pods/restored/volumes" : "/host_pods"));
        double b;
        int64_t total = v->sv->size;
        double tend = fmin(v->t_end, v->t_cancel);
        if (v->real_state == 1 || v->real_state == 2) {
            total = v->real_total;
            b = (double)v->real_done;
        } else if (t >= tend) {
            b = t >= v->t_cancel || v->fails ? sp_vol_bytes_at(v, tend) : (double)total;
            if (t >= v->t_cancel)
                b = sp_vol_bytes_at(v, v->t_start + 10 * floor((tend - v->t_start) / 10));
        } else {
            b = sp_vol_bytes_at(v, v->t_start + 10 * floor((t - v->t_start) / 10));
        }
        /* an unsized volume (a real user's PodVolumeBackup, Velero #7851) moves bytes before its
         * uploader has sized it: no totalBytes while it runs */
        if (total && !(v->sv->unsized && t < tend))
            cJSON_AddNumberToObject(pg, "totalBytes", (double)total);
        if (b >= 1) cJSON_AddNumberToObject(pg, "bytesDone", floor(b));
    }
    if (sp_vol_terminal_at(v, t) && t >= v->t_start) {
        add_time(st, "completionTimestamp", fmin(v->t_end, v->t_cancel));
        if (!strcmp(phase, "Completed")) cJSON_AddStringToObject(st, "snapshotID", v->snapshot_id);
        if (!strcmp(phase, "Failed"))
            cJSON_AddStringToObject(st, "message",
                                    v->sv->fail_message ? v->sv->fail_message
                                                        : "data path backup failed: error running "
                                                          "uploader: unexpected EOF");
        if (!strcmp(phase, "Canceled"))
            cJSON_AddStringToObject(st, "message",
                                    v->cancel_asked ? "data path canceled: spec.cancel was set"
                                                    : "data path canceled: the backup failed");
    } else if (t >= v->t_cancel) {
        add_time(st, "completionTimestamp", v->t_cancel);
        cJSON_AddStringToObject(st, "message",
                                v->cancel_asked ? "data path canceled: spec.cancel was set"
                                                : "data path canceled: the backup failed");
    }
    if (v->real_state == 3)
        cJSON_AddStringToObject(st, "message", "restic not available, progress is simulated");
    return st;
}

/* ---- objects ---- */

/* Velero's label.GetValidName: a value over 63 characters becomes its first 57 and the first 6
 * hex digits of its sha256. out has room for 64. */
static const char *valid_label(const char *name, char out[64])
{
    size_t n = strlen(name);
    if (n <= 63) return name;
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)name, n, d);
    snprintf(out, 64, "%.57s%02x%02x%02x", name, d[0], d[1], d[2]);
    return out;
}

static cJSON *labels_of(cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    if (!md) md = cJSON_AddObjectToObject(obj, "metadata");
    cJSON *l = cJSON_GetObjectItemCaseSensitive(md, "labels");
    if (!l) l = cJSON_AddObjectToObject(md, "labels");
    return l;
}

static cJSON *new_object(const char *api, const char *kind, const char *ns, const char *name,
                         double created)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", api);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    if (created > 0) add_time(md, "creationTimestamp", created);
    return o;
}

static void owner_ref(cJSON *o, const sp_run *r)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    cJSON *refs = cJSON_AddArrayToObject(md, "ownerReferences");
    cJSON *ref = cJSON_CreateObject();
    cJSON_AddStringToObject(ref, "apiVersion", "velero.io/v1");
    cJSON_AddStringToObject(ref, "kind", r->is_restore ? "Restore" : "Backup");
    cJSON_AddStringToObject(ref, "name", r->sr.name);
    cJSON_AddStringToObject(ref, "uid", r->uid);
    cJSON_AddTrueToObject(ref, "controller");
    cJSON_AddItemToArray(refs, ref);
}

/* Creates obj (taken) in the store, its managedFields stamped as the creator's write at
 * t_create (all but .status) followed by status_mgr's write of .status at t_status; returns the
 * stored uid (malloc'd) or NULL on failure. */
static char *store_create_by(simctl *c, const char *plural, cJSON *obj, const char *creator,
                             double t_create, const char *status_mgr, double t_status);

static char *store_create(simctl *c, const char *plural, cJSON *obj)
{
    int status = 0;
    char *msg = NULL;
    cJSON *created = simstore_create(c->store, plural, c->ns, obj, &status, &msg);
    free(msg);
    if (!created) return NULL;
    cJSON *md = cJSON_GetObjectItemCaseSensitive(created, "metadata");
    char *uid = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "uid")));
    cJSON_Delete(created);
    return uid ? uid : xstrdup("");
}

static char *store_create_by(simctl *c, const char *plural, cJSON *obj, const char *creator,
                             double t_create, const char *status_mgr, double t_status)
{
    sim_mf_stamp_created(obj, creator, t_create, status_mgr, t_status);
    return store_create(c, plural, obj);
}

/* When a status that is a pure function of time last changed before hi: the first moment in
 * [lo, hi] from which it equals its value at hi (its values never come back: counters grow,
 * phases move on), to 10 ms. For objects first written at the sim's start with a history behind
 * them: their managedFields time is when their writer last changed them, not the start. */
typedef cJSON *(*status_at_fn)(const simctl *c, const sp_run *r, const sp_vol *v, double t);

static int status_same(const simctl *c, const sp_run *r, const sp_vol *v, status_at_fn f, double t,
                       const cJSON *want)
{
    cJSON *st = f(c, r, v, t);
    int same = cJSON_Compare(st, want, 1);
    cJSON_Delete(st);
    return same;
}

static double last_change(const simctl *c, const sp_run *r, const sp_vol *v, status_at_fn f,
                          double lo, double hi)
{
    if (!(lo < hi)) return hi;
    cJSON *want = f(c, r, v, hi);
    double t = hi;
    if (status_same(c, r, v, f, lo, want)) {
        t = lo;
    } else {
        double bad = lo;
        while (t - bad > 0.01) {
            double mid = bad + (t - bad) / 2;
            if (status_same(c, r, v, f, mid, want))
                t = mid;
            else
                bad = mid;
        }
    }
    cJSON_Delete(want);
    return t;
}

static cJSON *run_status(const simctl *c, const sp_run *r, double t);
static cJSON *vol_status(const sp_run *r, const sp_vol *v, double t);

static cJSON *run_status_at(const simctl *c, const sp_run *r, const sp_vol *v, double t)
{
    (void)v;
    return run_status(c, r, t);
}

static cJSON *vol_status_at(const simctl *c, const sp_run *r, const sp_vol *v, double t)
{
    (void)c;
    return vol_status(r, v, t);
}

static cJSON *run_object(simctl *c, const sp_run *r, double t)
{
    const scn_run *s = &r->sr;
    cJSON *o =
        new_object("velero.io/v1", r->is_restore ? "Restore" : "Backup", c->ns, s->name, r->t0);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON *inc = cJSON_AddArrayToObject(spec, "includedNamespaces");
    for (size_t i = 0; i < s->n_namespaces; i++)
        cJSON_AddItemToArray(inc, cJSON_CreateString(s->namespaces[i]));
    if (!s->n_namespaces) cJSON_AddItemToArray(inc, cJSON_CreateString("*"));
    /* Velero lists (and restores) cluster-scoped resources other than namespaces for specific
     * namespaces only with includeClusterResources: true (includes_excludes.go:341-348,
     * restore.go:2275): a run that has some listed asks for them */
    for (size_t i = 0; i < r->nres; i++)
        if (!r->res[i].namespaced && strcmp(r->res[i].gr, "namespaces") &&
            r->res[i].items > r->res[i].added) {
            cJSON_AddTrueToObject(spec, "includeClusterResources");
            break;
        }
    for (size_t i = 0; i < s->n_labels; i++) /* the scenario's own, as a user sets them */
        cJSON_AddStringToObject(labels_of(o), s->label_keys[i], s->label_values[i]);
    if (!r->is_restore) {
        cJSON *l = labels_of(o);
        cJSON_AddStringToObject(l, "velero.io/storage-location", s->storage_location);
        char lv[64];
        if (s->schedule)
            cJSON_AddStringToObject(l, "velero.io/schedule-name", valid_label(s->schedule, lv));
        cJSON *an = cJSON_AddObjectToObject(md, "annotations");
        cJSON_AddStringToObject(an, "velero.io/resource-timeout", "10m0s");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-gitversion", "v1.30.4");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-major-version", "1");
        cJSON_AddStringToObject(an, "velero.io/source-cluster-k8s-minor-version", "30");
        cJSON_AddStringToObject(spec, "storageLocation", s->storage_location);
        char ttl[64];
        snprintf(ttl, sizeof ttl, "%dh%dm%ds", (int)(s->ttl / 3600), (int)fmod(s->ttl / 60, 60),
                 (int)fmod(s->ttl, 60));
        cJSON_AddStringToObject(spec, "ttl", ttl);
        int pv = 0;
        for (size_t i = 0; i < r->nvols; i++) pv |= r->vols[i].sv->uploader != SCN_DATAMOVER;
        cJSON_AddBoolToObject(spec, "defaultVolumesToFsBackup", pv);
        cJSON_AddBoolToObject(spec, "snapshotMoveData", r->n_du > 0);
        cJSON_AddStringToObject(spec, "csiSnapshotTimeout", "10m0s");
        cJSON_AddStringToObject(spec, "itemOperationTimeout", "4h0m0s");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "volumeSnapshotLocations"),
                             cJSON_CreateString("default"));
    } else {
        cJSON_AddStringToObject(spec, "backupName", s->backup ? s->backup : "");
        if (r->backup_schedule) cJSON_AddStringToObject(spec, "scheduleName", r->backup_schedule);
        cJSON_AddBoolToObject(spec, "restorePVs", 1);
        cJSON_AddStringToObject(spec, "itemOperationTimeout", "4h0m0s");
    }
    cJSON_AddItemToObject(o, "status", run_status(c, r, t));
    return o;
}

static cJSON *vol_object(simctl *c, const sp_run *r, const sp_vol *v, double t)
{
    const scn_volume *sv = v->sv;
    int dm = sv->uploader == SCN_DATAMOVER;
    const char *kind = dm ? (r->is_restore ? "DataDownload" : "DataUpload")
                          : (r->is_restore ? "PodVolumeRestore" : "PodVolumeBackup");
    cJSON *o =
        new_object(dm ? "velero.io/v2alpha1" : "velero.io/v1", kind, c->ns, v->name, v->t_create);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    char *gen = xasprintf("%s-", r->sr.name);
    cJSON_AddStringToObject(md, "generateName", gen);
    free(gen);
    owner_ref(o, r);
    cJSON *l = labels_of(o);
    char lv[64];
    cJSON_AddStringToObject(l, r->is_restore ? "velero.io/restore-name" : "velero.io/backup-name",
                            valid_label(r->sr.name, lv));
    cJSON_AddStringToObject(l, r->is_restore ? "velero.io/restore-uid" : "velero.io/backup-uid",
                            r->uid);
    cJSON_AddStringToObject(l, "velero.io/pvc-uid", v->pvc_uid);
    cJSON *spec = cJSON_AddObjectToObject(o, "spec");
    cJSON_AddStringToObject(spec, "backupStorageLocation", "default");
    if (dm) {
        cJSON_AddStringToObject(l, "velero.io/async-operation-id", v->op_id);
        cJSON_AddStringToObject(spec, "datamover", "velero");
        cJSON_AddStringToObject(spec, "operationTimeout", "10m0s");
        cJSON_AddStringToObject(spec, "sourceNamespace", sv->ns);
        if (r->is_restore) {
            cJSON *tv = cJSON_AddObjectToObject(spec, "targetVolume");
            cJSON_AddStringToObject(tv, "pvc", sv->pvc);
            cJSON_AddStringToObject(tv, "pv", "");
            cJSON_AddStringToObject(tv, "namespace", sv->ns);
            cJSON_AddStringToObject(spec, "snapshotID", v->snapshot_id);
            cJSON_AddNumberToObject(spec, "snapshotSize", (double)sv->size);
        } else {
            cJSON_AddStringToObject(spec, "snapshotType", "CSI");
            cJSON_AddStringToObject(spec, "sourcePVC", sv->pvc);
            cJSON *cs = cJSON_AddObjectToObject(spec, "csiSnapshot");
            char vs[300];
            snprintf(vs, sizeof vs, "velero-%s-%.5s", sv->pvc, v->name + strlen(v->name) - 5);
            cJSON_AddStringToObject(cs, "volumeSnapshot", vs);
            cJSON_AddStringToObject(cs, "storageClass", "csi-rbd");
            cJSON_AddStringToObject(cs, "snapshotClass", "csi-rbd-snapclass");
            cJSON_AddStringToObject(cs, "driver", "rbd.csi.ceph.com");
        }
    } else {
        if (r->is_restore)
            cJSON_AddStringToObject(l, "velero.io/pod-uid", v->pod_uid);
        else
            cJSON_AddStringToObject(spec, "node", v->node);
        cJSON *pod = cJSON_AddObjectToObject(spec, "pod");
        cJSON_AddStringToObject(pod, "kind", "Pod");
        cJSON_AddStringToObject(pod, "namespace", sv->ns);
        cJSON_AddStringToObject(pod, "name", sv->pod);
        cJSON_AddStringToObject(pod, "uid", v->pod_uid);
        cJSON_AddStringToObject(spec, "volume", sv->volume);
        char repo[300];
        snprintf(repo, sizeof repo, "s3:http://minio.velero.svc:9000/velero-backups/%s/%s",
                 sv->uploader == SCN_KOPIA ? "kopia" : "restic", sv->ns);
        cJSON_AddStringToObject(spec, "repoIdentifier", repo);
        cJSON_AddStringToObject(spec, "uploaderType",
                                sv->uploader == SCN_KOPIA ? "kopia" : "restic");
        if (r->is_restore) {
            cJSON_AddStringToObject(spec, "snapshotID", v->snapshot_id);
            cJSON_AddStringToObject(spec, "sourceNamespace", sv->ns);
            cJSON_AddNumberToObject(spec, "snapshotSize", (double)sv->size);
        } else {
            cJSON *tags = cJSON_AddObjectToObject(spec, "tags");
            cJSON_AddStringToObject(tags, "backup", r->sr.name);
            cJSON_AddStringToObject(tags, "backup-uid", r->uid);
            cJSON_AddStringToObject(tags, "ns", sv->ns);
            cJSON_AddStringToObject(tags, "pod", sv->pod);
            cJSON_AddStringToObject(tags, "pod-uid", v->pod_uid);
            cJSON_AddStringToObject(tags, "volume", sv->volume);
        }
    }
    cJSON_AddItemToObject(o, "status", vol_status(r, v, t));
    return o;
}

static int replace_status(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_Duplicate((const cJSON *)arg, 1);
    if (cJSON_GetObjectItemCaseSensitive(obj, "status"))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, "status", st);
    else
        cJSON_AddItemToObject(obj, "status", st);
    return 1;
}

/* ---- restic-real volumes ---- */

/* Pushes a run's item-pass end (and what follows) later, for a real restic job that is slower
 * than its plan. Caller holds c->mu. */
static void run_delay(sp_run *r, double old_pass_end, double delta)
{
    for (size_t i = 0; i < r->nlines; i++)
        if (r->lines[i].t >= old_pass_end && i >= r->emitted) r->lines[i].t += delta;
    r->t_pass_end += delta;
    r->t_ops_seen += delta;
    r->t_final += delta;
}

static void vol_real_step(simctl *c, sp_run *r, sp_vol *v, double now, kc_buf *podlog_dummy)
{
    (void)podlog_dummy;
    if (v->sv->uploader != SCN_RESTIC_REAL || now < v->t_start || v->real_state >= 2) return;
    char err[300] = "";
    if (v->real_state == 0) {
        v->real = restic_job_start(c->restic, v->sv->size, c->opts.seed + (uint64_t)(v - r->vols),
                                   err, sizeof err);
        if (!v->real) {
            v->real_state = 3;
            char who[300], m[400];
            snprintf(who, sizeof who, "%s/%s", c->ns, r->sr.name);
            snprintf(m, sizeof m, "restic-real volume %s falls back to simulated progress: %s",
                     v->name, err);
            simlog_field f[] = {{"backup", who}, {"logSource", "pkg/uploader/restic.go:90"}};
            char *line = simlog_format(c->opts.log_json, now, "warning", m, f, 2);
            simstore_log_append(c->store, c->pod, now, line);
            free(line);
            return;
        }
        v->real_state = 1;
        v->real_last_patch = -INFINITY;
    }
    int64_t total = v->real_total, done = v->real_done;
    char snap[80] = "";
    int rc = restic_job_poll(v->real, &total, &done, snap, sizeof snap, err, sizeof err);
    /* copy restic's status into the PVB at most every 10 simulated seconds, like Velero */
    if (rc != 0 || now - v->real_last_patch >= 10) {
        v->real_total = total;
        v->real_done = done;
        v->real_last_patch = now;
    }
    if (rc == 1) {
        v->real_state = 2;
        if (snap[0]) {
            free(v->snapshot_id);
            v->snapshot_id = xstrdup(snap);
        }
        if (now < v->t_end) v->t_end = now; /* finishes when restic does */
        restic_job_free(v->real);
        v->real = NULL;
    } else if (rc < 0) {
        v->real_state = 2;
        v->fails = 1;
        free(v->sv->fail_message);
        v->sv->fail_message = xstrdup(err);
        v->t_end = now;
        restic_job_free(v->real);
        v->real = NULL;
    } else if (now >= v->t_end - 0.5) {
        /* still running past its planned end: keep the volume (and the run) going */
        double delta = now + 5 - v->t_end;
        v->t_end += delta;
        if (v->t_end + 0.5 > r->t_pass_end) {
            pthread_mutex_lock(&c->mu);
            run_delay(r, r->t_pass_end, v->t_end + 0.5 - r->t_pass_end);
            pthread_mutex_unlock(&c->mu);
        }
    }
}

/* ---- the tick ---- */

typedef struct pending_line {
    double t;
    size_t seq;
    const char *text;
} pending_line;

typedef struct line_batch {
    pending_line *v;
    size_t n, cap;
} line_batch;

static void batch_add(line_batch *b, double t, const char *text)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n].t = t;
    b->v[b->n].seq = b->n;
    b->v[b->n].text = text;
    b->n++;
}

static int pending_cmp(const void *a, const void *b)
{
    const pending_line *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static sp_run *find_run(simctl *c, int restore, const char *name)
{
    for (size_t i = 0; i < c->nruns; i++)
        if (c->runs[i]->is_restore == restore && !strcmp(c->runs[i]->sr.name, name))
            return c->runs[i];
    return NULL;
}

/* When the newest status write of a planned run or of its volumes happens, for a run that comes
 * to rest (idle_for implies hang): the run's and each volume's last change long after they do. */
static double run_rest_time(const simctl *c, const sp_run *r)
{
    double far = r->t0 + 400 * 86400.0, last = last_change(c, r, NULL, run_status_at, r->t0, far);
    for (size_t i = 0; i < r->nvols; i++) {
        const sp_vol *v = &r->vols[i];
        if (!isfinite(v->t_create)) continue;
        double t = last_change(c, r, v, vol_status_at, v->t_create, far);
        if (t > last) last = t;
    }
    return last;
}

/* Whether two backups' namespaces meet (none listed: every namespace). */
static int queue_overlap(const scn_run *a, const scn_run *b)
{
    if (!a->n_namespaces || !b->n_namespaces) return 1;
    for (size_t i = 0; i < a->n_namespaces; i++)
        for (size_t j = 0; j < b->n_namespaces; j++)
            if (!strcmp(a->namespaces[i], "*") || !strcmp(b->namespaces[j], "*") ||
                !strcmp(a->namespaces[i], b->namespaces[j]))
                return 1;
    return 0;
}

/* velero.concurrent_backups: how long Velero's backup queue controller holds backup r past its
 * usual start. It starts at the first moment (its usual start, or an earlier backup's end) when
 * fewer than the limit of the earlier backups run and none of those not yet ended overlaps its
 * namespaces (backup_queue_controller.go; every earlier backup is planned already). */
static double queue_hold(const simctl *c, const sp_run *r)
{
    int limit = c->scn->cluster.concurrent_backups;
    if (limit <= 0 || r->is_restore || r->sr.queued) return 0;
    double base = r->t_start;
    size_t n = 0;
    double *cand = xcalloc(c->nruns + 1, sizeof *cand);
    cand[n++] = base;
    for (size_t i = 0; i < c->nruns; i++) {
        const sp_run *e = c->runs[i];
        if (!e->is_restore && !e->sr.queued && isfinite(e->t_final) && e->t_final > base)
            cand[n++] = e->t_final;
    }
    double best = INFINITY;
    for (size_t k = 0; k < n; k++) {
        double s = cand[k];
        if (s >= best) continue;
        int running = 0, blocked = 0;
        for (size_t i = 0; i < c->nruns && !blocked; i++) {
            const sp_run *e = c->runs[i];
            if (e->is_restore || e->sr.queued || e->t_final <= s) continue;
            if (e->t_start <= s) running++;
            if (queue_overlap(&e->sr, &r->sr)) blocked = 1;
        }
        if (!blocked && running < limit) best = s;
    }
    free(cand);
    return isfinite(best) ? best - base : 0;
}

static void add_run(simctl *c, const scn_run *src)
{
    sp_run *r = xcalloc(1, sizeof *r);
    scn_run_copy(&r->sr, src);
    sp_ctx pc = {.ns = c->ns,
                 .epoch = c->epoch,
                 .scn = c->scn,
                 .rng = &c->rng,
                 .log_json = c->opts.log_json,
                 .seed = c->opts.seed};
    uint64_t rng0 = c->rng;
    sp_plan_run(&pc, r);
    if (r->sr.idle_for > 0) {
        /* plan it again (the same draws) started so that it rests idle_for before the start */
        /* +20 ms: the rest found to 10 ms lands within the second idle_for names, not before */
        double shift = c->epoch - r->sr.idle_for - run_rest_time(c, r) + 0.02;
        sp_run *again = xcalloc(1, sizeof *again);
        scn_run_copy(&again->sr, &r->sr);
        again->sr.start += shift;
        sp_run_free(r);
        r = again;
        c->rng = rng0;
        sp_plan_run(&pc, r);
    }
    double hold = queue_hold(c, r);
    if (hold > 0) {
        /* plan it again (the same draws), held Queued until the queue lets it start */
        sp_run *again = xcalloc(1, sizeof *again);
        scn_run_copy(&again->sr, &r->sr);
        again->hold = hold;
        sp_run_free(r);
        r = again;
        c->rng = rng0;
        sp_plan_run(&pc, r);
    }
    if (r->sr.queued && !r->is_restore) {
        r->queue_pos = 1;
        for (size_t i = 0; i < c->nruns; i++) r->queue_pos += c->runs[i]->sr.queued;
    }
    if (r->is_restore && r->sr.backup) {
        sp_run *b = find_run(c, 0, r->sr.backup);
        if (b && b->sr.schedule) r->backup_schedule = xstrdup(b->sr.schedule);
    }
    pthread_mutex_lock(&c->mu);
    c->runs = xrealloc(c->runs, (c->nruns + 1) * sizeof *c->runs);
    c->runs[c->nruns++] = r;
    pthread_mutex_unlock(&c->mu);
}

static void write_status(simctl *c, const char *plural, const char *name, const char *manager,
                         double now, cJSON **last, cJSON *desired, int *gone)
{
    if (*last && cJSON_Compare(*last, desired, 1)) {
        cJSON_Delete(desired);
        return;
    }
    sim_mf_writer w = writer(manager, now);
    if (!simstore_mutate_as(c->store, plural, c->ns, name, &w, replace_status, desired)) *gone = 1;
    cJSON_Delete(*last);
    *last = desired;
}

static void step_run(simctl *c, sp_run *r, double now, line_batch *lines, double pod_start)
{
    const char *plural = r->is_restore ? "restores" : "backups";
    if (!r->exists) {
        if (now < r->t0) return;
        cJSON *o = run_object(c, r, now);
        r->last = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o, "status"), 1);
        /* backups of a schedule are the server's; others the CLI's (velero backup create) */
        char *uid =
            store_create_by(c, plural, o, !r->is_restore && r->sr.schedule ? MGR_SERVER : MGR_CLI,
                            r->t0, MGR_SERVER, last_change(c, r, NULL, run_status_at, r->t0, now));
        if (!uid) {
            r->gone = 1; /* someone else owns that name */
            return;
        }
        free(r->uid);
        r->uid = uid;
        r->exists = 1;
    } else {
        write_status(c, plural, r->sr.name, MGR_SERVER, now, &r->last, run_status(c, r, now),
                     &r->gone);
        if (r->gone) return;
    }
    int all_done = 1;
    for (size_t i = 0; i < r->nvols; i++) {
        sp_vol *v = &r->vols[i];
        const char *vp = v->sv->uploader == SCN_DATAMOVER
                             ? (r->is_restore ? "datadownloads" : "datauploads")
                             : (r->is_restore ? "podvolumerestores" : "podvolumebackups");
        if (v->gone || v->done) continue;
        if (!isfinite(v->t_create)) continue; /* the run failed before creating it */
        all_done = 0;
        if (now < v->t_create) continue;
        vol_real_step(c, r, v, now, NULL);
        if (!v->exists) {
            cJSON *o = vol_object(c, r, v, now);
            v->last = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o, "status"), 1);
            /* the server creates pod volumes, the CSI plugin (velero run-plugins) data movers;
             * the node-agent writes their progress */
            double t_cr = fmin(v->t_create, now);
            char *uid =
                store_create_by(c, vp, o, v->sv->uploader == SCN_DATAMOVER ? MGR_CLI : MGR_SERVER,
                                t_cr, MGR_AGENT, last_change(c, r, v, vol_status_at, t_cr, now));
            if (!uid) {
                /* name taken: pick another suffix next tick */
                char suf[8];
                sp_rng_suffix(&c->rng, suf, 5);
                free(v->name);
                v->name = sp_generated_name(r->sr.name, suf);
                cJSON_Delete(v->last);
                v->last = NULL;
                continue;
            }
            free(uid);
            v->exists = 1;
        } else {
            write_status(c, vp, v->name, MGR_AGENT, now, &v->last, vol_status(r, v, now), &v->gone);
        }
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v->last, "phase"));
        if (v->sv->uploader == SCN_DATAMOVER && v->last)
            simpods_mover(c->pods,
                          r->is_restore ? "velero.io/data-download" : "velero.io/data-upload",
                          v->name, ph, v->node, now);
        else if (ph && strcmp(ph, v->agent_phase)) { /* the node-agent's own log */
            snprintf(v->agent_phase, sizeof v->agent_phase, "%s", ph);
            simpods_agent_log(c->pods, v->node, r->is_restore, v->name, ph, now);
        }
        if (sp_vol_terminal_at(v, now) && v->real_state != 1) v->done = 1;
    }
    while (r->emitted < r->nlines && r->lines[r->emitted].t <= now) {
        if (r->lines[r->emitted].t >= pod_start)
            batch_add(lines, r->lines[r->emitted].t, r->lines[r->emitted].text);
        r->emitted++;
    }
    if (now >= r->t_final && all_done && r->emitted == r->nlines) r->finished = 1;
}

static void step_schedules(simctl *c, double now)
{
    for (size_t i = 0; i < c->scn->n_schedules; i++) {
        scn_schedule *sc = &c->scn->schedules[i];
        scn_cron cron;
        char err[200];
        if (scn_cron_parse(sc->cron, &cron, err, sizeof err)) continue;
        /* paused as the object says (velero schedule pause changes spec.paused): no run while
         * paused; once unpaused, a firing missed meanwhile makes ONE backup at once, as at the
         * start (Velero finds it due from lastBackup; skipImmediately is not modelled) */
        cJSON *so = simstore_get(c->store, "schedules", c->ns, sc->name);
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(so, "spec");
        int paused = so ? cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sp, "paused")) : sc->paused;
        cJSON_Delete(so);
        if (paused) {
            while (c->sched_next[i] <= now) {
                c->sched_missed[i] = 1;
                c->sched_next[i] = scn_cron_next(&cron, c->epoch, c->sched_next[i]);
            }
            continue;
        }
        if (c->sched_missed[i]) {
            c->sched_missed[i] = 0;
            c->sched_next[i] = now;
        }
        int fired = 0;
        while (c->sched_next[i] <= now) {
            double t = c->sched_next[i];
            char stamp[32], name[300];
            time_t tt = (time_t)t;
            struct tm tm;
            gmtime_r(&tt, &tm);
            strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
            snprintf(name, sizeof name, "%s-%s", sc->name, stamp);
            scn_run r;
            scn_run_copy(&r, &sc->tmpl);
            free(r.name);
            r.name = xstrdup(name);
            r.kind = SCN_BACKUP;
            r.start = t - c->epoch;
            add_run(c, &r);
            scn_run_clear(&r);
            c->sched_next[i] = scn_cron_next(&cron, c->epoch, t);
            fired = 1;
        }
        if (fired) {
            cJSON *st = cJSON_CreateObject();
            cJSON_AddStringToObject(st, "phase", "Enabled");
            double last = c->runs[c->nruns - 1]->t0;
            add_time(st, "lastBackup", last);
            sim_mf_writer w = writer(MGR_SERVER, now);
            simstore_mutate_as(c->store, "schedules", c->ns, sc->name, &w, replace_status, st);
            cJSON_Delete(st);
        }
    }
}

static int bsl_validated(cJSON *obj, void *arg)
{
    const char *ts = arg;
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "lastValidationTime");
    cJSON_AddStringToObject(st, "lastValidationTime", ts);
    return 1;
}

static int dr_process(cJSON *obj, void *arg)
{
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (st) cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", cJSON_Duplicate((const cJSON *)arg, 1));
    return 1;
}

/* A full pass over the DownloadRequests copies every one of them, so it runs only when one
 * changed (a watch says so) or, for expirations and targets that appear late, every 2 s. */
static int downloads_changed(simctl *c)
{
    int changed = 0;
    if (!c->dr_w) {
        int gone;
        c->dr_w = simstore_watch_open(c->store, "downloadrequests", c->ns, NULL, NULL,
                                      simstore_rv(c->store), &gone);
        changed = 1;
    }
    const char *type;
    cJSON *ev;
    while (c->dr_w && (ev = simstore_watch_next(c->dr_w, 0, &type, NULL))) {
        if (!strcmp(type, "ERROR")) { /* fell behind the history: start over */
            simstore_watch_close(c->dr_w);
            c->dr_w = NULL;
        }
        cJSON_Delete(ev);
        changed = 1;
    }
    int64_t now = kc_now_ms();
    if (now - c->dr_last_pass >= 2000) changed = 1;
    if (changed) c->dr_last_pass = now;
    return changed;
}

static void step_downloads(simctl *c)
{
    uint64_t rv;
    int status = 0;
    char *msg = NULL;
    cJSON *list =
        simstore_list(c->store, "downloadrequests", c->ns, NULL, NULL, &rv, &status, &msg);
    free(msg);
    if (!list) return;
    double wall = sim_wall(c);
    cJSON *dr;
    cJSON_ArrayForEach(dr, list)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(dr, "metadata"), "name"));
        cJSON *st = cJSON_GetObjectItemCaseSensitive(dr, "status");
        const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
        if (!name) continue;
        if (phase && !strcmp(phase, "Processed")) {
            double exp;
            const char *es =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "expiration"));
            if (es && !kc_parse_time(es, &exp) && wall > exp) {
                cJSON *gone =
                    simstore_delete(c->store, "downloadrequests", c->ns, name, &status, &msg);
                cJSON_Delete(gone);
                free(msg);
                msg = NULL;
            }
            continue;
        }
        cJSON *target = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(dr, "spec"), "target");
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(target, "kind"));
        const char *tname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(target, "name"));
        if (!kind || !tname) continue;
        int restore = !strncmp(kind, "Restore", 7);
        pthread_mutex_lock(&c->mu);
        sp_run *r = find_run(c, restore, tname);
        if (!r || !r->exists) {
            /* Not one of the controller's runs. Velero signs a URL whenever the Backup or
             * Restore object exists (fetching it then answers 404: nothing was stored) and
             * leaves the request unprocessed when it does not (v1.18). */
            pthread_mutex_unlock(&c->mu);
            cJSON *obj = simstore_get(c->store, restore ? "restores" : "backups", c->ns, tname);
            if (!obj) continue;
            cJSON_Delete(obj);
            pthread_mutex_lock(&c->mu);
        }
        c->tokens = xrealloc(c->tokens, (c->ntokens + 1) * sizeof *c->tokens);
        struct token *tk = &c->tokens[c->ntokens++];
        snprintf(tk->tok, sizeof tk->tok, "%016llx%016llx",
                 (unsigned long long)sp_rng_next(&c->tokrng),
                 (unsigned long long)sp_rng_next(&c->tokrng));
        tk->kind = xstrdup(kind);
        tk->target = xstrdup(tname);
        tk->expires = wall + DR_TTL;
        char url[600];
        snprintf(url, sizeof url, "%s/download/%s", c->base_url, tk->tok);
        pthread_mutex_unlock(&c->mu);
        cJSON *nst = cJSON_CreateObject();
        cJSON_AddStringToObject(nst, "phase", "Processed");
        cJSON_AddStringToObject(nst, "downloadURL", url);
        add_time(nst, "expiration", wall + DR_TTL);
        sim_mf_writer w = writer(MGR_SERVER, sim_now(c));
        simstore_mutate_as(c->store, "downloadrequests", c->ns, name, &w, dr_process, nst);
        cJSON_Delete(nst);
    }
    cJSON_Delete(list);
}

/* ---- runs created by others (kubectl, the velero CLI) ---- */

static int label_storage_location(cJSON *obj, void *arg)
{
    char lv[64];
    cJSON *l = labels_of(obj);
    cJSON_DeleteItemFromObjectCaseSensitive(l, "velero.io/storage-location");
    cJSON_AddStringToObject(l, "velero.io/storage-location", valid_label(arg, lv));
    return 1;
}

/* A backup or restore someone else created gets a small default plan, as Velero would run it. */
static void adopt(simctl *c, int restore, const cJSON *obj, double now)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name"));
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "uid"));
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    if (!name || (phase && *phase && strcmp(phase, "New"))) return;
    pthread_mutex_lock(&c->mu);
    sp_run *known = find_run(c, restore, name);
    pthread_mutex_unlock(&c->mu);
    if (known) return;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    scn_run r;
    scn_run_defaults(&r);
    r.kind = restore ? SCN_RESTORE : SCN_BACKUP;
    r.name = xstrdup(name);
    r.start = now - c->epoch;
    r.rate = 5;
    const char *bn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "backupName"));
    if (restore) r.backup = xstrdup(bn ? bn : "");
    const char *loc =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "storageLocation"));
    if (loc && *loc) {
        free(r.storage_location);
        r.storage_location = xstrdup(loc);
    }
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(spec, "includedNamespaces"), *e;
    cJSON_ArrayForEach(e, inc)
    {
        const char *ns = cJSON_GetStringValue(e);
        if (!ns || !strcmp(ns, "*")) continue;
        r.namespaces = xrealloc(r.namespaces, (r.n_namespaces + 1) * sizeof *r.namespaces);
        r.namespaces[r.n_namespaces++] = xstrdup(ns);
    }
    static const struct {
        const char *name;
        int per_ns;
    } dflt[] = {{"namespaces", 1}, {"pods", 12},    {"persistentvolumeclaims", 2}, {"secrets", 6},
                {"configmaps", 8}, {"services", 4}, {"deployments.apps", 4}};
    size_t nns =
        r.n_namespaces ? r.n_namespaces : (c->scn->n_namespaces ? c->scn->n_namespaces : 1);
    r.n_resources = sizeof dflt / sizeof dflt[0];
    r.resources = xcalloc(r.n_resources, sizeof *r.resources);
    for (size_t i = 0; i < r.n_resources; i++) {
        r.resources[i].name = xstrdup(dflt[i].name);
        r.resources[i].items = dflt[i].per_ns * (int)nns;
    }
    add_run(c, &r);
    scn_run_clear(&r);
    sp_run *nr = c->runs[c->nruns - 1];
    free(nr->uid);
    nr->uid = xstrdup(uid ? uid : "");
    nr->exists = 1; /* already in the store: only its status is ours */
    if (!restore) { /* the backup controller labels it at validation */
        sim_mf_writer w = writer(MGR_SERVER, now);
        simstore_mutate_as(c->store, "backups", c->ns, name, &w, label_storage_location,
                           nr->sr.storage_location);
    }
}

static void step_adopt(simctl *c, double now)
{
    for (int k = 0; k < 2; k++) {
        const char *plural = k ? "restores" : "backups";
        if (!c->adopt_w[k]) {
            int gone;
            c->adopt_w[k] = simstore_watch_open(c->store, plural, c->ns, NULL, NULL, 0, &gone);
            if (!c->adopt_w[k]) continue;
        }
        const char *type;
        cJSON *ev;
        for (int budget = 5000; budget > 0; budget--) {
            ev = simstore_watch_next(c->adopt_w[k], 0, &type, NULL);
            if (!ev) break;
            if (!strcmp(type, "ERROR")) { /* fell behind the history: start over */
                cJSON_Delete(ev);
                simstore_watch_close(c->adopt_w[k]);
                c->adopt_w[k] = NULL;
                break;
            }
            if (!strcmp(type, "ADDED")) adopt(c, k, ev, now);
            cJSON_Delete(ev);
        }
    }
}

/* ---- what users ask through the API: spec.cancel on a volume, a DeleteBackupRequest ---- */

static const char *vol_plural(const sp_run *r, const sp_vol *v)
{
    return v->sv->uploader == SCN_DATAMOVER
               ? (r->is_restore ? "datadownloads" : "datauploads")
               : (r->is_restore ? "podvolumerestores" : "podvolumebackups");
}

/* a volume transfer whose spec.cancel is true: Canceling now, Canceled 2 s later (the node-agent
 * stops its data path), unless it ends first */
static void step_cancels(simctl *c, double now)
{
    for (size_t i = 0; i < c->nruns; i++) {
        sp_run *r = c->runs[i];
        if (r->gone) continue;
        for (size_t j = 0; j < r->nvols; j++) {
            sp_vol *v = &r->vols[j];
            if (!v->exists || v->done || v->gone || v->cancel_asked || sp_vol_terminal_at(v, now))
                continue;
            cJSON *o = simstore_get(c->store, vol_plural(r, v), c->ns, v->name);
            const cJSON *spec = cJSON_GetObjectItemCaseSensitive(o, "spec");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "cancel"))) {
                v->cancel_asked = 1;
                v->t_cancel_asked = now;
                v->t_cancel = fmin(v->t_cancel, now + 2);
                if (r->finished) r->finished = 0;
            }
            cJSON_Delete(o);
        }
    }
}

static int set_phase(cJSON *obj, void *arg)
{
    const char *const *pe = arg; /* phase, error or NULL */
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    if (!st) st = cJSON_AddObjectToObject(obj, "status");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "phase");
    cJSON_AddStringToObject(st, "phase", pe[0]);
    if (pe[1]) {
        cJSON_DeleteItemFromObjectCaseSensitive(st, "errors");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(st, "errors"), cJSON_CreateString(pe[1]));
    }
    return 1;
}

/* Velero's backup deletion controller: the request InProgress and the backup Deleting, then
 * (its data deleted) the backup and its volumes gone and the request Processed; a request for
 * a backup that does not exist is Processed with an error */
static void step_deletions(simctl *c, double now)
{
    sim_mf_writer w = writer(MGR_SERVER, now);
    uint64_t rv;
    int status;
    char *msg = NULL;
    cJSON *l =
        simstore_list(c->store, "deletebackuprequests", c->ns, NULL, NULL, &rv, &status, &msg);
    free(msg);
    cJSON *it;
    cJSON_ArrayForEach(it, l)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name"));
        const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "status"), "phase"));
        const char *bn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "spec"), "backupName"));
        if (!name || (phase && *phase && strcmp(phase, "New"))) continue;
        cJSON *b = bn ? simstore_get(c->store, "backups", c->ns, bn) : NULL;
        if (!b) {
            const char *pe[2] = {"Processed", "backup not found"};
            simstore_mutate_as(c->store, "deletebackuprequests", c->ns, name, &w, set_phase, pe);
            continue;
        }
        cJSON_Delete(b);
        const char *pi[2] = {"InProgress", NULL}, *pd[2] = {"Deleting", NULL};
        simstore_mutate_as(c->store, "deletebackuprequests", c->ns, name, &w, set_phase, pi);
        pthread_mutex_lock(&c->mu);
        sp_run *r = find_run(c, 0, bn);
        pthread_mutex_unlock(&c->mu);
        if (r) r->gone = 1; /* the controller writes its status no more */
        simstore_mutate_as(c->store, "backups", c->ns, bn, &w, set_phase, pd);
        c->dels = xrealloc(c->dels, (c->ndels + 1) * sizeof *c->dels);
        c->dels[c->ndels++] = (struct sim_del){xstrdup(name), xstrdup(bn), now + 3};
    }
    cJSON_Delete(l);
    for (size_t i = 0; i < c->ndels;) {
        struct sim_del *d = &c->dels[i];
        if (now < d->at) {
            i++;
            continue;
        }
        char lab[64], *sel;
        sel = xasprintf("velero.io/backup-name=%s", valid_label(d->backup, lab));
        static const char *vp[] = {"podvolumebackups", "datauploads"};
        for (size_t k = 0; k < 2; k++) {
            cJSON *vl = simstore_list(c->store, vp[k], c->ns, sel, NULL, &rv, &status, &msg);
            free(msg);
            msg = NULL;
            cJSON *v;
            cJSON_ArrayForEach(v, vl)
            {
                const char *vn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(v, "metadata"), "name"));
                if (vn) cJSON_Delete(simstore_delete(c->store, vp[k], c->ns, vn, &status, &msg));
                free(msg);
                msg = NULL;
            }
            cJSON_Delete(vl);
        }
        free(sel);
        cJSON_Delete(simstore_delete(c->store, "backups", c->ns, d->backup, &status, &msg));
        free(msg);
        msg = NULL;
        const char *pp[2] = {"Processed", NULL};
        simstore_mutate_as(c->store, "deletebackuprequests", c->ns, d->dbr, &w, set_phase, pp);
        free(d->dbr);
        free(d->backup);
        c->dels[i] = c->dels[--c->ndels];
    }
}

/* Maintenance Jobs that end: each log line written when its time (spread over the run) has
 * come, then, duration after the start, the Job and its pod finished as `ends` says (the Job
 * controller's and the kubelet's writes; the lines first, as a container's log is whole when it
 * exits). */
static void step_jobs(simctl *c, double now)
{
    for (size_t i = 0; i < c->njobs; i++) {
        struct sim_job *sj = &c->jobs[i];
        const scn_repo_job *j = sj->j;
        if (sj->ended) continue;
        while (sj->logged < j->n_log) {
            double t = sj->start + j->duration * (double)sj->logged / (double)j->n_log;
            if (t > now) break;
            simstore_log_append(c->store, sj->pod, t, j->log[sj->logged++]);
        }
        if (now < sj->start + j->duration) continue;
        const scn_repo *rp = NULL;
        for (size_t r = 0; r < c->scn->n_repos && !rp; r++)
            if (j >= c->scn->repos[r].jobs && j < c->scn->repos[r].jobs + c->scn->repos[r].n_jobs)
                rp = &c->scn->repos[r];
        scn_repo_job done = *j;
        done.result = j->ends;
        double epoch = sj->start - j->start; /* the time simrepo_job counts its start from */
        cJSON *job = simrepo_job(rp, &done, sj->name, c->ns, epoch);
        cJSON *pod = simrepo_job_pod(rp, &done, sj->name, sj->pod, c->ns, epoch);
        sim_mf_writer wj = writer("kube-controller-manager", now), wp = writer("kubelet", now);
        simstore_mutate_as(c->store, "jobs", c->ns, sj->name, &wj, dr_process,
                           cJSON_GetObjectItemCaseSensitive(job, "status"));
        simstore_mutate_as(c->store, "pods", c->ns, sj->pod, &wp, dr_process,
                           cJSON_GetObjectItemCaseSensitive(pod, "status"));
        cJSON_Delete(job);
        cJSON_Delete(pod);
        sj->ended = 1;
    }
}

static void tick(simctl *c)
{
    double now = sim_now(c);
    simpods_tick(c->pods, now); /* the server is back (ready) before it fails orphaned runs */
    step_jobs(c, now);
    step_schedules(c, now);
    if (!c->opts.passive) step_adopt(c, now);
    int64_t ms = kc_now_ms();
    if (!c->opts.passive && (c->opts.manual || ms - c->act_scan_ms >= 250 || c->ndels)) {
        c->act_scan_ms = ms;
        step_cancels(c, now);
        step_deletions(c, now);
    }
    line_batch lines = {0};
    double pod_start = c->epoch - POD_LOG_WINDOW;
    for (size_t i = 0; i < c->nruns; i++) {
        sp_run *r = c->runs[i];
        if (r->gone || r->finished) continue;
        step_run(c, r, now, &lines, pod_start);
    }
    if (lines.n) qsort(lines.v, lines.n, sizeof *lines.v, pending_cmp);
    for (size_t i = 0; i < lines.n; i++)
        simstore_log_append(c->store, c->pod, lines.v[i].t, lines.v[i].text);
    free(lines.v);
    if (now - c->last_bsl >= 60) {
        char ts[40];
        fmt_time(now, ts, sizeof ts);
        sim_mf_writer w = writer(MGR_SERVER, now);
        simstore_mutate_as(c->store, "backupstoragelocations", c->ns, "default", &w, bsl_validated,
                           ts);
        c->last_bsl = now;
    }
    if (downloads_changed(c)) step_downloads(c);
}

static void *thread_main(void *arg)
{
    simctl *c = arg;
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        pthread_mutex_unlock(&c->mu);
        tick(c);
        pthread_mutex_lock(&c->mu);
        if (c->stop) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* ---- static objects ---- */

/* The newest backup a schedule made before the start (the scenario's history), 0 if none. */
static double sched_last_run(simctl *c, const char *name)
{
    double last = 0;
    for (size_t k = 0; k < c->nruns; k++) {
        const sp_run *r = c->runs[k];
        if (!r->is_restore && r->sr.schedule && !strcmp(r->sr.schedule, name) &&
            r->t0 <= c->epoch && r->t0 > last)
            last = r->t0;
    }
    return last;
}

static void create_static(simctl *c)
{
    double now = c->epoch;
    cJSON *got = simstore_get(c->store, "backupstoragelocations", c->ns, "default");
    if (!got) {
        cJSON *o =
            new_object("velero.io/v1", "BackupStorageLocation", c->ns, "default", now - 86400 * 60);
        cJSON *spec = cJSON_AddObjectToObject(o, "spec");
        cJSON_AddStringToObject(spec, "provider", "aws");
        cJSON *os = cJSON_AddObjectToObject(spec, "objectStorage");
        cJSON_AddStringToObject(os, "bucket", "velero-backups");
        if (c->opts.object_store_ca) { /* base64 of the PEM bundle, as the BSL's []byte */
            char *ca = kc_base64_encode((const unsigned char *)c->opts.object_store_ca,
                                        strlen(c->opts.object_store_ca));
            cJSON_AddStringToObject(os, "caCert", ca);
            free(ca);
        }
        cJSON *cfg = cJSON_AddObjectToObject(spec, "config");
        cJSON_AddStringToObject(cfg, "region", "minio");
        cJSON_AddStringToObject(cfg, "s3Url",
                                c->opts.object_store_ca ? "https://minio.velero.svc:9000"
                                                        : "http://minio.velero.svc:9000");
        cJSON_AddTrueToObject(spec, "default");
        cJSON_AddStringToObject(spec, "accessMode", "ReadWrite");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        cJSON_AddStringToObject(st, "phase", "Available");
        add_time(st, "lastValidationTime", now);
        add_time(st, "lastSyncedTime", now);
        /* velero install applies it as "velero-cli" (pkg/install/install.go) */
        free(store_create_by(c, "backupstoragelocations", o, "velero-cli", now - 86400 * 60,
                             MGR_SERVER, now));
    }
    cJSON_Delete(got);
    simpods_create(c->pods, now);
    for (size_t i = 0; i < c->scn->n_repos; i++) { /* the repository controller writes status */
        const scn_repo *rp = &c->scn->repos[i];
        double last = rp->n_recent ? now + rp->recent[rp->n_recent - 1].at : now - 86400 * 30;
        free(store_create_by(c, "backuprepositories", simrepo_object(rp, c->ns, now), MGR_SERVER,
                             now - 86400 * 30, MGR_SERVER, last < now ? last : now));
        for (size_t k = 0; k < rp->n_jobs; k++) { /* its maintenance Jobs, their pods and logs */
            const scn_repo_job *j = &rp->jobs[k];
            char name[128], pod[160];
            simrepo_job_name(rp, j, now + j->start, name, sizeof name);
            snprintf(pod, sizeof pod, "%.120s-%c%c%c%c%c", name, "bcdfg"[k % 5], 'x', 'k',
                     "2479"[k % 4], 'p');
            free(store_create_by(
                c, "jobs", simrepo_job(rp, j, name, c->ns, now), "kube-controller-manager",
                now + j->start, "kube-controller-manager",
                now + j->start + (strcmp(j->result, "Running") ? j->duration : 0)));
            free(store_create(c, "pods", simrepo_job_pod(rp, j, name, pod, c->ns, now)));
            if (j->ends) { /* its lines as their time comes (step_jobs), then its end */
                c->jobs = xrealloc(c->jobs, (c->njobs + 1) * sizeof *c->jobs);
                struct sim_job *sj = &c->jobs[c->njobs++];
                memset(sj, 0, sizeof *sj);
                sj->j = j;
                sj->start = now + j->start;
                snprintf(sj->name, sizeof sj->name, "%s", name);
                snprintf(sj->pod, sizeof sj->pod, "%s", pod);
                continue;
            }
            for (size_t l = 0; l < j->n_log; l++) /* spread over its run */
                simstore_log_append(c->store, pod,
                                    now + j->start + j->duration * (double)l / (double)(j->n_log),
                                    j->log[l]);
        }
    }
    for (size_t i = 0; i < c->scn->n_schedules; i++) {
        scn_schedule *sc = &c->scn->schedules[i];
        cJSON *o = new_object("velero.io/v1", "Schedule", c->ns, sc->name, now + sc->created);
        cJSON *spec = cJSON_AddObjectToObject(o, "spec");
        cJSON_AddStringToObject(spec, "schedule", sc->cron);
        cJSON_AddBoolToObject(spec, "paused", sc->paused);
        cJSON *tmpl = cJSON_AddObjectToObject(spec, "template");
        cJSON *inc = cJSON_AddArrayToObject(tmpl, "includedNamespaces");
        for (size_t k = 0; k < sc->tmpl.n_namespaces; k++)
            cJSON_AddItemToArray(inc, cJSON_CreateString(sc->tmpl.namespaces[k]));
        cJSON_AddStringToObject(tmpl, "storageLocation", sc->tmpl.storage_location);
        cJSON_AddStringToObject(tmpl, "ttl", "720h0m0s");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        cJSON_AddStringToObject(st, "phase", "Enabled");
        double last = sched_last_run(c, sc->name);
        if (last > 0) add_time(st, "lastBackup", last);
        double made = now + sc->created;
        free(store_create_by(c, "schedules", o, MGR_CLI, made, MGR_SERVER,
                             last > made ? last : made));
    }
}

/* ---- public ---- */

simctl *simctl_start(simstore *store, const simctl_opts *opts, char *err, size_t errlen)
{
    scenario *scn = scenario_load_at(opts->scenario ? opts->scenario : "demo", opts->seed,
                                     kc_wall_now() + opts->clock_skew, err, errlen);
    if (!scn) return NULL;
    simctl *c = xcalloc(1, sizeof *c);
    c->store = store;
    c->opts = *opts;
    if (c->opts.speed <= 0) c->opts.speed = 1;
    c->base_url = xstrdup(opts->base_url ? opts->base_url : "http://127.0.0.1");
    c->ns = xstrdup(opts->ns ? opts->ns : "velero");
    c->pod = xstrdup(sim_velero_pod_name());
    c->restic = xstrdup(opts->restic);
    c->opts.restic = NULL;
    c->scn = scn;
    c->epoch = (scn->has_epoch ? scn->epoch : floor(kc_wall_now())) + c->opts.clock_skew;
    c->pods = simpods_new(store, c->ns, c->pod, &scn->cluster, opts->helm, c->epoch);
    c->t0_ms = kc_now_ms();
    c->rng = 0x76656c65726fULL ^ ((uint64_t)opts->seed * 0x9e3779b97f4a7c15ULL);
    c->tokrng = (uint64_t)kc_now_ms() ^ ((uint64_t)(uintptr_t)c << 16) ^ (uint64_t)kc_wall_now();
    c->last_bsl = c->epoch;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->opts.scenario = NULL;
    c->opts.base_url = NULL;
    c->opts.ns = NULL;
    /* backups before restores so a restore can find its backup's schedule */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < scn->n_runs; i++)
            if ((scn->runs[i].kind == SCN_RESTORE) == pass) add_run(c, &scn->runs[i]);
    c->sched_next = scn->n_schedules ? xcalloc(scn->n_schedules, sizeof *c->sched_next) : NULL;
    c->sched_missed = scn->n_schedules ? xcalloc(scn->n_schedules, 1) : NULL;
    for (size_t i = 0; i < scn->n_schedules; i++) {
        scn_cron cron;
        char cerr[200];
        /* as Velero: the next firing after the last backup it made, else after the start. One
         * missed while the server was away is not caught up at its own time: v1.18.1's first
         * reconcile finds the schedule due and makes one backup now, named for now
         * (schedule_controller.go submitBackup: getBackup(schedule, c.clock.Now())) */
        double last = sched_last_run(c, scn->schedules[i].name);
        c->sched_next[i] = scn_cron_parse(scn->schedules[i].cron, &cron, cerr, sizeof cerr)
                               ? INFINITY
                               : scn_cron_next(&cron, c->epoch, last > 0 ? last : c->epoch);
        if (c->sched_next[i] < c->epoch) c->sched_next[i] = c->epoch;
    }
    create_static(c);
    c->manual_now = c->epoch;
    tick(c); /* history and runs in flight exist before anyone looks */
    if (c->opts.manual) {
        c->stop = 1; /* no thread to stop */
        return c;
    }
    if (pthread_create(&c->thread, NULL, thread_main, c)) {
        snprintf(err, errlen, "cannot start the controller thread");
        c->stop = 1;
        simctl_stop(c);
        return NULL;
    }
    return c;
}

void simctl_stop(simctl *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    int running = !c->stop;
    c->stop = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (running) pthread_join(c->thread, NULL);
    for (size_t i = 0; i < c->nruns; i++) sp_run_free(c->runs[i]);
    free(c->runs);
    for (size_t i = 0; i < c->ntokens; i++) {
        free(c->tokens[i].kind);
        free(c->tokens[i].target);
    }
    free(c->tokens);
    free(c->sched_next);
    free(c->sched_missed);
    for (size_t i = 0; i < c->ndels; i++) {
        free(c->dels[i].dbr);
        free(c->dels[i].backup);
    }
    free(c->dels);
    for (int k = 0; k < 2; k++)
        if (c->adopt_w[k]) simstore_watch_close(c->adopt_w[k]);
    if (c->dr_w) simstore_watch_close(c->dr_w);
    simpods_free(c->pods);
    free(c->jobs);
    scenario_free(c->scn);
    free(c->base_url);
    free(c->ns);
    free(c->pod);
    free(c->restic);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

/* ---- artifacts ---- */

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *resource_list_json(const sp_run *r)
{
    cJSON *o = cJSON_CreateObject();
    int last = sp_run_failed(r) ? r->fail_item : r->n_items;
    for (size_t i = 0; i < r->nres; i++) {
        const sp_res *p = &r->res[i];
        int n = last - p->first;
        if (n > p->items) n = p->items;
        if (n <= 0) continue;
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, p->list_key);
        if (!arr) arr = cJSON_AddArrayToObject(o, p->list_key);
        char **names = xcalloc((size_t)n, sizeof *names);
        for (int k = 0; k < n; k++) {
            const char *ns;
            char name[200];
            sp_item_id(r, p, k, &ns, name, sizeof name);
            names[k] = xasprintf("%s%s%s%s", ns ? ns : "", ns ? "/" : "", name,
                                 r->is_restore ? "(created)" : "");
        }
        qsort(names, (size_t)n, sizeof *names, str_cmp);
        for (int k = 0; k < n; k++) {
            cJSON_AddItemToArray(arr, cJSON_CreateString(names[k]));
            free(names[k]);
        }
        free(names);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (r->sr.extra_list_keys > 0) { /* a hostile list: keys one by one, not a tree of 10^6 */
        kc_buf b = {0};
        size_t n = strlen(s);
        kc_buf_append(&b, s, n - 1); /* without its '}' */
        int first = n <= 2;
        for (int i = 0; i < r->sr.extra_list_keys; i++, first = 0)
            kc_buf_printf(&b, "%s\"x%d.example.com/v1/Kind%d\":[\"ns/a\"]", first ? "" : ",", i, i);
        kc_buf_append(&b, "}", 1);
        free(s);
        s = kc_buf_cstr(&b);
    }
    return s;
}

/* The run's async item operations as Velero stores them (pkg/itemoperation: a JSON array of
 * {spec, status}; ResourceIdentifier has no json tags, so its keys are Go's field names), as the
 * download request controller answers: refreshed to now. A data mover's operation reports its
 * DataUpload/DataDownload as the CSI plugin's Progress() does (Description its phase, "Bytes",
 * Updated only from its completionTimestamp); the phase stays New until it ends, as Velero's
 * operations controller sets no other. */
static char *item_operations_json(const sp_run *r, double t)
{
    cJSON *arr = cJSON_CreateArray();
    const char *pre = r->is_restore ? "restore" : "backup";
    char k[40];
    for (size_t i = 0; i < r->nvols + r->nops; i++) {
        const sp_vol *v = i < r->nvols ? &r->vols[i] : NULL;
        const sp_op *op = i < r->nvols ? NULL : &r->ops[i - r->nvols];
        if (v && (v->sv->uploader != SCN_DATAMOVER || !(t >= v->t_create))) continue;
        if (op && !(t >= op->t_created)) continue;
        cJSON *o = cJSON_CreateObject(), *spec = cJSON_AddObjectToObject(o, "spec");
        snprintf(k, sizeof k, "%sName", pre);
        cJSON_AddStringToObject(spec, k, r->sr.name);
        snprintf(k, sizeof k, "%sUID", pre);
        cJSON_AddStringToObject(spec, k, r->uid ? r->uid : "");
        snprintf(k, sizeof k, "%sItemAction", pre);
        cJSON_AddStringToObject(spec, k,
                                op              ? op->so->plugin
                                : r->is_restore ? "velero.io/csi-pvc-restorer"
                                                : "velero.io/csi-pvc-backupper");
        cJSON *ri = cJSON_AddObjectToObject(spec, "resourceIdentifier");
        if (op) {
            const char *dot = strchr(op->so->resource, '.');
            cJSON_AddStringToObject(ri, "Group", dot ? dot + 1 : "");
            char *res = xasprintf(
                "%.*s", dot ? (int)(dot - op->so->resource) : (int)strlen(op->so->resource),
                op->so->resource);
            cJSON_AddStringToObject(ri, "Resource", res);
            free(res);
            cJSON_AddStringToObject(ri, "Namespace", op->so->ns ? op->so->ns : "");
            cJSON_AddStringToObject(ri, "Name", op->so->name);
        } else {
            cJSON_AddStringToObject(ri, "Group", "");
            cJSON_AddStringToObject(ri, "Resource", "persistentvolumeclaims");
            cJSON_AddStringToObject(ri, "Namespace", v->sv->ns);
            cJSON_AddStringToObject(ri, "Name", v->sv->pvc);
        }
        cJSON_AddStringToObject(spec, "operationID", op ? op->id : v->op_id);
        if (!r->is_restore) cJSON_AddNullToObject(spec, "postOperationItems");
        cJSON *st = cJSON_AddObjectToObject(o, "status");
        const char *phase = "New", *err = NULL;
        if (op) {
            int64_t done = sp_op_done_at(op, t);
            int ended = t >= op->t_end;
            if (ended) phase = "Completed";
            cJSON_AddStringToObject(st, "phase", phase);
            if (done) cJSON_AddNumberToObject(st, "nCompleted", (double)done);
            cJSON_AddNumberToObject(st, "nTotal", (double)op->so->total);
            cJSON_AddStringToObject(st, "operationUnits", op->so->units ? op->so->units : "Items");
            cJSON_AddStringToObject(
                st, "description",
                ended ? "Completed" : (op->so->description ? op->so->description : "InProgress"));
            add_time(st, "created", op->t_created);
            add_time(st, "started", op->t_created);
            /* the plugin stamps each report; a stalled one stops at its last change */
            add_time(st, "updated", fmin(fmin(t, op->t_stall), op->t_end));
        } else {
            const cJSON *vs = v->last;
            const char *vp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vs, "phase"));
            if (vp && !strcmp(vp, "Completed")) phase = "Completed";
            if (vp && (!strcmp(vp, "Failed") || !strcmp(vp, "Canceled"))) {
                phase = "Failed";
                const char *m =
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vs, "message"));
                err = !strcmp(vp, "Canceled")
                          ? (r->is_restore ? "DataDownload is canceled" : "DataUpload is canceled")
                          : (m ? m : "");
            }
            cJSON_AddStringToObject(st, "phase", phase);
            if (err && *err) cJSON_AddStringToObject(st, "error", err);
            if (vp && *vp && strcmp(vp, "New")) {
                const cJSON *pg = cJSON_GetObjectItemCaseSensitive(vs, "progress");
                double bd = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pg, "bytesDone"));
                double tb =
                    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pg, "totalBytes"));
                if (bd == bd && bd > 0) cJSON_AddNumberToObject(st, "nCompleted", bd);
                if (tb == tb && tb > 0) cJSON_AddNumberToObject(st, "nTotal", tb);
                cJSON_AddStringToObject(st, "operationUnits", "Bytes");
                cJSON_AddStringToObject(st, "description", vp);
            }
            add_time(st, "created", v->t_create);
            const char *ts;
            if ((ts = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vs, "startTimestamp"))))
                cJSON_AddStringToObject(st, "started", ts);
            if ((ts = cJSON_GetStringValue(
                     cJSON_GetObjectItemCaseSensitive(vs, "completionTimestamp"))))
                cJSON_AddStringToObject(st, "updated", ts);
        }
        cJSON_AddItemToArray(arr, o);
    }
    char *out = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    return out;
}

int simctl_download(simctl *c, const char *token, unsigned char **data, size_t *len, int *status)
{
    *data = NULL;
    *len = 0;
    *status = 404;
    pthread_mutex_lock(&c->mu);
    struct token *tk = NULL;
    for (size_t i = 0; i < c->ntokens; i++)
        if (!strcmp(c->tokens[i].tok, token)) tk = &c->tokens[i];
    if (!tk) goto out;
    if (sim_wall(c) > tk->expires) {
        *status = 410;
        goto out;
    }
    int restore = !strncmp(tk->kind, "Restore", 7);
    sp_run *r = find_run(c, restore, tk->target);
    if (!r || sim_now(c) < r->t_pass_end) goto out; /* not written yet */
    char *content = NULL;
    const char *k = tk->kind + (restore ? 7 : 6);
    if (!strcmp(k, "Log")) {
        kc_buf b = {0};
        for (size_t i = 0; i < r->nlines && r->lines[i].t <= r->t_pass_end; i++)
            if (!r->lines[i].live_only) kc_buf_printf(&b, "%s\n", r->lines[i].text);
        content = kc_buf_cstr(&b);
    } else if (!strcmp(k, "ResourceList")) {
        content = r->sr.list_text ? xstrdup(r->sr.list_text) : resource_list_json(r);
    } else if (!strcmp(k, "Results")) {
        cJSON *o = artifacts_results(r->errs, (size_t)r->errors, r->warns, (size_t)r->sr.warnings);
        content = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
    } else if (!strcmp(k, "ItemOperations")) {
        content = item_operations_json(r, sim_now(c));
    }
    if (!content) goto out;
    *data = artifacts_gzip(content, strlen(content), len);
    free(content);
    *status = 200;
out:
    pthread_mutex_unlock(&c->mu);
    return *status == 200 ? 0 : -1;
}

/* Test and fault-injection hook: makes every download token expired. */
void simctl_expire_downloads(simctl *c)
{
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->ntokens; i++) c->tokens[i].expires = 0;
    pthread_mutex_unlock(&c->mu);
}

double simctl_now(simctl *c)
{
    return sim_now(c);
}

void simctl_advance(simctl *c, double t)
{
    if (!c || !c->opts.manual) return;
    if (t > c->manual_now) c->manual_now = t;
    tick(c);
}

double simctl_epoch(simctl *c)
{
    return c->epoch;
}
