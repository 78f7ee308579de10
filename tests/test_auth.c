/* test_auth.c: request credentials: static token, tokenFile re-read once a minute, exec plugins
 * run from the loop (caching until expiry, re-run after a 401, KUBERNETES_EXEC_INFO, errors). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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
#include <sys/wait.h>

#include "kubeclient/auth.h"
#include "kubeclient/client.h"
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

/* A tokenFile is read up to KC_CAP_FILE_BYTES: /dev/zero is an error, not a read forever. */
START_TEST(token_file_is_read_with_a_cap)
{
    kc_rest_config *c = load(HTTPS, "    tokenFile: /dev/zero\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "cannot read token file /dev/zero: larger than 4 MiB, veltop's "
                                    "limit for a file the kubeconfig names");
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
    kc_auth_set_stdin_terminal(a, 0); /* IfAvailable: not interactive without a terminal */
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

    /* stdout over the cap: veltop kills it, and says why (not "killed by signal 9") */
    c = load(HTTPS, "    exec:\n"
                    "      apiVersion: " V1 "\n"
                    "      command: " PLUGINS "/flood-plugin.sh\n"
                    "      interactiveMode: Never\n");
    a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "exec plugin \"" PLUGINS "/flood-plugin.sh\" printed more "
                                    "than 1048576 bytes");
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
}
END_TEST

/* The exec user of the token plugin with interactiveMode mode (and provideClusterInfo). */
static kc_rest_config *load_mode_plugin(const char *mode, const char *cluster_extra)
{
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: %s/token-plugin.sh\n"
                           "      interactiveMode: %s\n"
                           "      provideClusterInfo: true\n"
                           "      env:\n"
                           "      - {name: COUNT_FILE, value: '%s'}\n"
                           "      - {name: INFO_FILE, value: '%s'}\n"
                           "      - {name: API_VERSION, value: '" V1 "'}\n",
                           PLUGINS, mode, count_file, info_file);
    char *cl = xasprintf(HTTPS "%s", cluster_extra);
    kc_rest_config *r = load(cl, user);
    free(cl);
    free(user);
    return r;
}

/* client-go's isInteractive (plugin/pkg/client/auth/exec/exec.go): IfAvailable is interactive
 * when stdin is a terminal nobody else uses; Always needs one, and used to be refused
 * outright. The answer reaches the plugin as spec.interactive. */
