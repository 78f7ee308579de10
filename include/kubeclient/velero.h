/* velero.h: Velero's resources decoded from JSON into C structs: runs (Backup, Restore), pod volume
 * and data mover progress (PVB, PVR, DataUpload, DataDownload), DownloadRequest, Schedule, BSL.
 * A missing field means zero or absent (NULL / 0), never a failure. Times are unix seconds, 0 when
 * absent. Strings are owned by the struct and freed only by its vl_*_free: decoded structs share
 * repeated strings (namespace, labels, phase, node...) through a pool, so treat them as read-only
 * and never free() one on its own. Hand-built structs with xstrdup'd strings are freed correctly.
 * Decode and free on one thread (the loop's). Integers are exact up to 2^53 (cJSON keeps numbers
 * as doubles); larger ones are the nearest double, saturating at INT64_MAX. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    VL_BACKUP,
    VL_RESTORE,
    VL_PVB, /* PodVolumeBackup, velero.io/v1 */
    VL_PVR, /* PodVolumeRestore, velero.io/v1 */
    VL_DU,  /* DataUpload, velero.io/v2alpha1 */
    VL_DD,  /* DataDownload, velero.io/v2alpha1 */
    VL_DOWNLOAD_REQUEST,
    VL_SCHEDULE,
    VL_BSL
} vl_kind;

const char *vl_kind_name(vl_kind k); /* "Backup", "PodVolumeBackup", ... */

/* Phases of runs and volumes. Unknown phase text is kept in the struct's phase string with
 * VL_PH_UNKNOWN. An empty phase is New. */
typedef enum {
    VL_PH_UNKNOWN,
    VL_PH_NEW,
    VL_PH_QUEUED,
    VL_PH_READY_TO_START,
    VL_PH_FAILED_VALIDATION,
    VL_PH_IN_PROGRESS,
    VL_PH_WAITING_PLUGIN_OPS,
    VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED,
    VL_PH_FINALIZING,
    VL_PH_FINALIZING_PARTIALLY_FAILED,
    VL_PH_COMPLETED,
    VL_PH_PARTIALLY_FAILED,
    VL_PH_FAILED,
    VL_PH_DELETING,
    /* volume phases (v1.17+; v1.16 uses New/InProgress/Completed/Failed) */
    VL_PH_ACCEPTED,
    VL_PH_PREPARED,
    VL_PH_CANCELING,
    VL_PH_CANCELED
} vl_phase;

vl_phase vl_phase_parse(const char *s); /* NULL or "" -> VL_PH_NEW */
const char *vl_phase_name(vl_phase p);  /* "InProgress", ...; "Unknown" for VL_PH_UNKNOWN */
int vl_phase_terminal(
    vl_phase p); /* Completed, PartiallyFailed, Failed, FailedValidation, Canceled */
int vl_phase_active(
    vl_phase p); /* running: InProgress .. Finalizing*, Accepted, Prepared, Canceling */

/* Evidence of last change, from metadata.managedFields (kube-apiserver stamps an entry per
 * manager, operation, apiVersion and subresource; its `time` moves only when that manager's write
 * changed a field: doc/managedfields.md). status_time is the newest `time` (unix seconds, on the
 * cluster's clock: compare it with the server's Date, not the local clock) among the entries
 * whose fieldsV1 holds f:status, whatever their subresource or operation: when the object's
 * status (its progress, phase, counters) last changed. 0 when unknown: no managedFields (an
 * apiserver before 1.18, or a proxy that strips them), no entry touching status (a run no
 * controller has picked up yet), or entries without a readable time. status_manager is that
 * entry's manager ("velero-server", "node-agent-server", "kubectl-patch", ...), NULL when
 * unknown; on a tie of seconds the entry listed first. Velero's own writers: "velero-server"
 * (backups, restores, schedules, BSLs), "node-agent-server" (PodVolumeBackup/Restore and
 * DataUpload/Download progress). */
