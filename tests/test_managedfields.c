/* test_managedfields.c: metadata.managedFields, both sides: the decoder's evidence of a run's and
 * a volume's last status write (kubeclient/velero.c), and the sim's stamping of every write as
 * kube-apiserver does (sim/managedfields.c, simstore, simctl). doc/managedfields.md. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeclient/jsonarena.h"
#include "kubeclient/util.h"
#include "kubeclient/velero.h"
#include "managedfields.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

static char *fixture_text(const char *name)
{
    char *path = xasprintf("%s/managedfields/%s", FIXTURES_DIR, name);
    char *text = tu_read(path, NULL);
    ck_assert_msg(text != NULL, "missing fixture %s", path);
    free(path);
    return text;
}

static cJSON *fixture(const char *name)
{
    char *text = fixture_text(name);
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "fixture %s is not JSON", name);
    free(text);
    return j;
}

static double ts(const char *s)
{
    double t;
    ck_assert_int_eq(kc_parse_time(s, &t), 0);
    return t;
}

/* The object's managedFields replaced by the JSON array text mf. */
static cJSON *with_mf(const char *name, const char *mf)
{
    cJSON *o = fixture(name);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
    if (mf) {
        cJSON *a = cJSON_Parse(mf);
        ck_assert_msg(a != NULL, "bad test JSON %s", mf);
        cJSON_AddItemToObject(md, "managedFields", a);
    }
    return o;
}

#define ENT(mgr, op, t, sub, fields)                                                               \
    "{\"apiVersion\":\"velero.io/v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" fields            \
    ",\"manager\":\"" mgr "\",\"operation\":\"" op "\",\"time\":\"" t "\"" sub "}"
#define STATUS "{\"f:status\":{\".\":{},\"f:phase\":{}}}"
#define SPEC   "{\"f:spec\":{\".\":{},\"f:ttl\":{}}}"

/* ---- decoding ---- */

/* Several managers, as kube-apiserver lists them for a Velero backup: the CLI's create, the
 * server's status patches, a later kubectl label (no status: not progress). */
START_TEST(backup_status_time_is_the_newest_status_write)
{
    cJSON *o = fixture("backup.json");
    vl_run *r = vl_run_decode(o, VL_BACKUP);
    ck_assert_double_eq(r->meta.status_time, ts("2026-11-30T10:04:12Z"));
    ck_assert_str_eq(r->meta.status_manager, "velero-server");
    vl_run_free(r);
    cJSON_Delete(o);
}
END_TEST

/* A PodVolumeBackup: the server created it with an empty status; the node-agent writes bytes. */
START_TEST(volume_status_time_is_the_node_agents)
{
    cJSON *o = fixture("pvb.json");
    vl_volume *v = vl_volume_decode(o, VL_PVB);
    ck_assert_double_eq(v->meta.status_time, ts("2026-11-30T10:03:30Z"));
    ck_assert_str_eq(v->meta.status_manager, "node-agent-server");
    ck_assert_int_eq(v->bytes_done, 3221225472LL); /* the rest still decodes */
    vl_volume_free(v);
    cJSON_Delete(o);
}
END_TEST

/* Through the hot path's arena parser, as LIST pages and watch events are decoded. */
START_TEST(arena_parsed_objects_decode_the_same)
{
    const char *names[] = {"backup.json", "pvb.json"};
    for (int i = 0; i < 4; i++) { /* exact, then lean (fieldsV1 skimmed, as the reflector) */
        char *text = fixture_text(names[i % 2]);
        kc_json_arena *a = NULL;
        cJSON *o = (i < 2 ? kc_json_parse : kc_json_parse_lean)(text, strlen(text), &a);
        ck_assert_ptr_nonnull(o);
        if (i % 2 == 0) {
            vl_run *r = vl_run_decode(o, VL_BACKUP);
            ck_assert_double_eq(r->meta.status_time, ts("2026-11-30T10:04:12Z"));
            ck_assert_str_eq(r->meta.status_manager, "velero-server");
            vl_run_free(r);
        } else {
            vl_volume *v = vl_volume_decode(o, VL_PVB);
            ck_assert_double_eq(v->meta.status_time, ts("2026-11-30T10:03:30Z"));
            ck_assert_str_eq(v->meta.status_manager, "node-agent-server");
            vl_volume_free(v);
        }
        kc_json_arena_free(a);
        free(text);
    }
}
END_TEST

