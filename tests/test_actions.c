/* test_actions.c: the requests of veltop's actions as the velero CLI makes them (a Backup from a
 * schedule's template, the schedule merge patch, spec.cancel and its Velero 1.17 gate, a
 * DeleteBackupRequest and never a DELETE), the answer words (403 names the user), who may act
 * (the config file, --allow-actions, a bad file refused with its line), and the command copied
 * for every kind of object, pinned. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "kubeclient/util.h"
#include "testutil.h"

static char dir[] = "/tmp/test_actions.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void setup(void)
{
    strcpy(dir, "/tmp/test_actions.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(backup_now_is_the_schedules_template_with_its_label_and_timestamped_name)
{
    char name[300];
    act_backup_name("daily", 1796675100.0, name, sizeof name); /* 2026-12-07 20:25:00 UTC */
    ck_assert_str_eq(name, "daily-20261207202500");
    cJSON *s = cJSON_Parse(
        "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":\"daily\","
        "\"namespace\":\"velero\",\"uid\":\"u-1\",\"labels\":{\"team\":\"a\"},"
        "\"resourceVersion\":\"7\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"template\":{"
        "\"includedNamespaces\":[\"shop\"],\"ttl\":\"720h0m0s\",\"storageLocation\":\"default\"}}"
        "}");
    act_req r;
    char err[300] = "";
    ck_assert_int_eq(act_backup_now(s, name, &r, err, sizeof err), 0);
    ck_assert_str_eq(r.method, "POST");
    ck_assert_str_eq(r.path, "/apis/velero.io/v1/namespaces/velero/backups");
    ck_assert_str_eq(r.content_type, "application/json");
    ck_assert_str_eq(
        r.body, "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                "\"daily-20261207202500\",\"namespace\":\"velero\",\"labels\":{\"team\":\"a\","
                "\"velero.io/schedule-name\":\"daily\"}},\"spec\":{\"includedNamespaces\":["
                "\"shop\"],\"ttl\":\"720h0m0s\",\"storageLocation\":\"default\"},\"status\":{}}");
    act_req_clear(&r);
    cJSON_Delete(s);
    /* the template's labels and annotations win over the schedule's; owner reference on ask */
    s = cJSON_Parse("{\"metadata\":{\"name\":\"w\",\"namespace\":\"v\",\"uid\":\"u-2\","
                    "\"labels\":{\"team\":\"a\"},\"annotations\":{\"x\":\"1\"}},\"spec\":{"
                    "\"useOwnerReferencesInBackup\":true,\"template\":{\"metadata\":{\"labels\":{"
                    "\"tier\":\"gold\"},\"annotations\":{\"y\":\"2\"}},\"resourcePolicy\":{"
                    "\"kind\":\"ConfigMap\",\"name\":\"rp\"}}}}");
    ck_assert_int_eq(act_backup_now(s, "w-20261207202500", &r, err, sizeof err), 0);
    ck_assert_str_eq(
        r.body,
        "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
        "\"w-20261207202500\",\"namespace\":\"v\",\"labels\":{\"tier\":\"gold\",\"velero.io/"
        "schedule-name\":\"w\"},\"annotations\":{\"y\":\"2\"},\"ownerReferences\":[{"
        "\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"name\":\"w\",\"uid\":\"u-2\","
        "\"controller\":true}]},\"spec\":{\"metadata\":{\"labels\":{\"tier\":\"gold\"},"
        "\"annotations\":{\"y\":\"2\"}},\"resourcePolicy\":{\"name\":\"rp\",\"kind\":"
        "\"configmap\"}},\"status\":{}}");
    act_req_clear(&r);
    cJSON_Delete(s);
    /* not a schedule: refused, nothing to send */
    s = cJSON_Parse("{\"kind\":\"Status\"}");
    ck_assert_int_eq(act_backup_now(s, "x", &r, err, sizeof err), -1);
    ck_assert_ptr_null(r.body);
    cJSON_Delete(s);
}
END_TEST

