/* test_velero.c: Velero objects decode into the structs with exact values, and missing or odd
 * fields (no status, progress: {}, unknown phases, huge byte counts) never fail. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/caps.h"
#include "kubeclient/util.h"
#include "kubeclient/velero.h"
#include "testutil.h"

static cJSON *load(const char *name)
{
    char *path = xasprintf("%s/velero/%s", FIXTURES_DIR, name);
    char *text = tu_read(path, NULL);
    ck_assert_msg(text != NULL, "missing fixture %s", path);
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "fixture %s is not JSON", path);
    free(text);
    free(path);
    return j;
}

START_TEST(backup_with_every_field)
{
    cJSON *j = load("backup_full.json");
    vl_run *r = vl_run_decode(j, VL_RESTORE); /* obj.kind wins over the hint */
    cJSON_Delete(j);                          /* nothing may point into the JSON */
    ck_assert_int_eq(r->kind, VL_BACKUP);
    ck_assert_str_eq(r->meta.name, "nightly-20240107112159");
    ck_assert_str_eq(r->meta.ns, "velero");
    ck_assert_str_eq(r->meta.uid, "5e0f7a3c-1b2d-4c5e-8f90-a1b2c3d4e5f6");
    ck_assert_str_eq(r->meta.resource_version, "48213");
    ck_assert_double_eq(r->meta.created, 1704626518.0);
    ck_assert_double_eq(r->meta.deleted, 0.0);
    ck_assert_uint_eq(r->meta.nlabels, 2);
    ck_assert_str_eq(vl_label(&r->meta, "velero.io/schedule-name"), "nightly");
    ck_assert_str_eq(r->phase, "InProgress");
    ck_assert_int_eq(r->phase_id, VL_PH_IN_PROGRESS);
    ck_assert_str_eq(r->storage_location, "primary"); /* spec wins over the label */
    ck_assert_str_eq(r->schedule, "nightly");
    ck_assert_ptr_null(r->backup_name);
    ck_assert_uint_eq(r->n_included_ns, 2);
    ck_assert_str_eq(r->included_ns[0], "shop");
    ck_assert_str_eq(r->included_ns[1], "payments");
    ck_assert_uint_eq(r->n_excluded_ns, 1);
    ck_assert_str_eq(r->excluded_ns[0], "kube-system");
    ck_assert_str_eq(r->ttl, "720h0m0s");
    ck_assert_double_eq(r->started, 1704626519.0);
    ck_assert_double_eq(r->completed, 1704627119.0);
    ck_assert_double_eq(r->expiration, 1707218519.0);
    ck_assert_int_eq(r->has_progress, 1);
    ck_assert_int_eq(r->items_total, 134);
    ck_assert_int_eq(r->items_done, 129);
    ck_assert_int_eq(r->errors, 2);
    ck_assert_int_eq(r->warnings, 7);
    ck_assert_str_eq(r->failure_reason, "some items could not be backed up");
    ck_assert_uint_eq(r->n_validation_errors, 2);
    ck_assert_str_eq(r->validation_errors[0], "bad ttl");
    ck_assert_str_eq(r->validation_errors[1], "unknown storage location");
    ck_assert_int_eq(r->queue_position, 3);
    ck_assert_int_eq(r->hooks_attempted, 4);
    ck_assert_int_eq(r->hooks_failed, 1);
    ck_assert_int_eq(r->ops_attempted, 5);
    ck_assert_int_eq(r->ops_completed, 3);
    ck_assert_int_eq(r->ops_failed, 1);
    ck_assert_int_eq(r->snapshots_attempted, 6);
    ck_assert_int_eq(r->snapshots_completed, 5);
    ck_assert_int_eq(r->csi_snapshots_attempted, 8);
    ck_assert_int_eq(r->csi_snapshots_completed, 7);
    ck_assert_str_eq(r->format_version, "1.1.0");
    ck_assert_int_eq(r->has_resource_progress, 1);
    ck_assert_uint_eq(r->n_resources, 3);
    /* kept in the order given, not sorted */
    ck_assert_str_eq(r->resources[0].resource, "storageclasses.storage.k8s.io");
    ck_assert_int_eq(r->resources[0].processed, 2);
    ck_assert_int_eq(r->resources[0].total, 2);
    ck_assert_str_eq(r->resources[1].resource, "pods");
    ck_assert_int_eq(r->resources[1].processed, 15);
    ck_assert_int_eq(r->resources[1].total, 100);
    ck_assert_str_eq(r->resources[2].resource, "deployments.apps");
    ck_assert_int_eq(r->resources[2].processed, 0);
    ck_assert_int_eq(r->resources[2].total, 12);
    vl_run_free(r);
}
END_TEST