/* Whatever the subresource or operation: a write through /status and a server-side apply
 * count as status writes like an Update of the main resource. */
START_TEST(status_subresource_and_apply_count)
{
    cJSON *o = with_mf("backup.json",
                       "[" ENT("velero-server", "Update", "2026-11-30T10:04:12Z", "",
                               STATUS) "," ENT("kubectl-patch", "Update", "2026-11-30T10:05:00Z",
                                               ",\"subresource\":\"status\"", STATUS) "]");
    vl_run *r = vl_run_decode(o, VL_BACKUP);
    ck_assert_double_eq(r->meta.status_time, ts("2026-11-30T10:05:00Z"));
    ck_assert_str_eq(r->meta.status_manager, "kubectl-patch");
    vl_run_free(r);
    cJSON_Delete(o);

    o = with_mf("pvb.json",
                "[" ENT("kubectl", "Apply", "2026-11-30T11:00:00Z", "", STATUS) "," ENT(
                    "node-agent-server", "Update", "2026-11-30T10:59:59Z", "", STATUS) "]");
    vl_volume *v = vl_volume_decode(o, VL_PVB);
    ck_assert_double_eq(v->meta.status_time, ts("2026-11-30T11:00:00Z"));
    ck_assert_str_eq(v->meta.status_manager, "kubectl");
    vl_volume_free(v);
    cJSON_Delete(o);
}
END_TEST

/* Writes that leave status alone are no evidence of progress, however new. */
START_TEST(non_status_writes_are_ignored)
{
    cJSON *o = with_mf("backup.json",
                       "[" ENT("velero", "Update", "2026-11-30T10:00:00Z", "", SPEC) "," ENT(
                           "kubectl-label", "Update", "2026-11-30T12:00:00Z", "",
                           "{\"f:metadata\":{\"f:labels\":{\"f:team\":{}}}}") "]");
    vl_run *r = vl_run_decode(o, VL_BACKUP);
    ck_assert_double_eq(r->meta.status_time, 0);
    ck_assert_ptr_null(r->meta.status_manager);
    vl_run_free(r);
    cJSON_Delete(o);
}
END_TEST

/* No managedFields, or not a list: unknown (0, NULL), and the object still decodes. */
START_TEST(missing_managed_fields_are_unknown)
{
    const char *cases[] = {NULL, "[]", "{}", "\"x\"", "null"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *o = with_mf("backup.json", cases[i]);
        vl_run *r = vl_run_decode(o, VL_BACKUP);
        ck_assert_double_eq(r->meta.status_time, 0);
        ck_assert_ptr_null(r->meta.status_manager);
        ck_assert_int_eq(r->items_done, 212);
        vl_run_free(r);
        cJSON_Delete(o);
        o = with_mf("pvb.json", cases[i]);
        vl_volume *v = vl_volume_decode(o, VL_PVB);
        ck_assert_double_eq(v->meta.status_time, 0);
        ck_assert_ptr_null(v->meta.status_manager);
        vl_volume_free(v);
        cJSON_Delete(o);
    }
}
END_TEST

