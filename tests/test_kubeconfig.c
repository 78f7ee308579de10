/* test_kubeconfig.c: kubeconfig loading as kubectl does it: merge rules, contexts, every auth
 * kind, relative paths, in-cluster config, and precise error messages that never show a secret. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubeclient/kubeconfig.h"
#include "kubeclient/util.h"
#include "testutil.h"

#define KC FIXTURES_DIR "/kubeconfig"

/* A file that certainly does not exist, so the real $HOME or $KUBECONFIG never leaks in. */
#define NOWHERE "/nonexistent/veltop-test"

static kc_rest_config *load_env(const char *env, const char *context, kc_err *err)
{
    kc_config_opts o = {.env_kubeconfig = env,
                        .context = context,
                        .home = NOWHERE,
                        .service_host = "",
                        .service_port = ""};
    return kc_config_load(&o, err);
}

static kc_rest_config *load_file(const char *file, const char *context, kc_err *err)
{
    kc_config_opts o = {.kubeconfig = file,
                        .context = context,
                        .env_kubeconfig = "",
                        .home = NOWHERE,
                        .service_host = "",
                        .service_port = ""};
    return kc_config_load(&o, err);
}

/* Writes content as a kubeconfig in a fresh temp dir and loads it. */
static char *tmpdir;
static kc_rest_config *load_text(const char *content, const char *context, kc_err *err)
{
    char *p = tu_write(tmpdir, "config", content);
    kc_rest_config *r = load_file(p, context, err);
    free(p);
    return r;
}

static void setup(void)
{
    tmpdir = tu_mkdtemp();
}

static void teardown(void)
{
    tu_rmrf(tmpdir);
    free(tmpdir);
    tmpdir = NULL;
}

/* Loads content expecting failure; returns the message (static) and checks no secret leaked. */
static const char *load_error(const char *content, const char *context)
{
    static kc_err err;
    kc_rest_config *r = load_text(content, context, &err);
    ck_assert_ptr_null(r);
    ck_assert_str_ne(err.msg, "");
    ck_assert_ptr_null(strstr(err.msg, "s3cr3t"));
    ck_assert_ptr_null(strstr(err.msg, "czNjcjN0")); /* base64 of the secret */
    return err.msg;
}

START_TEST(merges_three_files_first_wins)
{
    kc_err err = {0};
    const char *env = KC "/merge-a.yaml:" KC "/missing.yaml:" KC "/merge-b.yaml:" KC
                         "/merge-a.yaml::" KC "/merge-c.yaml";
    /* current-context comes from merge-b, the first file to set it */
    kc_rest_config *r = load_env(env, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->context, "ctx-b");
    ck_assert_str_eq(r->cluster, "only-b");
    ck_assert_str_eq(r->server, "https://only-b.example:443");
    ck_assert_str_eq(r->tls_server_name, "kubernetes");
    ck_assert_str_eq(r->proxy_url, "http://proxy.example:3128");
    ck_assert_int_eq(r->disable_compression, 1);
    ck_assert_int_eq(r->insecure_skip_tls_verify, 0);
    ck_assert_str_eq(r->user, "bob");
    ck_assert_str_eq(r->username, "bob");
    ck_assert_str_eq(r->password, "hunter2");
    ck_assert_ptr_null(r->token);
    ck_assert_str_eq(r->namespace, "velero");
    /* duplicates removed, missing files skipped */
    ck_assert_str_eq(r->source_files, KC "/merge-a.yaml:" KC "/merge-b.yaml:" KC "/merge-c.yaml");
    ck_assert_int_eq(r->in_cluster, 0);
    kc_rest_config_free(r);

    /* ctx-a, "shared" and "alice" come whole from merge-a, not from merge-b */
    r = load_env(env, "ctx-a", &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->cluster, "shared");
    ck_assert_str_eq(r->server, "https://a.example:6443");
    ck_assert_int_eq(r->insecure_skip_tls_verify, 1);
    ck_assert_str_eq(r->user, "alice");
    ck_assert_str_eq(r->token, "token-from-a");
    ck_assert_str_eq(r->namespace, "from-a");
    kc_rest_config_free(r);

    /* an entry only merge-c has; its tokenFile resolves against merge-c's directory */
    r = load_env(env, "ctx-c", &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->server, "https://a.example:6443");
    ck_assert_str_eq(r->user, "carol");
    ck_assert_str_eq(r->token_file, KC "/tokens/carol");
    ck_assert_ptr_null(r->namespace);
    kc_rest_config_free(r);

    /* the order decides: merge-c first makes its current-context win */
    r = load_env(KC "/merge-c.yaml:" KC "/merge-b.yaml:" KC "/merge-a.yaml", NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->context, "ctx-c");
    ck_assert_str_eq(r->server, "https://b.example:6443");
    kc_rest_config_free(r);
}
END_TEST

