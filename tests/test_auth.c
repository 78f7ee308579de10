/* test_auth.c: request credentials: static token, tokenFile re-read once a minute, exec plugins
 * run from the loop (caching until expiry, re-run after a 401, KUBERNETES_EXEC_INFO, errors). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include "kubeclient/auth.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
#include "testutil.h"

#define PLUGINS FIXTURES_DIR "/plugins"
#define V1      "client.authentication.k8s.io/v1"
#define V1BETA1 "client.authentication.k8s.io/v1beta1"

static char *tmpdir, *count_file, *info_file;
static kc_loop *loop;

static void setup(void)
{
    tmpdir = tu_mkdtemp();
    count_file = xasprintf("%s/count", tmpdir);
    info_file = xasprintf("%s/info", tmpdir);
    loop = kc_loop_new();
}

static void teardown(void)
{
    kc_loop_free(loop);
    tu_rmrf(tmpdir);
    free(tmpdir);
    free(count_file);
    free(info_file);
}

/* Loads a kubeconfig with one cluster (cluster_yaml) and one user (user_yaml). */
static kc_rest_config *load(const char *cluster_yaml, const char *user_yaml)
{
    char *doc = xasprintf("current-context: x\n"
                          "clusters:\n- name: c\n  cluster:\n%s"
                          "users:\n- name: u\n  user:\n%s"
                          "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                          cluster_yaml, user_yaml);
    char *p = tu_write(tmpdir, "config", doc);
    free(doc);
    kc_config_opts o = {.kubeconfig = p, .home = "/nonexistent", .env_kubeconfig = ""};
    kc_err err = {0};
    kc_rest_config *r = kc_config_load(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    free(p);
    return r;
}

#define HTTPS "    server: https://127.0.0.1:6443\n"

/* The exec user for the token plugin, with its env (COUNT_FILE, INFO_FILE, API_VERSION...). */
static kc_rest_config *load_token_plugin(const char *api_version, const char *extra_exec)
{
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: %s\n"
                           "      command: %s/token-plugin.sh\n"
                           "      args: [a, b]\n"
                           "      interactiveMode: Never\n"
                           "      env:\n"
                           "      - {name: COUNT_FILE, value: '%s'}\n"
                           "      - {name: INFO_FILE, value: '%s'}\n"
                           "      - {name: API_VERSION, value: '%s'}\n"
                           "%s",
                           api_version, PLUGINS, count_file, info_file, api_version, extra_exec);
    kc_rest_config *r = load(HTTPS, user);
    free(user);
    return r;
}

typedef struct {
    int calls;
    char msg[1024];
} waiter;

static void on_ready(void *arg, const kc_err *err)
{
    waiter *w = arg;
    w->calls++;
    snprintf(w->msg, sizeof w->msg, "%s", err->msg);
}

static int waiter_called(void *arg)
{
    return ((waiter *)arg)->calls > 0;
}

/* Asks for credentials and runs the loop until they are ready; returns the error ("" if ok). */
static const char *wait_ready(kc_auth *a)
{
    static waiter w;
    memset(&w, 0, sizeof w);
    if (kc_auth_ready(a, on_ready, &w)) return "";
    ck_assert_int_eq(kc_loop_run_until(loop, waiter_called, &w, 10000), 1);
    ck_assert_int_eq(w.calls, 1);
    return w.msg;
}

/* The Authorization header kc_auth_apply adds ("" if none). */
static char *auth_header(kc_auth *a)
{
    CURL *easy = curl_easy_init();
    struct curl_slist *h = kc_auth_apply(a, easy, NULL);
    char *out = xstrdup("");
    for (struct curl_slist *p = h; p; p = p->next)
        if (!strncmp(p->data, "Authorization: ", 15)) {
            free(out);
            out = xstrdup(p->data);
        }
    curl_slist_free_all(h);
    curl_easy_cleanup(easy);
    return out;
}

#define ck_assert_header(a, want)                                                                  \
    do {                                                                                           \
        char *h_ = auth_header(a);                                                                 \
        ck_assert_str_eq(h_, want);                                                                \
        free(h_);                                                                                  \
    } while (0)

static int count_runs(void)
{
    char *s = tu_read(count_file, NULL);
    int n = 0;
    for (char *p = s; p && *p; p++) n += *p == '\n';
    free(s);
    return n;
}

START_TEST(static_token_is_sent_over_https_only)
{
    kc_rest_config *c = load(HTTPS, "    token: static-tok\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "Authorization: Bearer static-tok");
    ck_assert_int_eq(kc_auth_invalidate(a), 0); /* a static token cannot get better */
    kc_auth_free(a);
    kc_rest_config_free(c);

    /* as kubectl: no credentials at all over plain http, and no plugin run */
    c = load("    server: http://127.0.0.1:8080\n", "    token: static-tok\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "");
    kc_auth_free(a);
    kc_rest_config_free(c);

    /* basic auth goes through curl's own options, not a header of ours */
    c = load(HTTPS, "    username: bob\n    password: hunter2\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "");
    kc_auth_free(a);
    kc_rest_config_free(c);
    kc_auth_free(NULL);
}
END_TEST

static int64_t fake_ms;
static int64_t fake_mono(void *arg)
{
    (void)arg;
    return fake_ms;
}

START_TEST(token_file_is_reread_after_a_minute)
{
    free(tu_write(tmpdir, "token", "one\n"));
    kc_rest_config *c = load(HTTPS, "    tokenFile: token\n");
    kc_auth *a = kc_auth_new(c, loop);
    fake_ms = 1000000;
    kc_auth_set_clocks(a, fake_mono, NULL, NULL);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "Authorization: Bearer one");

    free(tu_write(tmpdir, "token", "two\n"));
    fake_ms += 59999;
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "Authorization: Bearer one");
    fake_ms += 1;
    ck_assert_header(a, "Authorization: Bearer two");

    /* a 401 forces a re-read at once, once */
    free(tu_write(tmpdir, "token", "three"));
    ck_assert_header(a, "Authorization: Bearer two");
    ck_assert_int_eq(kc_auth_invalidate(a), 1);
    ck_assert_int_eq(kc_auth_invalidate(a), 0);
    ck_assert_header(a, "Authorization: Bearer three");

    /* a file that vanished keeps the last token (as client-go) */
    char *p = xasprintf("%s/token", tmpdir);
    unlink(p);
    free(p);
    fake_ms += 60000;
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "Authorization: Bearer three");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(token_file_interval_is_configurable)
{
    free(tu_write(tmpdir, "token", "one"));
    kc_rest_config *c = load(HTTPS, "    tokenFile: token\n");
    kc_auth *a = kc_auth_new(c, loop);
    fake_ms = 5000;
    kc_auth_set_clocks(a, fake_mono, NULL, NULL);
    kc_auth_set_token_file_interval(a, 10);
    ck_assert_header(a, "Authorization: Bearer one");
    free(tu_write(tmpdir, "token", "two"));
    fake_ms += 9;
    ck_assert_header(a, "Authorization: Bearer one");
    fake_ms += 1;
    ck_assert_header(a, "Authorization: Bearer two");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(token_file_unreadable_at_first_read_is_an_error)
{
    free(tu_write(tmpdir, "token", "one"));
    kc_rest_config *c = load(HTTPS, "    tokenFile: token\n");
    char *p = xasprintf("%s/token", tmpdir);
    unlink(p);
    kc_auth *a = kc_auth_new(c, loop);
    char *want = xasprintf("cannot read token file %s: No such file or directory", p);
    ck_assert_str_eq(wait_ready(a), want);
    free(want);
    free(p);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

typedef struct {
    kc_auth *a;
    waiter w;
    int polls;       /* answered from the cache */
    int rerun_early; /* the plugin ran again while the cache still answered */
} expiry_probe;

/* True once kc_auth_ready no longer answers from the cache (it then starts the plugin). */
static int cache_expired(void *arg)
{
    expiry_probe *p = arg;
    int runs = count_runs();
    if (kc_auth_ready(p->a, on_ready, &p->w) == 0) return 1;
    p->polls++;
    if (runs != 1) p->rerun_early = 1;
    return 0;
}

START_TEST(exec_token_is_cached_until_it_expires)
{
    kc_rest_config *c = load_token_plugin(V1, "      - {name: EXPIRE_IN, value: '2'}\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_header(a, ""); /* nothing before the plugin ran */
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_int_eq(count_runs(), 1);
    ck_assert_uint_eq(kc_auth_exec_runs(a), 1);
    ck_assert_header(a, "Authorization: Bearer token-1");
    double t0 = kc_wall_now();

    /* not re-run before the expiry: every poll is answered from the cache ... */
    expiry_probe p = {.a = a};
    ck_assert_int_eq(kc_loop_run_until(loop, cache_expired, &p, 10000), 1);
    ck_assert_int_gt(p.polls, 5);
    ck_assert(kc_wall_now() - t0 >= 0.9); /* expiry is 2 s from a whole second: >= 1 s away */
    ck_assert_int_eq(p.rerun_early, 0);
    ck_assert_uint_eq(kc_auth_exec_runs(a), 2); /* the expired probe started the second run */
    /* ... and re-run once after it */
    ck_assert_int_eq(kc_loop_run_until(loop, waiter_called, &p.w, 10000), 1);
    ck_assert_str_eq(p.w.msg, "");
    ck_assert_int_eq(count_runs(), 2);
    ck_assert_header(a, "Authorization: Bearer token-2");
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(exec_v1beta1_without_cluster_info)
{
    setenv("EXTRA", "from-host", 1);
    setenv("KUBERNETES_EXEC_INFO", "stale", 1);
    kc_rest_config *c =
        load_token_plugin(V1BETA1, "      - {name: EXTRA, value: from-kubeconfig}\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_header(a, "Authorization: Bearer token-1");
    char *info = tu_read(info_file, NULL);
    ck_assert_str_eq(info, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1BETA1 "\","
                           "\"spec\":{\"interactive\":false}}\n"
                           "args:a b\n"
                           "EXTRA=from-kubeconfig\n");
    free(info);
    /* no expirationTimestamp: cached for the process lifetime */
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_int_eq(count_runs(), 1);
    unsetenv("EXTRA");
    unsetenv("KUBERNETES_EXEC_INFO");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(exec_v1_with_cluster_info)
{
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: %s/token-plugin.sh\n"
                           "      interactiveMode: IfAvailable\n"
                           "      provideClusterInfo: true\n"
                           "      env:\n"
                           "      - {name: COUNT_FILE, value: '%s'}\n"
                           "      - {name: INFO_FILE, value: '%s'}\n"
                           "      - {name: API_VERSION, value: '" V1 "'}\n",
                           PLUGINS, count_file, info_file);
    kc_rest_config *c = load(HTTPS "    certificate-authority-data: Q0EtUEVN\n"
                                   "    tls-server-name: kubernetes\n"
                                   "    proxy-url: socks5://127.0.0.1:1080\n",
                             user);
    free(user);
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "");
    char *info = tu_read(info_file, NULL);
    ck_assert_str_eq(info, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
                           "\"spec\":{\"cluster\":{\"server\":\"https://127.0.0.1:6443\","
                           "\"tls-server-name\":\"kubernetes\","
                           "\"certificate-authority-data\":\"Q0EtUEVN\","
                           "\"proxy-url\":\"socks5://127.0.0.1:1080\",\"config\":null},"
                           "\"interactive\":false}}\n"
                           "args:\n"
                           "EXTRA=\n");
    free(info);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(exec_wrong_api_version_is_an_error)
{
    /* configured v1beta1, the plugin answers v1 */
    kc_rest_config *c = load_token_plugin(V1BETA1, "");
    free(c->exec->env_values[2]);
    c->exec->env_values[2] = xstrdup(V1);
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "exec plugin \"" PLUGINS "/token-plugin.sh\" returned "
                                    "apiVersion " V1 ", expected " V1BETA1);
    ck_assert_header(a, "");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(failing_plugin_reports_status_and_stderr)
{
    kc_rest_config *c = load(HTTPS, "    exec:\n"
                                    "      apiVersion: " V1 "\n"
                                    "      command: " PLUGINS "/fail-plugin.sh\n"
                                    "      interactiveMode: Never\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a),
                     "exec plugin \"" PLUGINS "/fail-plugin.sh\" failed with exit status 3: "
                     "error: cannot reach the identity provider; hint: run 'login' first; "
                     "third line");
    /* a failure is not cached: the next request tries again */
    ck_assert_str_ne(wait_ready(a), "");
    ck_assert_uint_eq(kc_auth_exec_runs(a), 2);
    kc_auth_free(a);
    kc_rest_config_free(c);

    c = load(HTTPS, "    exec:\n"
                    "      apiVersion: " V1 "\n"
                    "      command: " PLUGINS "/garbage-plugin.sh\n"
                    "      interactiveMode: Never\n");
    a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "exec plugin \"" PLUGINS "/garbage-plugin.sh\" printed no "
                                    "valid ExecCredential JSON");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(missing_plugin_says_so_with_the_install_hint)
{
    kc_rest_config *c = load(HTTPS, "    exec:\n"
                                    "      apiVersion: " V1BETA1 "\n"
                                    "      command: veltop-no-such-plugin\n"
                                    "      installHint: |\n"
                                    "        veltop-no-such-plugin is needed.\n"
                                    "        Install it from https://example.com\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "exec plugin \"veltop-no-such-plugin\" not found: "
                                    "veltop-no-such-plugin is needed. Install it from "
                                    "https://example.com");
    ck_assert_uint_eq(kc_auth_exec_runs(a), 0);
    kc_auth_free(a);
    kc_rest_config_free(c);

    /* interactiveMode Always cannot be honoured: stdin belongs to the screen */
    c = load(HTTPS, "    exec:\n"
                    "      apiVersion: " V1 "\n"
                    "      command: " PLUGINS "/token-plugin.sh\n"
                    "      interactiveMode: Always\n");
    a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "exec plugin \"" PLUGINS "/token-plugin.sh\" needs an "
                                    "interactive terminal (interactiveMode Always), which veltop "
                                    "cannot give it");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(invalidate_reruns_the_plugin_once)
{
    kc_rest_config *c = load_token_plugin(V1, "");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_int_eq(kc_auth_invalidate(a), 0); /* nothing to drop yet */
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_header(a, "Authorization: Bearer token-1");
    ck_assert_int_eq(kc_auth_invalidate(a), 1);
    ck_assert_int_eq(kc_auth_invalidate(a), 0); /* once per credential */
    ck_assert_int_eq(count_runs(), 1);
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_int_eq(count_runs(), 2);
    ck_assert_header(a, "Authorization: Bearer token-2");
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_int_eq(kc_auth_invalidate(a), 1); /* the new credential may be dropped again */
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(waiters_share_one_run_and_can_be_forgotten)
{
    kc_rest_config *c = load_token_plugin(V1, "");
    kc_auth *a = kc_auth_new(c, loop);
    waiter w1 = {0}, w2 = {0}, w3 = {0};
    ck_assert_int_eq(kc_auth_ready(a, on_ready, &w1), 0);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, &w2), 0);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, &w3), 0);
    kc_auth_forget(a, &w2);
    ck_assert_int_eq(kc_loop_run_until(loop, waiter_called, &w3, 10000), 1);
    ck_assert_int_eq(w1.calls, 1);
    ck_assert_int_eq(w2.calls, 0);
    ck_assert_int_eq(w3.calls, 1);
    ck_assert_int_eq(count_runs(), 1);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(free_while_the_plugin_runs)
{
    kc_rest_config *c = load_token_plugin(V1, "");
    kc_auth *a = kc_auth_new(c, loop);
    waiter w = {0};
    ck_assert_int_eq(kc_auth_ready(a, on_ready, &w), 0);
    kc_auth_free(a); /* kills and reaps the child; the callback never comes */
    kc_loop_run_once(loop, 10);
    ck_assert_int_eq(w.calls, 0);
    kc_rest_config_free(c);
}
END_TEST

START_TEST(exec_client_certificate)
{
    kc_rest_config *c =
        load(HTTPS, "    exec:\n"
                    "      apiVersion: " V1 "\n"
                    "      command: " PLUGINS "/cert-plugin.sh\n"
                    "      interactiveMode: Never\n"
                    "      env: [{name: CERT_DIR, value: '" FIXTURES_DIR "/kubeconfig/certs'}]\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_header(a, ""); /* a certificate, no bearer token */
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

/* ---- against a real TLS server (libmicrohttpd + GnuTLS on 127.0.0.1) ---- */

#define CERTS FIXTURES_DIR "/kubeconfig/certs"

/* What the server saw of the last request. */
static char seen_auth[256], seen_cn[128];

static enum MHD_Result tls_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_size, void **ptr)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload_data, (void)upload_size;
    (void)ptr;
    const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
    snprintf(seen_auth, sizeof seen_auth, "%s", h ? h : "");
    seen_cn[0] = '\0';
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    unsigned n = 0;
    const gnutls_datum_t *peers =
        ci ? gnutls_certificate_get_peers((gnutls_session_t)ci->tls_session, &n) : NULL;
    if (peers && n) {
        gnutls_x509_crt_t crt;
        gnutls_x509_crt_init(&crt);
        size_t len = sizeof seen_cn;
        if (gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) == 0)
            gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, seen_cn, &len);
        gnutls_x509_crt_deinit(crt);
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

typedef struct {
    int done;
    CURLcode res;
} xfer;

static void xfer_done(void *arg, CURL *easy, CURLcode res)
{
    (void)easy;
    xfer *x = arg;
    x->done = 1;
    x->res = res;
}

static int xfer_finished(void *arg)
{
    return ((xfer *)arg)->done;
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
    (void)p, (void)u;
    return s * n;
}

/* One GET of https://127.0.0.1:port/ with the credentials of a, through the loop. */
static CURLcode tls_get(kc_auth *a, int port)
{
    seen_auth[0] = seen_cn[0] = '\0';
    ck_assert_str_eq(wait_ready(a), "");
    CURL *easy = curl_easy_init();
    char *url = xasprintf("https://127.0.0.1:%d/version", port);
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    struct curl_slist *h = kc_auth_apply(a, easy, NULL);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
    xfer x = {0};
    kc_loop_add_transfer(loop, easy, xfer_done, &x);
    ck_assert_int_eq(kc_loop_run_until(loop, xfer_finished, &x, 10000), 1);
    curl_slist_free_all(h);
    curl_easy_cleanup(easy);
    free(url);
    return x.res;
}

START_TEST(credentials_reach_a_tls_server)
{
    char *cert = tu_read(CERTS "/server.crt", NULL), *key = tu_read(CERTS "/server.key", NULL);
    char *ca = tu_read(CERTS "/ca.crt", NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, tls_handler, NULL,
        MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
        MHD_OPTION_HTTPS_MEM_TRUST, ca, MHD_OPTION_END);
    ck_assert_ptr_nonnull(d);
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char *server = xasprintf("    server: https://127.0.0.1:%d\n"
                             "    certificate-authority: " CERTS "/ca.crt\n",
                             port);
    char *server_sni = xasprintf("%s    tls-server-name: kubernetes\n", server);

    /* CA blob + tls-server-name: verified against "kubernetes", not 127.0.0.1; client cert sent */
    kc_rest_config *c = load(server_sni, "    client-certificate: " CERTS "/client.crt\n"
                                         "    client-key: " CERTS "/client.key\n"
                                         "    token: tls-token\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_int_eq(tls_get(a, port), CURLE_OK);
    ck_assert_str_eq(seen_auth, "Bearer tls-token");
    ck_assert_str_eq(seen_cn, "alice");
    kc_auth_free(a);
    kc_rest_config_free(c);

    /* the same without tls-server-name: 127.0.0.1 is not in the certificate */
    c = load(server, "    token: tls-token\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(tls_get(a, port), CURLE_PEER_FAILED_VERIFICATION);
    kc_auth_free(a);
    kc_rest_config_free(c);

    /* a wrong tls-server-name fails too */
    char *wrong = xasprintf("%s    tls-server-name: not-kubernetes\n", server);
    c = load(wrong, "    token: tls-token\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(tls_get(a, port), CURLE_PEER_FAILED_VERIFICATION);
    kc_auth_free(a);
    kc_rest_config_free(c);
    free(wrong);

    /* insecure-skip-tls-verify, basic auth */
    char *insecure = xasprintf("    server: https://127.0.0.1:%d\n"
                               "    insecure-skip-tls-verify: true\n",
                               port);
    c = load(insecure, "    username: bob\n    password: hunter2\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(tls_get(a, port), CURLE_OK);
    ck_assert_str_eq(seen_auth, "Basic Ym9iOmh1bnRlcjI=");
    ck_assert_str_eq(seen_cn, "");
    kc_auth_free(a);
    kc_rest_config_free(c);
    free(insecure);

    /* a client certificate from an exec plugin */
    c = load(server_sni, "    exec:\n"
                         "      apiVersion: " V1 "\n"
                         "      command: " PLUGINS "/cert-plugin.sh\n"
                         "      interactiveMode: Never\n"
                         "      env: [{name: CERT_DIR, value: '" CERTS "'}]\n");
    a = kc_auth_new(c, loop);
    ck_assert_int_eq(tls_get(a, port), CURLE_OK);
    ck_assert_str_eq(seen_auth, "");
    ck_assert_str_eq(seen_cn, "alice");
    kc_auth_free(a);
    kc_rest_config_free(c);

    free(server);
    free(server_sni);
    MHD_stop_daemon(d);
    free(cert);
    free(key);
    free(ca);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("auth");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, static_token_is_sent_over_https_only);
    tcase_add_test(tc, token_file_is_reread_after_a_minute);
    tcase_add_test(tc, token_file_interval_is_configurable);
    tcase_add_test(tc, token_file_unreadable_at_first_read_is_an_error);
    tcase_add_test(tc, exec_token_is_cached_until_it_expires);
    tcase_add_test(tc, exec_v1beta1_without_cluster_info);
    tcase_add_test(tc, exec_v1_with_cluster_info);
    tcase_add_test(tc, exec_wrong_api_version_is_an_error);
    tcase_add_test(tc, failing_plugin_reports_status_and_stderr);
    tcase_add_test(tc, missing_plugin_says_so_with_the_install_hint);
    tcase_add_test(tc, invalidate_reruns_the_plugin_once);
    tcase_add_test(tc, waiters_share_one_run_and_can_be_forgotten);
    tcase_add_test(tc, free_while_the_plugin_runs);
    tcase_add_test(tc, exec_client_certificate);
    tcase_add_test(tc, credentials_reach_a_tls_server);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