START_TEST(interactive_mode_follows_the_terminal)
{
    const char *info_of[] = {"Never", "IfAvailable", "Always"};
    for (int tty = 0; tty <= 1; tty++)
        for (int m = 0; m < 3; m++) {
            kc_rest_config *c = load_mode_plugin(info_of[m], "");
            kc_auth *a = kc_auth_new(c, loop);
            kc_auth_set_stdin_terminal(a, tty);
            ck_assert_int_eq(kc_auth_wants_terminal(a), tty && m > 0);
            const char *got = wait_ready(a);
            if (!tty && m == 2) {
                ck_assert_str_eq(got, "exec plugin \"" PLUGINS "/token-plugin.sh\" cannot "
                                      "support interactive mode: standard input is not a "
                                      "terminal");
                ck_assert_uint_eq(kc_auth_exec_runs(a), 0);
            } else {
                ck_assert_str_eq(got, "");
                char *info = tu_read(info_file, NULL);
                ck_assert_msg(
                    strstr(info, tty && m > 0 ? "\"interactive\":true}" : "\"interactive\":false}"),
                    "%s %d: %s", info_of[m], tty, info);
                free(info);
                ck_assert_int_eq(kc_auth_wants_terminal(a), 0); /* credentials are ready */
            }
            kc_auth_free(a);
            kc_rest_config_free(c);
            unlink(info_file);
        }
    /* the screen has the terminal: IfAvailable runs without it, Always says why it cannot */
    kc_rest_config *c = load_mode_plugin("IfAvailable", "");
    kc_auth *a = kc_auth_new(c, loop);
    kc_auth_set_stdin_terminal(a, 1);
    kc_auth_set_stdin_unavailable(a, "veltop's screen is using it");
    ck_assert_int_eq(kc_auth_wants_terminal(a), 0);
    ck_assert_str_eq(wait_ready(a), "");
    char *info = tu_read(info_file, NULL);
    ck_assert_ptr_nonnull(strstr(info, "\"interactive\":false}"));
    free(info);
    kc_auth_free(a);
    kc_rest_config_free(c);
    c = load_mode_plugin("Always", "");
    a = kc_auth_new(c, loop);
    kc_auth_set_stdin_terminal(a, 1);
    kc_auth_set_stdin_unavailable(a, "veltop's screen is using it");
    ck_assert_str_eq(wait_ready(a), "exec plugin \"" PLUGINS "/token-plugin.sh\" cannot "
                                    "support interactive mode: standard input is unavailable: "
                                    "veltop's screen is using it");
    kc_auth_set_stdin_unavailable(a, NULL);
    ck_assert_str_eq(wait_ready(a), "");
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

/* A plugin that has the terminal waits for a person: it is not stopped after the short limit
 * (10 minutes instead); one without the terminal is. */
START_TEST(interactive_plugin_gets_longer_than_the_exec_timeout)
{
    for (int tty = 0; tty <= 1; tty++) {
        char *user = xasprintf("    exec:\n"
                               "      apiVersion: " V1 "\n"
                               "      command: %s/token-plugin.sh\n"
                               "      interactiveMode: IfAvailable\n"
                               "      env:\n"
                               "      - {name: COUNT_FILE, value: '%s'}\n"
                               "      - {name: INFO_FILE, value: '%s'}\n"
                               "      - {name: API_VERSION, value: '" V1 "'}\n"
                               "      - {name: SLEEP, value: '1'}\n",
                               PLUGINS, count_file, info_file);
        kc_rest_config *c = load(HTTPS, user);
        free(user);
        kc_auth *a = kc_auth_new(c, loop);
        kc_auth_set_stdin_terminal(a, tty);
        kc_auth_set_exec_timeout(a, 300);
        const char *got = wait_ready(a);
        if (tty)
            ck_assert_str_eq(got, "");
        else
            ck_assert_str_eq(got, "exec plugin \"" PLUGINS "/token-plugin.sh\" did not answer "
                                  "within 0.3 s (stopped)");
        kc_auth_free(a);
        kc_rest_config_free(c);
    }
}
END_TEST

/* provideClusterInfo carries the cluster's client.authentication.k8s.io/exec extension in
 * spec.cluster.config (it used to be null whatever the kubeconfig said). */
START_TEST(exec_cluster_info_carries_the_exec_extension)
{
    kc_rest_config *c = load_mode_plugin("Never", "    extensions:\n"
                                                  "    - name: client.authentication.k8s.io/exec\n"
                                                  "      extension: {audience: veltop, n: 3}\n");
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_str_eq(wait_ready(a), "");
    char *info = tu_read(info_file, NULL);
    ck_assert_str_eq(info, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
                           "\"spec\":{\"cluster\":{\"server\":\"https://127.0.0.1:6443\","
                           "\"config\":{\"audience\":\"veltop\",\"n\":3}},"
                           "\"interactive\":false}}\n"
                           "args:\n"
                           "EXTRA=\n");
    free(info);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

/* A static token beside exec: kubectl sends the token and never runs the plugin (client-go
 * plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig). veltop used to refuse the user. */
START_TEST(static_token_beside_exec_is_used_and_the_plugin_never_runs)
{
    char *user = xasprintf("    token: st4tic\n"
                           "    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: %s/token-plugin.sh\n"
                           "      interactiveMode: Never\n"
                           "      env: [{name: COUNT_FILE, value: '%s'}]\n",
                           PLUGINS, count_file);
    kc_rest_config *c = load(HTTPS, user);
    free(user);
    kc_auth *a = kc_auth_new(c, loop);
    ck_assert_int_eq(kc_auth_ready(a, on_ready, NULL), 1);
    ck_assert_header(a, "Authorization: Bearer st4tic");
    ck_assert_int_eq(kc_auth_invalidate(a), 0); /* a 401 does not start it either */
    ck_assert_uint_eq(kc_auth_exec_runs(a), 0);
    ck_assert_int_eq(count_runs(), 0);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

/* The headers kc_auth_apply adds, one string joined by '\n'. */
static char *all_headers(kc_auth *a)
{
    CURL *easy = curl_easy_init();
    struct curl_slist *h = kc_auth_apply(a, easy, NULL);
    kc_buf b = {0};
    for (struct curl_slist *p = h; p; p = p->next) kc_buf_printf(&b, "%s\n", p->data);
    curl_slist_free_all(h);
    curl_easy_cleanup(easy);
    return kc_buf_cstr(&b);
}

/* Impersonation as client-go's impersonatingRoundTripper (transport/round_trippers.go):
 * Impersonate-User, -Uid, a header per group and per extra value, the extra key escaped by
 * headerKeyEscape; over plain http too (only credentials are kept for TLS). veltop used to
 * send none and run as the user's own identity. */
START_TEST(impersonation_headers_are_sent)
{
    const char *user = "    token: t0k\n"
                       "    as: alice@example.com\n"
                       "    as-uid: u-1\n"
                       "    as-groups: [dev, ops]\n"
                       "    as-user-extra:\n"
                       "      reason: [audit]\n"
                       "      example.com/scopes: [a, b]\n"
                       "      'key%20x': [v]\n";
    kc_rest_config *c = load(HTTPS, user);
    kc_auth *a = kc_auth_new(c, loop);
    char *h = all_headers(a);
    ck_assert_str_eq(h, "Impersonate-User: alice@example.com\n"
                        "Impersonate-Uid: u-1\n"
                        "Impersonate-Group: dev\n"
                        "Impersonate-Group: ops\n"
                        "Impersonate-Extra-reason: audit\n"
                        "Impersonate-Extra-example.com%2Fscopes: a\n"
                        "Impersonate-Extra-example.com%2Fscopes: b\n"
                        "Impersonate-Extra-key%2520x: v\n"
                        "Authorization: Bearer t0k\n");
    free(h);
    kc_auth_free(a);
    kc_rest_config_free(c);
    c = load("    server: http://127.0.0.1:8080\n", user);
    a = kc_auth_new(c, loop);
    h = all_headers(a);
    ck_assert_ptr_nonnull(strstr(h, "Impersonate-User: alice@example.com\n"));
    ck_assert_ptr_null(strstr(h, "Authorization"));
    free(h);
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

typedef struct {
    kc_loop *loop;
    int ticks;
    uint64_t id;
} ticker;

static void tick(void *arg)
{
    ticker *t = arg;
    t->ticks++;
    t->id = kc_loop_timer(t->loop, 20, tick, t);
}

typedef struct {
    waiter w;
    ticker *t;
    int ticks_at_ready;
} slow_waiter;

static void on_slow_ready(void *arg, const kc_err *err)
{
    slow_waiter *s = arg;
    s->ticks_at_ready = s->t->ticks;
    on_ready(&s->w, err);
}

START_TEST(slow_plugin_does_not_block_the_loop)
{
    /* the plugin takes a second; the loop keeps turning (timers fire) while it runs */
    kc_rest_config *c = load_token_plugin(V1, "      - {name: SLEEP, value: '1'}\n");
    kc_auth *a = kc_auth_new(c, loop);
    ticker t = {.loop = loop};
    t.id = kc_loop_timer(loop, 20, tick, &t);
    slow_waiter s = {.t = &t};
    int64_t t0 = kc_now_ms();
    ck_assert_int_eq(kc_auth_ready(a, on_slow_ready, &s), 0);
    ck_assert_int_lt(kc_now_ms() - t0, 500); /* started, not waited for */
    ck_assert_int_eq(t.ticks, 0);
    ck_assert_int_eq(kc_loop_run_until(loop, waiter_called, &s.w, 10000), 1);
    ck_assert_int_ge(kc_now_ms() - t0, 1000);
    ck_assert_str_eq(s.w.msg, "");
    /* 20 ms ticks during a 1 s run: far more than 10 even on a loaded machine or valgrind */
    ck_assert_int_ge(s.ticks_at_ready, 10);
    ck_assert_header(a, "Authorization: Bearer token-1");
    kc_loop_cancel(loop, t.id);
    kc_auth_free(a);
    kc_rest_config_free(c);
}
END_TEST

/* The pid a test plugin wrote to $PID_FILE, waiting (bounded) for it to appear. */
static pid_t plugin_helper_pid(const char *pid_file)
{
    for (int i = 0; i < 200; i++) {
        char *s = tu_read(pid_file, NULL);
        pid_t pid = s ? (pid_t)atoi(s) : 0;
        free(s);
        if (pid > 0) return pid;
        kc_loop_run_once(loop, 10);
    }
    ck_abort_msg("the plugin did not write %s", pid_file);
    return 0;
}

/* Gone or a zombie (not reaped by us: it is the plugin's child, reparented). */
static int process_gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (kill(pid, 0) < 0) return 1;
        char path[64], state = 0;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%*d %*s %c", &state) != 1) state = 0;
            fclose(f);
        }
        if (state == 'Z') return 1;
        usleep(10000);
    }
    return 0;
}

/* A plugin that never answers (and started a helper) used to leave the screen "connecting" for
 * ever: it is stopped after the exec timeout, with its helper, and named in the error. */
START_TEST(hanging_plugin_is_stopped_and_named)
{
    char *pid_file = xasprintf("%s/pid", tmpdir);
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: " PLUGINS "/hang-plugin.sh\n"
                           "      interactiveMode: Never\n"
                           "      env:\n"
                           "      - {name: PID_FILE, value: '%s'}\n",
                           pid_file);
    kc_rest_config *c = load(HTTPS, user);
    kc_auth *a = kc_auth_new(c, loop);
    kc_auth_set_exec_timeout(a, 700);
    int64_t t0 = kc_now_ms();
    waiter w = {0};
    ck_assert_int_eq(kc_auth_ready(a, on_ready, &w), 0);
    pid_t helper = plugin_helper_pid(pid_file);
    ck_assert_int_eq(kc_loop_run_until(loop, waiter_called, &w, 10000), 1);
    int64_t took = kc_now_ms() - t0;
    ck_assert_msg(took >= 700 && took < 3000, "took %lld ms", (long long)took);
    ck_assert_str_eq(w.msg,
                     "exec plugin \"" PLUGINS "/hang-plugin.sh\" did not answer within 0.7 s "
                     "(stopped)");
    ck_assert_msg(process_gone(helper), "the plugin's helper %d still runs", (int)helper);
    kc_auth_free(a);
    kc_rest_config_free(c);
    free(user);
    free(pid_file);
}
END_TEST

