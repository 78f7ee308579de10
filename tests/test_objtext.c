/* test_objtext.c: describe's text of an object. YAML as kubectl -o yaml prints it (keys sorted,
 * sequences not indented under their key, strings that would read as numbers, bools or times
 * double-quoted, empty lists []), and velero describe's summary of a backup. */
#include <check.h>
#include <string.h>

#include "kubeclient/velero.h"
#include "objtext.h"
#include "testutil.h"

START_TEST(yaml_as_kubectl_prints_it)
{
    cJSON *o = cJSON_Parse(
        "{\"kind\":\"Backup\",\"apiVersion\":\"velero.io/v1\",\"metadata\":{\"name\":\"b\","
        "\"resourceVersion\":\"12\",\"creationTimestamp\":\"2026-06-01T10:00:00Z\",\"labels\":"
        "{\"x\":\"true\",\"a\":\"plain text: with colon\"}},\"spec\":{\"includedNamespaces\":"
        "[\"shop\",\"billing\"],\"ttl\":\"720h0m0s\",\"excluded\":[],\"snapshotVolumes\":false},"
        "\"status\":{\"progress\":{\"totalItems\":50,\"itemsBackedUp\":7},\"frac\":0.25,"
        "\"none\":null,\"message\":\"\",\"empty\":{}}}");
    ck_assert_ptr_nonnull(o);
    kc_buf b = {0};
    ck_assert_int_eq(objtext_yaml(o, &b), 0);
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "apiVersion: velero.io/v1\n"
                             "kind: Backup\n"
                             "metadata:\n"
                             "  creationTimestamp: \"2026-06-01T10:00:00Z\"\n"
                             "  labels:\n"
                             "    a: 'plain text: with colon'\n"
                             "    x: \"true\"\n"
                             "  name: b\n"
                             "  resourceVersion: \"12\"\n"
                             "spec:\n"
                             "  excluded: []\n"
                             "  includedNamespaces:\n"
                             "  - shop\n"
                             "  - billing\n"
                             "  snapshotVolumes: false\n"
                             "  ttl: 720h0m0s\n"
                             "status:\n"
                             "  empty: {}\n"
                             "  frac: 0.25\n"
                             "  message: \"\"\n"
                             "  none: null\n"
                             "  progress:\n"
                             "    itemsBackedUp: 7\n"
                             "    totalItems: 50\n");
    kc_buf_free(&b);
    cJSON_Delete(o);
}
END_TEST

/* Texts of several lines as kubectl 1.30 printed them (go-yaml), from the same object created
 * in veltop-sim: literal blocks, with the indentation indicator when the text starts with
 * spaces; a line with trailing spaces cannot be a block and is double-quoted. */
START_TEST(yaml_multiline_strings_as_kubectl)
{
    cJSON *o = cJSON_Parse("{\"metadata\":{\"annotations\":{\"a\":\"line one\\nline two\","
                           "\"b\":\"ends in a newline\\n\",\"c\":\"  indented\\nsecond\","
                           "\"d\":\"trailing space \\nx\"}}}");
    ck_assert_ptr_nonnull(o);
    kc_buf b = {0};
    ck_assert_int_eq(objtext_yaml(o, &b), 0);
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "metadata:\n"
                             "  annotations:\n"
                             "    a: |-\n"
                             "      line one\n"
                             "      line two\n"
                             "    b: |\n"
                             "      ends in a newline\n"
                             "    c: |2-\n"
                             "        indented\n"
                             "      second\n"
                             "    d: \"trailing space \\nx\"\n");
    kc_buf_free(&b);
    cJSON_Delete(o);
}
END_TEST

static vl_volume pv(vl_kind k, const char *ns, const char *pod, const char *vol, const char *phase,
                    int64_t done, int64_t total);

