/* test_snapshot.c: the list's sort, filter and selection on a hand-built model, and --once
 * output (exact JSON, plain table) of that model. */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "snapshot.h"
#include "testutil.h"

#define T0 1704626400.0 /* 2024-01-07T11:20:00Z */

typedef struct fixture {
    vl_run runs[5];
    vl_volume vols[2];
    vl_res_progress res[3];
    model *m;
} fixture;

static void set_run(vl_run *r, vl_kind kind, const char *name, const char *phase, vl_phase id,
                    double started, double completed, int64_t done, int64_t total)
{
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    r->meta.name = (char *)name;
    r->phase = (char *)phase;
    r->phase_id = id;
    r->started = started;
    r->completed = completed;
    r->has_progress = total > 0;
    r->items_done = done;
    r->items_total = total;
}

/* Five runs: one backup in progress, two finished backups, a failed one, a restore. */
/* The answers' context of --once: the model as listed at monotonic now, unix T0. */
static ans_ctx ctx_at(model *m, double now)
{
    ans_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.now = now;
    c.wall = T0;
    return c;
}

static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof(*f));
    set_run(&f->runs[0], VL_BACKUP, "nightly-20240107", "InProgress", VL_PH_IN_PROGRESS, T0 - 60, 0,
            30, 120);
    f->res[0] = (vl_res_progress){(char *)"namespaces", 2, 2};
    f->res[1] = (vl_res_progress){(char *)"pods", 28, 40};
    f->res[2] = (vl_res_progress){(char *)"deployments.apps", 0, 78};
    f->runs[0].has_resource_progress = 1;
    f->runs[0].resources = f->res;
    f->runs[0].n_resources = 3;
    f->runs[0].warnings = 1;
    f->runs[0].schedule = (char *)"nightly";
    set_run(&f->runs[1], VL_BACKUP, "adhoc-b", "Completed", VL_PH_COMPLETED, T0 - 7200, T0 - 7100,
            50, 50);
    set_run(&f->runs[2], VL_BACKUP, "adhoc-a", "Failed", VL_PH_FAILED, T0 - 3600, T0 - 3590, 10,
            20);
    f->runs[2].errors = 1;
    f->runs[2].failure_reason = (char *)"boom";
    set_run(&f->runs[3], VL_RESTORE, "restore-\x1b[31mx", "Completed", VL_PH_COMPLETED, T0 - 1800,
            T0 - 1790, 5, 5);
    set_run(&f->runs[4], VL_BACKUP, "queued-one", "Queued", VL_PH_QUEUED, 0, 0, 0, 0);
    f->runs[4].meta.created = T0 - 5;
    f->m = model_new();
    for (int i = 0; i < 5; i++) model_upsert_run(f->m, &f->runs[i], 100.0, T0);

    vl_volume *v = &f->vols[0];
    v->kind = VL_PVB;
    v->meta.name = (char *)"nightly-20240107-abcde";
    v->run_name = (char *)"nightly-20240107";
    v->node = (char *)"worker-1";
    v->pod_ns = (char *)"shop";
    v->pod_name = (char *)"db-0";
    v->volume = (char *)"data";
    v->uploader = (char *)"kopia";
    v->phase = (char *)"InProgress";
    v->phase_id = VL_PH_IN_PROGRESS;
    v->bytes_done = 1048576;
    v->bytes_total = 4194304;
    v = &f->vols[1];
    v->kind = VL_DU;
    v->meta.name = (char *)"nightly-20240107-fghij";
    v->run_name = (char *)"nightly-20240107";
    v->pod_ns = (char *)"billing";
    v->volume = (char *)"invoices";
    v->uploader = (char *)"data mover";
    v->phase = (char *)"New";
    v->phase_id = VL_PH_NEW;
    for (int i = 0; i < 2; i++) model_upsert_volume(f->m, &f->vols[i], 100.0);
    model_refresh_volumes(f->m);
}

static void fixture_done(fixture *f)
{
    model_free(f->m);
}

static const char *row_name(const view *v, size_t i)
{
    return v->rows[i]->name;
}