/* Malformed entries are skipped one by one; the well-formed one among them counts. */
START_TEST(malformed_entries_are_skipped)
{
    const char *mf =
        "[\"x\", 5, null, {},"
        /* no time, a time that is no time, a time that is no string */
        "{\"manager\":\"a\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" STATUS "},"
        "{\"manager\":\"b\",\"time\":\"yesterday\",\"fieldsV1\":" STATUS "},"
        "{\"manager\":\"c\",\"time\":1764500000,\"fieldsV1\":" STATUS "},"
        /* another fieldsType, a fieldsV1 that is no object, a near miss of f:status */
        "{\"manager\":\"d\",\"time\":\"2026-11-30T13:00:00Z\",\"fieldsType\":\"FieldsV2\","
        "\"fieldsV1\":" STATUS "},"
        "{\"manager\":\"e\",\"time\":\"2026-11-30T13:00:00Z\",\"fieldsV1\":\"f:status\"},"
        "{\"manager\":\"f\",\"time\":\"2026-11-30T13:00:00Z\",\"fieldsV1\":{\"f:statusx\":{},"
        "\"status\":{},\"f:spec\":{\"f:status\":{}}}},"
        /* the one that counts: no fieldsType is taken as FieldsV1, the manager is optional */
        "{\"time\":\"2026-11-30T09:00:00Z\",\"fieldsV1\":" STATUS "},"
        "{\"manager\":\"ok\",\"time\":\"2026-11-30T09:30:00Z\",\"fieldsV1\":" STATUS "}]";
    cJSON *o = with_mf("backup.json", mf);
    vl_run *r = vl_run_decode(o, VL_BACKUP);
    ck_assert_double_eq(r->meta.status_time, ts("2026-11-30T09:30:00Z"));
    ck_assert_str_eq(r->meta.status_manager, "ok");
    vl_run_free(r);
    cJSON_Delete(o);
    /* only a manager-less entry: its time, no manager */
    o = with_mf("pvb.json", "[{\"time\":\"2026-11-30T09:00:00Z\",\"fieldsV1\":" STATUS "}]");
    vl_volume *v = vl_volume_decode(o, VL_PVB);
    ck_assert_double_eq(v->meta.status_time, ts("2026-11-30T09:00:00Z"));
    ck_assert_ptr_null(v->meta.status_manager);
    vl_volume_free(v);
    cJSON_Delete(o);
}
END_TEST

/* Schedules and storage locations keep it too (their metadata is a vl_meta). */
START_TEST(other_kinds_keep_it_in_their_meta)
{
    cJSON *o = cJSON_Parse("{\"kind\":\"BackupStorageLocation\",\"metadata\":{\"name\":\"default\","
                           "\"managedFields\":[" ENT("velero-server", "Update",
                                                     "2026-11-30T10:00:10Z", "", STATUS) "]}}");
    vl_bsl *b = vl_bsl_decode(o);
    ck_assert_double_eq(b->meta.status_time, ts("2026-11-30T10:00:10Z"));
    ck_assert_str_eq(b->meta.status_manager, "velero-server");
    vl_bsl_free(b);
    cJSON_Delete(o);
}
END_TEST

/* ---- the sim's stamping ---- */

static const cJSON *mf_of(const cJSON *o)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"),
                                            "managedFields");
}

static const cJSON *entry_of(const cJSON *o, const char *manager)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, mf_of(o))
    {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "manager")), manager))
            return e;
    }
    return NULL;
}

static char *fields_of(const cJSON *o, const char *manager)
{
    const cJSON *e = entry_of(o, manager);
    ck_assert_msg(e != NULL, "no entry for %s", manager);
    return cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(e, "fieldsV1"));
}

static const char *time_of(const cJSON *o, const char *manager)
{
    const cJSON *e = entry_of(o, manager);
    ck_assert_msg(e != NULL, "no entry for %s", manager);
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "time"));
}

#define T0 1796032800.0 /* 2026-11-30T10:00:00Z */

/* A create: one Update entry of the writer, every field but the object's identity, maps with
 * ".", lists as leaves, in the apiserver's key order and member order. */