START_TEST(restore_with_every_field)
{
    cJSON *j = load("restore_full.json");
    vl_run *r = vl_decode_restore(j);
    cJSON_Delete(j);
    ck_assert_int_eq(r->kind, VL_RESTORE);
    ck_assert_str_eq(r->meta.name, "nightly-20240107112159-20240108090000");
    ck_assert_double_eq(r->meta.created, 1704704400.0);
    ck_assert_double_eq(r->meta.deleted, 1704790800.0);
    ck_assert_uint_eq(r->meta.nlabels, 0);
    ck_assert_str_eq(r->backup_name, "nightly-20240107112159");
    ck_assert_str_eq(r->schedule, "nightly");
    ck_assert_ptr_null(r->storage_location);
    ck_assert_str_eq(r->phase, "PartiallyFailed");
    ck_assert_int_eq(r->phase_id, VL_PH_PARTIALLY_FAILED);
    ck_assert_double_eq(r->started, 1704704401.0);
    ck_assert_double_eq(r->completed, 1704704641.0);
    ck_assert_int_eq(r->items_total, 120);
    ck_assert_int_eq(r->items_done, 118); /* itemsRestored */
    ck_assert_int_eq(r->errors, 1);
    ck_assert_int_eq(r->warnings, 3);
    ck_assert_int_eq(r->hooks_attempted, 2);
    ck_assert_int_eq(r->hooks_failed, 0);
    ck_assert_int_eq(r->ops_attempted, 4);
    ck_assert_int_eq(r->ops_completed, 4);
    ck_assert_int_eq(r->ops_failed, 0);
    ck_assert_int_eq(r->has_resource_progress, 0);
    ck_assert_ptr_null(r->resources);
    vl_run_free(r);
}
END_TEST

START_TEST(backup_with_no_fields_is_new_and_zero)
{
    cJSON *j = load("backup_empty.json");
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->meta.name, "bare");
    ck_assert_ptr_null(r->meta.uid);
    ck_assert_ptr_null(r->meta.resource_version);
    ck_assert_str_eq(r->phase, "New");
    ck_assert_int_eq(r->phase_id, VL_PH_NEW);
    ck_assert_int_eq(r->has_progress, 0);
    ck_assert_int_eq(r->items_total, 0);
    ck_assert_int_eq(r->items_done, 0);
    ck_assert_int_eq(r->errors, 0);
    ck_assert_double_eq(r->started, 0.0);
    ck_assert_ptr_null(r->failure_reason);
    ck_assert_ptr_null(r->included_ns);
    ck_assert_uint_eq(r->n_included_ns, 0);
    ck_assert_ptr_null(r->storage_location);
    ck_assert_ptr_null(r->schedule);
    ck_assert_int_eq(r->has_resource_progress, 0);
    vl_run_free(r);

    /* a completely empty object is still an object */
    cJSON *o = cJSON_CreateObject();
    vl_volume *v = vl_decode_pvb(o);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_null(v->meta.name);
    ck_assert_ptr_null(v->run_name);
    ck_assert_str_eq(v->phase, "New");
    ck_assert_int_eq(v->bytes_total, 0);
    vl_volume_free(v);
    vl_download_request_free(vl_decode_download_request(o));
    vl_schedule_free(vl_decode_schedule(o));
    vl_bsl_free(vl_decode_bsl(o));
    cJSON_Delete(o);
}
END_TEST