START_TEST(lists_context_names_of_merged_files)
{
    kc_err err = {0};
    size_t n = 99;
    kc_config_opts o = {.env_kubeconfig =
                            KC "/merge-a.yaml:" KC "/merge-b.yaml:" KC "/merge-c.yaml",
                        .home = NOWHERE};
    char **v = kc_config_contexts(&o, &n, &err);
    ck_assert_msg(v != NULL, "%s", err.msg);
    /* file order, a name merge-b repeats listed once */
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(v[0], "ctx-a");
    ck_assert_str_eq(v[1], "ctx-b");
    ck_assert_str_eq(v[2], "ctx-c");
    ck_assert_ptr_null(v[3]);
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);

    /* --kubeconfig: that file only */
    kc_config_opts f = {.kubeconfig = KC "/merge-c.yaml", .env_kubeconfig = "", .home = NOWHERE};
    v = kc_config_contexts(&f, &n, &err);
    ck_assert_msg(v != NULL, "%s", err.msg);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(v[0], "ctx-c");
    free(v[0]);
    free(v);

    /* a named file that is missing is an error, as for kc_config_load */
    kc_config_opts m = {.kubeconfig = NOWHERE, .env_kubeconfig = "", .home = NOWHERE};
    v = kc_config_contexts(&m, &n, &err);
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, NOWHERE));
}
END_TEST

START_TEST(kubeconfig_flag_reads_that_file_only)
{
    kc_err err = {0};
    kc_config_opts o = {.kubeconfig = KC "/merge-c.yaml",
                        .env_kubeconfig = KC "/merge-a.yaml:" KC "/merge-b.yaml",
                        .home = NOWHERE,
                        .service_host = "",
                        .service_port = ""};
    kc_rest_config *r = kc_config_load(&o, &err);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err.msg,
                     "cluster \"shared\" of context \"ctx-c\" not found in " KC "/merge-c.yaml");
    o.kubeconfig = NOWHERE "/config";
    ck_assert_ptr_null(kc_config_load(&o, &err));
    ck_assert_str_eq(err.msg,
                     "cannot read kubeconfig " NOWHERE "/config: No such file or directory");
    /* a directory is named as such, not as a read error */
    o.kubeconfig = tmpdir;
    ck_assert_ptr_null(kc_config_load(&o, &err));
    char *want = xasprintf("cannot read kubeconfig %s: Is a directory", tmpdir);
    ck_assert_str_eq(err.msg, want);
    free(want);
    /* in a $KUBECONFIG list only missing files are skipped: an unreadable one is an error */
    o.kubeconfig = NULL;
    o.env_kubeconfig = KC "/merge-a.yaml:" NOWHERE "/config:/tmp";
    ck_assert_ptr_null(kc_config_load(&o, &err));
    ck_assert_str_eq(err.msg, "cannot read kubeconfig /tmp: Is a directory");
    if (geteuid() != 0) { /* root reads anything */
        char *p = tu_write(tmpdir, "locked", "current-context: x\n");
        ck_assert_int_eq(chmod(p, 0), 0);
        o.kubeconfig = p;
        ck_assert_ptr_null(kc_config_load(&o, &err));
        want = xasprintf("cannot read kubeconfig %s: Permission denied", p);
        ck_assert_str_eq(err.msg, want);
        free(want);
        free(p);
    }
}
END_TEST

START_TEST(home_kube_config_is_the_default)
{
    char *kube = xasprintf("%s/.kube", tmpdir);
    ck_assert_int_eq(mkdir(kube, 0700), 0);
    free(tu_write(kube, "config",
                  "current-context: home\n"
                  "clusters: [{name: c, cluster: {server: 'https://home.example'}}]\n"
                  "contexts: [{name: home, context: {cluster: c}}]\n"));
    kc_config_opts o = {
        .env_kubeconfig = "", .home = tmpdir, .service_host = "10.0.0.1", .service_port = "443"};
    kc_err err = {0};
    kc_rest_config *r = kc_config_load(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->server, "https://home.example");
    ck_assert_ptr_null(r->user);
    ck_assert_int_eq(r->in_cluster, 0);
    char *src = xasprintf("%s/config", kube);
    ck_assert_str_eq(r->source_files, src);
    free(src);
    free(kube);
    kc_rest_config_free(r);
}
END_TEST