START_TEST(create_owns_every_field_but_identity)
{
    cJSON *o = cJSON_Parse(
        "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"b\","
        "\"namespace\":\"velero\",\"uid\":\"u\",\"resourceVersion\":\"7\",\"generation\":1,"
        "\"creationTimestamp\":\"2026-11-30T10:00:00Z\",\"labels\":{\"z\":\"1\",\"a\":\"2\"}},"
        "\"spec\":{\"ttl\":\"720h0m0s\",\"includedNamespaces\":[\"shop\"],\"hooks\":{}}}");
    sim_mf_writer w = {.manager = "velero", .operation = "Update", .time = T0 + 0.7};
    sim_mf_stamp(o, NULL, &w);
    char *got = cJSON_PrintUnformatted(mf_of(o));
    ck_assert_str_eq(got, "[{\"manager\":\"velero\",\"operation\":\"Update\",\"apiVersion\":"
                          "\"velero.io/v1\",\"time\":\"2026-11-30T10:00:00Z\",\"fieldsType\":"
                          "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\".\":{},"
                          "\"f:a\":{},\"f:z\":{}}},\"f:spec\":{\".\":{},\"f:hooks\":{},"
                          "\"f:includedNamespaces\":{},\"f:ttl\":{}}}}]");
    free(got);
    cJSON_Delete(o);
}
END_TEST

static cJSON *backup_at_rest(void)
{
    cJSON *o = cJSON_Parse("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{"
                           "\"name\":\"b\",\"namespace\":\"velero\"},\"spec\":{\"ttl\":\"1h\"},"
                           "\"status\":{\"phase\":\"InProgress\",\"progress\":{\"totalItems\":10,"
                           "\"itemsBackedUp\":2}}}");
    sim_mf_stamp_created(o, "velero", T0, "velero-server", T0 + 5);
    return o;
}

/* Writing what is already there changes nothing: the time stays (managedfieldsupdater.go moves it
 * only when the operation took a field). */
START_TEST(a_no_op_write_moves_no_time)
{
    cJSON *o = backup_at_rest();
    ck_assert_str_eq(time_of(o, "velero-server"), "2026-11-30T10:00:05Z");
    cJSON *next = cJSON_Duplicate(o, 1);
    sim_mf_writer w = {.manager = "velero-server", .operation = "Update", .time = T0 + 600};
    sim_mf_stamp(next, o, &w);
    ck_assert(cJSON_Compare(mf_of(next), mf_of(o), 1));
    ck_assert_str_eq(time_of(next, "velero-server"), "2026-11-30T10:00:05Z");
    /* another manager writing the same values: no entry for it either */
    sim_mf_writer k = {.manager = "kubectl-patch", .operation = "Update", .time = T0 + 700};
    sim_mf_stamp(next, o, &k);
    ck_assert_ptr_null(entry_of(next, "kubectl-patch"));
    cJSON_Delete(next);
    cJSON_Delete(o);
}
END_TEST

/* Per manager: a change by another manager is its own entry and takes the field it changed from
 * the previous owner, whose time stays; the owner's next change moves its time alone. */
START_TEST(each_manager_owns_what_it_changed)
{
    cJSON *o = backup_at_rest();
    cJSON *next = cJSON_Duplicate(o, 1);
    cJSON *pg = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(next, "status"),
                                                 "progress");
    cJSON_ReplaceItemInObjectCaseSensitive(pg, "itemsBackedUp", cJSON_CreateNumber(3));
    sim_mf_writer k = {.manager = "kubectl-edit", .operation = "Update", .time = T0 + 60};
    sim_mf_stamp(next, o, &k);
    char *f = fields_of(next, "kubectl-edit");
    ck_assert_str_eq(f, "{\"f:status\":{\"f:progress\":{\"f:itemsBackedUp\":{}}}}");
    free(f);
    f = fields_of(next, "velero-server");
    ck_assert_str_eq(f, "{\"f:status\":{\".\":{},\"f:phase\":{},\"f:progress\":{\".\":{},"
                        "\"f:totalItems\":{}}}}");
    free(f);
    ck_assert_str_eq(time_of(next, "velero-server"), "2026-11-30T10:00:05Z");
    ck_assert_str_eq(time_of(next, "kubectl-edit"), "2026-11-30T10:01:00Z");
    ck_assert_str_eq(time_of(next, "velero"), "2026-11-30T10:00:00Z");
    /* the apiserver's order: by time, then manager */
    const char *order[] = {"velero", "velero-server", "kubectl-edit"};
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, mf_of(next))
    {
        ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "manager")),
                         order[i++]);
    }
    ck_assert_int_eq(i, 3);
    /* the decoder reads the newest status write off it */
    vl_run *r = vl_run_decode(next, VL_BACKUP);
    ck_assert_double_eq(r->meta.status_time, T0 + 60);
    ck_assert_str_eq(r->meta.status_manager, "kubectl-edit");
    vl_run_free(r);
    cJSON_Delete(next);
    cJSON_Delete(o);
}
END_TEST