START_TEST(list_is_newest_first_and_sorts_by_name_phase_progress)
{
    fixture f;
    fixture_init(&f);
    view v;
    view_init(&v);
    view_rebuild(&v, f.m);
    ck_assert_uint_eq(v.n_rows, 5);
    /* queued-one has no start: its creation time (T0-5) is the newest */
    ck_assert_str_eq(row_name(&v, 0), "queued-one");
    ck_assert_str_eq(row_name(&v, 1), "nightly-20240107");
    ck_assert_str_eq(row_name(&v, 2), "restore-\x1b[31mx");
    ck_assert_str_eq(row_name(&v, 3), "adhoc-a");
    ck_assert_str_eq(row_name(&v, 4), "adhoc-b");
    v.sort = VIEW_SORT_NAME;
    view_rebuild(&v, f.m);
    ck_assert_str_eq(row_name(&v, 0), "adhoc-a");
    ck_assert_str_eq(row_name(&v, 4), "restore-\x1b[31mx");
    v.sort = VIEW_SORT_PHASE; /* running first, then waiting, failed, done */
    view_rebuild(&v, f.m);
    ck_assert_str_eq(row_name(&v, 0), "nightly-20240107");
    ck_assert_str_eq(row_name(&v, 1), "queued-one");
    ck_assert_str_eq(row_name(&v, 2), "adhoc-a");
    v.sort = VIEW_SORT_PROGRESS; /* least done first */
    view_rebuild(&v, f.m);
    ck_assert_str_eq(row_name(&v, 0), "queued-one");
    ck_assert_str_eq(row_name(&v, 1), "nightly-20240107");
    ck_assert_str_eq(row_name(&v, 2), "adhoc-a");
    view_clear(&v);
    fixture_done(&f);
}
END_TEST

START_TEST(filter_matches_name_phase_and_schedule)
{
    fixture f;
    fixture_init(&f);
    view v;
    view_init(&v);
    strcpy(v.filter, "ADHOC");
    view_rebuild(&v, f.m);
    ck_assert_uint_eq(v.n_rows, 2);
    strcpy(v.filter, "failed");
    view_rebuild(&v, f.m);
    ck_assert_uint_eq(v.n_rows, 1);
    ck_assert_str_eq(row_name(&v, 0), "adhoc-a");
    strcpy(v.filter, "nightly");
    view_rebuild(&v, f.m);
    ck_assert_uint_eq(v.n_rows, 1);
    strcpy(v.filter, "no-such-run");
    view_rebuild(&v, f.m);
    ck_assert_uint_eq(v.n_rows, 0);
    ck_assert_int_eq(v.sel, -1);
    ck_assert_ptr_null(view_selected(&v));
    view_clear(&v);
    fixture_done(&f);
}
END_TEST

START_TEST(selection_follows_the_run_while_rows_move)
{
    fixture f;
    fixture_init(&f);
    view v;
    view_init(&v);
    view_rebuild(&v, f.m);
    view_select(&v, 3);
    ck_assert_str_eq(view_selected(&v)->name, "adhoc-a");
    /* a newer run appears on top: adhoc-a moves down one row, the selection with it */
    vl_run newer;
    set_run(&newer, VL_RESTORE, "fresh", "New", VL_PH_NEW, 0, 0, 0, 0);
    newer.meta.created = T0;
    model_upsert_run(f.m, &newer, 101.0, T0);
    view_rebuild(&v, f.m);
    ck_assert_int_eq(v.sel, 4);
    ck_assert_str_eq(view_selected(&v)->name, "adhoc-a");
    /* filtered out: the index is clamped; back in: it is found again */
    strcpy(v.filter, "fresh");
    view_rebuild(&v, f.m);
    ck_assert_int_eq(v.sel, 0);
    ck_assert_str_eq(view_selected(&v)->name, "fresh");
    /* deleting the selected run keeps a valid selection */
    model_remove_run(f.m, VL_RESTORE, "fresh");
    v.filter[0] = 0;
    view_rebuild(&v, f.m);
    ck_assert_ptr_nonnull(view_selected(&v));
    /* f: the newest run in progress */
    ck_assert_int_eq(view_follow(&v), 1);
    ck_assert_str_eq(view_selected(&v)->name, "nightly-20240107");
    view_clear(&v);
    fixture_done(&f);
}
END_TEST

/* Before any choice the cursor is on the top row, the newest run, whatever arrives above it (a
 * first frame drawn from part of the list, then the rest); once a run is chosen it is followed.
 * (Before: the run on top at the first rebuild was followed, and with 10 000 backups arriving
 * in pages the newest rows ended up above the screen.) */