START_TEST(pause_and_cancel_are_merge_patches_and_old_servers_are_not_sent_pod_volume_cancels)
{
    act_obj o;
    act_req r;
    char err[300];
    ck_assert_int_eq(act_obj_parse("/apis/velero.io/v1/namespaces/velero/schedules/daily", &o), 0);
    act_pause(&o, 1, &r);
    ck_assert_str_eq(r.method, "PATCH");
    ck_assert_str_eq(r.path, "/apis/velero.io/v1/namespaces/velero/schedules/daily");
    ck_assert_str_eq(r.content_type, "application/merge-patch+json");
    ck_assert_str_eq(r.body, "{\"spec\":{\"paused\":true}}");
    act_req_clear(&r);
    act_pause(&o, 0, &r);
    ck_assert_str_eq(r.body, "{\"spec\":{\"paused\":false}}");
    act_req_clear(&r);

    act_obj_of_kind(VL_DU, "velero", "b1-x7k2p", &o);
    ck_assert_int_eq(act_cancel(&o, NULL, &r, err, sizeof err), 0); /* any version */
    ck_assert_str_eq(r.path, "/apis/velero.io/v2alpha1/namespaces/velero/datauploads/b1-x7k2p");
    ck_assert_str_eq(r.body, "{\"spec\":{\"cancel\":true}}");
    ck_assert_str_eq(r.content_type, "application/merge-patch+json");
    act_req_clear(&r);
    act_obj_of_kind(VL_PVB, "velero", "b1-pvb", &o);
    ck_assert_int_eq(act_cancel(&o, "v1.16.2", &r, err, sizeof err), -1);
    ck_assert_ptr_null(r.body);
    ck_assert_str_eq(err, "not sent: Velero v1.16.2 cannot cancel a PodVolumeBackup "
                          "(spec.cancel is honoured from 1.17 on)");
    ck_assert_int_eq(act_cancel(&o, NULL, &r, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "version is unknown"));
    ck_assert_int_eq(act_cancel(&o, "v1.17.0", &r, err, sizeof err), 0);
    ck_assert_str_eq(r.path, "/apis/velero.io/v1/namespaces/velero/podvolumebackups/b1-pvb");
    act_req_clear(&r);
    act_obj_of_kind(VL_PVR, "velero", "r1-pvr", &o);
    ck_assert_int_eq(act_cancel(&o, "v1.18.1", &r, err, sizeof err), 0);
    act_req_clear(&r);
    act_obj_of_kind(VL_BACKUP, "velero", "b1", &o);
    ck_assert_int_eq(act_cancel(&o, "v1.18.1", &r, err, sizeof err), -1);
}
END_TEST

START_TEST(delete_is_a_delete_backup_request_with_the_clis_labels)
{
    act_req r;
    act_delete_backup("velero", "nightly-1", "3f1c", &r);
    ck_assert_str_eq(r.method, "POST");
    ck_assert_str_eq(r.path, "/apis/velero.io/v1/namespaces/velero/deletebackuprequests");
    ck_assert_str_eq(r.body,
                     "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"DeleteBackupRequest\","
                     "\"metadata\":{\"generateName\":\"nightly-1-\",\"namespace\":\"velero\","
                     "\"labels\":{\"velero.io/backup-name\":\"nightly-1\",\"velero.io/"
                     "backup-uid\":\"3f1c\"}},\"spec\":{\"backupName\":\"nightly-1\"},"
                     "\"status\":{}}");
    act_req_clear(&r);
    /* a name over 63 characters: the label holds GetValidName (57 characters + 6 of its sha256) */
    char longname[80];
    memset(longname, 'a', 70);
    longname[70] = 0;
    act_delete_backup("velero", longname, "u", &r);
    cJSON *b = cJSON_Parse(r.body);
    const char *lab = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "metadata"), "labels"),
        "velero.io/backup-name"));
    ck_assert_uint_eq(strlen(lab), 63);
    ck_assert(!strncmp(lab, longname, 57));
    cJSON_Delete(b);
    act_req_clear(&r);
}
END_TEST

