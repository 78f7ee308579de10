/* test_lognote.c: a run whose items move while the Velero server's log has no per-item line of it
 * (the server runs above --log-level info) gets a note where its rows would be, instead of zeros;
 * a run whose log says what moves gets rows and no note. Against the in-process veltop-sim, whose
 * Velero pod log is written here line by line (v1.18.1 lines). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "kubeclient/kubeconfig.h"
#include "logderive.h"
#include "testutil.h"
#include "vsim.h"

static tu_sim env;
static app *a;
static logderive *d;

static void create_backup(const char *name, double started)
{
    char ts[40];
    kc_format_time(started, ts, sizeof ts);
    char *j = xasprintf("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{"
                        "\"name\":\"%s\"},\"spec\":{\"storageLocation\":\"default\"},\"status\":{"
                        "\"phase\":\"InProgress\",\"startTimestamp\":\"%s\",\"progress\":{"
                        "\"totalItems\":40,\"itemsBackedUp\":12}}}",
                        name, ts);
    cJSON *o = cJSON_Parse(j);
    int status = 0;
    char *msg = NULL;
    cJSON *r = simstore_create(vsim_store(env.sim), "backups", "velero", o, &status, &msg);
    ck_assert_msg(r != NULL, "%d %s", status, msg ? msg : "");
    cJSON_Delete(r);
    free(msg);
    free(j);
}

static void log_line(double when, const char *line)
{
    simstore_log_append(vsim_store(env.sim), sim_velero_pod_name(), when, line);
}

static const char *note_of(const char *name)
{
    return logderive_note(d, model_find_run(a->model, VL_BACKUP, name));
}

static int quiet_noted(void *arg)
{
    (void)arg;
    const model_run *loud = model_find_run(a->model, VL_BACKUP, "loud");
    return note_of("quiet") != NULL && loud && loud->n_derived > 0;
}

static int quiet_has_rows(void *arg)
{
    (void)arg;
    const model_run *q = model_find_run(a->model, VL_BACKUP, "quiet");
    return note_of("quiet") == NULL && q && q->n_derived > 0;
}

START_TEST(silent_server_log_is_said_not_zeros)
{
    tu_sim_start(&env, (vsim_opts){0});
    double t0 = kc_wall_now() - 60;
    create_backup("quiet", t0);
    create_backup("loud", t0);
    /* --log-level warning: only a warning of "quiet" is written */
    log_line(t0 + 1, "time=\"2026-12-01T02:00:01Z\" level=warning msg=\"Skipping item because it "
                     "is a mirror pod\" backup=velero/quiet logSource=\"pkg/backup/"
                     "item_backupper.go:240\" name=static-web namespace=shop resource=pods");
    /* "loud" at info: its lines say what moves */
    log_line(t0 + 2, "time=\"2026-12-01T02:00:02Z\" level=info msg=\"Retrieved 40 items\" "
                     "backup=velero/loud group=v1 logSource=\"pkg/backup/item_collector.go:575\" "
                     "namespace=shop resource=pods");
    log_line(t0 + 3, "time=\"2026-12-01T02:00:03Z\" level=info msg=\"Backing up item\" "
                     "backup=velero/loud logSource=\"pkg/backup/item_backupper.go:186\" name=p0 "
                     "namespace=shop resource=pods");

    tu_sim_connect(&env);
    a = app_new(env.loop, env.client, "c", env.server, "velero");
    d = logderive_new(a);
    ck_assert_int_eq(kc_loop_run_until(env.loop, quiet_noted, NULL, 20000), 1);
    ck_assert_str_eq(note_of("quiet"), LOGDERIVE_SILENT_NOTE);
    ck_assert_ptr_null(note_of("loud"));
    const model_run *loud = model_find_run(a->model, VL_BACKUP, "loud");
    ck_assert_str_eq(loud->derived[0].resource, "pods");
    ck_assert_int_eq(loud->derived[0].done, 1);
    ck_assert_int_eq(loud->derived[0].total, 40);

    /* the same server, now at info: a per-item line of "quiet" lifts the note */
    log_line(kc_wall_now(), "time=\"2026-12-01T02:01:00Z\" level=info msg=\"Backing up item\" "
                            "backup=velero/quiet logSource=\"pkg/backup/item_backupper.go:186\" "
                            "name=p1 namespace=shop resource=pods");
    ck_assert_int_eq(kc_loop_run_until(env.loop, quiet_has_rows, NULL, 20000), 1);
    ck_assert_ptr_null(logderive_note(NULL, NULL));

    logderive_free(d);
    app_free(a);
    tu_sim_stop(&env);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lognote");
    TCase *tc = tcase_create("lognote");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, silent_server_log_is_said_not_zeros);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
