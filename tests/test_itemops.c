/* test_itemops.c: async plugin operations (core/itemops.h, core/opsfetch.h). A real-shaped
 * BackupItemOperations artifact (Velero's JSON: resourceIdentifier with Go's field names) parses
 * to its exact values, and a RestoreItemOperations one by its restore* keys; a data mover's
 * operation joins its DataUpload by the async-operation-id label and the PVC, another plugin's
 * joins nothing; rate and ETA come from the deltas between refreshes; an operation is stalled
 * only past the run's item operation timeout (4h by default, the spec's when given), and the
 * diagnosis says so; against veltop-sim's itemops scenario the fetcher reads the data mover's
 * operation at exactly 40 % of its total, deletes every DownloadRequest it created, and on a
 * 403 leaves the operations unknown with the server's reason, never "no operations"; the
 * exporter gives each operation of a run in flight its progress ratio, nCompleted and nTotal. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "diagnose.h"
#include "metrics.h"
#include "itemops.h"
#include "kubeclient/download.h"
#include "kubeclient/util.h"
#include "opsfetch.h"
#include "rbac.h"
#include "testutil.h"

#define T0 1780308000.0 /* 2026-06-01T10:00:00Z */

/* Velero's shape: a data mover's operation in flight and another plugin's that failed */
static const char *const backup_ops =
    "[{\"spec\":{\"backupName\":\"nightly\",\"backupUID\":\"4c1d\",\"backupItemAction\":"
    "\"velero.io/csi-pvc-backupper\",\"resourceIdentifier\":{\"Group\":\"\",\"Resource\":"
    "\"persistentvolumeclaims\",\"Namespace\":\"shop\",\"Name\":\"db-data\"},\"operationID\":"
    "\"du-4c1d.9a2b\",\"postOperationItems\":null},\"status\":{\"phase\":\"New\","
    "\"nCompleted\":419430400,\"nTotal\":1048576000,\"operationUnits\":\"Bytes\","
    "\"description\":\"InProgress\",\"created\":\"2026-06-01T09:55:00Z\",\"started\":"
    "\"2026-06-01T09:55:03Z\"}},"
    "{\"spec\":{\"backupName\":\"nightly\",\"backupUID\":\"4c1d\",\"backupItemAction\":"
    "\"example.io/widget-backupper\",\"resourceIdentifier\":{\"Group\":\"example.io\","
    "\"Resource\":\"widgets\",\"Namespace\":\"shop\",\"Name\":\"w-1\"},\"operationID\":"
    "\"widget-op-1\",\"postOperationItems\":null},\"status\":{\"phase\":\"Failed\",\"error\":"
    "\"widget store: 503 Service Unavailable\",\"nCompleted\":12,\"nTotal\":500,"
    "\"operationUnits\":\"Items\",\"created\":\"2026-06-01T09:55:00Z\",\"updated\":"
    "\"2026-06-01T09:58:30Z\"}}]";