/* A plugin that answers and exits but leaves a helper holding its stdout: the answer is used at
 * once (not when the helper ends), and the helper is stopped. */
START_TEST(plugin_leaving_a_child_on_its_stdout_is_done_when_it_exits)
{
    char *pid_file = xasprintf("%s/pid", tmpdir);
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: " PLUGINS "/grandchild-plugin.sh\n"
                           "      interactiveMode: Never\n"
                           "      env:\n"
                           "      - {name: PID_FILE, value: '%s'}\n",
                           pid_file);
    kc_rest_config *c = load(HTTPS, user);
    kc_auth *a = kc_auth_new(c, loop);
    kc_auth_set_exec_timeout(a, 20000);
    int64_t t0 = kc_now_ms();
    ck_assert_str_eq(wait_ready(a), "");
    ck_assert_int_lt(kc_now_ms() - t0, 3000);
    ck_assert_header(a, "Authorization: Bearer left-behind");
    pid_t helper = plugin_helper_pid(pid_file);
    ck_assert_msg(process_gone(helper), "the plugin's helper %d still runs", (int)helper);
    kc_auth_free(a);
    kc_rest_config_free(c);
    free(user);
    free(pid_file);
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
/* NULL: every request is answered 200; else only one with this Authorization, 401 otherwise */
static const char *volatile accept_auth;
static volatile int tls_requests;