START_TEST(empty_progress_is_present_and_zero)
{
    cJSON *j = load("backup_empty_progress.json");
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_str_eq(r->phase, "New"); /* "" is New */
    ck_assert_int_eq(r->phase_id, VL_PH_NEW);
    ck_assert_int_eq(r->has_progress, 1);
    ck_assert_int_eq(r->items_total, 0);
    ck_assert_int_eq(r->items_done, 0);
    ck_assert_int_eq(r->has_resource_progress, 1);
    ck_assert_uint_eq(r->n_resources, 0);
    vl_run_free(r);
}
END_TEST

/* A hostile resourceProgress of 5 000 types: the first KC_CAP_RESOURCE_ROWS kept, the rest
 * counted (the screen and --once say so). */
START_TEST(resource_progress_capped)
{
    kc_buf b = {0};
    kc_buf_printf(&b, "{\"kind\":\"Backup\",\"metadata\":{\"name\":\"b\"},\"status\":{"
                      "\"phase\":\"InProgress\",\"resourceProgress\":{");
    for (int i = 0; i < 5000; i++)
        kc_buf_printf(&b, "%s\"r%d\":{\"processed\":1,\"total\":%d}", i ? "," : "", i, i + 1);
    kc_buf_printf(&b, "}}}");
    cJSON *j = cJSON_Parse(kc_buf_cstr(&b));
    kc_buf_free(&b);
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_uint_eq(r->n_resources, KC_CAP_RESOURCE_ROWS);
    ck_assert_uint_eq(r->resources_cut, 5000 - KC_CAP_RESOURCE_ROWS);
    ck_assert_str_eq(r->resources[KC_CAP_RESOURCE_ROWS - 1].resource, "r4095");
    ck_assert_int_eq(r->resources[KC_CAP_RESOURCE_ROWS - 1].total, 4096);
    vl_run_free(r);
}
END_TEST

START_TEST(unknown_phase_kept_as_text)
{
    cJSON *j = load("backup_unknown_phase.json");
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_str_eq(r->phase, "Hibernating");
    ck_assert_int_eq(r->phase_id, VL_PH_UNKNOWN);
    ck_assert_int_eq(vl_phase_terminal(r->phase_id), 0);
    ck_assert_int_eq(vl_phase_active(r->phase_id), 0);
    ck_assert_int_eq(r->items_done, 4);
    vl_run_free(r);
}
END_TEST

START_TEST(pvb_with_every_field_and_tib_counts)
{
    cJSON *j = load("pvb.json");
    vl_volume *v = vl_decode_pvb(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->kind, VL_PVB);
    ck_assert_str_eq(v->meta.name, "nightly-20240107112159-x7k2p");
    ck_assert_str_eq(v->meta.ns, "velero");
    ck_assert_str_eq(v->run_name, "nightly-20240107112159");
    ck_assert_str_eq(v->node, "worker-2"); /* spec.node: a PVB has no status.node */
    ck_assert_str_eq(v->pod_ns, "shop");
    ck_assert_str_eq(v->pod_name, "db-0");
    ck_assert_str_eq(v->volume, "data");
    ck_assert_str_eq(v->uploader, "kopia");
    ck_assert_str_eq(v->phase, "InProgress");
    ck_assert_int_eq(v->phase_id, VL_PH_IN_PROGRESS);
    ck_assert_int_eq(v->bytes_total, INT64_C(5497558138880)); /* 5 TiB */
    ck_assert_int_eq(v->bytes_done, INT64_C(1099511627776));
    ck_assert_double_eq(v->started, 1704626525.0);
    ck_assert_double_eq(v->completed, 0.0);
    ck_assert_str_eq(v->message, "uploading");
    vl_volume_free(v);
}
END_TEST