typedef struct vl_meta {
    char *name, *ns, *uid, *resource_version;
    double created, deleted; /* creationTimestamp, deletionTimestamp */
    double status_time;      /* see above; 0 unknown */
    char *status_manager;    /* see above; NULL unknown */
    size_t nlabels;
    char **label_keys, **label_values;
} vl_meta;
const char *vl_label(const vl_meta *m, const char *key); /* NULL if absent */

typedef struct vl_res_progress {
    char *resource; /* group-qualified resource, e.g. "deployments.apps", "pods" */
    int64_t processed, total;
} vl_res_progress;

/* Backup or Restore. A fleet holds 200 of these a context (60 000 for 300 contexts): the counts
 * are 32 bits (a JSON array's size is an int), and they, the kind, the phase and the two flags
 * share the slots that were padding, so the record stays within 344 bytes (test_velero). */
typedef struct vl_run {
    vl_meta meta;
    char *phase; /* the text as given ("New" when empty); its id in phase_id below */
    /* spec */
    char *storage_location; /* backup spec.storageLocation (or label velero.io/storage-location) */
    char *schedule;         /* label velero.io/schedule-name, or restore spec.scheduleName */
    char *backup_name;      /* restore spec.backupName */
    char **included_ns, **excluded_ns;
    uint32_t n_included_ns, n_excluded_ns;
    char *ttl;
    char *item_op_timeout; /* spec.itemOperationTimeout (a Go duration), NULL when absent */
    /* status */
    double started, completed, expiration;
    int64_t items_total, items_done; /* totalItems, itemsBackedUp / itemsRestored */
    int64_t errors, warnings;
    char *failure_reason;
    char **validation_errors;
    int64_t queue_position;
    int64_t hooks_attempted, hooks_failed;
    int64_t ops_attempted, ops_completed, ops_failed; /* backup/restoreItemOperations* */
    int64_t snapshots_attempted, snapshots_completed;
    int64_t csi_snapshots_attempted, csi_snapshots_completed;
    char *format_version;
    vl_res_progress *resources; /* in the order given */
    uint32_t n_resources;
    uint32_t resources_cut; /* entries of resourceProgress past KC_CAP_RESOURCE_ROWS, left out */
    uint32_t n_validation_errors;
    vl_kind kind : 8;                   /* VL_BACKUP or VL_RESTORE */
    vl_phase phase_id : 8;              /* phase's id */
    unsigned has_progress : 1;          /* status.progress present */
    unsigned has_resource_progress : 1; /* status.resourceProgress present */
} vl_run;

/* What a volume keeps of its metadata. 50 000 volume objects are held at once, so a volume keeps
 * no uid, resourceVersion, timestamps or labels (no screen or --once output shows them; the run's
 * name is taken from its label into run_name), but the evidence of its last progress write. */
typedef struct vl_volume_meta {
    char *name, *ns;
    double status_time;   /* as vl_meta.status_time: the newest managedFields write of status */
    char *status_manager; /* as vl_meta.status_manager ("node-agent-server" for Velero's) */
} vl_volume_meta;

/* PodVolumeBackup / PodVolumeRestore / DataUpload / DataDownload: one allocation with its name
 * (the other strings are shared through the pool). */
typedef struct vl_volume {
    vl_volume_meta meta;
    char *run_name;          /* label velero.io/backup-name or velero.io/restore-name */
    char *node;              /* PVB spec.node; PVR/DU/DD status.node */
    char *pod_ns, *pod_name; /* PVB/PVR spec.pod; DU: sourceNamespace; DD: targetVolume.namespace */
    char *volume;            /* PVB/PVR spec.volume; DU spec.sourcePVC; DD spec.targetVolume.pvc */
    char *uploader; /* "kopia", "restic", or "data mover" for DU/DD (spec.datamover or "velero") */
    char *phase;
    char *message;
    int64_t bytes_total, bytes_done;
    double started, completed;
    /* Since when it waits: creationTimestamp while New, status.acceptedTimestamp (v1.16+; else
     * creation) while Accepted or Prepared, else startTimestamp. One field: 50 000 of these. */
    double waiting_since;
    vl_kind kind : 8; /* 8 bits each: the record stays within 144 bytes (test_velero) */
    vl_phase phase_id : 8;
    /* DataUpload/DataDownload: vl_op_hash of its label velero.io/async-operation-id (the plugin
     * operation it is: core/itemops.h joins the two by it), 0 when absent; 16 bits, beside the
     * two above, so the record does not grow */
    unsigned op_hash : 16;
    /* vl_uid_hash of the label velero.io/backup-uid or velero.io/restore-uid, 0 when absent: a
     * hash, not the text, since 50 000 volumes of 10 000 runs would keep 10 000 uid strings */
    uint32_t run_uid_hash;
} vl_volume;