#define STATUS_401                                                                                 \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","           \
    "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}"

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
    tls_requests++;
    int ok = !accept_auth || strcmp(seen_auth, accept_auth) == 0;
    const char *body = ok ? "ok" : STATUS_401;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, ok ? MHD_HTTP_OK : MHD_HTTP_UNAUTHORIZED, r);
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

static char *tls_pem[3]; /* the server's certificate, key and CA, while it runs */

static struct MHD_Daemon *tls_start(int *port)
{
    char *cert = tu_read(CERTS "/server.crt", NULL), *key = tu_read(CERTS "/server.key", NULL);
    char *ca = tu_read(CERTS "/ca.crt", NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    /* MHD keeps pointers to them: freed by tls_stop */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, tls_handler, NULL,
        MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
        MHD_OPTION_HTTPS_MEM_TRUST, ca, MHD_OPTION_END);
    ck_assert_ptr_nonnull(d);
    *port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    seen_auth[0] = seen_cn[0] = '\0';
    accept_auth = NULL;
    tls_requests = 0;
    tls_pem[0] = cert, tls_pem[1] = key, tls_pem[2] = ca;
    return d;
}

static void tls_stop(struct MHD_Daemon *d)
{
    MHD_stop_daemon(d);
    for (int i = 0; i < 3; i++) free(tls_pem[i]);
}