START_TEST(describe_a_backup_as_velero_does)
{
    cJSON *o = cJSON_Parse(
        "{\"kind\":\"Backup\",\"metadata\":{\"name\":\"nightly-1\",\"namespace\":\"velero\","
        "\"labels\":{\"velero.io/storage-location\":\"default\"}},\"spec\":{\"includedNamespaces\":"
        "[\"shop\",\"billing\"],\"ttl\":\"24h0m0s\"},\"status\":{\"phase\":\"PartiallyFailed\","
        "\"errors\":3,\"startTimestamp\":\"2026-06-01T10:00:00Z\",\"progress\":{\"totalItems\":50,"
        "\"itemsBackedUp\":50}}}");
    kc_buf b = {0};
    objtext_describe(o, &b);
    kc_buf_cstr(&b);
    /* every part velero backup describe --details prints, in its order (backup_describer.go:
     * DescribeBackup, DescribeBackupSpec, DescribeBackupStatus, describeBackupVolumes), times as
     * Go prints them; the pod volumes unknown here (the run is not watched) */
    ck_assert_str_eq(b.data, "Name:         nightly-1\n"
                             "Namespace:    velero\n"
                             "Labels:       velero.io/storage-location=default\n"
                             "Annotations:  <none>\n"
                             "\n"
                             "Phase:  PartiallyFailed (run `velero backup logs nightly-1` for more "
                             "information)\n"
                             "\n"
                             "Errors:    3\n"
                             "Warnings:  0\n"
                             "\n"
                             "Namespaces:\n"
                             "  Included:  shop, billing\n"
                             "  Excluded:  <none>\n"
                             "\n"
                             "Resources:\n"
                             "  Included:        *\n"
                             "  Excluded:        <none>\n"
                             "  Cluster-scoped:  auto\n"
                             "\n"
                             "Label selector:  <none>\n"
                             "\n"
                             "Or label selector:  <none>\n"
                             "\n"
                             "Storage Location:  default\n"
                             "\n"
                             "Velero-Native Snapshot PVs:  auto\n"
                             "Snapshot Move Data:  auto\n"
                             "Data Mover:  velero\n"
                             "\n"
                             "TTL:  24h0m0s\n"
                             "\n"
                             "CSISnapshotTimeout:    0s\n"
                             "ItemOperationTimeout:  0s\n"
                             "\n"
                             "Hooks:  <none>\n"
                             "\n"
                             "Backup Format Version:  <none>\n"
                             "\n"
                             "Started:    2026-06-01 10:00:00 +0000 UTC\n"
                             "Completed:  <n/a>\n"
                             "\n"
                             "Expiration:  <nil>\n"
                             "\n"
                             "Total items to be backed up:  50\n"
                             "Items backed up:              50\n"
                             "\n"
                             "Backup Item Operations:  0 of 0 completed successfully, 0 failed\n"
                             "\n"
                             "Backup Volumes:\n"
                             "  Velero-Native Snapshots: <none included>\n"
                             "\n"
                             "  CSI Snapshots: <none included>\n"
                             "\n"
                             "  Pod Volume Backups: <unknown: the backup is not among the runs "
                             "watched>\n"
                             "\n");
    kc_buf_free(&b);
    cJSON_Delete(o);
    /* in flight, and every namespace: Velero's own words (backup_describer.go) */
    o = cJSON_Parse("{\"kind\":\"Backup\",\"metadata\":{\"name\":\"n\"},\"spec\":{},"
                    "\"status\":{\"phase\":\"InProgress\",\"progress\":{\"totalItems\":50,"
                    "\"itemsBackedUp\":7}}}");
    b = (kc_buf){0};
    objtext_describe(o, &b);
    kc_buf_cstr(&b);
    ck_assert_msg(strstr(b.data, "Namespaces:\n  Included:  *\n"), "%s", b.data);
    ck_assert_msg(strstr(b.data, "Estimated total items to be backed up:  50\n"
                                 "Items backed up so far:                 7\n"),
                  "%s", b.data);
    kc_buf_free(&b);
    cJSON_Delete(o);
    /* watched: its pod volumes under Backup Volumes, after the snapshots; hooks when the status
     * has them */
    o = cJSON_Parse("{\"kind\":\"Backup\",\"metadata\":{\"name\":\"n\"},\"spec\":{"
                    "\"snapshotMoveData\":true,\"defaultVolumesToFsBackup\":true,"
                    "\"csiSnapshotTimeout\":\"10m0s\",\"itemOperationTimeout\":\"4h0m0s\"},"
                    "\"status\":{\"phase\":\"Completed\",\"csiVolumeSnapshotsAttempted\":2,"
                    "\"csiVolumeSnapshotsCompleted\":2,\"hookStatus\":{\"hooksAttempted\":1}}}");
    vl_volume one = pv(VL_PVB, "shop", "db-0", "data", "Completed", 8, 8);
    const vl_volume *onep[] = {&one};
    b = (kc_buf){0};
    objtext_describe_run(o, onep, 1, &b);
    kc_buf_cstr(&b);
    ck_assert_msg(strstr(b.data, "Phase:  Completed\n\nNamespaces:"), "%s", b.data);
    ck_assert_msg(strstr(b.data, "Velero-Native Snapshot PVs:  auto\n"
                                 "File System Backup (Default):  true\n"
                                 "Snapshot Move Data:  true\n"
                                 "Data Mover:  velero\n\n"),
                  "%s", b.data);
    ck_assert_msg(strstr(b.data, "CSISnapshotTimeout:    10m0s\nItemOperationTimeout:  4h0m0s\n"),
                  "%s", b.data);
    ck_assert_msg(strstr(b.data, "Backup Volumes:\n"
                                 "  Velero-Native Snapshots: <none included>\n\n"
                                 "  CSI Snapshots: 2 of 2 snapshots completed successfully\n\n"
                                 "  Pod Volume Backups - kopia:\n"
                                 "    Completed:\n"
                                 "      shop/db-0: data (size: 8)\n\n"
                                 "HooksAttempted:  1\n"
                                 "HooksFailed:     0\n"),
                  "%s", b.data);
    kc_buf_free(&b);
    cJSON_Delete(o);
    /* another kind: its fields as kubectl describe lays them out */
    o = cJSON_Parse("{\"kind\":\"BackupStorageLocation\",\"metadata\":{\"name\":\"default\"},"
                    "\"spec\":{\"provider\":\"aws\",\"objectStorage\":{\"bucket\":\"b1\"}},"
                    "\"status\":{\"phase\":\"Unavailable\"}}");
    b = (kc_buf){0};
    objtext_describe(o, &b);
    kc_buf_cstr(&b);
    ck_assert_msg(strstr(b.data, "Kind:  BackupStorageLocation\nSpec:\n  Provider:  aws\n  "
                                 "ObjectStorage:\n    Bucket:  b1\nStatus:\n  Phase:  "
                                 "Unavailable\n"),
                  "%s", b.data);
    kc_buf_free(&b);
    cJSON_Delete(o);
}
END_TEST