START_TEST(pvr_du_dd_take_node_pod_and_volume_from_their_own_fields)
{
    cJSON *j = load("pvr.json");
    vl_volume *v = vl_decode_pvr(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->kind, VL_PVR);
    ck_assert_str_eq(v->run_name, "r1");
    ck_assert_str_eq(v->node, "worker-1"); /* status.node */
    ck_assert_str_eq(v->pod_ns, "shop");
    ck_assert_str_eq(v->pod_name, "db-0");
    ck_assert_str_eq(v->volume, "data");
    ck_assert_str_eq(v->uploader, "kopia");
    ck_assert_int_eq(v->phase_id, VL_PH_COMPLETED);
    ck_assert_int_eq(v->bytes_done, 1000);
    ck_assert_double_eq(v->completed - v->started, 60.0);
    vl_volume_free(v);

    j = load("du.json");
    v = vl_decode_du(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->kind, VL_DU);
    ck_assert_str_eq(v->run_name, "nightly-20240107112159");
    ck_assert_str_eq(v->node, "worker-3");
    ck_assert_str_eq(v->pod_ns, "shop");
    ck_assert_ptr_null(v->pod_name);
    ck_assert_str_eq(v->volume, "data-db-1");
    ck_assert_str_eq(v->uploader, "data mover"); /* datamover "" is the built-in one */
    ck_assert_int_eq(v->phase_id, VL_PH_PREPARED);
    ck_assert_int_eq(v->bytes_total, 0); /* progress: {} */
    ck_assert_int_eq(v->bytes_done, 0);
    ck_assert_ptr_null(v->message);
    vl_volume_free(v);

    j = load("dd.json");
    v = vl_decode_dd(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->kind, VL_DD);
    ck_assert_str_eq(v->run_name, "r1");
    ck_assert_str_eq(v->node, "worker-4");
    ck_assert_str_eq(v->pod_ns, "shop-restored");
    ck_assert_str_eq(v->volume, "data-db-1");
    ck_assert_str_eq(v->uploader, "acme-mover");
    ck_assert_double_eq(v->started, 1704704470.0);
    vl_volume_free(v);
}
END_TEST

START_TEST(byte_counts_beyond_2_pow_53_as_far_as_cjson_permits)
{
    /* cJSON stores numbers as doubles: 2^53 is exact, 2^53+1 arrives as 2^53 (documented limit) */
    cJSON *j = load("dd.json");
    vl_volume *v = vl_decode_dd(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->bytes_done, INT64_C(9007199254740992));
    ck_assert_int_eq(v->bytes_total, INT64_C(9007199254740992));
    vl_volume_free(v);

    /* the largest exact values survive, odd values below 2^53 too; past int64 saturates */
    j = cJSON_Parse("{\"status\":{\"progress\":{\"totalBytes\":9007199254740991,"
                    "\"bytesDone\":4503599627370497}}}");
    v = vl_decode_pvb(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->bytes_total, INT64_C(9007199254740991));
    ck_assert_int_eq(v->bytes_done, INT64_C(4503599627370497));
    vl_volume_free(v);
    j = cJSON_Parse("{\"status\":{\"progress\":{\"totalBytes\":-1e300,\"bytesDone\":1e300}}}");
    v = vl_decode_du(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->bytes_total, INT64_MIN);
    ck_assert_int_eq(v->bytes_done, INT64_MAX);
    vl_volume_free(v);

    /* a count sent as a string is exact over the whole int64 range; garbage is 0 */
    j = cJSON_Parse("{\"status\":{\"progress\":{\"totalBytes\":\"9007199254740993\","
                    "\"bytesDone\":\"12abc\"}}}");
    v = vl_decode_pvb(j);
    cJSON_Delete(j);
    ck_assert_int_eq(v->bytes_total, INT64_C(9007199254740993));
    ck_assert_int_eq(v->bytes_done, 0);
    vl_volume_free(v);
}
END_TEST