START_TEST(selection_stays_on_top_until_a_run_is_chosen)
{
    fixture f;
    fixture_init(&f);
    view v;
    view_init(&v);
    view_rebuild(&v, f.m);
    ck_assert_int_eq(v.sel, 0);
    ck_assert_str_eq(view_selected(&v)->name, "queued-one");
    vl_run newer[2];
    set_run(&newer[0], VL_BACKUP, "newer", "New", VL_PH_NEW, 0, 0, 0, 0);
    newer[0].meta.created = T0;
    model_upsert_run(f.m, &newer[0], 101.0, T0);
    view_rebuild(&v, f.m);
    ck_assert_int_eq(v.sel, 0);
    ck_assert_str_eq(view_selected(&v)->name, "newer");
    view_select(&v, 0); /* chosen: from now on it is followed */
    set_run(&newer[1], VL_BACKUP, "newest", "New", VL_PH_NEW, 0, 0, 0, 0);
    newer[1].meta.created = T0 + 1;
    model_upsert_run(f.m, &newer[1], 102.0, T0);
    view_rebuild(&v, f.m);
    ck_assert_int_eq(v.sel, 1);
    ck_assert_str_eq(view_selected(&v)->name, "newer");
    view_clear(&v);
    fixture_done(&f);
}
END_TEST

START_TEST(volumes_join_runs_by_label)
{
    fixture f;
    fixture_init(&f);
    model_run *r = model_find_run(f.m, VL_BACKUP, "nightly-20240107");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->vols.n, 2);
    ck_assert_int_eq(r->vols.n_active, 1);
    ck_assert_int_eq(r->vols.n_pending, 1);
    ck_assert_int_eq(r->vols.bytes_done, 1048576);
    ck_assert_int_eq(r->vols.bytes_total, 4194304);
    ck_assert_uint_eq(model_run_volumes(f.m, r, NULL, 0), 2);
    ck_assert_int_eq(model_find_run(f.m, VL_BACKUP, "adhoc-a")->vols.n, 0);
    size_t n;
    int from_log = -1;
    const model_res *res = model_run_resources(r, &n, &from_log);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(from_log, 0);
    ck_assert_str_eq(res[1].resource, "pods");
    ck_assert_int_eq(res[1].done, 28);
    fixture_done(&f);
}
END_TEST

START_TEST(thousands_of_runs_are_found_and_removed_by_name)
{
    enum { N = 3000 };
    static vl_run runs[N];
    static char names[N][32];
    model *m = model_new();
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "nightly-%05d", i);
        set_run(&runs[i], i % 3 ? VL_BACKUP : VL_RESTORE, names[i], "Completed", VL_PH_COMPLETED,
                T0 - i, T0 - i + 1, 1, 1);
        model_upsert_run(m, &runs[i], 1.0, T0);
    }
    ck_assert_uint_eq(m->n_runs, N);
    for (int i = 0; i < N; i += 2) model_remove_run(m, runs[i].kind, names[i]);
    model_remove_run(m, VL_BACKUP, "no-such-run");
    ck_assert_uint_eq(m->n_runs, N / 2);
    for (int i = 0; i < N; i++) {
        model_run *r = model_find_run(m, runs[i].kind, names[i]);
        if (i % 2) {
            ck_assert_ptr_nonnull(r);
            ck_assert_str_eq(r->name, names[i]);
            ck_assert_ptr_eq(m->runs[r->pos], r);
        } else {
            ck_assert_ptr_null(r);
        }
    }
    /* the same name as the other kind is another run */
    ck_assert_ptr_null(
        model_find_run(m, runs[1].kind == VL_BACKUP ? VL_RESTORE : VL_BACKUP, names[1]));
    model_free(m);
}
END_TEST

