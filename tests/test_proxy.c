/* test_proxy.c: the kubeconfig's proxy-url set up as Go's transport sets it: an https proxy is
 * verified with the kubeconfig's TLS settings (its CA), the API server is reached through it
 * (its name resolves nowhere else), an untrusted proxy is named in the error, and impersonation
 * headers travel through it. The proxy and API server are tests/e2e/kuberecord.py. */
#include <check.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kubeclient/client.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
#include "testutil.h"

#define RECORDER FIXTURES_DIR "/../e2e/kuberecord.py"

extern char **environ;

static char *dir;
static pid_t pids[8];
static int npids;

static int sh(const char *cmd)
{
    char *full = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
    int rc = system(full);
    free(full);
    return rc;
}

/* Starts kuberecord.py ROLE with NAME.crt/.key; returns its port. */
static int serve(const char *role, const char *name, const char *extra)
{
    char *cert = xasprintf("%s/%s.crt", dir, name), *key = xasprintf("%s/%s.key", dir, name);
    char *portf = xasprintf("%s/%s.port", dir, name), *log = xasprintf("%s/%s.log", dir, name);
    const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char *argv[] = {(char *)py, RECORDER, (char *)role, cert, key, portf, log, (char *)extra, NULL};
    if (!extra) argv[7] = NULL;
    pid_t pid;
    ck_assert_int_eq(posix_spawnp(&pid, py, NULL, NULL, argv, environ), 0);
    pids[npids++] = pid;
    char *p = NULL;
    for (int i = 0; i < 400 && !p; i++) {
        p = tu_read(portf, NULL);
        if (!p) usleep(25000); /* a child's start: nothing in this process to wait on */
    }
    ck_assert_msg(p != NULL, "kuberecord.py %s did not start", role);
    int port = atoi(p);
    free(p);
    free(cert);
    free(key);
    free(portf);
    free(log);
    return port;
}

static void setup(void)
{
    dir = tu_mkdtemp();
    npids = 0;
    /* one CA; the API server's certificate for kube.invalid, the proxy's for 127.0.0.1; and a
     * proxy certificate of another CA */
    ck_assert_int_eq(sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -subj /CN=ca "
                        "-days 2 -out ca.crt"),
                     0);
    const char *certs[][2] = {{"api", "DNS:kube.invalid"}, {"proxy", "IP:127.0.0.1"}};
    for (int i = 0; i < 2; i++) {
        char *cmd = xasprintf(
            "openssl req -newkey rsa:2048 -nodes -keyout %s.key -subj /CN=%s -out %s.csr && "
            "printf 'subjectAltName=%s\\n' >%s.ext && openssl x509 -req -in %s.csr -CA ca.crt "
            "-CAkey ca.key -CAcreateserial -days 2 -extfile %s.ext -out %s.crt",
            certs[i][0], certs[i][0], certs[i][0], certs[i][1], certs[i][0], certs[i][0],
            certs[i][0], certs[i][0]);
        ck_assert_int_eq(sh(cmd), 0);
        free(cmd);
    }
    const char *more[][2] = {{"named", "DNS:kube.invalid"}, {"misnamed", "DNS:other.invalid"}};
    for (int i = 0; i < 2; i++) {
        char *cmd = xasprintf(
            "openssl req -newkey rsa:2048 -nodes -keyout %s.key -subj /CN=%s -out %s.csr && "
            "printf 'subjectAltName=%s\\n' >%s.ext && openssl x509 -req -in %s.csr -CA ca.crt "
            "-CAkey ca.key -CAcreateserial -days 2 -extfile %s.ext -out %s.crt",
            more[i][0], more[i][0], more[i][0], more[i][1], more[i][0], more[i][0], more[i][0],
            more[i][0]);
        ck_assert_int_eq(sh(cmd), 0);
        free(cmd);
    }
    ck_assert_int_eq(sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -subj "
                        "/CN=other -days 2 -addext subjectAltName=IP:127.0.0.1 -out other.crt"),
                     0);
}

static void teardown(void)
{
    for (int i = 0; i < npids; i++) {
        kill(pids[i], SIGTERM);
        waitpid(pids[i], NULL, 0);
    }
    tu_rmrf(dir);
    free(dir);
}

typedef struct {
    int done;
    long status;
    kc_err err;
} result;

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    result *r = arg;
    r->done = 1;
    r->status = resp->status;
    r->err = *err;
}

static int is_done(void *arg)
{
    return ((result *)arg)->done;
}

/* GET path through a kubeconfig whose cluster is server and proxy-url proxy, CA of the files,
 * and cluster_extra. */