/* The pod volumes as velero backup/restore describe --details lists them (backup_describer.go
 * describePodVolumeBackups, restore_describer.go describePodVolumeRestores): by phase in Velero's
 * order, pods sorted, volumes sorted and joined, progress to two decimals, sizes in bytes; data
 * mover uploads are not pod volumes. */
static vl_volume pv(vl_kind k, const char *ns, const char *pod, const char *vol, const char *phase,
                    int64_t done, int64_t total)
{
    vl_volume v;
    memset(&v, 0, sizeof v);
    v.kind = k;
    v.pod_ns = (char *)ns;
    v.pod_name = (char *)pod;
    v.volume = (char *)vol;
    v.phase = (char *)phase;
    v.uploader = (char *)"kopia";
    v.bytes_done = done;
    v.bytes_total = total;
    return v;
}

START_TEST(pod_volumes_as_velero_describe_details)
{
    vl_volume v[] = {
        pv(VL_PVB, "shop", "web-1", "cache", "Completed", 5, 5),
        pv(VL_DU, "shop", "pg-0", "pgdata", "InProgress", 1, 4),
        pv(VL_PVB, "shop", "db-1", "data", "InProgress", 250, 1000),
        pv(VL_PVB, "shop", "db-0", "logs", "Completed", 20, 20),
        pv(VL_PVB, "shop", "db-2", "data", "", 0, 0),
        pv(VL_PVB, "shop", "db-0", "data", "Completed", 1000, 1000),
        pv(VL_PVB, "shop", "db-3", "data", "InProgress", 10, 0),
    };
    const vl_volume *vp[7];
    for (int i = 0; i < 7; i++) vp[i] = &v[i];
    kc_buf b = {0};
    objtext_describe_pod_volumes(vp, 7, 0, &b);
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "Backup Volumes:\n"
                             "  Pod Volume Backups - kopia:\n"
                             "    Completed:\n"
                             "      shop/db-0: data (size: 1000), logs (size: 20)\n"
                             "      shop/web-1: cache (size: 5)\n"
                             "    In Progress:\n"
                             "      shop/db-1: data (25.00%)\n"
                             "      shop/db-3: data\n"
                             "    New:\n"
                             "      shop/db-2: data\n"
                             "\n");
    kc_buf_free(&b);
    b = (kc_buf){0};
    objtext_describe_pod_volumes(vp, 2, 0, &b); /* no pod volume backup but web-1's */
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "Backup Volumes:\n  Pod Volume Backups - kopia:\n    Completed:\n"
                             "      shop/web-1: cache (size: 5)\n\n");
    kc_buf_free(&b);
    b = (kc_buf){0};
    objtext_describe_pod_volumes(vp + 1, 1, 0, &b); /* a data mover upload only */
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "Backup Volumes:\n  Pod Volume Backups: <none included>\n\n");
    kc_buf_free(&b);
    vl_volume r[] = {pv(VL_PVR, "shop", "db-0", "data", "InProgress", 1, 2)};
    const vl_volume *rp[] = {&r[0]};
    b = (kc_buf){0};
    objtext_describe_pod_volumes(rp, 1, 1, &b);
    kc_buf_cstr(&b);
    ck_assert_str_eq(b.data, "kopia Restores:\n  In Progress:\n    shop/db-0: data (50.00%)\n\n");
    kc_buf_free(&b);
    b = (kc_buf){0};
    objtext_describe_pod_volumes(vp, 7, 1, &b); /* a restore without pod volume restores */
    ck_assert_uint_eq(b.len, 0);
    kc_buf_free(&b);
}
END_TEST