START_TEST(once_json_is_exact)
{
    fixture f;
    fixture_init(&f);
    /* unknown is null with the reason: none given by the server, or a download that failed */
    model_run_set_note(model_find_run(f.m, VL_BACKUP, "adhoc-b"),
                       "downloading BackupResourceList: the object store sent 8 bytes");
    ans_ctx c = ctx_at(f.m, 100.0);
    char *j = snapshot_json(&c, "kind-dev", "https://127.0.0.1:6443", "velero");
    /* nightly-20240107: an estimate of the items' 180 s and Finalizing that can only grow (its
     * DataUpload is not sized yet: bytesTotal null); stalled unknown (one list, no evidence of
     * when it last moved); queued-one is not running, with its diagnosis and its queue (the
     * limit unknown: no pod list); rows not given are
     * null with the reason; names are the server's exact text */
    const char *want =
        "{\"context\":\"kind-dev\",\"server\":\"https://127.0.0.1:6443\","
        "\"namespace\":\"velero\",\"incomplete\":[],\"clusterClockOffsetSeconds\":null,"
        "\"runs\":[{\"kind\":\"Backup\",\"name\":\"queued-one\",\"phase\":\"Queued\","
        "\"itemsDone\":null,\"itemsTotal\":null,\"itemsTotalEstimated\":false,\"started\":null,"
        "\"completed\":null,\"errors\":0,\"warnings\":0,\"failureReason\":null,"
        "\"itemsPerSecond\":null,\"etaSeconds\":null,\"etaLowerBound\":null,"
        "\"etaKind\":\"none\",\"etaReason\":\"not "
        "running\",\"etaCaveat\":null,\"etaFromPluginOperations\":false,\"bytesDone\":0,"
        "\"bytesTotal\":0,\"bytesPerSecond\":null,\"stalled\":false,\"stalledReason\":null,"
        "\"stalledSeconds\":null,\"lastProgress\":null,\"lastProgressEvidence\":null,"
        "\"waitingOn\":null,\"incomplete\":null,\"diagnosis\":[{\"code\":\"queued\","
        "\"message\":\"Queued at position 1,"
        " behind backup nightly-20240107 (InProgress for 1m00s)\","
        "\"since\":\"2024-01-07T11:19:55Z\"}],"
        "\"queue\":{\"position\":1,\"positionFrom\":\"counted\",\"aheadCount\":1,"
        "\"ahead\":[{\"name\":\"nightly-20240107\",\"phase\":\"InProgress\"}],"
        "\"concurrentBackups\":null,\"concurrentBackupsDefault\":null,"
        "\"concurrentBackupsReason\":\"the Velero server pod is not read\",\"running\":1,"
        "\"waitsOn\":\"overlap\",\"limitFull\":null,\"overlapsWith\":\"nightly-20240107\","
        "\"reason\":\"its namespaces overlap backup nightly-20240107 (InProgress)\","
        "\"estimatedStart\":null,\"estimatedStartCaveat\":null,"
        "\"estimatedStartReason\":\"the concurrency limit is unknown\"},\"resources\":null,"
        "\"resourcesNote\":\"no per-resource progress: the server gives no status.resourceProgress "
        "for this run\","
        "\"volumes\":[],\"itemOperations\":null},{\"kind\":\"Backup\",\"name\":\"nightly-"
        "20240107\","
        "\"phase\":\"InProgress\",\"itemsDone\":30,\"itemsTotal\":120,"
        "\"itemsTotalEstimated\":true,\"started\":\"2024-01-07T11:19:00Z\",\"completed\":null,"
        "\"errors\":0,\"warnings\":1,\"failureReason\":null,\"itemsPerSecond\":0.5,"
        "\"etaSeconds\":181,\"etaLowerBound\":false,\"etaKind\":\"estimate\","
        "\"etaReason\":null,\"etaCaveat\":\"volumes not sized "
        "yet\",\"etaFromPluginOperations\":false,\"bytesDone\":1048576,"
        "\"bytesTotal\":null,\"bytesPerSecond\":null,\"stalled\":null,"
        "\"stalledReason\":\"no evidence yet\",\"stalledSeconds\":null,\"lastProgress\":null,"
        "\"lastProgressEvidence\":null,\"waitingOn\":{\"kind\":\"Items\",\"name\":null},"
        "\"incomplete\":null,\"diagnosis\":[],\"queue\":null,\"resources\":[{\"resource\":"
        "\"namespaces\","
        "\"done\":2,\"total\":2},{\"resource\":\"pods\",\"done\":28,\"total\":40},"
        "{\"resource\":\"deployments.apps\",\"done\":0,\"total\":78}],\"resourcesNote\":null,"
        "\"volumes\":[{\"kind\":\"PodVolumeBackup\",\"name\":\"nightly-20240107-abcde\","
        "\"node\":\"worker-1\",\"pod\":\"shop/db-0\",\"volume\":\"data\","
        "\"uploader\":\"kopia\",\"phase\":\"InProgress\",\"bytesDone\":1048576,"
        "\"bytesTotal\":4194304},{\"kind\":\"DataUpload\",\"name\":\"nightly-20240107-fghij\","
        "\"node\":null,\"pod\":null,\"volume\":\"invoices\",\"uploader\":\"data mover\","
        "\"phase\":\"New\",\"bytesDone\":0,\"bytesTotal\":null}],\"itemOperations\":null},{"
        "\"kind\":\"Restore\","
        "\"name\":\"restore-\\u001b[31mx\",\"phase\":\"Completed\",\"itemsDone\":5,"
        "\"itemsTotal\":5,\"itemsTotalEstimated\":false,\"started\":\"2024-01-07T10:50:00Z\","
        "\"completed\":\"2024-01-07T10:50:10Z\",\"errors\":0,\"warnings\":0,"
        "\"failureReason\":null,\"itemsPerSecond\":0.5,\"etaSeconds\":null,"
        "\"etaLowerBound\":null,\"etaKind\":\"none\",\"etaReason\":\"not running\","
        "\"etaCaveat\":null,\"etaFromPluginOperations\":false,\"bytesDone\":0,\"bytesTotal\":0,"
        "\"bytesPerSecond\":null,"
        "\"stalled\":false,\"stalledReason\":null,\"stalledSeconds\":null,"
        "\"lastProgress\":null,\"lastProgressEvidence\":null,\"waitingOn\":null,"
        "\"incomplete\":null,\"diagnosis\":[],\"queue\":null,\"resources\":null,"
        "\"resourcesNote\":\"no per-resource progress: the server gives no status.resourceProgress "
        "for this run\","
        "\"volumes\":[],\"itemOperations\":null},{\"kind\":\"Backup\",\"name\":\"adhoc-a\","
        "\"phase\":\"Failed\","
        "\"itemsDone\":10,\"itemsTotal\":20,\"itemsTotalEstimated\":false,"
        "\"started\":\"2024-01-07T10:20:00Z\",\"completed\":\"2024-01-07T10:20:10Z\","
        "\"errors\":1,\"warnings\":0,\"failureReason\":\"boom\",\"itemsPerSecond\":1,"
        "\"etaSeconds\":null,\"etaLowerBound\":null,\"etaKind\":\"none\","
        "\"etaReason\":\"not "
        "running\",\"etaCaveat\":null,\"etaFromPluginOperations\":false,\"bytesDone\":0,"
        "\"bytesTotal\":0,"
        "\"bytesPerSecond\":null,\"stalled\":false,\"stalledReason\":null,"
        "\"stalledSeconds\":null,\"lastProgress\":null,\"lastProgressEvidence\":null,"
        "\"waitingOn\":null,\"incomplete\":null,\"diagnosis\":[],\"queue\":null,\"resources\":null,"
        "\"resourcesNote\":\"no per-resource progress: the server gives no status.resourceProgress "
        "for this run\","
        "\"volumes\":[],\"itemOperations\":null},{\"kind\":\"Backup\",\"name\":\"adhoc-b\","
        "\"phase\":\"Completed\","
        "\"itemsDone\":50,\"itemsTotal\":50,\"itemsTotalEstimated\":false,"
        "\"started\":\"2024-01-07T09:20:00Z\",\"completed\":\"2024-01-07T09:21:40Z\","
        "\"errors\":0,\"warnings\":0,\"failureReason\":null,\"itemsPerSecond\":0.5,"
        "\"etaSeconds\":null,\"etaLowerBound\":null,\"etaKind\":\"none\","
        "\"etaReason\":\"not "
        "running\",\"etaCaveat\":null,\"etaFromPluginOperations\":false,\"bytesDone\":0,"
        "\"bytesTotal\":0,"
        "\"bytesPerSecond\":null,\"stalled\":false,\"stalledReason\":null,"
        "\"stalledSeconds\":null,\"lastProgress\":null,\"lastProgressEvidence\":null,"
        "\"waitingOn\":null,\"incomplete\":null,\"diagnosis\":[],\"queue\":null,\"resources\":null,"
        "\"resourcesNote\":\"downloading BackupResourceList: the object store sent 8 bytes\","
        "\"volumes\":[],\"itemOperations\":null}]}"
        "\n";
    ck_assert_str_eq(j, want);
    free(j);
    /* the cluster's clock, once known from its Date headers, to a tenth of a second */
    model_set_clock_offset(f.m, -600.34, 1);
    j = snapshot_json(&c, "kind-dev", "https://127.0.0.1:6443", "velero");
    ck_assert_ptr_nonnull(strstr(j, ",\"clusterClockOffsetSeconds\":-600.3,\"runs\":["));
    free(j);
    fixture_done(&f);
}
END_TEST