/* One entry per (manager, operation, apiVersion, subresource): a manager's writes merge into its
 * entry (union of fields, newest time); the same manager through /status is another entry. */
START_TEST(writes_of_one_manager_merge)
{
    cJSON *o = backup_at_rest();
    cJSON *a = cJSON_Duplicate(o, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(a, "status"), "expiration",
                            "2026-12-30T10:00:00Z");
    sim_mf_writer w = {.manager = "velero-server", .operation = "Update", .time = T0 + 30};
    sim_mf_stamp(a, o, &w);
    ck_assert_int_eq(cJSON_GetArraySize(mf_of(a)), 2);
    ck_assert_str_eq(time_of(a, "velero-server"), "2026-11-30T10:00:30Z");
    char *f = fields_of(a, "velero-server");
    ck_assert_str_eq(f, "{\"f:status\":{\".\":{},\"f:expiration\":{},\"f:phase\":{},"
                        "\"f:progress\":{\".\":{},\"f:itemsBackedUp\":{},\"f:totalItems\":{}}}}");
    free(f);
    cJSON *b = cJSON_Duplicate(a, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "status"), "phase",
                                           cJSON_CreateString("Completed"));
    sim_mf_writer s = {.manager = "velero-server",
                       .operation = "Update",
                       .subresource = "status",
                       .time = T0 + 90};
    sim_mf_stamp(b, a, &s);
    ck_assert_int_eq(cJSON_GetArraySize(mf_of(b)), 3);
    const cJSON *last = cJSON_GetArrayItem(mf_of(b), 2);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "subresource")),
                     "status");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "time")),
                     "2026-11-30T10:01:30Z");
    f = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(last, "fieldsV1"));
    ck_assert_str_eq(f, "{\"f:status\":{\"f:phase\":{}}}");
    free(f);
    cJSON_Delete(b);
    cJSON_Delete(a);
    cJSON_Delete(o);
}
END_TEST

/* A removed field leaves its owner; an owner left with nothing loses its entry. */
START_TEST(removed_fields_leave_their_owners)
{
    cJSON *o = backup_at_rest();
    cJSON *next = cJSON_Duplicate(o, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(next, "spec");
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(next, "status"), "phase2", "x");
    sim_mf_writer k = {.manager = "kubectl-replace", .operation = "Update", .time = T0 + 9};
    sim_mf_stamp(next, o, &k);
    ck_assert_ptr_null(entry_of(next, "velero")); /* it owned spec alone */
    char *f = fields_of(next, "kubectl-replace");
    ck_assert_str_eq(f, "{\"f:status\":{\"f:phase2\":{}}}");
    free(f);
    cJSON_Delete(next);
    cJSON_Delete(o);
}
END_TEST

/* An object created untracked (an apiserver before 1.18) stays untracked through updates. */
START_TEST(untracked_objects_stay_untracked)
{
    cJSON *o = cJSON_Parse("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{"
                           "\"name\":\"b\"},\"spec\":{\"ttl\":\"1h\"}}");
    cJSON *next = cJSON_Duplicate(o, 1);
    cJSON_AddObjectToObject(next, "status");
    sim_mf_writer w = {.manager = "velero-server", .operation = "Update", .time = T0};
    sim_mf_stamp(next, o, &w);
    ck_assert_ptr_null(mf_of(next));
    cJSON_Delete(next);
    cJSON_Delete(o);
}
END_TEST