START_TEST(answers_name_the_user_on_403_and_say_404_and_409)
{
    act_obj o;
    char out[400];
    act_obj_of_kind(VL_SCHEDULE, "velero", "daily", &o);
    act_answer(ACT_PAUSE, &o, NULL, 403,
               "schedules.velero.io \"daily\" is forbidden: User \"viewer\" cannot patch "
               "resource \"schedules\"",
               "viewer", out, sizeof out);
    ck_assert_str_eq(out, "not allowed for user viewer: schedules.velero.io \"daily\" is "
                          "forbidden: User \"viewer\" cannot patch resource \"schedules\"");
    /* the server's name for the user wins over the kubeconfig's entry name */
    act_answer(ACT_PAUSE, &o, NULL, 403,
               "schedules.velero.io \"daily\" is forbidden: User \"system:serviceaccount:velero:"
               "ro\" cannot patch resource \"schedules\"",
               "prod-admin", out, sizeof out);
    ck_assert(strstr(out, "not allowed for user system:serviceaccount:velero:ro: ") == out);
    act_answer(ACT_PAUSE, &o, NULL, 403, "forbidden", "prod-admin", out, sizeof out);
    ck_assert_str_eq(out, "not allowed for user prod-admin: forbidden");
    act_answer(ACT_PAUSE, &o, NULL, 404, "schedules.velero.io \"daily\" not found", "u", out,
               sizeof out);
    ck_assert_str_eq(out, "not found (404): schedules.velero.io \"daily\" not found");
    act_answer(ACT_BACKUP_NOW, &o, NULL, 409, "already exists", "u", out, sizeof out);
    ck_assert_str_eq(out, "conflict (409): already exists");
    act_answer(ACT_BACKUP_NOW, &o, "daily-20261207202500", 201, NULL, "u", out, sizeof out);
    ck_assert_str_eq(out, "backup daily-20261207202500 created from schedule daily");
    act_answer(ACT_UNPAUSE, &o, NULL, 200, NULL, NULL, out, sizeof out);
    ck_assert_str_eq(out, "schedule daily unpaused");
}
END_TEST

