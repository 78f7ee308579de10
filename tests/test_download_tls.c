/* test_download_tls.c: an object store with a self-signed CA (a local HTTPS server made here with
 * the sim's tlsgen): its URL fails with the system roots alone, works once its CA is trusted as a
 * memory blob (a BSL's caCert, --cacert), fails with another CA, and never gets the cluster's
 * credentials. */
#include <arpa/inet.h>
#include <check.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/client.h"
#include "kubeclient/kubeconfig.h"
#include "testutil.h"
#include "tlsgen.h"

static atomic_int requests, with_auth;

static enum MHD_Result store_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload_data, (void)upload_size;
    (void)con_cls;
    atomic_fetch_add(&requests, 1);
    if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"))
        atomic_fetch_add(&with_auth, 1);
    static const char body[] = "object store says hi";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    return ret;
}

typedef struct got {
    int done;
    long status;
    char body[128];
    char err[1024];
} got;

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    got *g = arg;
    g->done = 1;
    g->status = resp->status;
    snprintf(g->body, sizeof g->body, "%.*s", (int)resp->body_len, resp->body ? resp->body : "");
    snprintf(g->err, sizeof g->err, "%s", err->msg);
}

static int is_done(void *arg)
{
    return ((got *)arg)->done;
}

START_TEST(object_store_with_self_signed_ca)
{
    tlsgen store = {0}, other = {0};
    char e[256];
    ck_assert_msg(tlsgen_make(&store, "127.0.0.1", e, sizeof e) == 0, "%s", e);
    ck_assert_msg(tlsgen_make(&other, "127.0.0.1", e, sizeof e) == 0, "%s", e);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS, 0, NULL, NULL, store_handler, NULL,
        MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_HTTPS_MEM_CERT, store.server_cert,
        MHD_OPTION_HTTPS_MEM_KEY, store.server_key, MHD_OPTION_END);
    ck_assert_ptr_nonnull(d);
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;

    /* a cluster with a token: the token must never reach the object store */
    char *dir = tu_mkdtemp();
    char *kc = tu_write(dir, "kubeconfig",
                        "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                        "  cluster:\n    server: https://127.0.0.1:9\ncontexts:\n- name: c\n"
                        "  context:\n    cluster: k\n    user: u\nusers:\n- name: u\n  user:\n"
                        "    token: s3cr3t-cluster-token\n");
    kc_config_opts co = {.kubeconfig = kc};
    kc_err err = {0};
    kc_rest_config *cfg = kc_config_load(&co, &err);
    ck_assert_msg(cfg != NULL, "%s", err.msg);
    kc_loop *loop = kc_loop_new();
    kc_client *c = kc_client_new(loop, cfg, &err);
    kc_rest_config_free(cfg);
    char *url =
        xasprintf("https://127.0.0.1:%d/velero/backups/b1/b1-logs.gz?X-Amz-Signature=x", port);

    const char *cas[3] = {NULL, other.ca_cert, store.ca_cert};
    got g[3];
    for (int i = 0; i < 3; i++) {
        memset(&g[i], 0, sizeof g[i]);
        kc_request_opts o = {.path = url,
                             .accept = "*/*",
                             .accept_encoding = "identity",
                             .timeout_ms = 10000,
                             .extra_ca_pem = cas[i],
                             .extra_ca_len = cas[i] ? strlen(cas[i]) : 0};
        kc_client_request(c, &o, NULL, on_done, &g[i]);
        ck_assert_int_eq(kc_loop_run_until(loop, is_done, &g[i], 15000), 1);
    }
    /* the system roots alone, or another CA: the certificate is refused */
    ck_assert_msg(g[0].err[0] && g[0].status == 0, "no CA: %ld %s", g[0].status, g[0].err);
    /* named as TLS verification of the object store, by its origin only (the path and query
     * may be the URL's signature), with where its CA goes; never the kubeconfig's CA */
    char *want = xasprintf("TLS verification of the object store https://127.0.0.1:%d failed: "
                           "its certificate is not signed by a certificate authority trusted for "
                           "it (the system's, the BackupStorageLocation's caCert, --cacert), or is "
                           "not for that host name",
                           port);
    /* (then libcurl's own detail in parentheses) */
    ck_assert_msg(!strncmp(g[0].err, want, strlen(want)) && g[0].err[strlen(want)] == ' ', "%s",
                  g[0].err);
    ck_assert_msg(g[1].err[0] && g[1].status == 0, "other CA: %ld %s", g[1].status, g[1].err);
    ck_assert_msg(!strncmp(g[1].err, want, strlen(want)) && g[1].err[strlen(want)] == ' ', "%s",
                  g[1].err);
    free(want);
    /* the store's CA beside the system roots: the object arrives */
    ck_assert_msg(!g[2].err[0], "%s", g[2].err);
    ck_assert_int_eq(g[2].status, 200);
    ck_assert_str_eq(g[2].body, "object store says hi");
    ck_assert_int_eq(atomic_load(&requests), 1); /* the TLS handshakes failed before HTTP */
    ck_assert_int_eq(atomic_load(&with_auth), 0);

    free(url);
    kc_client_free(c);
    kc_loop_free(loop);
    MHD_stop_daemon(d);
    tlsgen_free(&store);
    tlsgen_free(&other);
    tu_rmrf(dir);
    free(dir);
    free(kc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("download_tls");
    TCase *tc = tcase_create("download_tls");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, object_store_with_self_signed_ca);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
