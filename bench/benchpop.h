/* benchpop.h: the big cluster of bench_firstframe and bench_wan: BACKUPS Completed backups and
 * per backup (vols_per_backup - 1) PodVolumeBackups + 1 DataUpload (labelled
 * velero.io/backup-name, real-shaped objects), created in the in-process sim's store. The newest
 * backup's volumes add up to a size no other row shows (246913578 bytes each). */
#pragma once
#include "benchutil.h"
#include "format.h"

static int vols_per_backup = 5;       /* 4 PodVolumeBackups + 1 DataUpload by default */
static double backup_every_s = 600.0; /* the backups start this far apart, the last 600 s ago */

/* Objects carry metadata.managedFields as kube-apiserver stamps them for Velero's writers
 * (doc/managedfields.md): the creator's entry and the status writer's. BENCH_NO_MANAGED_FIELDS=1
 * leaves them out (the figures before the sim stamped them). */
static inline void stamp(cJSON *o, const char *creator, double t0, const char *status_mgr,
                         double t1)
{
    static int off = -1;
    if (off < 0) off = getenv("BENCH_NO_MANAGED_FIELDS") != NULL;
    if (!off) sim_mf_stamp_created(o, creator, t0, status_mgr, t1);
}
#define GIB 1073741824.0

/* Creates an object as bench_sim_create does and copies the uid the sim gave it. */
static inline int create_uid(bench_sim *bs, const char *plural, const char *json, char *uid,
                             size_t n, const char *creator, double t0, const char *status_mgr,
                             double t1)
{
    cJSON *o = cJSON_Parse(json);
    if (!o) return -1;
    stamp(o, creator, t0, status_mgr, t1);
    int status = 0;
    char *msg = NULL;
    cJSON *r = simstore_create(vsim_store(bs->sim), plural, "velero", o, &status, &msg);
    free(msg);
    if (!r) return -1;
    const char *u = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "metadata"), "uid"));
    snprintf(uid, n, "%s", u ? u : "");
    cJSON_Delete(r);
    return 0;
}

static inline int populate(bench_sim *bs, int nb)
{
    double now = kc_wall_now();
    char start[40], done[40], exp[40];
    kc_buf b = {0};
    for (int i = 0; i < nb; i++) {
        double t = now - (double)(nb - i) * backup_every_s;
        kc_format_time(t, start, sizeof start);
        kc_format_time(t + 420, done, sizeof done);
        kc_format_time(t + 30 * 86400.0, exp, sizeof exp);
        b.len = 0;
        kc_buf_printf(
            &b,
            "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
            "\"nightly-%05d\",\"namespace\":\"velero\",\"labels\":{\"velero.io/storage-location\":"
            "\"default\",\"velero.io/schedule-name\":\"nightly\"},\"annotations\":{"
            "\"velero.io/source-cluster-k8s-gitversion\":\"v1.30.2\",\"velero.io/"
            "resource-timeout\":\"10m0s\"}},\"spec\":{\"csiSnapshotTimeout\":\"10m0s\","
            "\"defaultVolumesToFsBackup\":true,\"includedNamespaces\":[\"shop\",\"billing\"],"
            "\"itemOperationTimeout\":\"4h0m0s\",\"storageLocation\":\"default\",\"ttl\":"
            "\"720h0m0s\",\"snapshotMoveData\":true},\"status\":{\"phase\":\"Completed\","
            "\"version\":1,\"formatVersion\":\"1.1.0\",\"startTimestamp\":\"%s\","
            "\"completionTimestamp\":\"%s\",\"expiration\":\"%s\",\"progress\":{\"totalItems\":"
            "%d,\"itemsBackedUp\":%d},\"warnings\":%d,\"backupItemOperationsAttempted\":1,"
            "\"backupItemOperationsCompleted\":1,\"hookStatus\":{}}}",
            i, start, done, exp, 1200 + i % 300, 1200 + i % 300, i % 7 == 0 ? 2 : 0);
        /* the volumes carry the backup's uid, as Velero labels them (veltop joins by it) */
        char uid[64], vuid[64];
        if (create_uid(bs, "backups", kc_buf_cstr(&b), uid, sizeof uid, "velero-server", t,
                       "velero-server", t + 420))
            return -1;
        for (int v = 0; v < vols_per_backup; v++) {
            /* the newest backup's volumes add up to a size no other row shows */
            long long size = i == nb - 1 ? 246913578LL : (long long)(10 * GIB);
            b.len = 0;
            if (v < vols_per_backup - 1) {
                kc_buf_printf(
                    &b,
                    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":{"
                    "\"name\":\"nightly-%05d-%c%04x\",\"namespace\":\"velero\",\"generateName\":"
                    "\"nightly-%05d-\",\"labels\":{\"velero.io/backup-name\":\"nightly-%05d\","
                    "\"velero.io/backup-uid\":\"%s\",\"velero.io/pvc-uid\":"
                    "\"5d2c-%08d-%d\"}},\"spec\":{\"backupStorageLocation\":\"default\",\"node\":"
                    "\"worker-%d\",\"pod\":{\"kind\":\"Pod\",\"namespace\":\"shop\",\"name\":"
                    "\"db-%d\",\"uid\":\"77aa-%08d\"},\"volume\":\"data\",\"repoIdentifier\":"
                    "\"s3:http://minio.velero.svc:9000/velero-backups/kopia/shop\","
                    "\"uploaderType\":\"kopia\",\"tags\":{\"backup\":\"nightly-%05d\",\"ns\":"
                    "\"shop\",\"pod\":\"db-%d\",\"volume\":\"data\"}},\"status\":{\"phase\":"
                    "\"Completed\",\"path\":\"/host_pods\",\"startTimestamp\":\"%s\","
                    "\"completionTimestamp\":\"%s\",\"snapshotID\":\"%08x%08x\",\"progress\":{"
                    "\"totalBytes\":%lld,\"bytesDone\":%lld}}}",
                    i, 'a' + v, i & 0xffff, i, i, uid, i, v, v % 4, v, i, i, v, start, done,
                    i * 7919u, v * 104729u, size, size);
                if (create_uid(bs, "podvolumebackups", kc_buf_cstr(&b), vuid, sizeof vuid,
                               "velero-server", t + 5, "node-agent-server", t + 420))
                    return -1;
            } else {
                kc_buf_printf(
                    &b,
                    "{\"apiVersion\":\"velero.io/v2alpha1\",\"kind\":\"DataUpload\",\"metadata\":{"
                    "\"name\":\"nightly-%05d-du%04x\",\"namespace\":\"velero\",\"labels\":{"
                    "\"velero.io/backup-name\":\"nightly-%05d\",\"velero.io/backup-uid\":"
                    "\"%s\",\"velero.io/async-operation-id\":\"du-%08d\"}},\"spec\":{"
                    "\"backupStorageLocation\":\"default\",\"datamover\":\"velero\","
                    "\"operationTimeout\":\"10m0s\",\"sourceNamespace\":\"billing\","
                    "\"snapshotType\":"
                    "\"CSI\",\"sourcePVC\":\"invoices-data\",\"csiSnapshot\":{\"volumeSnapshot\":"
                    "\"velero-invoices-data-%05d\",\"storageClass\":\"csi-rbd\",\"snapshotClass\":"
                    "\"csi-rbd-snapclass\",\"driver\":\"rbd.csi.ceph.com\"}},\"status\":{\"phase\":"
                    "\"Completed\",\"node\":\"worker-2\",\"startTimestamp\":\"%s\","
                    "\"completionTimestamp\":\"%s\",\"snapshotID\":\"%08x\",\"progress\":{"
                    "\"totalBytes\":%lld,\"bytesDone\":%lld}}}",
                    i, i & 0xffff, i, uid, i, i, start, done, i * 7919u, size, size);
                if (create_uid(bs, "datauploads", kc_buf_cstr(&b), vuid, sizeof vuid, "velero",
                               t + 5, "node-agent-server", t + 420))
                    return -1;
            }
        }
    }
    kc_buf_free(&b);
    return 0;
}