START_TEST(manager_from_field_manager_or_user_agent)
{
    char b[160];
    ck_assert_str_eq(sim_mf_manager("kubectl-patch", "kubectl/v1.32.4 (linux/amd64)", b, sizeof b),
                     "kubectl-patch");
    ck_assert_str_eq(
        sim_mf_manager(NULL, "velero-server/v1.17.0 (linux/amd64) 3f4a2c1", b, sizeof b),
        "velero-server");
    ck_assert_str_eq(sim_mf_manager("", "Python-urllib/3.11", b, sizeof b), "Python-urllib");
    ck_assert_str_eq(sim_mf_manager(NULL,
                                    "a\tb\x01"
                                    "c/1",
                                    b, sizeof b),
                     "abc");
    ck_assert_str_eq(sim_mf_manager(NULL, NULL, b, sizeof b), "");
    char longua[300];
    memset(longua, 'x', sizeof longua - 1);
    longua[sizeof longua - 1] = '\0';
    ck_assert_uint_eq(strlen(sim_mf_manager(NULL, longua, b, sizeof b)), 128);
}
END_TEST

/* The store: an API write that changes nothing is no new version and moves no time; one that
 * changes a field stamps the writer. */
START_TEST(store_writes_stamp_the_writer)
{
    simstore *s = simstore_new(64);
    sim_mf_writer c = {.manager = "kubectl-create", .operation = "Update", .time = T0};
    cJSON *made = simstore_create_as(
        s, "backups", "velero",
        cJSON_Parse("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"ttl\":\"1h\"}}"), &c, NULL, NULL);
    ck_assert_str_eq(time_of(made, "kubectl-create"), "2026-11-30T10:00:00Z");
    cJSON *same = cJSON_Parse("{\"spec\":{\"ttl\":\"1h\"}}");
    sim_mf_writer p = {.manager = "kubectl-patch", .operation = "Update", .time = T0 + 60};
    cJSON *got = simstore_merge_patch_as(s, "backups", "velero", "b", same, 0, &p, NULL, NULL);
    ck_assert(cJSON_Compare(got, made, 1)); /* same resourceVersion, same managedFields */
    cJSON_Delete(got);
    cJSON *change = cJSON_Parse("{\"status\":{\"phase\":\"New\"}}");
    got = simstore_merge_patch_as(s, "backups", "velero", "b", change, 0, &p, NULL, NULL);
    ck_assert_str_eq(time_of(got, "kubectl-patch"), "2026-11-30T10:01:00Z");
    ck_assert_str_eq(time_of(got, "kubectl-create"), "2026-11-30T10:00:00Z");
    const char *who;
    ck_assert_double_eq(sim_mf_status_time(got, &who), T0 + 60);
    ck_assert_str_eq(who, "kubectl-patch");
    cJSON_Delete(got);
    cJSON_Delete(change);
    cJSON_Delete(same);
    cJSON_Delete(made);
    simstore_free(s);
}
END_TEST

/* The simulated Velero: a run idle for 6 minutes at the start says so in its (and its volume's)
 * managedFields; a moving run's server entry moves with its progress, and only then. */