START_TEST(download_request_schedule_and_bsl)
{
    cJSON *j = load("downloadrequest.json");
    vl_download_request *d = vl_decode_download_request(j);
    cJSON_Delete(j);
    ck_assert_str_eq(d->meta.name, "nightly-20240107112159-3f2a");
    ck_assert_str_eq(d->target_kind, "BackupLog");
    ck_assert_str_eq(d->target_name, "nightly-20240107112159");
    ck_assert_str_eq(d->phase, "Processed");
    ck_assert_str_eq(
        d->download_url,
        "http://127.0.0.1:9000/velero/backups/nightly/nightly-logs.gz?X-Amz-Signature=abc");
    ck_assert_double_eq(d->expiration, 1704627120.0);
    ck_assert_ptr_null(d->message);
    vl_release_download_request(d);

    j = load("schedule.json");
    vl_schedule *s = vl_decode_schedule(j);
    cJSON_Delete(j);
    ck_assert_str_eq(s->meta.name, "nightly");
    ck_assert_str_eq(s->schedule, "0 1 * * *");
    ck_assert_int_eq(s->paused, 1);
    ck_assert_str_eq(s->phase, "Enabled");
    ck_assert_double_eq(s->last_backup, 1704589200.0);
    ck_assert_str_eq(s->storage_location, "primary");
    vl_release_schedule(s);

    j = load("bsl.json");
    vl_bsl *b = vl_decode_bsl(j);
    cJSON_Delete(j);
    ck_assert_str_eq(b->meta.name, "default");
    ck_assert_str_eq(b->provider, "aws");
    ck_assert_str_eq(b->bucket, "velero-backups");
    ck_assert_str_eq(b->prefix, "cluster-a");
    ck_assert_str_eq(b->access_mode, "ReadWrite");
    ck_assert_int_eq(b->is_default, 1);
    ck_assert_str_eq(b->phase, "Available");
    ck_assert_double_eq(b->last_validated, 1704626400.0);
    ck_assert_str_eq(b->message, "bucket reachable");
    vl_release_bsl(b);
}
END_TEST

START_TEST(labels_are_looked_up_by_exact_key)
{
    cJSON *j = cJSON_Parse("{\"kind\":\"Backup\",\"metadata\":{\"labels\":{"
                           "\"velero.io/backup-uid\":\"5e0f7a3c-1b2d-4c5e-8f90-a1b2c3d4e5f6\","
                           "\"velero.io/pvc-uid\":\"9c9c9c9c-0000-4000-8000-000000000009\"}}}");
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_uint_eq(r->meta.nlabels, 2);
    ck_assert_str_eq(vl_label(&r->meta, "velero.io/backup-uid"),
                     "5e0f7a3c-1b2d-4c5e-8f90-a1b2c3d4e5f6");
    ck_assert_str_eq(vl_label(&r->meta, "velero.io/pvc-uid"),
                     "9c9c9c9c-0000-4000-8000-000000000009");
    ck_assert_ptr_null(vl_label(&r->meta, "velero.io/restore-name"));
    ck_assert_ptr_null(vl_label(&r->meta, "velero.io/backup"));
    ck_assert_ptr_null(vl_label(&r->meta, NULL));
    ck_assert_ptr_null(vl_label(NULL, "velero.io/backup-name"));
    vl_run_free(r);

    /* non-string label values are skipped, the rest stay paired */
    j = cJSON_Parse("{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":2,\"c\":\"3\"}}}");
    r = vl_decode_restore(j);
    cJSON_Delete(j);
    ck_assert_uint_eq(r->meta.nlabels, 2);
    ck_assert_str_eq(vl_label(&r->meta, "a"), "1");
    ck_assert_str_eq(vl_label(&r->meta, "c"), "3");
    ck_assert_ptr_null(vl_label(&r->meta, "b"));
    vl_run_free(r);
}
END_TEST

/* A volume keeps of its labels only its run's name: its own kind's label first, else the other
 * one; exact keys; a label that is not a string is no name; an empty one is kept as given. */