static result get_via_x(const char *server, const char *proxy, const char *cluster_extra,
                        const char *user_yaml)
{
    char *cafile = xasprintf("%s/ca.crt", dir);
    char *doc = xasprintf("current-context: x\n"
                          "clusters:\n- name: c\n  cluster:\n    server: %s\n"
                          "    certificate-authority: %s\n    proxy-url: %s\n%s"
                          "users:\n- name: u\n  user:\n%s"
                          "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                          server, cafile, proxy, cluster_extra, user_yaml);
    char *p = tu_write(dir, "config", doc);
    kc_config_opts o = {.kubeconfig = p, .home = "/nonexistent", .env_kubeconfig = ""};
    kc_err err = {0};
    kc_rest_config *cfg = kc_config_load(&o, &err);
    ck_assert_msg(cfg != NULL, "%s", err.msg);
    kc_loop *loop = kc_loop_new();
    kc_client *c = kc_client_new(loop, cfg, &err);
    ck_assert_ptr_nonnull(c);
    result r = {0};
    kc_request_opts ro = {.path = "/apis/velero.io/v1/namespaces/velero/backups?limit=500"};
    kc_client_request(c, &ro, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 30000));
    kc_client_free(c);
    kc_loop_free(loop);
    kc_rest_config_free(cfg);
    free(p);
    free(doc);
    free(cafile);
    return r;
}

static result get_via(const char *server, const char *proxy, const char *user_yaml)
{
    return get_via_x(server, proxy, "", user_yaml);
}

static char *log_of(const char *name)
{
    char *p = xasprintf("%s/%s.log", dir, name);
    char *s = tu_read(p, NULL);
    free(p);
    return s ? s : xstrdup("");
}

/* Go's transport dials an https proxy with the API server's TLS settings (net/http transport.go
 * addTLS): the kubeconfig's CA verifies it. veltop used to verify the proxy against the system's
 * roots and blame the API server's certificate. */
START_TEST(https_proxy_is_verified_with_the_kubeconfig_ca)
{
    int api = serve("api", "api", NULL);
    int proxy = serve("proxy", "proxy", "kube.invalid=127.0.0.1");
    char *server = xasprintf("https://kube.invalid:%d", api);
    char *purl = xasprintf("https://127.0.0.1:%d", proxy);
    result r = get_via(server, purl, "    token: t0k3n\n    as: bob\n    as-groups: [dev]\n");
    ck_assert_msg(r.status == 200 && !r.err.msg[0], "%ld %s", r.status, r.err.msg);
    char *plog = log_of("proxy"), *alog = log_of("api");
    char *want = xasprintf("{\"connect\": \"kube.invalid:%d\"}\n", api);
    ck_assert_str_eq(plog, want);
    /* what came through the tunnel */
    ck_assert_ptr_nonnull(strstr(alog, "[\"Impersonate-User\", \"bob\"]"));
    ck_assert_ptr_nonnull(strstr(alog, "[\"Impersonate-Group\", \"dev\"]"));
    ck_assert_ptr_nonnull(strstr(alog, "[\"Authorization\", \"Bearer t0k3n\"]"));
    free(want);
    free(plog);
    free(alog);
    free(server);
    free(purl);
}
END_TEST

/* A proxy whose certificate the kubeconfig's CA did not sign: refused, and named. */
START_TEST(untrusted_https_proxy_is_named)
{
    int api = serve("api", "api", NULL);
    int proxy = serve("proxy", "other", "kube.invalid=127.0.0.1");
    char *server = xasprintf("https://kube.invalid:%d", api);
    char *purl = xasprintf("https://127.0.0.1:%d", proxy);
    result r = get_via(server, purl, "    token: t0k3n\n");
    char *want = xasprintf("the proxy's certificate is not trusted by the configured certificate "
                           "authority, or does not match its host name (proxy-url %s)",
                           purl);
    ck_assert_str_eq(r.err.msg, want);
    char *alog = log_of("api");
    ck_assert_str_eq(alog, ""); /* nothing reached the server */
    free(alog);
    free(want);
    free(server);
    free(purl);
}
END_TEST

/* With tls-server-name, Go verifies the https proxy against that name too (net/http addTLS
 * keeps a ServerName already set): a proxy certificate for it passes, one for another name does
 * not, whatever the proxy's own address. */
START_TEST(tls_server_name_verifies_the_proxy_too)
{
    int api = serve("api", "api", NULL);
    int proxy = serve("proxy", "named", "kube.invalid=127.0.0.1");
    char *server = xasprintf("https://127.0.0.1:%d", api);
    char *purl = xasprintf("https://127.0.0.1:%d", proxy);
    result r = get_via_x(server, purl, "    tls-server-name: kube.invalid\n", "    token: t\n");
    ck_assert_msg(r.status == 200 && !r.err.msg[0], "%ld %s", r.status, r.err.msg);
    free(purl);
    proxy = serve("proxy", "misnamed", "kube.invalid=127.0.0.1");
    purl = xasprintf("https://127.0.0.1:%d", proxy);
    r = get_via_x(server, purl, "    tls-server-name: kube.invalid\n", "    token: t\n");
    char *want = xasprintf("the proxy's certificate is not trusted by the configured certificate "
                           "authority, or does not match its host name (proxy-url %s)",
                           purl);
    ck_assert_str_eq(r.err.msg, want);
    free(want);
    free(purl);
    free(server);
}
END_TEST

int main(void)
{
    if (system("command -v openssl >/dev/null 2>&1") != 0) {
        printf("SKIP: openssl is not installed\n");
        return 0;
    }
    Suite *s = suite_create("proxy");
    TCase *tc = tcase_create("proxy");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, https_proxy_is_verified_with_the_kubeconfig_ca);
    tcase_add_test(tc, untrusted_https_proxy_is_named);
    tcase_add_test(tc, tls_server_name_verifies_the_proxy_too);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