/* A PodVolumeBackup in progress with progress {bytesDone: 634} and no totalBytes (Velero's
 * TotalBytes is omitempty: not known yet): its bytesTotal is null, not 0; a finished empty volume
 * keeps its 0. (Before: bytesTotal 0 for both.) */
START_TEST(once_json_unsized_volume_total_is_null)
{
    vl_run run;
    set_run(&run, VL_BACKUP, "demo-app", "InProgress", VL_PH_IN_PROGRESS, T0 - 60, 0, 3, 10);
    vl_volume v[2];
    memset(v, 0, sizeof v);
    const char *names[] = {"demo-app-x7k2p", "demo-app-q9z1m"};
    const char *phases[] = {"InProgress", "Completed"};
    vl_phase ids[] = {VL_PH_IN_PROGRESS, VL_PH_COMPLETED};
    model *m = model_new();
    model_upsert_run(m, &run, 100.0, T0);
    for (int i = 0; i < 2; i++) {
        v[i].kind = VL_PVB;
        v[i].meta.name = (char *)names[i];
        v[i].run_name = (char *)"demo-app";
        v[i].phase = (char *)phases[i];
        v[i].phase_id = ids[i];
        v[i].bytes_done = i ? 0 : 634;
        model_upsert_volume(m, &v[i], 100.0);
    }
    model_refresh_volumes(m);
    ck_assert_int_eq(model_volume_unsized(&v[0]), 1);
    ck_assert_int_eq(model_volume_unsized(&v[1]), 0);
    ans_ctx c = ctx_at(m, 100.0);
    char *j = snapshot_json(&c, "c", "s", "velero");
    cJSON *root = cJSON_Parse(j);
    ck_assert_ptr_nonnull(root);
    cJSON *vols =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "runs"), 0), "volumes");
    ck_assert_int_eq(cJSON_GetArraySize(vols), 2);
    for (int i = 0; i < 2; i++) {
        cJSON *o = cJSON_GetArrayItem(vols, i);
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(o, "name"));
        cJSON *bt = cJSON_GetObjectItem(o, "bytesTotal");
        ck_assert_ptr_nonnull(bt);
        if (!strcmp(name, names[0])) {
            ck_assert_msg(cJSON_IsNull(bt), "the unsized volume's bytesTotal is not null");
            ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "bytesDone")), 634);
        } else {
            ck_assert_str_eq(name, names[1]);
            ck_assert_double_eq(cJSON_GetNumberValue(bt), 0);
        }
    }
    cJSON_Delete(root);
    free(j);
    model_free(m);
}
END_TEST

