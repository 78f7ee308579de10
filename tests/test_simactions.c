/* test_simactions.c: the sim's Velero answers what a user asks through the API, as Velero does:
 * a paused schedule (spec.paused) fires nothing, and once unpaused a firing missed meanwhile makes
 * one backup at once; a DataUpload with spec.cancel goes Canceling, then Canceled; a
 * DeleteBackupRequest goes InProgress with its backup Deleting, then the backup is gone and the
 * request Processed, and one for a backup that does not exist is Processed with "backup not
 * found". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "simctl.h"
#include "simstore.h"
#include "testutil.h"

static const char scenario[] =
    "epoch: \"2026-12-01T05:43:20Z\"\n"
    "namespaces: [shop]\n"
    "runs:\n"
    "  - {kind: backup, name: hourly-20261201050000, schedule: hourly,\n"
    "     start: -2600, rate: 10, resources: [{name: pods, items: 5}]}\n"
    "  - kind: backup\n"
    "    name: moving\n"
    "    start: -60\n"
    "    rate: 0.5\n"
    "    resources: [{name: configmaps, items: 1000}]\n"
    "    volumes:\n"
    "      - {pvc: invoices, namespace: shop, uploader: datamover, node: worker-1, size: 50Gi,\n"
    "         rate: 1Mi}\n"
    "  - {kind: backup, name: old, start: -172800, rate: 50, resources: [{name: pods, items: "
    "20}]}\n"
    "schedules:\n"
    "  - {name: hourly, schedule: \"0 * * * *\", template: {rate: 10, resources: "
    "[{name: pods, items: 5}]}}\n";

typedef struct sim {
    char *dir, *path;
    simstore *s;
    simctl *c;
    double e;
} sim;

static void sim_up(sim *m)
{
    m->dir = tu_mkdtemp();
    m->path = tu_write(m->dir, "actions.yaml", scenario);
    m->s = simstore_new(1 << 14);
    simctl_opts o = {
        .scenario = m->path, .speed = 1, .seed = 1, .ns = "velero", .quiet = 1, .manual = 1};
    char err[512] = "";
    m->c = simctl_start(m->s, &o, err, sizeof err);
    ck_assert_msg(m->c != NULL, "%s", err);
    m->e = simctl_epoch(m->c);
}

static void sim_down(sim *m)
{
    simctl_stop(m->c);
    simstore_free(m->s);
    tu_rmrf(m->dir);
    free(m->dir);
    free(m->path);
}

static void patch(sim *m, const char *plural, const char *name, const char *json)
{
    cJSON *p = cJSON_Parse(json);
    int st = 0;
    char *msg = NULL;
    cJSON *o = simstore_merge_patch(m->s, plural, "velero", name, p, &st, &msg);
    ck_assert_msg(o != NULL, "%s", msg ? msg : "?");
    cJSON_Delete(o);
    cJSON_Delete(p);
}

/* "a b c": the names of the schedule's backups, sorted */
static void schedule_backups(sim *m, char *out, size_t n)
{
    cJSON *l = simstore_list(m->s, "backups", "velero", "velero.io/schedule-name=hourly", NULL,
                             NULL, NULL, NULL);
    const char *v[64];
    int k = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, l)
    {
        if (k < 64)
            v[k++] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name"));
    }
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    out[0] = 0;
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", v[i]);
    cJSON_Delete(l);
}

static char *str_at(sim *m, const char *plural, const char *name, const char *a, const char *b)
{
    cJSON *o = simstore_get(m->s, plural, "velero", name);
    const char *v = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b));
    char *r = xstrdup(o ? (v ? v : "") : "(gone)");
    cJSON_Delete(o);
    return r;
}

START_TEST(a_paused_schedule_fires_nothing_and_one_backup_once_unpaused)
{
    sim m;
    char names[1024];
    sim_up(&m);
    patch(&m, "schedules", "hourly", "{\"spec\":{\"paused\":true}}");
    for (double t = m.e + 60; t <= m.e + 10000; t += 60) simctl_advance(m.c, t); /* to 08:30 */
    schedule_backups(&m, names, sizeof names);
    ck_assert_str_eq(names, "hourly-20261201050000");
    patch(&m, "schedules", "hourly", "{\"spec\":{\"paused\":false}}");
    simctl_advance(m.c, m.e + 10060); /* 08:31:00: the missed firings make one backup, now */
    schedule_backups(&m, names, sizeof names);
    ck_assert_str_eq(names, "hourly-20261201050000 hourly-20261201083100");
    for (double t = m.e + 10120; t <= m.e + 11900; t += 60) simctl_advance(m.c, t); /* 09:01 */
    schedule_backups(&m, names, sizeof names);
    ck_assert_str_eq(names, "hourly-20261201050000 hourly-20261201083100 hourly-20261201090000");
    sim_down(&m);
}
END_TEST