/* velero restore describe --details (restore_describer.go DescribeRestore), part by part in its
 * order: the phase with its progress in one aligned block, the times, the results, the backup, the
 * namespaces and resources, the namespace mappings sorted, the selectors as
 * metav1.FormatLabelSelector prints them, Restore PVs, the pod volume restores, existing resource
 * policy with the item operation timeout, preserve node ports, the resource modifier, uploader
 * config, the item operations, the hooks, the resource list; what lives in object storage (the
 * results' messages, the volume info, the resource list) says unknown, not blank. */
START_TEST(describe_a_restore_as_velero_does)
{
    cJSON *o = cJSON_Parse(
        "{\"kind\":\"Restore\",\"metadata\":{\"name\":\"restore-1\",\"namespace\":\"velero\"},"
        "\"spec\":{\"backupName\":\"nightly-1\",\"includedNamespaces\":[\"shop\",\"billing\"],"
        "\"excludedResources\":[\"events\"],\"includeClusterResources\":false,"
        "\"namespaceMapping\":{\"shop\":\"shop-copy\",\"billing\":\"billing-copy\"},"
        "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"},\"matchExpressions\":[{\"key\":"
        "\"tier\",\"operator\":\"In\",\"values\":[\"b\",\"a\"]},{\"key\":\"canary\",\"operator\":"
        "\"DoesNotExist\"}]},\"orLabelSelectors\":[{\"matchLabels\":{\"x\":\"1\"}},"
        "{\"matchLabels\":{\"y\":\"2\"}}],\"restorePVs\":true,\"existingResourcePolicy\":"
        "\"update\",\"itemOperationTimeout\":\"4h0m0s\",\"preserveNodePorts\":false,"
        "\"uploaderConfig\":{\"writeSparseFiles\":true,\"parallelFilesDownload\":4},"
        "\"resourceModifier\":{\"kind\":\"configmap\",\"name\":\"mods\"}},"
        "\"status\":{\"phase\":\"PartiallyFailed\",\"warnings\":2,\"errors\":1,"
        "\"startTimestamp\":\"2026-06-01T10:00:00Z\",\"completionTimestamp\":"
        "\"2026-06-01T10:05:00Z\",\"progress\":{\"totalItems\":40,\"itemsRestored\":40},"
        "\"restoreItemOperationsAttempted\":2,\"restoreItemOperationsCompleted\":1,"
        "\"restoreItemOperationsFailed\":1,\"hookStatus\":{\"hooksAttempted\":3,"
        "\"hooksFailed\":1}}}");
    vl_volume r = pv(VL_PVR, "shop", "db-0", "data", "Completed", 8, 8);
    const vl_volume *rp[] = {&r};
    kc_buf b = {0};
    objtext_describe_run(o, rp, 1, &b);
    kc_buf_cstr(&b);
    ck_assert_str_eq(
        b.data, "Name:         restore-1\n"
                "Namespace:    velero\n"
                "Labels:       <none>\n"
                "Annotations:  <none>\n"
                "\n"
                "Phase:                       PartiallyFailed (run 'velero restore logs "
                "restore-1' for more information)\n"
                "Total items to be restored:  40\n"
                "Items restored:              40\n"
                "\n"
                "Started:    2026-06-01 10:00:00 +0000 UTC\n"
                "Completed:  2026-06-01 10:05:00 +0000 UTC\n"
                "\n"
                "Warnings:  2 (the messages: the results screen, r)\n"
                "\n"
                "Errors:  1 (the messages: the results screen, r)\n"
                "\n"
                "Backup:  nightly-1\n"
                "\n"
                "Namespaces:\n"
                "  Included:  shop, billing\n"
                "  Excluded:  <none>\n"
                "\n"
                "Resources:\n"
                "  Included:        *\n"
                "  Excluded:        events\n"
                "  Cluster-scoped:  excluded\n"
                "\n"
                "Namespace mappings:  billing=billing-copy\n"
                "                     shop=shop-copy\n"
                "\n"
                "Label selector:  app=db,!canary,tier in (a,b)\n"
                "\n"
                "Or label selector:  x=1 or y=2\n"
                "\n"
                "Restore PVs:  true\n"
                "\n"
                "kopia Restores:\n"
                "  Completed:\n"
                "    shop/db-0: data (size: 8)\n"
                "\n"
                "CSI Snapshot Restores:  <unknown: in the restore's volume info, not fetched>\n"
                "\n"
                "Existing Resource Policy:   update\n"
                "ItemOperationTimeout:       4h0m0s\n"
                "\n"
                "Preserve Service NodePorts:  false\n"
                "\n"
                "Resource modifier:\n"
                "  Type:  configmap\n"
                "  Name:  mods\n"
                "\n"
                "Uploader config:\n"
                "  Write Sparse Files:  true\n"
                "  Parallel Restore:    4\n"
                "\n"
                "Restore Item Operations:  1 of 2 completed successfully, 1 failed (each: the "
                "detail screen)\n"
                "\n"
                "HooksAttempted:   3\n"
                "HooksFailed:      1\n"
                "\n"
                "Resource List:  <unknown: not fetched; the detail screen lists the resources>\n");
    kc_buf_free(&b);
    cJSON_Delete(o);
    /* in flight, every namespace (["*"] too), nothing set: Velero's words and defaults; not
     * watched: its pod volume restores unknown; no item operation attempted: no line (as Velero) */
    o = cJSON_Parse("{\"kind\":\"Restore\",\"metadata\":{\"name\":\"r\"},\"spec\":{\"backupName\":"
                    "\"b\",\"includedNamespaces\":[\"*\"]},\"status\":{\"phase\":\"InProgress\","
                    "\"progress\":{\"totalItems\":50,\"itemsRestored\":7}}}");
    b = (kc_buf){0};
    objtext_describe(o, &b);
    kc_buf_cstr(&b);
    ck_assert_msg(strstr(b.data, "\n\nPhase:                                 InProgress\n"
                                 "Estimated total items to be restored:  50\n"
                                 "Items restored so far:                 7\n\n"
                                 "Started:    <n/a>\nCompleted:  <n/a>\n\nBackup:  b\n\n"
                                 "Namespaces:\n  Included:  all namespaces found in the backup\n"
                                 "  Excluded:  <none>\n\n"),
                  "%s", b.data);
    ck_assert_msg(strstr(b.data, "Namespace mappings:  <none>\n\nLabel selector:  <none>\n\n"
                                 "Or label selector:  <none>\n\nRestore PVs:  auto\n\n"
                                 "Pod Volume Restores:  <unknown: the restore is not among the "
                                 "runs watched>\n\n"),
                  "%s", b.data);
    ck_assert_msg(strstr(b.data, "Existing Resource Policy:   <none>\n"
                                 "ItemOperationTimeout:       0s\n\n"
                                 "Preserve Service NodePorts:  auto\n\n\nResource List:"),
                  "%s", b.data);
    kc_buf_free(&b);
    cJSON_Delete(o);
    /* failed validation: the errors under one another, aligned after the label */
    o = cJSON_Parse("{\"kind\":\"Restore\",\"metadata\":{\"name\":\"r\"},\"spec\":{},\"status\":{"
                    "\"phase\":\"FailedValidation\",\"validationErrors\":[\"no backup\","
                    "\"bad ns\"]}}");
    b = (kc_buf){0};
    objtext_describe(o, &b);
    kc_buf_cstr(&b);
    ck_assert_msg(strstr(b.data, "Phase:  FailedValidation\n\nStarted:    <n/a>\n"
                                 "Completed:  <n/a>\n\nValidation errors:  no backup\n"
                                 "                    bad ns\n\nBackup:  <none>\n"),
                  "%s", b.data);
    kc_buf_free(&b);
    cJSON_Delete(o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("objtext");
    TCase *tc = tcase_create("objtext");
    tcase_add_test(tc, yaml_as_kubectl_prints_it);
    tcase_add_test(tc, yaml_multiline_strings_as_kubectl);
    tcase_add_test(tc, describe_a_backup_as_velero_does);
    tcase_add_test(tc, pod_volumes_as_velero_describe_details);
    tcase_add_test(tc, describe_a_restore_as_velero_does);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
