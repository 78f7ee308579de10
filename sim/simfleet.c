/* simfleet.c: a fleet of simulated clusters in one process (simfleet.h). */
#include "simfleet.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kubeclient/util.h"

static const vsim_fleet_def demo_defs[] = {
    {"arn:aws:eks:eu-west-1:123456789012:cluster/prod", "fleet-healthy", NULL, NULL, 1, 1, 0, 0},
    {"gke_acme_europe-west1_shop", "fleet-stalled-restore", NULL, NULL, 0, 0, 0, 0},
    {"kubernetes-admin@staging", "fleet-overdue", NULL, NULL, 1, 1, 0, 0},
    {"prod-us-east", NULL, NULL, NULL, 0, 0, 0, 1},
    {"dr-site", "fleet-healthy", "forbid=pods", NULL, 0, 0, 0, 0},
    {"openshift-prod", "fleet-healthy", NULL, "openshift-adp", 0, 0, 0, 0},
    {"kind-dev", "fleet-healthy", NULL, NULL, 1, 1, 1, 0},
};

const vsim_fleet_def *vsim_fleet_demo(size_t *n)
{
    *n = sizeof demo_defs / sizeof demo_defs[0];
    return demo_defs;
}

typedef struct vf_member {
    vsim_fleet_def def;
    vsim *sim;
    int sock; /* unreachable: bound, never listening (connections are refused) */
    char *url;
} vf_member;

struct vsim_fleet {
    vf_member *m;
    size_t n;
};

/* A loopback port that refuses connections for as long as the fleet lives. */
static int vf_dead_port(int *sock)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)&a, &len)) {
        close(s);
        return -1;
    }
    *sock = s;
    return ntohs(a.sin_port);
}

vsim_fleet *vsim_fleet_start(const vsim_fleet_def *defs, size_t n, double speed, double freeze_at,
                             int quiet, char *err, size_t errlen)
{
    vsim_fleet *f = xcalloc(1, sizeof *f);
    f->m = xcalloc(n ? n : 1, sizeof *f->m);
    for (size_t i = 0; i < n; i++) {
        vf_member *m = &f->m[i];
        m->def = defs[i];
        m->sock = -1;
        f->n = i + 1;
        if (defs[i].unreachable) {
            int port = vf_dead_port(&m->sock);
            if (port < 0) {
                snprintf(err, errlen, "%s: cannot reserve a port", defs[i].context);
                vsim_fleet_stop(f);
                return NULL;
            }
            m->url = xasprintf("http://127.0.0.1:%d", port);
            continue;
        }
        vsim_opts o = {0};
        o.scenario = defs[i].world;
        o.speed = speed;
        o.freeze = freeze_at >= 0;
        o.freeze_at = freeze_at;
        o.quiet = quiet;
        o.faults = defs[i].faults;
        o.velero_ns = defs[i].velero_ns;
        o.context_name = defs[i].context;
        o.tls = defs[i].tls;
        o.auth = defs[i].token ? "token" : "none";
        o.bad_token = defs[i].bad_token ? "not-the-token" : NULL;
        char e[400] = "";
        m->sim = vsim_start(&o, e, sizeof e);
        if (!m->sim) {
            snprintf(err, errlen, "%s: %s", defs[i].context, e);
            vsim_fleet_stop(f);
            return NULL;
        }
        m->url = xstrdup(vsim_url(m->sim));
    }
    return f;
}

void vsim_fleet_stop(vsim_fleet *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n; i++) {
        vsim_stop(f->m[i].sim);
        if (f->m[i].sock >= 0) close(f->m[i].sock);
        free(f->m[i].url);
    }
    free(f->m);
    free(f);
}

size_t vsim_fleet_len(const vsim_fleet *f)
{
    return f->n;
}

const vsim_fleet_def *vsim_fleet_member(const vsim_fleet *f, size_t i)
{
    return &f->m[i].def;
}

vsim *vsim_fleet_sim(const vsim_fleet *f, size_t i)
{
    return f->m[i].sim;
}

const char *vsim_fleet_url(const vsim_fleet *f, size_t i)
{
    return f->m[i].url;
}

const char *vsim_fleet_token(const vsim_fleet *f, size_t i)
{
    const vf_member *m = &f->m[i];
    if (!m->sim || !m->def.token) return NULL;
    return m->def.bad_token ? "not-the-token" : vsim_token(m->sim);
}

const char *vsim_fleet_ca(const vsim_fleet *f, size_t i)
{
    return f->m[i].sim && f->m[i].def.tls ? vsim_ca_pem(f->m[i].sim) : NULL;
}

char *vsim_fleet_kubeconfig(const vsim_fleet *f)
{
    kc_buf b = {0};
    static const char *titles[] = {"clusters", "users", "contexts"};
    kc_buf_printf(&b, "apiVersion: v1\nkind: Config\n");
    for (int part = VSIM_KC_CLUSTER; part <= VSIM_KC_CONTEXT; part++) {
        kc_buf_printf(&b, "%s:\n", titles[part]);
        for (size_t i = 0; i < f->n; i++) {
            const vf_member *m = &f->m[i];
            if (m->sim) {
                vsim_kubeconfig_parts(m->sim, &b, part);
                continue;
            }
            if (part == VSIM_KC_CLUSTER)
                kc_buf_printf(&b, "- name: \"%s\"\n  cluster:\n    server: %s\n", m->def.context,
                              m->url);
            else if (part == VSIM_KC_USER)
                kc_buf_printf(&b, "- name: \"%s\"\n  user: {}\n", m->def.context);
            else
                kc_buf_printf(&b,
                              "- name: \"%s\"\n  context:\n    cluster: \"%s\"\n    user: \"%s\"\n",
                              m->def.context, m->def.context, m->def.context);
        }
    }
    if (f->n) kc_buf_printf(&b, "current-context: \"%s\"\n", f->m[0].def.context);
    return kc_buf_cstr(&b);
}