/* The runs in flight beside the history: n InProgress backups "busy-NNN" (not "live": the lamp's
 * word) (newer than every Completed one), each with one InProgress PodVolumeBackup of 117.7 MiB
 * done of 941.9 MiB (bytes no other row shows), stamped as the rest. */
#define BENCH_LIVE_DONE  123456789LL
#define BENCH_LIVE_TOTAL 987654321LL
static inline int populate_active(bench_sim *bs, int n)
{
    double t = kc_wall_now() - 300;
    char start[40], uid[64], vuid[64];
    kc_format_time(t, start, sizeof start);
    kc_buf b = {0};
    for (int i = 0; i < n; i++) {
        b.len = 0;
        kc_buf_printf(&b,
                      "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                      "\"busy-%03d\",\"namespace\":\"velero\",\"labels\":{\"velero.io/"
                      "schedule-name\":\"hourly\"}},\"spec\":{\"storageLocation\":\"default\"},"
                      "\"status\":{\"phase\":\"InProgress\",\"startTimestamp\":\"%s\","
                      "\"progress\":{\"totalItems\":5000,\"itemsBackedUp\":600}}}",
                      i, start);
        if (create_uid(bs, "backups", kc_buf_cstr(&b), uid, sizeof uid, "velero-server", t,
                       "velero-server", t + 290))
            return -1;
        b.len = 0;
        kc_buf_printf(
            &b,
            "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":{\"name\":"
            "\"busy-%03d-vol\",\"namespace\":\"velero\",\"labels\":{\"velero.io/backup-name\":"
            "\"busy-%03d\",\"velero.io/backup-uid\":\"%s\"}},\"spec\":{\"node\":\"worker-1\","
            "\"pod\":{\"kind\":\"Pod\",\"namespace\":\"shop\",\"name\":\"db-%d\"},\"volume\":"
            "\"data\",\"uploaderType\":\"kopia\"},\"status\":{\"phase\":\"InProgress\","
            "\"startTimestamp\":\"%s\",\"progress\":{\"totalBytes\":%lld,\"bytesDone\":%lld}}}",
            i, i, uid, i, start, BENCH_LIVE_TOTAL, BENCH_LIVE_DONE);
        if (create_uid(bs, "podvolumebackups", kc_buf_cstr(&b), vuid, sizeof vuid, "velero-server",
                       t + 5, "node-agent-server", t + 290))
            return -1;
    }
    kc_buf_free(&b);
    return 0;
}