/* JSON carries the server's exact text: a failure reason with a newline, an ESC sequence and
 * quotes comes back equal when parsed (before: sanitised to "^J", "^[" in the JSON); a byte of
 * invalid UTF-8 becomes U+FFFD, so the output stays UTF-8; DEL and a C1 CSI are JSON escapes,
 * never raw bytes. The table stays sanitised. */
START_TEST(once_json_strings_are_exact)
{
    const char *why =
        "upload failed:\n\x1b[31mrpc error\x1b[0m: \"quoted\" \\ path\t\xff \xc2\x9b\x7f end";
    const char *want = "upload failed:\n\x1b[31mrpc error\x1b[0m: \"quoted\" \\ "
                       "path\t\xef\xbf\xbd \xc2\x9b\x7f end";
    vl_run run;
    set_run(&run, VL_BACKUP, "nightly-\x1b]0;x\x07", "Failed", VL_PH_FAILED, T0 - 60, T0 - 50, 1,
            2);
    run.failure_reason = (char *)why;
    model *m = model_new();
    model_upsert_run(m, &run, 100.0, T0);
    ans_ctx c = ctx_at(m, 100.0);
    char *j = snapshot_json(&c, "c", "s", "velero");
    ck_assert_ptr_null(strchr(j, '\x1b'));     /* escaped: \u001b */
    ck_assert_ptr_null(strchr(j, '\x7f'));     /* \u007f */
    ck_assert_ptr_null(strstr(j, "\xc2\x9b")); /* \u009b */
    ck_assert_ptr_nonnull(strstr(j, "\\u009b\\u007f end"));
    ck_assert_ptr_null(strstr(j, "^["));
    cJSON *root = cJSON_Parse(j);
    ck_assert_ptr_nonnull(root);
    cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "runs"), 0);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r0, "failureReason")), want);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r0, "name")), "nightly-\x1b]0;x\x07");
    cJSON_Delete(root);
    free(j);
    char *t = snapshot_table(&c, NULL);
    ck_assert_ptr_null(strchr(t, '\x1b'));
    ck_assert_ptr_nonnull(strstr(t, "\nnightly-^[]0;x^G "));
    free(t);
    model_free(m);
}
END_TEST