START_TEST(volume_run_name_from_its_labels)
{
    static const struct {
        const char *labels;
        vl_kind kind;
        const char *want;
    } cases[] = {
        {"{\"velero.io/backup-name\":\"b1\",\"velero.io/restore-name\":\"r1\"}", VL_PVB, "b1"},
        {"{\"velero.io/backup-name\":\"b1\",\"velero.io/restore-name\":\"r1\"}", VL_DU, "b1"},
        {"{\"velero.io/backup-name\":\"b1\",\"velero.io/restore-name\":\"r1\"}", VL_PVR, "r1"},
        {"{\"velero.io/backup-name\":\"b1\",\"velero.io/restore-name\":\"r1\"}", VL_DD, "r1"},
        {"{\"velero.io/backup-name\":\"b1\"}", VL_PVR, "b1"},
        {"{\"velero.io/restore-name\":\"r1\"}", VL_PVB, "r1"},
        {"{\"velero.io/backup-name\":7,\"velero.io/restore-name\":\"r1\"}", VL_PVB, "r1"},
        {"{\"velero.io/backup-name\":\"\"}", VL_PVB, ""},
        {"{\"velero.io/backup-name-x\":\"b1\",\"velero.io/backup\":\"b2\"}", VL_PVB, NULL},
        {"{\"velero.io/backup-name\":\"b1\",\"velero.io/backup-name\":\"b2\"}", VL_PVB, "b1"},
        {"[\"velero.io/backup-name\"]", VL_PVB, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = xasprintf("{\"metadata\":{\"name\":\"v\",\"labels\":%s}}", cases[i].labels);
        cJSON *j = cJSON_Parse(text);
        ck_assert_ptr_nonnull(j);
        vl_volume *v = vl_volume_decode(j, cases[i].kind);
        cJSON_Delete(j);
        if (cases[i].want)
            ck_assert_msg(v->run_name && !strcmp(v->run_name, cases[i].want), "case %zu: %s", i,
                          v->run_name ? v->run_name : "(null)");
        else
            ck_assert_msg(v->run_name == NULL, "case %zu: %s", i, v->run_name);
        ck_assert_str_eq(v->meta.name, "v");
        vl_volume_free(v);
        free(text);
    }
}
END_TEST

/* Duplicate keys: the first one counts, as cJSON's lookup gives it (runs and volumes alike). */
START_TEST(duplicate_keys_take_the_first)
{
    cJSON *j = cJSON_Parse(
        "{\"metadata\":{\"name\":\"a\",\"name\":\"b\",\"namespace\":\"n1\",\"namespace\":\"n2\"},"
        "\"spec\":{\"node\":\"w1\",\"node\":\"w2\",\"pod\":{\"name\":\"p1\",\"name\":\"p2\"}},"
        "\"status\":{\"phase\":\"Completed\",\"phase\":\"Failed\",\"progress\":{"
        "\"bytesDone\":5,\"bytesDone\":6,\"totalBytes\":9},\"progress\":{\"bytesDone\":7}},"
        "\"spec\":{\"node\":\"w3\"}}");
    vl_volume *v = vl_decode_pvb(j);
    vl_run *r = vl_decode_backup(j);
    cJSON_Delete(j);
    ck_assert_str_eq(v->meta.name, "a");
    ck_assert_str_eq(v->meta.ns, "n1");
    ck_assert_str_eq(v->node, "w1");
    ck_assert_str_eq(v->pod_name, "p1");
    ck_assert_str_eq(v->phase, "Completed");
    ck_assert_int_eq(v->phase_id, VL_PH_COMPLETED);
    ck_assert_int_eq(v->bytes_done, 5);
    ck_assert_int_eq(v->bytes_total, 9);
    ck_assert_str_eq(r->meta.name, v->meta.name);
    ck_assert_str_eq(r->phase, v->phase);
    vl_volume_free(v);
    vl_run_free(r);
}
END_TEST

/* 50 000 volumes are held at once: the decoded record stays small (it was 216 bytes plus 4-7 more
 * allocations before it dropped uid, resourceVersion, labels, timestamps, snapshot ID, storage
 * location and incremental bytes, which nothing shows; two cache lines, 128 bytes, until the
 * managedFields evidence of its last progress write, a time and a pooled manager, joined it). */
START_TEST(volume_record_stays_small)
{
    ck_assert_uint_le(sizeof(vl_volume), 144);
}
END_TEST

/* A fleet holds every context's runs decoded (60 000 for 300 contexts of 200): the counts, the
 * kind, the phase id and the two flags sit where padding was (392 bytes, a 400-byte malloc chunk,
 * before; 344, a 352-byte one, now), and every value still fits: the last phase and kind, both
 * flags and a count past 16 bits. */
START_TEST(run_record_carries_no_padding)
{
    ck_assert_uint_le(sizeof(vl_run), 344);
    vl_run r = {0};
    r.kind = VL_RESTORE;
    r.phase_id = VL_PH_CANCELED;
    r.has_progress = 1;
    r.has_resource_progress = 1;
    r.n_included_ns = 70000;
    r.resources_cut = 70001;
    ck_assert_int_eq(r.kind, VL_RESTORE);
    ck_assert_int_eq(r.phase_id, VL_PH_CANCELED);
    ck_assert_int_eq(r.has_progress, 1);
    ck_assert_int_eq(r.has_resource_progress, 1);
    ck_assert_uint_eq(r.n_included_ns, 70000);
    ck_assert_uint_eq(r.resources_cut, 70001);
}
END_TEST

START_TEST(phases_classify)
{
    static const struct {
        const char *text;
        vl_phase id;
        int terminal, active;
    } cases[] = {
        {"New", VL_PH_NEW, 0, 0},
        {"", VL_PH_NEW, 0, 0},
        {"Queued", VL_PH_QUEUED, 0, 0},
        {"ReadyToStart", VL_PH_READY_TO_START, 0, 0},
        {"FailedValidation", VL_PH_FAILED_VALIDATION, 1, 0},
        {"InProgress", VL_PH_IN_PROGRESS, 0, 1},
        {"WaitingForPluginOperations", VL_PH_WAITING_PLUGIN_OPS, 0, 1},
        {"WaitingForPluginOperationsPartiallyFailed", VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED, 0,
         1},
        {"Finalizing", VL_PH_FINALIZING, 0, 1},
        {"FinalizingPartiallyFailed", VL_PH_FINALIZING_PARTIALLY_FAILED, 0, 1},
        {"Completed", VL_PH_COMPLETED, 1, 0},
        {"PartiallyFailed", VL_PH_PARTIALLY_FAILED, 1, 0},
        {"Failed", VL_PH_FAILED, 1, 0},
        {"Deleting", VL_PH_DELETING, 0, 0},
        {"Accepted", VL_PH_ACCEPTED, 0, 1},
        {"Prepared", VL_PH_PREPARED, 0, 1},
        {"Canceling", VL_PH_CANCELING, 0, 1},
        {"Canceled", VL_PH_CANCELED, 1, 0},
        {"completed", VL_PH_UNKNOWN, 0, 0}, /* case matters, as in the CRD enum */
        {"Paused", VL_PH_UNKNOWN, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vl_phase p = vl_phase_parse(cases[i].text);
        ck_assert_msg(p == cases[i].id, "%s parsed as %d", cases[i].text, p);
        ck_assert_msg(vl_phase_terminal(p) == cases[i].terminal, "%s terminal", cases[i].text);
        ck_assert_msg(vl_phase_active(p) == cases[i].active, "%s active", cases[i].text);
    }
    ck_assert_int_eq(vl_phase_parse(NULL), VL_PH_NEW);
    ck_assert_str_eq(vl_kind_name(VL_PVB), "PodVolumeBackup");
    ck_assert_str_eq(vl_kind_name(VL_DD), "DataDownload");
    ck_assert_str_eq(vl_kind_name(VL_BSL), "BackupStorageLocation");
}
END_TEST

START_TEST(not_an_object_decodes_to_null)
{
    cJSON *a = cJSON_CreateArray();
    ck_assert_ptr_null(vl_decode_backup(a));
    ck_assert_ptr_null(vl_decode_dd(a));
    ck_assert_ptr_null(vl_decode_bsl(NULL));
    cJSON_Delete(a);
    vl_run_free(NULL);
    vl_volume_free(NULL);
    vl_release_run(NULL);
}
END_TEST

START_TEST(shared_strings_outlive_each_other_and_hand_built_structs_free)
{
    /* two volumes of one run share strings; freeing one leaves the other intact */
    cJSON *j = load("pvb.json");
    vl_volume *a = vl_decode_pvb(j), *b = vl_decode_pvb(j);
    cJSON_Delete(j);
    ck_assert_ptr_eq(a->run_name, b->run_name);
    vl_volume_free(a);
    ck_assert_str_eq(b->run_name, "nightly-20240107112159");
    ck_assert_str_eq(b->meta.ns, "velero");
    vl_volume_free(b);

    /* a struct built by hand, with the same text as pooled strings, frees its own copies */
    j = load("pvb.json");
    a = vl_decode_pvb(j);
    cJSON_Delete(j);
    vl_volume *h = xcalloc(1, sizeof *h);
    h->meta.name = xstrdup("hand");
    h->meta.ns = xstrdup("velero");
    h->run_name = xstrdup("nightly-20240107112159");
    h->node = xstrdup("worker-2");
    h->phase = xstrdup("InProgress");
    h->message = xstrdup("uploading");
    vl_volume_free(h);
    ck_assert_str_eq(a->run_name, "nightly-20240107112159");
    vl_volume_free(a);

    vl_download_request *d = xcalloc(1, sizeof *d);
    d->meta.uid = xstrdup("u-2"); /* no name: the first field present leads */
    d->download_url = xstrdup("http://127.0.0.1/x");
    vl_download_request_free(d);
}
END_TEST

/* Timestamps in Kubernetes' own form are read without strptime (a fast path in the decoder):
 * every one must give exactly what kc_parse_time gives, leap days, "Feb 31" and leap seconds
 * included (the last two refused, so unset); other forms (fractions, offsets) still parse;
 * malformed ones read as 0. */
START_TEST(timestamps_decode_exactly_as_kc_parse_time)
{
    char ts[64], json[256];
    int n = 0, refused = 0;
    for (int y = 1969; y <= 2101; y += 1)
        for (int m = 1; m <= 12; m++)
            for (int d = 1; d <= 31; d += (y % 4 == 0 && m == 2) ? 1 : 5) {
                int hh = (y * 7 + d) % 24, mm = (m * 13 + d) % 60, ss = (y + m + d) % 61;
                snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, hh, mm, ss);
                snprintf(json, sizeof json, "{\"status\":{\"startTimestamp\":\"%s\"}}", ts);
                cJSON *j = cJSON_Parse(json);
                vl_volume *v = vl_decode_pvb(j);
                double want = 0;
                if (kc_parse_time(ts, &want)) { /* second 60, "Feb 30": unset, as Go refuses */
                    want = 0;
                    refused++;
                }
                ck_assert_msg(v->started == want, "%s: %.0f, want %.0f", ts, v->started, want);
                vl_volume_free(v);
                cJSON_Delete(j);
                n++;
            }
    ck_assert_int_gt(n, 10000);
    ck_assert_int_gt(refused, 100);
    ck_assert_int_lt(refused, n / 4);
    const char *other[] = {"2024-01-07T11:22:01.5Z", "2024-01-07T12:22:01+01:00",
                           "2024-01-07t11:22:01z",   "2024-13-07T11:22:01Z",
                           "2024-01-07T11:22Z",      "2024-01-07T11:22:01",
                           "2024-01-07 11:22:01Z",   "yesterday"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        snprintf(json, sizeof json, "{\"status\":{\"startTimestamp\":\"%s\"}}", other[i]);
        cJSON *j = cJSON_Parse(json);
        vl_volume *v = vl_decode_pvb(j);
        double want = 0;
        if (kc_parse_time(other[i], &want)) want = 0;
        ck_assert_msg(v->started == want, "%s: %f, want %f", other[i], v->started, want);
        vl_volume_free(v);
        cJSON_Delete(j);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("velero");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, backup_with_every_field);
    tcase_add_test(tc, run_record_carries_no_padding);
    tcase_add_test(tc, restore_with_every_field);
    tcase_add_test(tc, backup_with_no_fields_is_new_and_zero);
    tcase_add_test(tc, empty_progress_is_present_and_zero);
    tcase_add_test(tc, resource_progress_capped);
    tcase_add_test(tc, unknown_phase_kept_as_text);
    tcase_add_test(tc, pvb_with_every_field_and_tib_counts);
    tcase_add_test(tc, pvr_du_dd_take_node_pod_and_volume_from_their_own_fields);
    tcase_add_test(tc, byte_counts_beyond_2_pow_53_as_far_as_cjson_permits);
    tcase_add_test(tc, download_request_schedule_and_bsl);
    tcase_add_test(tc, labels_are_looked_up_by_exact_key);
    tcase_add_test(tc, volume_run_name_from_its_labels);
    tcase_add_test(tc, duplicate_keys_take_the_first);
    tcase_add_test(tc, volume_record_stays_small);
    tcase_add_test(tc, phases_classify);
    tcase_add_test(tc, not_an_object_decodes_to_null);
    tcase_add_test(tc, shared_strings_outlive_each_other_and_hand_built_structs_free);
    tcase_add_test(tc, timestamps_decode_exactly_as_kc_parse_time);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