START_TEST(the_config_file_turns_actions_on_per_context_and_a_bad_file_says_where)
{
    char err[600] = "";
    act_policy *p = act_policy_load(write_file("c.yaml", "contexts:\n  staging:\n    actions: "
                                                         "true\n  prod:\n    actions: false\n"),
                                    0, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    ck_assert_int_eq(act_policy_allows(p, "staging"), 1);
    ck_assert_int_eq(act_policy_allows(p, "prod"), 0);
    ck_assert_int_eq(act_policy_allows(p, "other"), 0);
    act_policy_free(p);
    /* --allow-actions: every context */
    p = act_policy_load(write_file("e.yaml", ""), 1, err, sizeof err);
    ck_assert_int_eq(act_policy_allows(p, "prod"), 1);
    act_policy_free(p);
    ck_assert_int_eq(act_policy_allows(NULL, "prod"), 0);
    /* a bad value: the file, the line and the key */
    ck_assert_ptr_null(act_policy_load(
        write_file("b.yaml", "contexts:\n  prod:\n    actions: maybe\n"), 0, err, sizeof err));
    char want[400];
    snprintf(want, sizeof want, "%s/b.yaml: line 3: contexts.prod.actions: expected true or false",
             dir);
    ck_assert_str_eq(err, want);
    /* not YAML */
    ck_assert_ptr_null(act_policy_load(write_file("y.yaml", "contexts: [\n"), 0, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "/y.yaml: line "));
    /* the default file missing is no error (read-only everywhere); a given one missing is */
    setenv("XDG_CONFIG_HOME", dir, 1);
    p = act_policy_load(NULL, 0, err, sizeof err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(act_policy_allows(p, "staging"), 0);
    act_policy_free(p);
    ck_assert_ptr_null(act_policy_load("/nonexistent/veltop.yaml", 0, err, sizeof err));
    ck_assert(strstr(err, "/nonexistent/veltop.yaml: ") == err);
}
END_TEST

START_TEST(the_copied_command_is_pinned_per_kind)
{
    static const struct {
        vl_kind k;
        const char *want;
    } runs[] = {
        {VL_BACKUP, "velero backup describe nightly-1 --details -n velero --kubecontext prod"},
        {VL_RESTORE, "velero restore describe nightly-1 --details -n velero --kubecontext prod"},
        {VL_SCHEDULE, "velero schedule describe nightly-1 -n velero --kubecontext prod"},
        {VL_BSL, "velero backup-location get nightly-1 -n velero --kubecontext prod"},
        {VL_PVB, "kubectl get podvolumebackups.velero.io nightly-1 -n velero -o yaml --context "
                 "prod"},
        {VL_PVR, "kubectl get podvolumerestores.velero.io nightly-1 -n velero -o yaml --context "
                 "prod"},
        {VL_DU, "kubectl get datauploads.velero.io nightly-1 -n velero -o yaml --context prod"},
        {VL_DD, "kubectl get datadownloads.velero.io nightly-1 -n velero -o yaml --context prod"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        act_obj o;
        act_obj_of_kind(runs[i].k, "velero", "nightly-1", &o);
        char *c = act_copy_command(&o, "prod");
        ck_assert_str_eq(c, runs[i].want);
        free(c);
    }
    act_obj o;
    ck_assert_int_eq(
        act_obj_parse(
            "/apis/velero.io/v1/namespaces/velero/backuprepositories/shop-default-kopia-x", &o),
        0);
    char *c = act_copy_command(&o, "prod");
    ck_assert_str_eq(c, "velero repo get shop-default-kopia-x -n velero --kubecontext prod");
    free(c);
    ck_assert_int_eq(act_obj_parse("/api/v1/namespaces/velero/pods/velero-5d8f", &o), 0);
    c = act_copy_command(&o, "prod");
    ck_assert_str_eq(c, "kubectl get pods velero-5d8f -n velero -o yaml --context prod");
    free(c);
    ck_assert_int_eq(
        act_obj_parse("/apis/velero.io/v1/namespaces/velero/volumesnapshotlocations/aws", &o), 0);
    c = act_copy_command(&o, "prod");
    ck_assert_str_eq(c, "velero snapshot-location get aws -n velero --kubecontext prod");
    free(c);
    /* a context with a space and a quote: quoted for the shell */
    act_obj_of_kind(VL_BACKUP, "velero", "b", &o);
    c = act_copy_command(&o, "it's prod");
    ck_assert_str_eq(c,
                     "velero backup describe b --details -n velero --kubecontext 'it'\\''s prod'");
    free(c);
    ck_assert_int_eq(act_obj_parse("/apis/velero.io/v1/namespaces/velero/schedules", &o), -1);
    ck_assert_int_eq(act_obj_parse("/version", &o), -1);
}
END_TEST

START_TEST(shell_quoting_leaves_plain_words_and_quotes_the_rest)
{
    static const char *cases[][2] = {
        {"nightly-1", "nightly-1"},
        {"a b", "'a b'"},
        {"", "''"},
        {"$(rm -rf /)", "'$(rm -rf /)'"},
        {"x'y", "'x'\\''y'"},
        {"arn:aws:eks:eu-west-1:1/c", "arn:aws:eks:eu-west-1:1/c"},
        {"a\nb", "'a\nb'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *q = act_shell_quote(cases[i][0]);
        ck_assert_str_eq(q, cases[i][1]);
        free(q);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("actions");
    TCase *tc = tcase_create("actions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, backup_now_is_the_schedules_template_with_its_label_and_timestamped_name);
    tcase_add_test(
        tc, pause_and_cancel_are_merge_patches_and_old_servers_are_not_sent_pod_volume_cancels);
    tcase_add_test(tc, delete_is_a_delete_backup_request_with_the_clis_labels);
    tcase_add_test(tc, answers_name_the_user_on_403_and_say_404_and_409);
    tcase_add_test(tc, the_config_file_turns_actions_on_per_context_and_a_bad_file_says_where);
    tcase_add_test(tc, the_copied_command_is_pinned_per_kind);
    tcase_add_test(tc, shell_quoting_leaves_plain_words_and_quotes_the_rest);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