START_TEST(sim_world_with_a_run_idle_for_6_minutes)
{
    char *path = xasprintf("%s/scenarios/idle.yaml", FIXTURES_DIR);
    simstore *s = simstore_new(1 << 14);
    simctl_opts o = {
        .scenario = path, .speed = 1, .seed = 1, .ns = "velero", .quiet = 1, .manual = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    double e = simctl_epoch(c);
    simctl_advance(c, e);
    cJSON *b = simstore_get(s, "backups", "velero", "idle-6m");
    const char *who;
    double run_t = sim_mf_status_time(b, &who);
    ck_assert_str_eq(who, "velero-server");
    /* the CLI created it, when it was created */
    ck_assert_str_eq(time_of(b, "velero"),
                     cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(b, "metadata"), "creationTimestamp")));
    cJSON *l = simstore_list(s, "podvolumebackups", "velero", NULL, NULL, NULL, NULL, NULL);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    double vol_t = sim_mf_status_time(cJSON_GetArrayItem(l, 0), &who);
    ck_assert_str_eq(who, "node-agent-server");
    ck_assert_ptr_nonnull(entry_of(cJSON_GetArrayItem(l, 0), "velero-server")); /* created it */
    /* the newest evidence of the run and its volume is 6 minutes old, to the second */
    ck_assert_double_eq(fmax(run_t, vol_t), floor(e) - 360);
    ck_assert(run_t <= vol_t);
    cJSON_Delete(l);
    cJSON_Delete(b);

    /* the moving run: its last write is at the start; 10 s later, 10 s newer */
    b = simstore_get(s, "backups", "velero", "moving");
    double t1 = sim_mf_status_time(b, NULL);
    cJSON_Delete(b);
    ck_assert_double_le(fabs(t1 - floor(e)), 1);
    for (double t = e + 1; t <= e + 10; t += 1) simctl_advance(c, t);
    b = simstore_get(s, "backups", "velero", "moving");
    ck_assert_double_eq(sim_mf_status_time(b, NULL), floor(e + 10));
    cJSON_Delete(b);
    /* the idle run made no write since */
    b = simstore_get(s, "backups", "velero", "idle-6m");
    ck_assert_double_eq(sim_mf_status_time(b, NULL), run_t);
    cJSON_Delete(b);
    simctl_stop(c);
    simstore_free(s);
    free(path);
}
END_TEST

/* A pod volume nobody accepted (no node-agent on its node): the server created it, nobody has
 * written its status since, so no node-agent entry. */
START_TEST(sim_volume_no_node_agent_wrote)
{
    char *path = xasprintf("%s/scenarios/stuck.yaml", FIXTURES_DIR);
    simstore *s = simstore_new(1 << 14);
    simctl_opts o = {
        .scenario = path, .speed = 1, .seed = 1, .ns = "velero", .quiet = 1, .manual = 1};
    char err[512] = "";
    simctl *c = simctl_start(s, &o, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    simctl_advance(c, simctl_epoch(c));
    cJSON *l = simstore_list(s, "podvolumebackups", "velero", "velero.io/backup-name=no-agent",
                             NULL, NULL, NULL, NULL);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    const cJSON *v = cJSON_GetArrayItem(l, 0);
    ck_assert_ptr_null(entry_of(v, "node-agent-server"));
    const char *who;
    double t = sim_mf_status_time(v, &who);
    ck_assert_str_eq(who, "velero-server");
    char *created = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v, "metadata"), "creationTimestamp")));
    ck_assert_double_eq(t, ts(created));
    free(created);
    cJSON_Delete(l);
    simctl_stop(c);
    simstore_free(s);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("managedfields");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, backup_status_time_is_the_newest_status_write);
    tcase_add_test(tc, volume_status_time_is_the_node_agents);
    tcase_add_test(tc, arena_parsed_objects_decode_the_same);
    tcase_add_test(tc, status_subresource_and_apply_count);
    tcase_add_test(tc, non_status_writes_are_ignored);
    tcase_add_test(tc, missing_managed_fields_are_unknown);
    tcase_add_test(tc, malformed_entries_are_skipped);
    tcase_add_test(tc, other_kinds_keep_it_in_their_meta);
    suite_add_tcase(s, tc);
    TCase *st = tcase_create("stamp");
    tcase_add_test(st, create_owns_every_field_but_identity);
    tcase_add_test(st, a_no_op_write_moves_no_time);
    tcase_add_test(st, each_manager_owns_what_it_changed);
    tcase_add_test(st, writes_of_one_manager_merge);
    tcase_add_test(st, removed_fields_leave_their_owners);
    tcase_add_test(st, untracked_objects_stay_untracked);
    tcase_add_test(st, manager_from_field_manager_or_user_agent);
    tcase_add_test(st, store_writes_stamp_the_writer);
    tcase_add_test(st, sim_world_with_a_run_idle_for_6_minutes);
    tcase_add_test(st, sim_volume_no_node_agent_wrote);
    suite_add_tcase(s, st);
    return tu_run_suite(s);
}
