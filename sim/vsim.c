/* vsim.c: veltop-sim as a library: wires the object store, the API server, the certificates and
 * the simulated Velero controller together. */
#include "vsim.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "objstore.h"
#include "server.h"
#include "simctl.h"
#include "simstore.h"
#include "tlsgen.h"

struct vsim {
    simstore *store;
    simserver *server;
    _Atomic(simctl *) ctl;
    double clock_skew; /* vsim_opts.clock_skew */
    tlsgen certs;
    int tls;
    char *auth;
    char *token;
    char *host;
    char *url;
    int port;
    objstore *objs;    /* --object-store-tls: the object store's own HTTPS origin */
    tlsgen objs_certs; /* its own CA and certificate */
    char *objs_url;
    char *ns, *name, *bad_token; /* Velero's namespace; the kubeconfig's names; a wrong token */
};

static int vsim_download(void *arg, const char *token, unsigned char **data, size_t *len,
                         int *status)
{
    vsim *v = arg;
    simctl *c = atomic_load(&v->ctl);
    if (!c) {
        *status = 404;
        return -1;
    }
    return simctl_download(c, token, data, len, status);
}

/* The simulated clock once the controller runs (it runs ahead of the wall at --speed > 1). */
static double vsim_now(void *arg)
{
    vsim *v = arg;
    simctl *c = atomic_load(&v->ctl);
    return c ? simctl_now(c) : kc_wall_now() + v->clock_skew;
}

/* The simulated Velero server pod, as a Deployment's pod looks. */
static void create_velero_pod(simstore *st, const char *ns, double skew)
{
    char ts[40];
    kc_format_time(kc_wall_now() + skew, ts, sizeof ts);
    cJSON *p = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(p, "metadata");
    cJSON_AddStringToObject(md, "name", sim_velero_pod_name());
    cJSON_AddStringToObject(md, "generateName", "velero-7d8f9c6b54-");
    cJSON *l = cJSON_AddObjectToObject(md, "labels");
    cJSON_AddStringToObject(l, "component", "velero");
    cJSON_AddStringToObject(l, "deploy", "velero");
    cJSON_AddStringToObject(l, "pod-template-hash", "7d8f9c6b54");
    cJSON *spec = cJSON_AddObjectToObject(p, "spec");
    cJSON_AddStringToObject(spec, "nodeName", "node-1");
    cJSON_AddStringToObject(spec, "serviceAccountName", "velero");
    cJSON *cs = cJSON_AddArrayToObject(spec, "containers");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", "velero");
    cJSON_AddStringToObject(c, "image", "velero/velero:v1.18.2");
    cJSON *cmd = cJSON_AddArrayToObject(c, "command");
    cJSON_AddItemToArray(cmd, cJSON_CreateString("/velero"));
    cJSON *args = cJSON_AddArrayToObject(c, "args");
    cJSON_AddItemToArray(args, cJSON_CreateString("server"));
    cJSON_AddItemToArray(cs, c);
    cJSON *st2 = cJSON_AddObjectToObject(p, "status");
    cJSON_AddStringToObject(st2, "phase", "Running");
    cJSON_AddStringToObject(st2, "podIP", "10.244.1.7");
    cJSON_AddStringToObject(st2, "hostIP", "172.18.0.3");
    cJSON_AddStringToObject(st2, "startTime", ts);
    cJSON *conds = cJSON_AddArrayToObject(st2, "conditions");
    const char *ctypes[] = {"Initialized", "Ready", "ContainersReady", "PodScheduled"};
    for (int i = 0; i < 4; i++) {
        cJSON *cd = cJSON_CreateObject();
        cJSON_AddStringToObject(cd, "type", ctypes[i]);
        cJSON_AddStringToObject(cd, "status", "True");
        cJSON_AddStringToObject(cd, "lastTransitionTime", ts);
        cJSON_AddItemToArray(conds, cd);
    }
    cJSON *css = cJSON_AddArrayToObject(st2, "containerStatuses");
    cJSON *cst = cJSON_CreateObject();
    cJSON_AddStringToObject(cst, "name", "velero");
    cJSON_AddBoolToObject(cst, "ready", 1);
    cJSON_AddBoolToObject(cst, "started", 1);
    cJSON_AddNumberToObject(cst, "restartCount", 0);
    cJSON_AddStringToObject(cst, "image", "docker.io/velero/velero:v1.18.2");
    /* imageID has no omitempty (python3-kubernetes refuses a ContainerStatus without it) */
    cJSON_AddStringToObject(cst, "imageID",
                            "docker.io/velero/velero@sha256:"
                            "5d1d3a7e8b8f4c0a9e2f6b7c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e");
    cJSON_AddStringToObject(cst, "containerID",
                            "containerd://"
                            "8f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b");
    cJSON *state = cJSON_AddObjectToObject(cst, "state");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(state, "running"), "startedAt", ts);
    cJSON_AddObjectToObject(cst, "lastState");
    cJSON_AddItemToArray(css, cst);
    cJSON_Delete(simstore_create(st, "pods", ns, p, NULL, NULL));
}