START_TEST(once_table_has_the_columns_and_sanitised_names)
{
    fixture f;
    fixture_init(&f);
    setenv("TZ", "UTC", 1);
    ans_ctx c = ctx_at(f.m, 100.0);
    char *t = snapshot_table(&c, NULL);
    const char *nl = strchr(t, '\n');
    ck_assert_ptr_nonnull(nl);
    char header[256];
    snprintf(header, sizeof header, "%.*s", (int)(nl - t), t);
    ck_assert_str_eq(header,
                     "NAME              KIND     PHASE       ITEMS    RESOURCES  VOLUME BYTES  "
                     "RATE   ETA     STARTED               DURATION  ERRORS  WARNINGS");
    /* ~: Velero's estimate of the total while the run is in progress; volume bytes summed, the
     * total unknown while the DataUpload is not sized; the ETA an estimate that may grow (+) */
    ck_assert_ptr_nonnull(
        strstr(t, "\nnightly-20240107  Backup   InProgress  30/~120  1/3        1.0 MiB/?     "
                  "0.5/s  3m01s+  2024-01-07T11:19:00Z  1m00s     0       1\n"));
    /* no volumes: a dash, as for any unknown cell */
    ck_assert_ptr_nonnull(
        strstr(t, "\nadhoc-a           Backup   Failed      10/20    -          -             "
                  "1.0/s  -       2024-01-07T10:20:00Z  10s       1       0\n"));
    ck_assert_ptr_nonnull(strstr(t, "restore-^[[31mx"));
    ck_assert_ptr_null(strchr(t, '\x1b'));
    free(t);
    fixture_done(&f);
}
END_TEST

/* Numbers at the int64 limit from the cluster: volume bytes sum saturating, an ETA of 2^64 items
 * left at 0.5/s is that projection (never a cap such as 172801 standing in for it, nor a wrapped
 * negative), a start time that is no date is null. */