START_TEST(a_canceled_data_upload_goes_canceling_then_canceled)
{
    sim m;
    sim_up(&m);
    simctl_advance(m.c, m.e + 1);
    cJSON *l = simstore_list(m.s, "datauploads", "velero", NULL, NULL, NULL, NULL, NULL);
    ck_assert_int_eq(cJSON_GetArraySize(l), 1);
    char *du = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(l, 0), "metadata"), "name")));
    cJSON_Delete(l);
    char *ph = str_at(&m, "datauploads", du, "status", "phase");
    ck_assert_str_eq(ph, "InProgress");
    free(ph);
    patch(&m, "datauploads", du, "{\"spec\":{\"cancel\":true}}");
    simctl_advance(m.c, m.e + 2);
    ph = str_at(&m, "datauploads", du, "status", "phase");
    ck_assert_str_eq(ph, "Canceling");
    free(ph);
    simctl_advance(m.c, m.e + 5);
    ph = str_at(&m, "datauploads", du, "status", "phase");
    ck_assert_str_eq(ph, "Canceled");
    free(ph);
    char *msg = str_at(&m, "datauploads", du, "status", "message");
    ck_assert_str_eq(msg, "data path canceled: spec.cancel was set");
    free(msg);
    free(du);
    sim_down(&m);
}
END_TEST

static char *create_dbr(sim *m, const char *backup)
{
    char *j = xasprintf("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"DeleteBackupRequest\","
                        "\"metadata\":{\"generateName\":\"%s-\",\"namespace\":\"velero\"},"
                        "\"spec\":{\"backupName\":\"%s\"}}",
                        backup, backup);
    int st = 0;
    char *msg = NULL;
    cJSON *o = simstore_create(m->s, "deletebackuprequests", "velero", cJSON_Parse(j), &st, &msg);
    free(j);
    ck_assert_msg(o != NULL, "%s", msg ? msg : "?");
    char *name = xstrdup(cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"), "name")));
    cJSON_Delete(o);
    return name;
}

START_TEST(a_delete_backup_request_deletes_the_backup_then_is_processed)
{
    sim m;
    sim_up(&m);
    simctl_advance(m.c, m.e + 1);
    char *ph = str_at(&m, "backups", "old", "status", "phase");
    ck_assert_str_eq(ph, "Completed");
    free(ph);
    char *dbr = create_dbr(&m, "old"), *none = create_dbr(&m, "nope");
    simctl_advance(m.c, m.e + 2);
    ph = str_at(&m, "deletebackuprequests", dbr, "status", "phase");
    ck_assert_str_eq(ph, "InProgress");
    free(ph);
    ph = str_at(&m, "backups", "old", "status", "phase");
    ck_assert_str_eq(ph, "Deleting");
    free(ph);
    ph = str_at(&m, "deletebackuprequests", none, "status", "phase");
    ck_assert_str_eq(ph, "Processed");
    free(ph);
    cJSON *o = simstore_get(m.s, "deletebackuprequests", "velero", none);
    const cJSON *errs =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "status"), "errors");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(errs, 0)), "backup not found");
    cJSON_Delete(o);
    simctl_advance(m.c, m.e + 6);
    ph = str_at(&m, "backups", "old", "status", "phase");
    ck_assert_str_eq(ph, "(gone)");
    free(ph);
    ph = str_at(&m, "deletebackuprequests", dbr, "status", "phase");
    ck_assert_str_eq(ph, "Processed");
    free(ph);
    /* the other backups are left alone */
    ph = str_at(&m, "backups", "moving", "status", "phase");
    ck_assert_str_eq(ph, "InProgress");
    free(ph);
    free(dbr);
    free(none);
    sim_down(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("simactions");
    TCase *tc = tcase_create("simactions");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_paused_schedule_fires_nothing_and_one_backup_once_unpaused);
    tcase_add_test(tc, a_canceled_data_upload_goes_canceling_then_canceled);
    tcase_add_test(tc, a_delete_backup_request_deletes_the_backup_then_is_processed);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