typedef struct {
    int done;
    long status;
    kc_err err;
} answer;

static void on_answer(void *arg, const kc_response *resp, const kc_err *err)
{
    answer *a = arg;
    a->done = 1;
    a->status = resp->status;
    a->err = *err;
}

static int answered(void *arg)
{
    return ((answer *)arg)->done;
}

/* One GET through a kc_client (the path the program takes), waiting for its answer. */
static answer client_get(const kc_rest_config *cfg, kc_client **keep)
{
    kc_err err = {0};
    kc_client *c = keep && *keep ? *keep : kc_client_new(loop, cfg, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    answer a = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/backups"};
    kc_client_request(c, &o, NULL, on_answer, &a);
    ck_assert_int_eq(kc_loop_run_until(loop, answered, &a, 15000), 1);
    if (keep)
        *keep = c;
    else
        kc_client_free(c);
    return a;
}

START_TEST(unauthorized_reruns_the_plugin_once_per_request)
{
    int port;
    struct MHD_Daemon *d = tls_start(&port);
    char *server = xasprintf("    server: https://127.0.0.1:%d\n"
                             "    certificate-authority: " CERTS "/ca.crt\n"
                             "    tls-server-name: kubernetes\n",
                             port);
    char *user = xasprintf("    exec:\n"
                           "      apiVersion: " V1 "\n"
                           "      command: %s/token-plugin.sh\n"
                           "      interactiveMode: Never\n"
                           "      env:\n"
                           "      - {name: COUNT_FILE, value: '%s'}\n"
                           "      - {name: INFO_FILE, value: '%s'}\n"
                           "      - {name: API_VERSION, value: '" V1 "'}\n",
                           PLUGINS, count_file, info_file);
    kc_rest_config *cfg = load(server, user);
    free(server);
    free(user);
    kc_client *c = NULL;

    /* the server takes only the second token: token-1 gets a 401, the plugin runs again and
     * the same request goes through with token-2 */
    accept_auth = "Bearer token-2";
    answer a = client_get(cfg, &c);
    ck_assert_msg(a.status == 200 && a.err.msg[0] == '\0', "%ld %s", a.status, a.err.msg);
    ck_assert_int_eq(count_runs(), 2);
    ck_assert_int_eq(tls_requests, 2);
    ck_assert_str_eq(seen_auth, "Bearer token-2");

    /* the cached token-2 is used as it is (no run, one request) */
    a = client_get(cfg, &c);
    ck_assert_int_eq(a.status, 200);
    ck_assert_int_eq(count_runs(), 2);
    ck_assert_int_eq(tls_requests, 3);

    /* a server that rejects every token: one re-run, then the 401 is the answer */
    accept_auth = "Bearer nobody";
    a = client_get(cfg, &c);
    ck_assert_int_eq(a.status, 401);
    ck_assert_int_eq(a.err.code, 401);
    ck_assert_str_eq(a.err.msg, "unauthorized: the server rejected the credentials of user \"u\"");
    ck_assert_int_eq(count_runs(), 3);
    ck_assert_int_eq(tls_requests, 5);
    ck_assert_ptr_null(strstr(a.err.msg, "token-"));

    kc_client_free(c);
    kc_rest_config_free(cfg);
    tls_stop(d);
}
END_TEST

START_TEST(tls_verification_failures_say_it_is_the_certificate)
{
    int port;
    struct MHD_Daemon *d = tls_start(&port);
    char *url = xasprintf("https://127.0.0.1:%d", port);

    /* the right CA, but the certificate is for "kubernetes", not 127.0.0.1 */
    char *server = xasprintf("    server: %s\n    certificate-authority: " CERTS "/ca.crt\n", url);
    kc_rest_config *cfg = load(server, "    token: s3cr3t-token\n");
    answer a = client_get(cfg, NULL);
    char *want = xasprintf("the server's certificate is not trusted by the configured certificate "
                           "authority, or does not match the host name (%s)",
                           url);
    ck_assert_msg(strncmp(a.err.msg, want, strlen(want)) == 0, "%s", a.err.msg);
    ck_assert_int_eq(a.status, 0);
    ck_assert_ptr_null(strstr(a.err.msg, "s3cr3t"));
    ck_assert_int_eq(tls_requests, 0);
    free(want);
    kc_rest_config_free(cfg);
    free(server);

    /* no CA in the kubeconfig: the system's authorities do not know the sim's */
    server = xasprintf("    server: %s\n", url);
    cfg = load(server, "    token: s3cr3t-token\n");
    a = client_get(cfg, NULL);
    want = xasprintf("the server's certificate is not trusted by the system's certificate "
                     "authorities, or does not match the host name (%s); set "
                     "certificate-authority-data in the kubeconfig",
                     url);
    ck_assert_msg(strncmp(a.err.msg, want, strlen(want)) == 0, "%s", a.err.msg);
    ck_assert_int_eq(tls_requests, 0);
    free(want);
    kc_rest_config_free(cfg);
    free(server);

    free(url);
    tls_stop(d);
}
END_TEST

/* ---- keys and certificates never touch the disk ---- */

/* The child side: one GET with the kubeconfig argv[2] names (certificate files, a CA file and a
 * token); exit status 0 when the server answered 200. Run under strace by the test below. */
static int tls_child(const char *kubeconfig)
{
    /* no ck_assert here: Check's macros only work inside a running suite */
    kc_config_opts o = {.kubeconfig = kubeconfig};
    kc_err err = {0};
    kc_rest_config *cfg = kc_config_load(&o, &err);
    if (!cfg) return 2;
    loop = kc_loop_new();
    kc_client *c = kc_client_new(loop, cfg, &err);
    answer a = {0};
    kc_request_opts ro = {.path = "/apis/velero.io/v1/namespaces/velero/backups"};
    if (c) kc_client_request(c, &ro, NULL, on_answer, &a);
    if (c) kc_loop_run_until(loop, answered, &a, 15000);
    kc_client_free(c);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
    return a.status == 200 ? 0 : 3;
}

static char *find_strace(void)
{
    const char *dirs[] = {"/usr/bin", "/bin", "/usr/local/bin"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char *p = xasprintf("%s/strace", dirs[i]);
        if (access(p, X_OK) == 0) return p;
        free(p);
    }
    return NULL;
}

START_TEST(no_key_or_certificate_is_written_to_a_file)
{
    char *strace = find_strace();
    ck_assert_msg(strace != NULL, "strace is needed (scripts/deps.sh installs it)");
    int port;
    struct MHD_Daemon *d = tls_start(&port);
    char *doc =
        xasprintf("current-context: x\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:%d', "
                  "certificate-authority: " CERTS "/ca.crt, tls-server-name: kubernetes}}]\n"
                  "users: [{name: u, user: {client-certificate: " CERTS "/client.crt, "
                  "client-key: " CERTS "/client.key, token: tls-token}}]\n"
                  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                  port);
    char *kc = tu_write(tmpdir, "config", doc);
    free(doc);
    char *log = xasprintf("%s/strace.log", tmpdir);
    char *self = xstrdup(BUILD_DIR "/test_auth");
    char *argv[] = {
        strace, "-f",          "-qq", "-e", "trace=open,openat,creat,memfd_create,mkdir", "-o", log,
        self,   "--tls-child", kc,    NULL};
    /* LeakSanitizer cannot run under ptrace: the traced child of an ASan build goes without */
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, strace, NULL, NULL, argv, environ), 0);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the traced GET failed (%d)",
                  status);
    ck_assert_str_eq(seen_cn, "alice");
    ck_assert_str_eq(seen_auth, "Bearer tls-token");

    /* the key was read (the trace works) and nothing was opened for writing but devices */
    char *trace = tu_read(log, NULL);
    ck_assert_ptr_nonnull(trace);
    ck_assert_ptr_nonnull(strstr(trace, CERTS "/client.key\", O_RDONLY"));
    int bad = 0;
    for (char *line = strtok(trace, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "= -1 ")) continue; /* failed calls wrote nothing */
        int writes = strstr(line, "O_WRONLY") || strstr(line, "O_RDWR") ||
                     strstr(line, "O_CREAT") || strstr(line, "O_TMPFILE") ||
                     strstr(line, "creat(") || strstr(line, "memfd_create(") ||
                     strstr(line, "mkdir(");
        if (writes && !strstr(line, "\"/dev/")) {
            fprintf(stderr, "written: %s\n", line);
            bad++;
        }
    }
    ck_assert_int_eq(bad, 0);
    free(trace);
    free(log);
    free(kc);
    free(self);
    free(strace);
    tls_stop(d);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--tls-child") == 0) return tls_child(argv[2]);
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("auth");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, static_token_is_sent_over_https_only);
    tcase_add_test(tc, token_file_is_reread_after_a_minute);
    tcase_add_test(tc, token_file_interval_is_configurable);
    tcase_add_test(tc, token_file_unreadable_at_first_read_is_an_error);
    tcase_add_test(tc, token_file_is_read_with_a_cap);
    tcase_add_test(tc, exec_token_is_cached_until_it_expires);
    tcase_add_test(tc, exec_v1beta1_without_cluster_info);
    tcase_add_test(tc, exec_v1_with_cluster_info);
    tcase_add_test(tc, exec_wrong_api_version_is_an_error);
    tcase_add_test(tc, failing_plugin_reports_status_and_stderr);
    tcase_add_test(tc, missing_plugin_says_so_with_the_install_hint);
    tcase_add_test(tc, interactive_mode_follows_the_terminal);
    tcase_add_test(tc, interactive_plugin_gets_longer_than_the_exec_timeout);
    tcase_add_test(tc, exec_cluster_info_carries_the_exec_extension);
    tcase_add_test(tc, impersonation_headers_are_sent);
    tcase_add_test(tc, static_token_beside_exec_is_used_and_the_plugin_never_runs);
    tcase_add_test(tc, invalidate_reruns_the_plugin_once);
    tcase_add_test(tc, waiters_share_one_run_and_can_be_forgotten);
    tcase_add_test(tc, free_while_the_plugin_runs);
    tcase_add_test(tc, exec_client_certificate);
    tcase_add_test(tc, credentials_reach_a_tls_server);
    tcase_add_test(tc, hanging_plugin_is_stopped_and_named);
    tcase_add_test(tc, plugin_leaving_a_child_on_its_stdout_is_done_when_it_exits);
    tcase_add_test(tc, slow_plugin_does_not_block_the_loop);
    tcase_add_test(tc, unauthorized_reruns_the_plugin_once_per_request);
    tcase_add_test(tc, tls_verification_failures_say_it_is_the_certificate);
    tcase_add_test(tc, no_key_or_certificate_is_written_to_a_file);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