START_TEST(extreme_numbers_saturate)
{
    model *m = model_new();
    vl_run r;
    set_run(&r, VL_BACKUP, "huge", "InProgress", VL_PH_IN_PROGRESS, T0 - 10, 0, 5, INT64_MAX);
    model_upsert_run(m, &r, 1.0, T0);
    vl_run r2;
    set_run(&r2, VL_BACKUP, "far", "Completed", VL_PH_COMPLETED, 1e300, 0, 1, 1);
    model_upsert_run(m, &r2, 1.0, T0);
    vl_volume v[2];
    for (int i = 0; i < 2; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].kind = VL_PVB;
        v[i].meta.name = (char *)(i ? "huge-b" : "huge-a");
        v[i].run_name = (char *)"huge";
        v[i].phase = (char *)"InProgress";
        v[i].phase_id = VL_PH_IN_PROGRESS;
        v[i].bytes_done = INT64_MAX;
        v[i].bytes_total = INT64_MAX;
        model_upsert_volume(m, &v[i], 1.0);
    }
    model_refresh_volumes(m);
    model_run *mr = model_find_run(m, VL_BACKUP, "huge");
    ck_assert_int_eq(mr->vols.bytes_done, INT64_MAX);
    ck_assert_int_eq(mr->vols.bytes_total, INT64_MAX);
    ans_ctx c = ctx_at(m, 1.0);
    char *j = snapshot_json(&c, "c", "s", "velero");
    ck_assert_msg(strstr(j, "\"etaSeconds\":1.8446744073709552e+19,") != NULL, "%s", j);
    ck_assert_msg(strstr(j, "\"name\":\"far\",\"phase\":\"Completed\",\"itemsDone\":1,"
                            "\"itemsTotal\":1,\"itemsTotalEstimated\":false,\"started\":null,") !=
                      NULL,
                  "%s", j);
    free(j);
    setenv("TZ", "UTC", 1);
    char *t = snapshot_table(&c, NULL);
    ck_assert_msg(strstr(t, " 6e11y ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "> 2d") == NULL, "%s", t);
    free(t);
    model_free(m);
}
END_TEST

/* One 1 MiB phase among 7 runs: the table's cells are cut at SNAPSHOT_CELL_COLS with an
 * ellipsis (and counted), so no row is padded to a megabyte; JSON carries the whole text. */
START_TEST(once_table_caps_cells_json_does_not)
{
    model *m = model_new();
    size_t big = 1 << 20;
    char *phase = xmalloc(big + 1);
    memset(phase, 'P', big);
    phase[big] = 0;
    char name[300];
    memset(name, 'n', 299);
    name[299] = 0;
    vl_run r[7];
    char names[7][16];
    for (int i = 0; i < 7; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].kind = VL_BACKUP;
        snprintf(names[i], sizeof names[i], "run-%d", i);
        r[i].meta.name = i == 1 ? name : names[i];
        r[i].phase = i == 0 ? phase : (char *)"Completed";
        r[i].phase_id = i == 0 ? VL_PH_UNKNOWN : VL_PH_COMPLETED;
        r[i].started = T0 - 100 * (i + 1);
        model_upsert_run(m, &r[i], 1.0, T0);
    }
    size_t capped = 0;
    ans_ctx c = ctx_at(m, 1.0);
    char *t = snapshot_table(&c, &capped);
    ck_assert_uint_eq(capped, 2); /* the phase and the 299-character name */
    ck_assert_uint_lt(strlen(t), 8 * 1024);
    /* every line as wide as the widest cell allows: 253 columns, the last one an ellipsis */
    char want[SNAPSHOT_CELL_COLS * 4 + 8];
    memset(want, 'P', SNAPSHOT_CELL_COLS - 1);
    strcpy(want + SNAPSHOT_CELL_COLS - 1, "\u2026  ");
    ck_assert_ptr_nonnull(strstr(t, want));
    ck_assert_ptr_null(
        strstr(t, "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"
                  "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"
                  "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"
                  "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"));
    free(t);
    /* a table without a long cell says none was cut */
    model *small = model_new();
    model_upsert_run(small, &r[2], 1.0, T0);
    capped = 9;
    ans_ctx cs = ctx_at(small, 1.0);
    t = snapshot_table(&cs, &capped);
    ck_assert_uint_eq(capped, 0);
    free(t);
    model_free(small);
    char *j = snapshot_json(&c, "c", "s", "velero");
    ck_assert_uint_gt(strlen(j), big);
    char *p = strstr(j, "\"phase\":\"PPP");
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(strspn(p + 9, "P"), big);
    ck_assert_ptr_nonnull(strstr(j, name));
    free(j);
    model_free(m);
    free(phase);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snapshot");
    TCase *tc = tcase_create("snapshot");
    tcase_add_test(tc, list_is_newest_first_and_sorts_by_name_phase_progress);
    tcase_add_test(tc, filter_matches_name_phase_and_schedule);
    tcase_add_test(tc, selection_follows_the_run_while_rows_move);
    tcase_add_test(tc, selection_stays_on_top_until_a_run_is_chosen);
    tcase_add_test(tc, volumes_join_runs_by_label);
    tcase_add_test(tc, thousands_of_runs_are_found_and_removed_by_name);
    tcase_add_test(tc, once_json_is_exact);
    tcase_add_test(tc, once_json_unsized_volume_total_is_null);
    tcase_add_test(tc, once_json_strings_are_exact);
    tcase_add_test(tc, once_table_has_the_columns_and_sanitised_names);
    tcase_add_test(tc, extreme_numbers_saturate);
    tcase_add_test(tc, once_table_caps_cells_json_does_not);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