START_TEST(a_real_artifact_parses_exactly)
{
    itemop *ops;
    size_t n, cut;
    kc_err e = {0};
    ck_assert_int_eq(itemops_parse(backup_ops, strlen(backup_ops), 0, &ops, &n, &cut, &e), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(cut, 0);
    itemop *o = &ops[0];
    ck_assert_str_eq(o->id, "du-4c1d.9a2b");
    ck_assert_str_eq(o->plugin, "velero.io/csi-pvc-backupper");
    ck_assert_str_eq(o->group, "");
    ck_assert_str_eq(o->resource, "persistentvolumeclaims");
    ck_assert_str_eq(o->ns, "shop");
    ck_assert_str_eq(o->name, "db-data");
    ck_assert_str_eq(o->phase, "New");
    ck_assert_ptr_null(o->error);
    ck_assert_int_eq(o->done, 419430400);
    ck_assert_int_eq(o->total, 1048576000);
    ck_assert_int_eq(o->has_total, 1);
    ck_assert_str_eq(o->units, "Bytes");
    ck_assert_str_eq(o->description, "InProgress");
    ck_assert_double_eq(o->created, T0 - 300);
    ck_assert_double_eq(o->started, T0 - 297);
    ck_assert_double_eq(o->updated, 0);
    char tg[128];
    ck_assert_str_eq(itemop_target(o, tg, sizeof tg), "persistentvolumeclaims shop/db-data");
    o = &ops[1];
    ck_assert_str_eq(o->plugin, "example.io/widget-backupper");
    ck_assert_str_eq(itemop_target(o, tg, sizeof tg), "widgets.example.io shop/w-1");
    ck_assert_str_eq(o->phase, "Failed");
    ck_assert_str_eq(o->error, "widget store: 503 Service Unavailable");
    ck_assert_int_eq(itemop_finished(o), 1);
    ck_assert_ptr_null(o->description);
    ck_assert_double_eq(o->updated, T0 - 90);
    for (size_t i = 0; i < n; i++) itemop_clear(&ops[i]);
    free(ops);

    /* a restore's keys; a cluster-scoped item has no namespace */
    const char *rj =
        "[{\"spec\":{\"restoreName\":\"r1\",\"restoreUID\":\"u\",\"restoreItemAction\":"
        "\"velero.io/csi-pvc-restorer\",\"resourceIdentifier\":{\"Group\":\"\","
        "\"Resource\":\"persistentvolumes\",\"Namespace\":\"\",\"Name\":\"pv-1\"},"
        "\"operationID\":\"dd-1\"},\"status\":{\"phase\":\"Completed\"}}]";
    ck_assert_int_eq(itemops_parse(rj, strlen(rj), 1, &ops, &n, &cut, &e), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(ops[0].plugin, "velero.io/csi-pvc-restorer");
    ck_assert_ptr_null(ops[0].ns);
    ck_assert_str_eq(itemop_target(&ops[0], tg, sizeof tg), "persistentvolumes pv-1");
    ck_assert_int_eq(ops[0].has_total, 0);
    itemop_clear(&ops[0]);
    free(ops);

    /* not an array: an error, not zero operations */
    ck_assert_int_eq(itemops_parse("{\"a\":1}", 7, 0, &ops, &n, &cut, &e), -1);
    ck_assert_str_eq(e.msg, "the item operations are not a JSON array");
    ck_assert_int_eq(itemops_parse("<html>", 6, 0, &ops, &n, &cut, &e), -1);
}
END_TEST

START_TEST(more_operations_than_the_cap_are_counted_not_kept)
{
    kc_buf b = {0};
    kc_buf_append(&b, "[", 1);
    for (int i = 0; i < ITEMOPS_MAX_OPS + 3; i++)
        kc_buf_printf(&b, "%s{\"spec\":{\"operationID\":\"op-%d\"},\"status\":{}}", i ? "," : "",
                      i);
    kc_buf_append(&b, "]", 1);
    itemop *ops;
    size_t n, cut;
    kc_err e = {0};
    ck_assert_int_eq(itemops_parse(b.data, b.len, 0, &ops, &n, &cut, &e), 0);
    ck_assert_uint_eq(n, ITEMOPS_MAX_OPS);
    ck_assert_uint_eq(cut, 3);
    for (size_t i = 0; i < n; i++) itemop_clear(&ops[i]);
    free(ops);
    kc_buf_free(&b);
}
END_TEST

/* one operation of total 1000 Items, no started time (no seed): nCompleted at a refresh */
static void refresh(itemops *io, int64_t done, double mono, double cluster)
{
    char js[512];
    snprintf(js, sizeof js,
             "[{\"spec\":{\"backupItemAction\":\"example.io/w\",\"resourceIdentifier\":{"
             "\"Group\":\"example.io\",\"Resource\":\"widgets\",\"Namespace\":\"shop\",\"Name\":"
             "\"w-1\"},\"operationID\":\"w-op\"},\"status\":{\"phase\":\"New\",\"nCompleted\":"
             "%lld,\"nTotal\":1000,\"operationUnits\":\"Items\",\"created\":"
             "\"2026-06-01T09:00:00Z\"}}]",
             (long long)done);
    itemop *ops;
    size_t n, cut;
    kc_err e = {0};
    ck_assert_int_eq(itemops_parse(js, strlen(js), 0, &ops, &n, &cut, &e), 0);
    itemops_update(io, ops, n, cut, mono, cluster);
}

START_TEST(rate_and_eta_come_from_the_deltas_between_refreshes)
{
    itemops *io = itemops_new();
    double r, eta;
    refresh(io, 100, 1000, T0);
    ck_assert_int_eq(io->known, 1);
    itemop_rate_eta(NULL, &io->ops[0], NULL, 1000, T0, &r, &eta);
    ck_assert_double_lt(r, 0); /* one sighting: no rate, no ETA */
    ck_assert_double_lt(eta, 0);
    ck_assert_double_eq(io->ops[0].moved_at, T0 - 3600); /* created: nothing newer */
    refresh(io, 160, 1030, T0 + 30);
    ck_assert_double_eq(io->ops[0].moved_at, T0 + 30); /* the refresh that saw it move */
    refresh(io, 220, 1060, T0 + 60);
    refresh(io, 280, 1090, T0 + 90);
    itemop_rate_eta(NULL, &io->ops[0], NULL, 1090, T0 + 90, &r, &eta);
    ck_assert_double_eq_tol(r, 2.0, 1e-9);         /* 60 Items each 30 s */
    ck_assert_double_eq_tol(eta, 720 / 2.0, 1e-6); /* 720 left */
    /* the run's ETA takes it when no data mover counts it */
    model *m = model_new();
    vl_run run = {.kind = VL_BACKUP,
                  .phase = (char *)"WaitingForPluginOperations",
                  .phase_id = VL_PH_WAITING_PLUGIN_OPS};
    run.meta.name = (char *)"b";
    model_run *mr = model_upsert_run(m, &run, 1000, T0);
    mr->item_ops = io;
    double e;
    int unk;
    ck_assert_int_eq(itemops_eta(m, mr, 1090, T0 + 90, &e, &unk), 1);
    ck_assert_int_eq(unk, 0);
    ck_assert_double_eq_tol(e, 360, 1e-6);
    ck_assert_int_eq(itemops_moving(m, mr, 1090, T0 + 90, NULL), 1);
    /* unknown after a failed read: nothing for the ETA to lean on */
    itemops_set_unknown(io, "downloading BackupItemOperations: forbidden");
    ck_assert_int_eq(itemops_eta(m, mr, 1090, T0 + 90, &e, &unk), 0);
    ck_assert_str_eq(io->reason, "downloading BackupItemOperations: forbidden");
    /* ... and the next read keeps the tracker */
    refresh(io, 340, 1120, T0 + 120);
    itemop_rate_eta(NULL, &io->ops[0], NULL, 1120, T0 + 120, &r, &eta);
    ck_assert_double_eq_tol(r, 2.0, 1e-9);
    model_free(m); /* frees the run's item_ops */
}
END_TEST

/* A backup waiting on another plugin's operation only (no data mover): its ETA is that
 * operation's, said so, and it is not stalled while the operation moves; unread, no ETA. */
START_TEST(the_run_answer_takes_its_eta_from_the_operations)
{
    model *m = model_new();
    vl_run run = {.kind = VL_BACKUP,
                  .phase = (char *)"WaitingForPluginOperations",
                  .phase_id = VL_PH_WAITING_PLUGIN_OPS,
                  .started = T0 - 600,
                  .has_progress = 1,
                  .items_total = 20,
                  .items_done = 20};
    run.meta.name = (char *)"b";
    model_run *mr = model_upsert_run(m, &run, 1000, T0);
    ans_ctx c = {.m = m, .now = 1090, .wall = T0 + 90};
    run_answer a;
    answer_run(&c, mr, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_NONE); /* not read: nothing to measure */
    ck_assert_int_eq(a.eta_why, ANS_WHY_NO_RATE);
    itemops *io = itemops_new();
    mr->item_ops = io;
    refresh(io, 100, 1000, T0);
    refresh(io, 160, 1030, T0 + 30);
    refresh(io, 220, 1060, T0 + 60);
    refresh(io, 280, 1090, T0 + 90);
    answer_run(&c, mr, &a);
    ck_assert_int_eq(a.eta_kind, ANS_ETA_ESTIMATE);
    /* 720 Items left at 2 a second, then the operations controller's sync and Finalizing */
    ck_assert_double_eq_tol(a.eta, 360 + RE_OPS_SYNC_S / 2 + RE_FINALIZE_S, 1e-6);
    ck_assert_int_eq(a.eta_from_ops, 1);
    ck_assert_int_eq(a.ops_left, 1);
    ck_assert_int_eq(a.stalled, ANS_NO);
    char buf[200];
    ck_assert_ptr_nonnull(
        strstr(answer_eta_line(buf, sizeof buf, &a, 1), ", from the plugin operations' progress"));
    model_free(m);
}
END_TEST

START_TEST(stalled_only_past_the_item_operation_timeout)
{
    itemops *io = itemops_new();
    refresh(io, 100, 1000, T0);
    const itemop *o = &io->ops[0];
    double moved = o->moved_at, f;
    vl_run run = {.kind = VL_BACKUP,
                  .phase = (char *)"WaitingForPluginOperations",
                  .phase_id = VL_PH_WAITING_PLUGIN_OPS};
    run.meta.name = (char *)"b";
    int def;
    ck_assert_double_eq(itemops_timeout(&run, &def), 4 * 3600.0);
    ck_assert_int_eq(def, 1);
    ck_assert_int_eq(itemop_stalled(o, 4 * 3600.0, moved + 4 * 3600.0, &f), 0);
    ck_assert_int_eq(itemop_stalled(o, 4 * 3600.0, moved + 4 * 3600.0 + 1, &f), 1);
    ck_assert_double_eq(f, 4 * 3600.0 + 1);
    run.item_op_timeout = (char *)"1h0m0s";
    ck_assert_double_eq(itemops_timeout(&run, &def), 3600.0);
    ck_assert_int_eq(def, 0);

    /* the diagnosis, on the cluster's clock */
    model *m = model_new();
    model_set_clock(m, T0, T0, 1);
    model_run *mr = model_upsert_run(m, &run, 1000, T0);
    mr->item_ops = io;
    diag d[DIAG_MAX];
    diag_ctx c = {.m = m, .now = 1000, .wall = moved + 3600};
    ck_assert_uint_eq(diag_run(&c, mr, NULL, d, DIAG_MAX), 0);
    c.wall = moved + 3600 + 125;
    ck_assert_uint_eq(diag_run(&c, mr, NULL, d, DIAG_MAX), 1);
    ck_assert_str_eq(d[0].code, "plugin-operation-stalled");
    ck_assert_str_eq(d[0].message,
                     "plugin operation w-op (example.io/w) on widgets.example.io shop/w-1: no "
                     "progress for 1h02m, longer than the item operation timeout (1h00m)");
    ck_assert_double_eq(d[0].since, moved);
    /* a finished one is never stalled */
    free(io->ops[0].phase);
    io->ops[0].phase = xstrdup("Completed");
    ck_assert_uint_eq(diag_run(&c, mr, NULL, d, DIAG_MAX), 0);
    model_free(m);
}
END_TEST

START_TEST(the_exporter_gives_each_operation_its_progress)
{
    itemop *ops;
    size_t n, cut;
    kc_err e = {0};
    ck_assert_int_eq(itemops_parse(backup_ops, strlen(backup_ops), 0, &ops, &n, &cut, &e), 0);
    itemops *io = itemops_new();
    itemops_update(io, ops, n, cut, 1000, T0);
    model *m = model_new();
    vl_run run = {.kind = VL_BACKUP,
                  .phase = (char *)"WaitingForPluginOperations",
                  .phase_id = VL_PH_WAITING_PLUGIN_OPS};
    run.meta.name = (char *)"nightly";
    model_run *mr = model_upsert_run(m, &run, 1000, T0);
    mr->item_ops = io;
    run_answer a = {.run = mr, .kind = VL_BACKUP, .active = 1};
    mx_cluster c = {.context = "prod", .ns = "velero", .reachable = 1, .runs = &a, .n_runs = 1};
    kc_buf b = {0};
    mx_render(&b, &c, 1, MX_TEXT);
    char *t = kc_buf_cstr(&b);
    const char *want[] = {
        "veltop_item_operation_progress_ratio{context=\"prod\",namespace=\"velero\",kind="
        "\"Backup\",name=\"nightly\",schedule=\"\",operation_id=\"du-4c1d.9a2b\",plugin="
        "\"velero.io/csi-pvc-backupper\",units=\"Bytes\"} 0.4\n",
        "veltop_item_operation_completed{context=\"prod\",namespace=\"velero\",kind="
        "\"Backup\",name=\"nightly\",schedule=\"\",operation_id=\"du-4c1d.9a2b\",plugin="
        "\"velero.io/csi-pvc-backupper\",units=\"Bytes\"} 419430400\n",
        "veltop_item_operation_total{context=\"prod\",namespace=\"velero\",kind=\"Backup\","
        "name=\"nightly\",schedule=\"\",operation_id=\"du-4c1d.9a2b\",plugin="
        "\"velero.io/csi-pvc-backupper\",units=\"Bytes\"} 1048576000\n",
        "veltop_item_operation_completed{context=\"prod\",namespace=\"velero\",kind="
        "\"Backup\",name=\"nightly\",schedule=\"\",operation_id=\"widget-op-1\",plugin="
        "\"example.io/widget-backupper\",units=\"Items\"} 12\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(t, want[i]) != NULL, "missing %s in:\n%s", want[i], t);
    /* a run not in flight has none */
    a.active = 0;
    kc_buf b2 = {0};
    mx_render(&b2, &c, 1, MX_TEXT);
    char *t2 = kc_buf_cstr(&b2);
    ck_assert_ptr_null(strstr(t2, "operation_id="));
    free(t);
    free(t2);
    model_free(m);
}
END_TEST

/* ---- against veltop-sim ---- */

typedef struct {
    app *a;
} wait_ctx;

static int ops_read(void *arg)
{
    app *a = arg;
    model_run *r = model_find_run(a->model, VL_BACKUP, "ops-40");
    return r && r->item_ops && (r->item_ops->known || r->item_ops->reason[0]);
}

static int synced(void *arg)
{
    return app_synced(arg) && app_volumes_listed(arg);
}

static int none_pending(void *arg)
{
    (void)arg;
    return kc_download_pending(NULL) == 0;
}

static long dr_left(tu_sim *ts)
{
    simstore *st = vsim_store(ts->sim);
    char *msg = NULL;
    uint64_t rv;
    int status;
    cJSON *l = simstore_list(st, "downloadrequests", "velero", NULL, NULL, &rv, &status, &msg);
    long n = cJSON_GetArraySize(l);
    cJSON_Delete(l);
    free(msg);
    return n;
}

START_TEST(the_sims_data_mover_operation_reads_at_40_percent)
{
    tu_sim ts;
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/itemops.yaml"});
    tu_sim_connect(&ts);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    ck_assert(kc_loop_run_until(ts.loop, synced, a, 10000));
    opsfetch *f = opsfetch_new(a);
    ck_assert(kc_loop_run_until(ts.loop, ops_read, a, 10000));
    model_run *r = model_find_run(a->model, VL_BACKUP, "ops-40");
    itemops *io = r->item_ops;
    ck_assert_msg(io->known, "not read: %s", io->reason);
    ck_assert_uint_eq(io->n, 2);
    const itemop *du = NULL, *w = NULL;
    for (size_t i = 0; i < io->n; i++) {
        if (!strcmp(io->ops[i].plugin, "velero.io/csi-pvc-backupper")) du = &io->ops[i];
        if (!strcmp(io->ops[i].plugin, "example.io/widget-backupper")) w = &io->ops[i];
    }
    ck_assert_ptr_nonnull(du);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(du->done, 419430400); /* 40 % of 1000Mi */
    ck_assert_int_eq(du->total, 1048576000);
    ck_assert_str_eq(du->units, "Bytes");
    ck_assert_str_eq(du->phase, "New");
    ck_assert_str_eq(du->description, "InProgress");
    ck_assert_str_eq(w->id, "widget-op-1");
    ck_assert_str_eq(w->units, "Items");
    ck_assert_int_eq(w->total, 100000);
    ck_assert_str_eq(w->description, "exporting widgets");
    /* the join: the data mover's is its DataUpload, the widget's nothing */
    model_refresh_volumes(a->model);
    const model_volume *vol[2];
    ck_assert_uint_eq(itemops_join(io, a->model, r, vol), 1);
    const model_volume *dv = vol[du == &io->ops[0] ? 0 : 1];
    ck_assert_ptr_nonnull(dv);
    ck_assert_int_eq(dv->vol->kind, VL_DU);
    ck_assert_str_eq(dv->vol->volume, "db-data");
    ck_assert_ptr_null(vol[w == &io->ops[0] ? 0 : 1]);
    opsfetch_free(f);
    /* every DownloadRequest it created is deleted */
    ck_assert(kc_loop_run_until(ts.loop, none_pending, NULL, 5000));
    ck_assert_int_eq(dr_left(&ts), 0);
    app_free(a);
    tu_sim_stop(&ts);
}
END_TEST

static const char *const no_downloads =
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: "
    "velero}\nrules:\n- apiGroups: [velero.io]\n  resources: [backups, restores, "
    "podvolumebackups, podvolumerestores, schedules, backupstoragelocations, "
    "volumesnapshotlocations, backuprepositories, datauploads, datadownloads]\n  verbs: [list, "
    "watch]\n- apiGroups: ['']\n  resources: [pods]\n  verbs: [list, watch]\n";

START_TEST(a_403_leaves_the_operations_unknown_with_the_reason)
{
    char err[256];
    sim_rbac *rb = sim_rbac_parse(no_downloads, strlen(no_downloads), err, sizeof err);
    ck_assert_msg(rb != NULL, "%s", err);
    tu_sim ts;
    tu_sim_start(&ts, (vsim_opts){.scenario = FIXTURES_DIR "/scenarios/itemops.yaml", .rbac = rb});
    tu_sim_connect(&ts);
    app *a = app_new(ts.loop, ts.client, "ctx", "srv", "velero");
    ck_assert(kc_loop_run_until(ts.loop, synced, a, 10000));
    opsfetch *f = opsfetch_new(a);
    ck_assert(kc_loop_run_until(ts.loop, ops_read, a, 10000));
    model_run *r = model_find_run(a->model, VL_BACKUP, "ops-40");
    ck_assert_int_eq(r->item_ops->known, 0);
    ck_assert_msg(strstr(r->item_ops->reason, "forbidden") != NULL, "%s", r->item_ops->reason);
    ck_assert_msg(strstr(r->item_ops->reason, "downloadrequests") != NULL, "%s",
                  r->item_ops->reason);
    /* nothing for the run's ETA to lean on: unknown, not "no operations left" */
    double e;
    int unk;
    ck_assert_int_eq(itemops_eta(a->model, r, 0, 0, &e, &unk), 0);
    opsfetch_free(f);
    app_free(a);
    tu_sim_stop(&ts);
    sim_rbac_free(rb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("itemops");
    TCase *tc = tcase_create("itemops");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_real_artifact_parses_exactly);
    tcase_add_test(tc, more_operations_than_the_cap_are_counted_not_kept);
    tcase_add_test(tc, rate_and_eta_come_from_the_deltas_between_refreshes);
    tcase_add_test(tc, the_run_answer_takes_its_eta_from_the_operations);
    tcase_add_test(tc, stalled_only_past_the_item_operation_timeout);
    tcase_add_test(tc, the_exporter_gives_each_operation_its_progress);
    tcase_add_test(tc, the_sims_data_mover_operation_reads_at_40_percent);
    tcase_add_test(tc, a_403_leaves_the_operations_unknown_with_the_reason);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
