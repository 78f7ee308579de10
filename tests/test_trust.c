/* test_trust.c: what an artifact download trusts beside the system roots: --cacert and the caCert
 * of the BSL the run's backup lives in (a restore's: its backup's), read from the cluster (the
 * in-process veltop-sim) exactly as given. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "kubeclient/kubeconfig.h"
#include "testutil.h"
#include "tlsgen.h"
#include "vsim.h"

static void create(vsim *sim, const char *plural, const char *json)
{
    cJSON *o = cJSON_Parse(json);
    ck_assert_ptr_nonnull(o);
    int status = 0;
    char *msg = NULL;
    cJSON *r = simstore_create(vsim_store(sim), plural, "velero", o, &status, &msg);
    ck_assert_msg(r != NULL, "%s: %d %s", plural, status, msg ? msg : "");
    cJSON_Delete(r);
    free(msg);
}

static int synced(void *arg)
{
    return app_synced(arg);
}

START_TEST(download_trusts_cacert_and_the_runs_bsl_ca)
{
    tlsgen t = {0};
    char e[256];
    ck_assert_msg(tlsgen_make(&t, "127.0.0.1", e, sizeof e) == 0, "%s", e);
    char *b64 = kc_base64_encode((const unsigned char *)t.ca_cert, strlen(t.ca_cert));
    tu_sim env;
    tu_sim_start(&env, (vsim_opts){0});
    char *bsl = xasprintf(
        "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"BackupStorageLocation\",\"metadata\":{"
        "\"name\":\"onprem\"},\"spec\":{\"provider\":\"aws\",\"objectStorage\":{\"bucket\":"
        "\"velero\",\"caCert\":\"%s\"}}}",
        b64);
    create(env.sim, "backupstoragelocations", bsl);
    create(env.sim, "backupstoragelocations",
           "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"BackupStorageLocation\",\"metadata\":{"
           "\"name\":\"bad\"},\"spec\":{\"objectStorage\":{\"bucket\":\"b\",\"caCert\":\"%%%\"}}}");
    create(env.sim, "backups",
           "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"b1\"},"
           "\"spec\":{\"storageLocation\":\"onprem\"}}");
    create(env.sim, "backups",
           "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"b2\"},"
           "\"spec\":{\"storageLocation\":\"bad\"}}");
    create(env.sim, "restores",
           "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Restore\",\"metadata\":{\"name\":\"r1\"},"
           "\"spec\":{\"backupName\":\"b1\"}}");

    tu_sim_connect(&env);
    app *a = app_new(env.loop, env.client, "c", env.server, "velero");
    ck_assert_int_eq(kc_loop_run_until(env.loop, synced, a, 15000), 1);

    kc_buf b = {0};
    app_download_trust(a, 0, "b1", &b); /* no --cacert: the BSL's CA alone */
    char *want = xasprintf("%s\n", t.ca_cert);
    ck_assert_str_eq(kc_buf_cstr(&b), want);
    const char *mine = "-----BEGIN CERTIFICATE-----\nMINE\n-----END CERTIFICATE-----\n";
    a->cacert = xstrdup(mine);
    a->cacert_len = strlen(mine);
    char *both = xasprintf("%s\n%s\n", mine, t.ca_cert);
    b.len = 0;
    app_download_trust(a, 1, "r1", &b); /* a restore: its backup's BSL */
    ck_assert_str_eq(kc_buf_cstr(&b), both);
    char *only_mine = xasprintf("%s\n", mine);
    const char *none[][2] = {{"0", "b2"}, {"0", "gone"}, {"1", "b1"}, {"1", "gone"}};
    for (size_t i = 0; i < 4; i++) { /* not base64, unknown runs: --cacert only */
        b.len = 0;
        app_download_trust(a, none[i][0][0] == '1', none[i][1], &b);
        ck_assert_msg(!strcmp(kc_buf_cstr(&b), only_mine), "%s %s", none[i][0], none[i][1]);
    }
    kc_buf_free(&b);
    free(want);
    free(both);
    free(only_mine);
    app_free(a);
    tu_sim_stop(&env);
    free(bsl);
    free(b64);
    tlsgen_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trust");
    TCase *tc = tcase_create("trust");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, download_trusts_cacert_and_the_runs_bsl_ca);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