typedef struct vl_download_request {
    vl_meta meta;
    char *target_kind, *target_name;
    char *phase; /* New | Processed | Failed */
    char *download_url;
    double expiration;
    char *message;
} vl_download_request;

typedef struct vl_schedule {
    vl_meta meta;
    char *schedule; /* cron */
    int paused;
    char *phase;
    double last_backup;
    double last_skipped; /* status.lastSkipped (skipImmediately) */
    char *storage_location;
} vl_schedule;

typedef struct vl_bsl {
    vl_meta meta;
    char *provider, *bucket, *prefix, *access_mode;
    int is_default;
    char *phase; /* Available | Unavailable */
    double last_validated;
    char *message;
    unsigned char *ca_cert; /* spec.objectStorage.caCert decoded (PEM); NULL: none, or not base64 */
    size_t ca_cert_len;
} vl_bsl;

/* The value Velero writes into a child's velero.io/backup-name / restore-name label for a run
 * named name (label.GetValidName, pkg/label/label.go): the name itself up to 63 characters, else
 * its first 57 characters and the first 6 hex digits of its sha256. Returns name or buf. */
#define VL_LABEL_MAX 63
/* A uid's 32-bit hash (FNV-1a), never 0 (0 stands for "no uid"); 0 for NULL or "". */
uint32_t vl_uid_hash(const char *uid);
/* An async operation ID's 16-bit hash, never 0 (0: none); 0 for NULL or "". */
unsigned vl_op_hash(const char *op_id);
const char *vl_valid_label(const char *name, char buf[VL_LABEL_MAX + 1]);

/* Decoders: never fail on missing fields; return NULL only when obj is not an object. The kind of
 * a run is taken from obj.kind ("Backup"/"Restore"), else from the hint. */
vl_run *vl_run_decode(const cJSON *obj, vl_kind hint);
vl_volume *vl_volume_decode(const cJSON *obj, vl_kind kind);
vl_download_request *vl_download_request_decode(const cJSON *obj);
vl_schedule *vl_schedule_decode(const cJSON *obj);
vl_bsl *vl_bsl_decode(const cJSON *obj);

void vl_run_free(vl_run *r);
void vl_volume_free(vl_volume *v);
void vl_download_request_free(vl_download_request *d);
void vl_schedule_free(vl_schedule *s);
void vl_bsl_free(vl_bsl *b);

/* Store adapters (kc_decode_fn / kc_release_fn shapes). */
void *vl_decode_backup(const cJSON *obj);
void *vl_decode_restore(const cJSON *obj);
void *vl_decode_pvb(const cJSON *obj);
void *vl_decode_pvr(const cJSON *obj);
void *vl_decode_du(const cJSON *obj);
void *vl_decode_dd(const cJSON *obj);
void *vl_decode_download_request(const cJSON *obj);
void *vl_decode_schedule(const cJSON *obj);
void *vl_decode_bsl(const cJSON *obj);
void vl_release_run(void *p);
void vl_release_volume(void *p);
void vl_release_download_request(void *p);
void vl_release_schedule(void *p);
void vl_release_bsl(void *p);

/* Evidence of the last change (unix seconds on the cluster's clock, 0 unknown): the time the API
 * server stamped on the newest write that touched the object's status (metadata.managedFields). */
static inline double vl_run_status_time(const vl_run *r)
{
    return r ? r->meta.status_time : 0;
}
static inline double vl_volume_status_time(const vl_volume *v)
{
    return v ? v->meta.status_time : 0;
}