static char *random_token(void)
{
    unsigned char b[24];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
    if (fd >= 0) close(fd);
    if (n != (ssize_t)sizeof b) {
        uint64_t x = (uint64_t)kc_now_ms() ^ (uint64_t)getpid() << 32;
        for (size_t i = 0; i < sizeof b; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    char *s = xmalloc(sizeof b * 2 + 1);
    for (size_t i = 0; i < sizeof b; i++) snprintf(s + 2 * i, 3, "%02x", b[i]);
    return s;
}

vsim *vsim_start(const vsim_opts *opts, char *err, size_t errlen)
{
    vsim_opts dflt = {0};
    if (!opts) opts = &dflt;
    const char *listen = opts->listen ? opts->listen : "127.0.0.1:0";
    const char *colon = strrchr(listen, ':');
    if (!colon || !colon[1]) {
        snprintf(err, errlen, "bad listen address '%s': expected HOST:PORT", listen);
        return NULL;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535) {
        snprintf(err, errlen, "bad listen port '%s': expected 0-65535", colon + 1);
        return NULL;
    }
    const char *auth = opts->auth ? opts->auth : "none";
    if (strcmp(auth, "none") && strcmp(auth, "token") && strcmp(auth, "client-cert")) {
        snprintf(err, errlen, "bad auth '%s': expected none, token or client-cert", auth);
        return NULL;
    }
    if (!strcmp(auth, "client-cert") && !opts->tls) {
        snprintf(err, errlen, "client-cert auth needs --tls");
        return NULL;
    }
    if (simserver_check_faults(opts->faults, err, errlen)) return NULL;
    vsim *v = xcalloc(1, sizeof *v);
    v->host = colon == listen ? xstrdup("127.0.0.1") : xstrndup(listen, (size_t)(colon - listen));
    if (!strcmp(v->host, "localhost")) {
        free(v->host);
        v->host = xstrdup("127.0.0.1");
    }
    v->tls = opts->tls;
    v->auth = xstrdup(auth);
    if (v->tls && tlsgen_make(&v->certs, v->host, err, errlen)) goto fail;
    if (!strcmp(auth, "token")) v->token = random_token();
    v->store = simstore_new(20000);
    v->ns = xstrdup(opts->velero_ns && *opts->velero_ns ? opts->velero_ns : "velero");
    v->name =
        xstrdup(opts->context_name && *opts->context_name ? opts->context_name : "veltop-sim");
    if (opts->bad_token) v->bad_token = xstrdup(opts->bad_token);
    char *nstext = xasprintf("{\"metadata\":{\"name\":\"%s\",\"labels\":{"
                             "\"kubernetes.io/metadata.name\":\"%s\"}},"
                             "\"spec\":{\"finalizers\":[\"kubernetes\"]},"
                             "\"status\":{\"phase\":\"Active\"}}",
                             v->ns, v->ns);
    cJSON *nsobj = cJSON_Parse(nstext);
    free(nstext);
    cJSON_Delete(simstore_create(v->store, "namespaces", NULL, nsobj, NULL, NULL));
    v->clock_skew = opts->clock_skew;
    simstore_set_clock_skew(v->store, opts->clock_skew);
    create_velero_pod(v->store, v->ns, opts->clock_skew);
    simserver_opts so = {
        .store = v->store,
        .host = v->host,
        .port = (int)port,
        .kube_minor = opts->kube_minor,
        .cert_pem = v->tls ? v->certs.server_cert : NULL,
        .key_pem = v->tls ? v->certs.server_key : NULL,
        .ca_pem = v->tls ? v->certs.ca_cert : NULL,
        .auth = auth,
        .token = v->token,
        .faults = opts->faults,
        .rbac = opts->rbac,
        .record = opts->record,
        .latency_ms = opts->latency_ms,
        .bandwidth = opts->bandwidth,
        .no_gzip = opts->no_gzip,
        .rv0_limit = opts->rv0_limit,
        .download = vsim_download,
        .download_arg = v,
        .now = vsim_now,
        .now_arg = v,
        .clock_skew = opts->clock_skew,
    };
    v->server = simserver_start(&so, err, errlen);
    if (!v->server) goto fail;
    v->port = simserver_port(v->server);
    v->url = xasprintf("%s://%s:%d", v->tls ? "https" : "http", v->host, v->port);
    if (opts->object_store_tls) {
        if (tlsgen_make(&v->objs_certs, v->host, err, errlen)) goto fail;
        v->objs = objstore_start(v->host, v->objs_certs.server_cert, v->objs_certs.server_key,
                                 vsim_download, v, err, errlen);
        if (!v->objs) goto fail;
        v->objs_url = xasprintf("https://%s:%d", v->host, objstore_port(v->objs));
    }
    simctl_opts co = {
        .scenario = opts->scenario ? opts->scenario : "demo",
        .speed = opts->speed > 0 ? opts->speed : 1,
        .seed = opts->seed,
        .resource_progress = opts->resource_progress,
        .log_json = opts->log_json,
        .passive = opts->passive,
        .base_url = v->objs_url ? v->objs_url : v->url,
        .object_store_ca = v->objs ? v->objs_certs.ca_cert : NULL,
        .ns = v->ns,
        .quiet = opts->quiet,
        .helm = opts->helm,
        .clock_skew = opts->clock_skew,
        .freeze = opts->freeze,
        .freeze_at = opts->freeze_at,
    };
    simctl *c = simctl_start(v->store, &co, err, errlen);
    if (!c) goto fail;
    atomic_store(&v->ctl, c);
    if (opts->kubeconfig_out) {
        char *kc = vsim_kubeconfig(v);
        int fd = open(opts->kubeconfig_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        size_t len = strlen(kc);
        int ok = fd >= 0 && write(fd, kc, len) == (ssize_t)len;
        if (fd >= 0 && close(fd)) ok = 0;
        free(kc);
        if (!ok) {
            snprintf(err, errlen, "cannot write kubeconfig %s", opts->kubeconfig_out);
            goto fail;
        }
    }
    return v;
fail:
    vsim_stop(v);
    return NULL;
}

void vsim_stop(vsim *v)
{
    if (!v) return;
    simserver_stop(v->server); /* first: no request may reach the controller after this */
    objstore_stop(v->objs);
    simctl_stop(atomic_load(&v->ctl));
    simstore_free(v->store);
    tlsgen_free(&v->certs);
    tlsgen_free(&v->objs_certs);
    free(v->objs_url);
    free(v->auth);
    free(v->token);
    free(v->host);
    free(v->url);
    free(v->ns);
    free(v->name);
    free(v->bad_token);
    free(v);
}

const char *vsim_url(const vsim *v)
{
    return v->url;
}

int vsim_port(const vsim *v)
{
    return v->port;
}

simstore *vsim_store(vsim *v)
{
    return v->store;
}

const char *vsim_token(const vsim *v)
{
    return v->token;
}

void vsim_set_rv0_limit(vsim *v, int on)
{
    simserver_set_rv0_limit(v->server, on);
}

char *vsim_stats(vsim *v)
{
    return simserver_stats_json(v->server);
}

void vsim_set_bookmark_ms(vsim *v, int ms)
{
    simserver_set_bookmark_ms(v->server, ms);
}

static char *b64(const char *pem)
{
    return kc_base64_encode((const unsigned char *)pem, strlen(pem));
}

char *vsim_kubeconfig(const vsim *v)
{
    kc_buf b = {0};
    kc_buf_printf(&b, "apiVersion: v1\nkind: Config\nclusters:\n");
    vsim_kubeconfig_parts(v, &b, VSIM_KC_CLUSTER);
    kc_buf_printf(&b, "users:\n");
    vsim_kubeconfig_parts(v, &b, VSIM_KC_USER);
    kc_buf_printf(&b, "contexts:\n");
    vsim_kubeconfig_parts(v, &b, VSIM_KC_CONTEXT);
    kc_buf_printf(&b, "current-context: \"%s\"\n", v->name);
    return kc_buf_cstr(&b);
}

void vsim_kubeconfig_parts(const vsim *v, kc_buf *out, int part)
{
    kc_buf b = {0};
    if (part == VSIM_KC_CONTEXT) {
        kc_buf_printf(&b,
                      "- name: \"%s\"\n  context:\n    cluster: \"%s\"\n    user: \"%s\"\n"
                      "    namespace: %s\n",
                      v->name, v->name, v->name, v->ns);
        kc_buf_append(out, b.data, b.len);
        kc_buf_free(&b);
        return;
    }
    if (part == VSIM_KC_CLUSTER)
        kc_buf_printf(&b, "- name: \"%s\"\n  cluster:\n    server: %s\n", v->name, v->url);
    if (part == VSIM_KC_CLUSTER && v->tls) {
        char *ca = b64(v->certs.ca_cert);
        kc_buf_printf(&b, "    certificate-authority-data: %s\n", ca);
        free(ca);
    }
    if (part == VSIM_KC_CLUSTER) {
        kc_buf_append(out, b.data, b.len);
        kc_buf_free(&b);
        return;
    }
    kc_buf_printf(&b, "- name: \"%s\"\n  user:", v->name);
    if (v->token) {
        kc_buf_printf(&b, "\n    token: %s\n", v->bad_token ? v->bad_token : v->token);
    } else if (!strcmp(v->auth, "client-cert")) {
        char *c = b64(v->certs.client_cert), *k = b64(v->certs.client_key);
        kc_buf_printf(&b, "\n    client-certificate-data: %s\n    client-key-data: %s\n", c, k);
        free(c);
        free(k);
    } else {
        kc_buf_printf(&b, " {}\n");
    }
    kc_buf_append(out, b.data, b.len);
    kc_buf_free(&b);
}

const char *vsim_namespace(const vsim *v)
{
    return v->ns;
}

const char *vsim_ca_pem(const vsim *v)
{
    return v->tls ? v->certs.ca_cert : NULL;
}

const char *vsim_context_name(const vsim *v)
{
    return v->name;
}

double vsim_clock(vsim *v)
{
    return vsim_now(v);
}