START_TEST(reads_every_auth_kind)
{
    kc_err err = {0};
    /* token, basic auth: see merges_three_files_first_wins. Client certificate as data: */
    kc_rest_config *r =
        load_text("current-context: x\n"
                  "clusters: [{name: c, cluster: {server: 'https://h:1', "
                  "certificate-authority-data: Q0EtUEVN}}]\n"
                  "users: [{name: u, user: {client-certificate-data: Q0VSVC1QRU0=, "
                  "client-key-data: S0VZLVBFTQ==, token: t0k}}]\n"
                  "contexts: [{name: x, context: {cluster: c, user: u, namespace: ns1}}]\n",
                  NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_uint_eq(r->ca_len, 6);
    ck_assert_mem_eq(r->ca_data, "CA-PEM", 6);
    ck_assert_uint_eq(r->client_cert_len, 8);
    ck_assert_mem_eq(r->client_cert_data, "CERT-PEM", 8);
    ck_assert_uint_eq(r->client_key_len, 7);
    ck_assert_mem_eq(r->client_key_data, "KEY-PEM", 7);
    ck_assert_str_eq(r->token, "t0k"); /* a token beside a client certificate is allowed */
    ck_assert_str_eq(r->namespace, "ns1");
    kc_rest_config_free(r);

    /* token beats tokenFile (both count as one method) */
    r = load_text("current-context: x\n"
                  "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
                  "users: [{name: u, user: {token: t1, tokenFile: /nonexistent}}]\n"
                  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                  NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->token, "t1");
    ck_assert_ptr_null(r->token_file);
    kc_rest_config_free(r);

    /* exec, v1 with everything */
    r = load_text("current-context: x\n"
                  "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
                  "users:\n"
                  "- name: u\n"
                  "  user:\n"
                  "    exec:\n"
                  "      apiVersion: client.authentication.k8s.io/v1\n"
                  "      command: aws\n"
                  "      args: [eks, get-token, --cluster-name, prod]\n"
                  "      env: [{name: AWS_PROFILE, value: prod}, {name: EMPTY}]\n"
                  "      installHint: install the aws cli\n"
                  "      provideClusterInfo: true\n"
                  "      interactiveMode: Never\n"
                  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                  NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_ptr_nonnull(r->exec);
    ck_assert_str_eq(r->exec->command, "aws"); /* no '/': looked up in PATH when run */
    ck_assert_uint_eq(r->exec->nargs, 4);
    ck_assert_str_eq(r->exec->args[0], "eks");
    ck_assert_str_eq(r->exec->args[3], "prod");
    ck_assert_uint_eq(r->exec->nenv, 2);
    ck_assert_str_eq(r->exec->env_names[0], "AWS_PROFILE");
    ck_assert_str_eq(r->exec->env_values[0], "prod");
    ck_assert_str_eq(r->exec->env_names[1], "EMPTY");
    ck_assert_str_eq(r->exec->env_values[1], "");
    ck_assert_str_eq(r->exec->api_version, "client.authentication.k8s.io/v1");
    ck_assert_str_eq(r->exec->install_hint, "install the aws cli");
    ck_assert_int_eq(r->exec->provide_cluster_info, 1);
    ck_assert_str_eq(r->exec->interactive_mode, "Never");
    kc_rest_config *d = kc_rest_config_dup(r); /* a deep copy outlives the original */
    kc_rest_config_free(r);
    ck_assert_str_eq(d->exec->args[3], "prod");
    ck_assert_str_eq(d->exec->env_values[0], "prod");
    ck_assert_str_eq(d->server, "https://h:1");
    ck_assert_ptr_null(d->token);
    kc_rest_config_free(d);
    ck_assert_ptr_null(kc_rest_config_dup(NULL));
    kc_rest_config_free(NULL);

    /* exec v1beta1: interactiveMode defaults to IfAvailable */
    r = load_text("current-context: x\n"
                  "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
                  "users: [{name: u, user: {exec: {apiVersion: "
                  "client.authentication.k8s.io/v1beta1, command: /usr/bin/true}}}]\n"
                  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                  NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->exec->command, "/usr/bin/true");
    ck_assert_str_eq(r->exec->interactive_mode, "IfAvailable");
    ck_assert_uint_eq(r->exec->nargs, 0);
    ck_assert_int_eq(r->exec->provide_cluster_info, 0);
    kc_rest_config_free(r);

    /* a server without scheme is https when TLS is configured, http otherwise (client-go) */
    r = load_text(
        "current-context: x\n"
        "clusters: [{name: c, cluster: {server: 'h:1', insecure-skip-tls-verify: true}},"
        " {name: d, cluster: {server: 'h:2'}}]\n"
        "contexts: [{name: x, context: {cluster: c}}, {name: y, context: {cluster: d}}]\n",
        NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->server, "https://h:1");
    kc_rest_config_free(r);
    r = load_text(
        "current-context: x\n"
        "clusters: [{name: c, cluster: {server: 'h:1', insecure-skip-tls-verify: true}},"
        " {name: d, cluster: {server: 'h:2'}}]\n"
        "contexts: [{name: x, context: {cluster: c}}, {name: y, context: {cluster: d}}]\n",
        "y", &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->server, "http://h:2");
    kc_rest_config_free(r);
}
END_TEST

START_TEST(relative_paths_resolve_against_the_file)
{
    kc_err err = {0};
    kc_rest_config *r = load_file(KC "/rel/config", NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    size_t n;
    char *ca = tu_read(KC "/certs/ca.crt", &n);
    ck_assert_uint_eq(r->ca_len, n);
    ck_assert_mem_eq(r->ca_data, ca, n);
    free(ca);
    char *crt = tu_read(KC "/certs/client.crt", &n);
    ck_assert_uint_eq(r->client_cert_len, n);
    ck_assert_mem_eq(r->client_cert_data, crt, n);
    free(crt);
    char *key = tu_read(KC "/certs/client.key", &n);
    ck_assert_uint_eq(r->client_key_len, n);
    ck_assert_mem_eq(r->client_key_data, key, n);
    free(key);
    kc_rest_config_free(r);

    r = load_file(KC "/rel/config", "file", &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->token_file, KC "/rel/token");
    kc_rest_config_free(r);

    r = load_file(KC "/rel/config", "exec", &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->exec->command, KC "/rel/bin/plugin");
    kc_rest_config_free(r);

    /* a relative kubeconfig path is made absolute from the working directory */
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(KC), 0);
    r = load_file("rel/config", "file", &err);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->token_file, KC "/rel/token");
    kc_rest_config_free(r);
}
END_TEST

START_TEST(in_cluster_when_no_kubeconfig)
{
    free(tu_write(tmpdir, "token", "sa-token\n"));
    free(tu_write(tmpdir, "ca.crt", "SA-CA-PEM"));
    free(tu_write(tmpdir, "namespace", "velero\n"));
    kc_config_opts o = {.env_kubeconfig = NOWHERE "/a:" NOWHERE "/b",
                        .home = NOWHERE,
                        .sa_dir = tmpdir,
                        .service_host = "10.96.0.1",
                        .service_port = "443",
                        .pod_namespace = ""};
    kc_err err = {0};
    kc_rest_config *r = kc_config_load(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(r->in_cluster, 1);
    ck_assert_str_eq(r->context, "");
    ck_assert_str_eq(r->server, "https://10.96.0.1:443");
    char *tf = xasprintf("%s/token", tmpdir);
    ck_assert_str_eq(r->token_file, tf);
    free(tf);
    ck_assert_ptr_null(r->token);
    ck_assert_uint_eq(r->ca_len, 9);
    ck_assert_mem_eq(r->ca_data, "SA-CA-PEM", 9);
    ck_assert_str_eq(r->namespace, "velero");
    kc_rest_config_free(r);

    /* $POD_NAMESPACE beats the file; an IPv6 host is bracketed */
    o.pod_namespace = "from-env";
    o.service_host = "fd00::1";
    r = kc_config_load(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->namespace, "from-env");
    ck_assert_str_eq(r->server, "https://[fd00::1]:443");
    kc_rest_config_free(r);

    /* no namespace file: "default" */
    char *nsf = xasprintf("%s/namespace", tmpdir);
    unlink(nsf);
    free(nsf);
    o.pod_namespace = "";
    r = kc_config_load(&o, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->namespace, "default");
    kc_rest_config_free(r);

    /* not in a cluster and no kubeconfig */
    o.service_host = "";
    ck_assert_ptr_null(kc_config_load(&o, &err));
    ck_assert_str_eq(err.msg, "no kubeconfig found in " NOWHERE "/a:" NOWHERE
                              "/b and not running in a cluster");
}
END_TEST

START_TEST(yaml_syntax_error_names_file_line_column)
{
    char *p = xasprintf("%s/config", tmpdir);
    char *want = xasprintf("yaml syntax error in %s at line 3, column 10: mapping values are "
                           "not allowed in this context",
                           p);
    ck_assert_str_eq(load_error("current-context: x\n"
                                "users:\n"
                                "- name: a: b\n"
                                "  user: {token: s3cr3t}\n",
                                NULL),
                     want);
    free(want);
    want = xasprintf("yaml syntax error in %s at line 2, column 1: did not find expected ',' "
                     "or ']' while parsing a flow sequence",
                     p);
    ck_assert_str_eq(load_error("users: [{name: a, user: {token: s3cr3t}}\n", NULL), want);
    free(want);
    free(p);
}
END_TEST

#define CLUSTER "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"

START_TEST(context_errors)
{
    char *p = xasprintf("%s/config", tmpdir);
    char *want = xasprintf("context \"nope\" not found in %s", p);
    ck_assert_str_eq(load_error("current-context: x\n" CLUSTER
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                "nope"),
                     want);
    free(want);
    /* a bad field after the cluster's name (found by fuzz_kubeconfig: the name leaked) */
    ck_assert_str_eq(load_error("current-context: x\n" CLUSTER
                                "contexts: [{name: x, context: {cluster: c, user: [a]}}]\n",
                                NULL),
                     "contexts[x].user: not a string");
    want = xasprintf("no current context is set in %s (use --context)", p);
    ck_assert_str_eq(load_error(CLUSTER "contexts: [{name: x, context: {cluster: c}}]\n", NULL),
                     want);
    free(want);
    want = xasprintf("user \"ghost\" of context \"x\" not found in %s", p);
    ck_assert_str_eq(load_error("current-context: x\n" CLUSTER
                                "contexts: [{name: x, context: {cluster: c, user: ghost}}]\n",
                                NULL),
                     want);
    free(want);
    ck_assert_str_eq(load_error("current-context: x\n"
                                "clusters: [{name: c, cluster: {insecure-skip-tls-verify: true}}]\n"
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     "cluster \"c\" has no server");
    ck_assert_str_eq(load_error("current-context: x\n"
                                "contexts: [{name: x, context: {namespace: a}}]\n",
                                NULL),
                     "context \"x\" names no cluster");
    /* a message is one printable line, whatever the names hold */
    want = xasprintf("context \"x?y?[31m\" not found in %s", p);
    ck_assert_str_eq(load_error("current-context: \"x\\ny\\e[31m\"\n" CLUSTER
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     want);
    free(want);
    free(p);
}
END_TEST

static const char *user_error(const char *user_yaml)
{
    char *doc = xasprintf("current-context: x\n" CLUSTER "users:\n- name: alice\n  user:\n%s"
                          "contexts: [{name: x, context: {cluster: c, user: alice}}]\n",
                          user_yaml);
    const char *m = load_error(doc, NULL);
    free(doc);
    return m;
}

START_TEST(user_errors_name_the_user_and_field)
{
    ck_assert_str_eq(user_error("    tokenFile: /tmp/x\n    username: a\n    password: s3cr3t\n"),
                     "user \"alice\" has more than one authentication method: token, basic auth");
    ck_assert_str_eq(user_error("    client-certificate-data: czNjcjN0\n"
                                "    client-key-data: \"s3cr3t!!not*base64\"\n"),
                     "users[alice].client-key-data: invalid base64");
    ck_assert_str_eq(user_error("    client-certificate-data: \"s3cr3t@@\"\n"
                                "    client-key-data: czNjcjN0\n"),
                     "users[alice].client-certificate-data: invalid base64");
    ck_assert_str_eq(user_error("    client-certificate-data: czNjcjN0\n"),
                     "users[alice]: client-certificate given without client-key");
    ck_assert_str_eq(user_error("    client-certificate: /nonexistent/alice.crt\n"
                                "    client-key: /nonexistent/alice.key\n"),
                     "users[alice].client-certificate: cannot read /nonexistent/alice.crt: No "
                     "such file or directory");
    ck_assert_str_eq(user_error("    tokenFile: /nonexistent/token\n"),
                     "users[alice].tokenFile: cannot read /nonexistent/token: No such file or "
                     "directory");
    ck_assert_str_eq(user_error("    exec: {apiVersion: client.authentication.k8s.io/v1, "
                                "command: x}\n"),
                     "users[alice].exec.interactiveMode: required for "
                     "client.authentication.k8s.io/v1");
    ck_assert_str_eq(user_error("    exec: {command: x}\n"),
                     "users[alice].exec.apiVersion: missing");
    ck_assert_str_eq(user_error("    exec: {apiVersion: client.authentication.k8s.io/v1beta1}\n"),
                     "users[alice].exec.command: missing");
    ck_assert_str_eq(user_error("    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, "
                                "command: x}\n"),
                     "users[alice].exec.apiVersion: unsupported "
                     "\"client.authentication.k8s.io/v1alpha1\"");
    ck_assert_str_eq(user_error("    auth-provider: {name: gcp}\n"),
                     "users[alice].auth-provider: not supported, use an exec plugin");
    ck_assert_str_eq(user_error("    token: [s3cr3t]\n"), "users[alice].token: not a string");
    /* fields inside exec are named with their path */
    ck_assert_str_eq(user_error("    exec: {apiVersion: [v1], command: x}\n"),
                     "users[alice].exec.apiVersion: not a string");
    ck_assert_str_eq(user_error("    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
                                "command: x, provideClusterInfo: maybe}\n"),
                     "users[alice].exec.provideClusterInfo: not a boolean");
    ck_assert_str_eq(user_error("    exec: {apiVersion: client.authentication.k8s.io/v1, "
                                "command: x, interactiveMode: Sometimes}\n"),
                     "users[alice].exec.interactiveMode: \"Sometimes\" is not Never, IfAvailable "
                     "or Always");
}
END_TEST

/* Loads a document with cluster c (its fields cluster_yaml), user alice (user_yaml), context x. */
static kc_rest_config *load_user(const char *cluster_yaml, const char *user_yaml, kc_err *err)
{
    char *doc = xasprintf("current-context: x\n"
                          "clusters:\n- name: c\n  cluster:\n    server: https://h:1\n%s"
                          "users:\n- name: alice\n  user:\n%s"
                          "contexts: [{name: x, context: {cluster: c, user: alice}}]\n",
                          cluster_yaml, user_yaml);
    kc_rest_config *r = load_text(doc, NULL, err);
    free(doc);
    return r;
}

#define EXEC_X "    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: x}\n"

/* A static credential beside exec: kubectl uses it and never runs the plugin (client-go
 * plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig); the exec fields are still
 * validated. It used to be refused as "more than one authentication method". */
START_TEST(static_credential_beside_exec_wins)
{
    kc_err err;
    const char *statics[] = {"    token: s3cr3t\n", "    username: a\n    password: s3cr3t\n",
                             ("    client-certificate-data: czNjcjN0\n"
                              "    client-key-data: czNjcjN0\n")};
    for (size_t i = 0; i < 3; i++) {
        char *u = xasprintf("%s" EXEC_X, statics[i]);
        kc_rest_config *r = load_user("", u, &err);
        ck_assert_msg(r != NULL, "%s", err.msg);
        ck_assert_ptr_null(r->exec);
        kc_rest_config_free(r);
        free(u);
    }
    char *tf = tu_write(tmpdir, "tok", "s3cr3t\n");
    char *u = xasprintf("    tokenFile: %s\n" EXEC_X, tf);
    kc_rest_config *r = load_user("", u, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_ptr_null(r->exec);
    ck_assert_str_eq(r->token_file, tf);
    kc_rest_config_free(r);
    free(u);
    free(tf);
    /* exec alone is kept */
    r = load_user("", EXEC_X, &err);
    ck_assert_ptr_nonnull(r->exec);
    kc_rest_config_free(r);
    /* and its fields are validated even beside a token */
    ck_assert_str_eq(user_error("    token: s3cr3t\n    exec: {command: x}\n"),
                     "users[alice].exec.apiVersion: missing");
    /* token and basic auth together are still refused, as kubectl */
    ck_assert_str_eq(user_error("    token: s3cr3t\n    username: a\n    password: b\n"),
                     "user \"alice\" has more than one authentication method: token, basic auth");
}
END_TEST

/* Both forms of the certificate, key or CA: kubectl refuses the user (or cluster) with these
 * words (client-go tools/clientcmd/validation.go); veltop used to take one of them. */
START_TEST(data_and_file_of_one_credential_are_refused)
{
    char *crt = tu_write(tmpdir, "a.crt", "PEM"), *key = tu_write(tmpdir, "a.key", "PEM");
    char *u = xasprintf("    client-certificate: %s\n    client-certificate-data: czNjcjN0\n"
                        "    client-key: %s\n",
                        crt, key);
    ck_assert_str_eq(user_error(u), "client-cert-data and client-cert are both specified for "
                                    "alice. client-cert-data will override.");
    free(u);
    u = xasprintf("    client-certificate: %s\n    client-key-data: czNjcjN0\n"
                  "    client-key: %s\n",
                  crt, key);
    ck_assert_str_eq(user_error(u), "client-key-data and client-key are both specified for "
                                    "alice; client-key-data will override");
    free(u);
    char *doc = xasprintf("current-context: x\nclusters: [{name: c, cluster: {server: "
                          "'https://h:1', certificate-authority: %s, certificate-authority-data: "
                          "czNjcjN0}}]\ncontexts: [{name: x, context: {cluster: c}}]\n",
                          crt);
    ck_assert_str_eq(load_error(doc, NULL),
                     "certificate-authority-data and certificate-authority are both specified "
                     "for c. certificate-authority-data will override.");
    free(doc);
    free(crt);
    free(key);
}
END_TEST

/* A list naming an entry twice: kubectl's loader refuses the file (client-go
 * tools/clientcmd/api/v1/conversion.go); veltop used to pick one. */
START_TEST(duplicate_names_in_a_list_are_refused)
{
    char *p = xasprintf("%s/config", tmpdir);
    const char *docs[][2] = {
        {"clusters: [{name: c, cluster: {server: 'https://h:1'}}, {name: c, cluster: {server: "
         "'https://h:2'}}]\n",
         "clusters"},
        {CLUSTER "users: [{name: u, user: {}}, {name: v, user: {}}, {name: u, user: {}}]\n",
         "users"},
        {CLUSTER "contexts: [{name: x, context: {cluster: c}}, {name: x, context: {cluster: c}}]\n",
         "contexts"},
        {CLUSTER "extensions: [{name: e, extension: {}}, {name: e, extension: {}}]\n",
         "extensions"},
        {"clusters: [{name: c, cluster: {server: 'https://h:1', extensions: [{name: e, "
         "extension: {}}, {name: e, extension: {}}]}}]\n",
         "clusters[c].extensions"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *doc = xasprintf("current-context: x\n%scontexts: [{name: x, context: {cluster: "
                              "c}}]\n",
                              docs[i][0]);
        if (!strcmp(docs[i][1], "contexts")) {
            free(doc);
            doc = xasprintf("current-context: x\n%s", docs[i][0]);
        }
        const char *dup = !strcmp(docs[i][1], "clusters")   ? "c"
                          : !strcmp(docs[i][1], "users")    ? "u"
                          : !strcmp(docs[i][1], "contexts") ? "x"
                                                            : "e";
        char *want = xasprintf("duplicate name \"%s\" in list %s of %s", dup, docs[i][1], p);
        ck_assert_str_eq(load_error(doc, NULL), want);
        free(want);
        free(doc);
    }
    /* the same name in two merged files is the merge rule (first wins), not a duplicate */
    char *a =
        tu_write(tmpdir, "a",
                 "current-context: x\n" CLUSTER "contexts: [{name: x, context: {cluster: c}}]\n");
    char *b = tu_write(tmpdir, "b", CLUSTER);
    char *env = xasprintf("%s:%s", a, b);
    kc_err err;
    kc_rest_config *r = load_env(env, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    kc_rest_config_free(r);
    free(env);
    free(a);
    free(b);
    free(p);
}
END_TEST

/* as, as-uid, as-groups, as-user-extra are read (they used to be ignored: veltop ran as the
 * user's own identity); uid, groups or extra without a user are refused with kubectl's words. */
START_TEST(impersonation_is_read_and_validated)
{
    kc_err err;
    kc_rest_config *r = load_user("",
                                  "    token: s3cr3t\n"
                                  "    as: alice@example.com\n"
                                  "    as-uid: 'u-1'\n"
                                  "    as-groups: [dev, ops]\n"
                                  "    as-user-extra:\n"
                                  "      reason: [audit]\n"
                                  "      example.com/scopes: [a, b]\n",
                                  &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->as_user, "alice@example.com");
    ck_assert_str_eq(r->as_uid, "u-1");
    ck_assert_uint_eq(r->n_as_groups, 2);
    ck_assert_str_eq(r->as_groups[0], "dev");
    ck_assert_str_eq(r->as_groups[1], "ops");
    ck_assert_uint_eq(r->n_as_extra, 3);
    ck_assert_str_eq(r->as_extra_keys[0], "reason");
    ck_assert_str_eq(r->as_extra_values[0], "audit");
    ck_assert_str_eq(r->as_extra_keys[2], "example.com/scopes");
    ck_assert_str_eq(r->as_extra_values[2], "b");
    kc_rest_config *d = kc_rest_config_dup(r);
    ck_assert_str_eq(d->as_groups[1], "ops");
    ck_assert_str_eq(d->as_extra_values[1], "a");
    kc_rest_config_free(d);
    kc_rest_config_free(r);
    const char *msg = "requesting uid, groups or user-extra for alice without impersonating a user";
    ck_assert_str_eq(user_error("    token: s3cr3t\n    as-groups: [dev]\n"), msg);
    ck_assert_str_eq(user_error("    token: s3cr3t\n    as-uid: u-1\n"), msg);
    ck_assert_str_eq(user_error("    token: s3cr3t\n    as-user-extra: {k: [v]}\n"), msg);
    ck_assert_str_eq(user_error("    as: \"bob\\r\\nX-Evil: 1\"\n"),
                     "users[alice].as: a control character in it");
    ck_assert_str_eq(user_error("    as: bob\n    as-groups: dev\n"),
                     "users[alice].as-groups: not a list");
}
END_TEST

/* proxy-url as client-go reads it: Go's url.Parse, then http, https or socks5; a bad one is a
 * configuration error naming the field, before any connection (it used to end in "connection
 * refused" or "could not resolve proxy"). The URL itself is not quoted (it may hold a password). */
START_TEST(bad_proxy_url_is_a_configuration_error)
{
    const char *bad[][2] = {
        {"socks6://127.0.0.1:1080",
         "unsupported scheme \"socks6\", must be http, https, or socks5"},
        {"example.com", "unsupported scheme \"\", must be http, https, or socks5"},
        {"user@example.com", "unsupported scheme \"\", must be http, https, or socks5"},
        {"ftp://s3cr3t@h:21", "unsupported scheme \"ftp\", must be http, https, or socks5"},
        {"127.0.0.1:3128", "unsupported scheme \"\", must be http, https, or socks5"},
        {"http:h", "no proxy host in it (http://HOST:PORT)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *doc = xasprintf("current-context: x\nclusters: [{name: c, cluster: {server: "
                              "'https://h:1', proxy-url: '%s'}}]\ncontexts: [{name: x, context: "
                              "{cluster: c}}]\n",
                              bad[i][0]);
        char *want = xasprintf("clusters[c].proxy-url: %s", bad[i][1]);
        ck_assert_str_eq(load_error(doc, NULL), want);
        free(want);
        free(doc);
    }
    const char *good[] = {"http://127.0.0.1:3128", "https://proxy.example:443",
                          "socks5://u:p@127.0.0.1:1080", "HTTPS://proxy:8443"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *c = xasprintf("    proxy-url: '%s'\n", good[i]);
        kc_err err;
        kc_rest_config *r = load_user(c, "    token: t\n", &err);
        ck_assert_msg(r != NULL, "%s: %s", good[i], err.msg);
        ck_assert_str_eq(r->proxy_url, good[i]);
        kc_rest_config_free(r);
        free(c);
    }
}
END_TEST

/* provideClusterInfo: the cluster's client.authentication.k8s.io/exec extension, as JSON. */
START_TEST(exec_cluster_extension_becomes_json)
{
    kc_err err;
    kc_rest_config *r = load_user("    extensions:\n"
                                  "    - name: other\n"
                                  "      extension: {x: 1}\n"
                                  "    - name: client.authentication.k8s.io/exec\n"
                                  "      extension:\n"
                                  "        audience: veltop\n"
                                  "        port: 8443\n"
                                  "        ratio: 0.5\n"
                                  "        quoted: '42'\n"
                                  "        on: true\n"
                                  "        none: null\n"
                                  "        list: [a, 1]\n",
                                  "    exec: {apiVersion: client.authentication.k8s.io/v1, "
                                  "command: x, interactiveMode: Never, provideClusterInfo: "
                                  "true}\n",
                                  &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(r->exec->cluster_config,
                     "{\"audience\":\"veltop\",\"port\":8443,\"ratio\":0.5,\"quoted\":\"42\","
                     "\"on\":true,\"none\":null,\"list\":[\"a\",1]}");
    kc_rest_config_free(r);
    /* without provideClusterInfo nothing is carried */
    r = load_user("    extensions: [{name: client.authentication.k8s.io/exec, extension: {a: "
                  "1}}]\n",
                  EXEC_X, &err);
    ck_assert_ptr_null(r->exec->cluster_config);
    kc_rest_config_free(r);
}
END_TEST

START_TEST(cluster_errors_name_the_field)
{
    ck_assert_str_eq(load_error("current-context: x\n"
                                "clusters: [{name: c, cluster: {server: 'https://h:1', "
                                "certificate-authority-data: '%%%'}}]\n"
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     "clusters[c].certificate-authority-data: invalid base64");
    char *p = xasprintf("%s/config", tmpdir);
    char *want = xasprintf("clusters[c].certificate-authority: cannot read %s/ca.pem: No such "
                           "file or directory",
                           tmpdir);
    ck_assert_str_eq(load_error("current-context: x\n"
                                "clusters: [{name: c, cluster: {server: 'https://h:1', "
                                "certificate-authority: ca.pem}}]\n"
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     want);
    free(want);
    free(p);
    ck_assert_str_eq(load_error("current-context: x\n"
                                "clusters: [{name: c, cluster: {server: 'https://h:1', "
                                "insecure-skip-tls-verify: perhaps}}]\n"
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     "clusters[c].insecure-skip-tls-verify: not a boolean");
}
END_TEST

/* Files the kubeconfig names are read up to KC_CAP_FILE_BYTES (certificate-authority: /dev/zero
 * was read until memory ran out); a kubeconfig nesting deeper than KC_CAP_YAML_DEPTH is rejected
 * at once (100 000 levels took 36 s); a kubeconfig past KC_CAP_KUBECONFIG_BYTES is refused. */
START_TEST(outside_files_and_nesting_are_capped)
{
    ck_assert_str_eq(load_error("current-context: x\n"
                                "clusters: [{name: c, cluster: {server: 'https://h:1', "
                                "certificate-authority: /dev/zero}}]\n"
                                "contexts: [{name: x, context: {cluster: c}}]\n",
                                NULL),
                     "clusters[c].certificate-authority: cannot read /dev/zero: larger than 4 MiB, "
                     "veltop's limit for a file the kubeconfig names");
    ck_assert_str_eq(load_error("current-context: x\n" CLUSTER
                                "users: [{name: u, user: {client-certificate: /dev/zero, "
                                "client-key: /dev/zero}}]\n"
                                "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
                                NULL),
                     "users[u].client-certificate: cannot read /dev/zero: larger than 4 MiB, "
                     "veltop's limit for a file the kubeconfig names");
    size_t levels = 100000;
    char *deep = xmalloc(levels * 2 + 16), *q = deep;
    q += sprintf(q, "users: ");
    for (size_t i = 0; i < levels; i++) *q++ = '[';
    for (size_t i = 0; i < levels; i++) *q++ = ']';
    strcpy(q, "\n");
    int64_t t0 = kc_now_ms();
    char *p = xasprintf("%s/config", tmpdir);
    char *want = xasprintf("kubeconfig %s nests deeper than 64 levels", p);
    ck_assert_str_eq(load_error(deep, NULL), want);
    ck_assert_int_lt(kc_now_ms() - t0, 2000);
    free(want);
    free(deep);
    /* 64 levels are fine (as YAML; the kubeconfig's shape is checked after) */
    deep = xmalloc(256);
    q = deep + sprintf(deep, "x: ");
    for (int i = 0; i < 63; i++) *q++ = '[';
    for (int i = 0; i < 63; i++) *q++ = ']';
    strcpy(q, "\n" CLUSTER "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n");
    kc_err err;
    kc_rest_config *r = load_text(deep, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    kc_rest_config_free(r);
    free(deep);
    free(p);
    /* the kubeconfig itself */
    r = load_file("/dev/zero", NULL, &err);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err.msg, "cannot read kubeconfig /dev/zero: larger than 16 MiB, veltop's "
                              "limit for a kubeconfig");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kubeconfig");
    TCase *tc = tcase_create("kubeconfig");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, merges_three_files_first_wins);
    tcase_add_test(tc, kubeconfig_flag_reads_that_file_only);
    tcase_add_test(tc, home_kube_config_is_the_default);
    tcase_add_test(tc, reads_every_auth_kind);
    tcase_add_test(tc, relative_paths_resolve_against_the_file);
    tcase_add_test(tc, in_cluster_when_no_kubeconfig);
    tcase_add_test(tc, yaml_syntax_error_names_file_line_column);
    tcase_add_test(tc, context_errors);
    tcase_add_test(tc, user_errors_name_the_user_and_field);
    tcase_add_test(tc, cluster_errors_name_the_field);
    tcase_add_test(tc, static_credential_beside_exec_wins);
    tcase_add_test(tc, data_and_file_of_one_credential_are_refused);
    tcase_add_test(tc, duplicate_names_in_a_list_are_refused);
    tcase_add_test(tc, impersonation_is_read_and_validated);
    tcase_add_test(tc, bad_proxy_url_is_a_configuration_error);
    tcase_add_test(tc, exec_cluster_extension_becomes_json);
    tcase_add_test(tc, lists_context_names_of_merged_files);
    tcase_add_test(tc, outside_files_and_nesting_are_capped);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
