/* testutil.c: small helpers shared by the Check suites. */
#include "testutil.h"

#include "kubeclient/download.h"
#include "artifacts.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tu_mkdtemp(void)
{
    char *t = xstrdup("/tmp/veltop-test-XXXXXX");
    if (!mkdtemp(t)) abort();
    return t;
}

char *tu_write(const char *dir, const char *name, const char *content)
{
    char *p = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) abort();
    fputs(content, f);
    fclose(f);
    return p;
}

char *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    kc_buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) kc_buf_append(&b, tmp, n);
    fclose(f);
    if (len) *len = b.len;
    return kc_buf_cstr(&b);
}

void tu_rmrf(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/veltop-test-", 17) != 0) return;
    char *cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0) { /* best effort */
    }
    free(cmd);
}

void tu_sim_start(tu_sim *t, vsim_opts o)
{
    memset(t, 0, sizeof *t);
    t->dir = tu_mkdtemp();
    t->kubeconfig = xasprintf("%s/kubeconfig", t->dir);
    o.kubeconfig_out = t->kubeconfig;
    o.quiet = 1;
    char err[256] = "";
    t->sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(t->sim != NULL, "vsim_start: %s", err);
}

void tu_sim_connect(tu_sim *t)
{
    kc_config_opts co = {.kubeconfig = t->kubeconfig};
    kc_err e = {0};
    kc_rest_config *cfg = kc_config_load(&co, &e);
    ck_assert_msg(cfg != NULL, "config: %s", e.msg);
    t->server = xstrdup(cfg->server);
    t->loop = kc_loop_new();
    t->client = kc_client_new(t->loop, cfg, &e);
    kc_rest_config_free(cfg);
    ck_assert_msg(t->client != NULL, "client: %s", e.msg);
}

void tu_sim_stop(tu_sim *t)
{
    kc_download_abandon(t->client); /* DownloadRequests let go whose DELETE did not come back */
    kc_client_free(t->client);
    kc_loop_free(t->loop);
    vsim_stop(t->sim);
    tu_rmrf(t->dir);
    free(t->dir);
    free(t->kubeconfig);
    free(t->server);
    memset(t, 0, sizeof *t);
}

int tu_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

char *tu_sim_artifact(simstore *s, simctl *c, const char *name, const char *kind,
                      const char *target)
{
    cJSON *dr = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(dr, "metadata"), "name", name);
    cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(dr, "spec"), "target");
    cJSON_AddStringToObject(t, "kind", kind);
    cJSON_AddStringToObject(t, "name", target);
    int st;
    char *msg = NULL;
    cJSON_Delete(simstore_create(s, "downloadrequests", "velero", dr, &st, &msg));
    free(msg);
    char *url = NULL;
    for (int64_t deadline = kc_now_ms() + 10000; !url && kc_now_ms() < deadline;) {
        int gone;
        simstore_watch *w =
            simstore_watch_open(s, "downloadrequests", "velero", NULL, NULL, simstore_rv(s), &gone);
        cJSON *got = simstore_get(s, "downloadrequests", "velero", name);
        cJSON *u = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, "status"),
                                                    "downloadURL");
        if (cJSON_IsString(u)) url = xstrdup(u->valuestring);
        cJSON_Delete(got);
        const char *type;
        uint64_t rv;
        if (!url) cJSON_Delete(simstore_watch_next(w, 50, &type, &rv));
        simstore_watch_close(w);
    }
    ck_assert_ptr_nonnull(url);
    unsigned char *gz;
    size_t gzlen, len;
    int status;
    ck_assert_int_eq(simctl_download(c, strrchr(url, '/') + 1, &gz, &gzlen, &status), 0);
    char *text = artifacts_gunzip(gz, gzlen, &len);
    free(gz);
    free(url);
    ck_assert_ptr_nonnull(text);
    return text;
}
