/* vsim.h: veltop-sim as a library: a simulated Velero cluster served over the Kubernetes API on
 * loopback. Used by the veltop-sim program, by `veltop --demo` (in-process) and by tests. */
#pragma once
#include <stddef.h>

typedef struct vsim vsim;

typedef struct vsim_opts {
    const char *listen;         /* "HOST:PORT"; NULL = "127.0.0.1:0" (free port) */
    const char *kubeconfig_out; /* write a kubeconfig for the sim here; NULL = none */
    const char *scenario;       /* "demo" (default), "empty" or a YAML file path */
    double speed;               /* simulated seconds per real second; 0 = 1 */
    unsigned seed;              /* 0 = fixed default seed */
    int tls;               /* serve HTTPS with a CA and server certificate generated at start */
    const char *auth;      /* "none" (default), "token", "client-cert" */
    int kube_minor;        /* /version minor; 0 = 30 */
    const char *faults;    /* comma list, see veltop-sim --help; NULL = none */
    int resource_progress; /* write status.resourceProgress (not stock Velero: no release has
                            * it); 0 = stock, unless the scenario asks for it */
    int object_store_tls;  /* artifacts from an HTTPS origin of their own whose self-signed CA
                            * is the BSL's spec.objectStorage.caCert */
    int log_json;          /* Velero's --log-format json; 0 = text (logrus TextFormatter) */
    int helm;          /* the Helm chart's pod labels (--layout helm) instead of velero install's */
    int passive;       /* the controller leaves runs created through the API alone */
    int quiet;         /* no messages on stderr */
    int latency_ms;    /* emulated link: one-way delay (sim/link.h); 0 = none */
    long bandwidth;    /* emulated link: bytes/s per connection; 0 = unlimited */
    int no_gzip;       /* never gzip answers (APIResponseCompression=false) */
    int rv0_limit;     /* resourceVersion=0 lists honour limit (a server listing from storage) */
    double clock_skew; /* the cluster's clock minus the real one (s): its timestamps and its Date
                          headers are off by this much (--clock-skew) */
    const char *velero_ns;       /* Velero's namespace (OADP: openshift-adp); NULL = "velero" */
    const char *context_name;    /* the kubeconfig's cluster, user and context; NULL = veltop-sim */
    const char *bad_token;       /* with auth token: the kubeconfig carries this token instead of
                                    the one accepted (an unauthorised user); NULL = the right one */
    const struct sim_rbac *rbac; /* --rbac: only what these rules allow (rbac.h); NULL = all.
                                    Borrowed: must outlive the sim. */
    const char *record; /* --record FILE: one JSON line per API request that writes; NULL none */
    int freeze;         /* --freeze-at: the simulated clock stands at freeze_at s past the start */
    double freeze_at;
} vsim_opts;

/* Starts serving (own threads) and running the controller. NULL with err filled on failure. */
vsim *vsim_start(const vsim_opts *opts, char *err, size_t errlen);
void vsim_stop(vsim *s);             /* NULL is a no-op */
const char *vsim_url(const vsim *s); /* "http://127.0.0.1:PORT" or "https://..." */
int vsim_port(const vsim *s);
/* A kubeconfig (YAML text) for the sim, with CA data and credentials when TLS/auth are on. */
char *vsim_kubeconfig(const vsim *s); /* malloc'd */
/* One part of it (a "- name: ..." list entry) appended to out, for a kubeconfig of several
 * clusters (simfleet.h). */
enum { VSIM_KC_CLUSTER, VSIM_KC_USER, VSIM_KC_CONTEXT };
struct kc_buf;
void vsim_kubeconfig_parts(const vsim *s, struct kc_buf *out, int part);
/* The Velero namespace and the kubeconfig's context name of the sim. */
const char *vsim_namespace(const vsim *s);
const char *vsim_context_name(const vsim *s);
const char *vsim_ca_pem(const vsim *s); /* the CA's PEM with --tls, else NULL */

/* ---- additions (h4) ---- */
#include "simstore.h"
/* The sim's object store (for tests and in-process tools). */
simstore *vsim_store(vsim *s);
/* The bearer token accepted with auth "token" (NULL otherwise). */
const char *vsim_token(const vsim *s);
/* GET /debug/stats as JSON (malloc'd). */
char *vsim_stats(vsim *s);
/* Whether resourceVersion=0 lists honour limit from now on (vsim_opts.rv0_limit). */
void vsim_set_rv0_limit(vsim *s, int on);
/* Interval of watch BOOKMARK events in ms (default 60000); set before traffic, e.g. in tests. */
void vsim_set_bookmark_ms(vsim *s, int ms);

/* ---- additions (i9) ---- */
/* The simulated clock (unix seconds): the scenario's epoch plus real time x speed. */
double vsim_clock(vsim *s);
