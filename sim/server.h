/* server.h: veltop-sim's Kubernetes API server (libmicrohttpd): discovery, list/get/watch,
 * create/update/patch/delete, Table output, pod logs, auth and fault injection over a simstore. */
#pragma once
#include <stddef.h>

#include "rbac.h"
#include "simstore.h"

typedef struct simserver simserver;

/* Serves GET /download/<token>: gzip bytes (malloc'd) or -1 with *status 404/410. */
typedef int (*simserver_download_fn)(void *arg, const char *token, unsigned char **data,
                                     size_t *len, int *status);

typedef struct simserver_opts {
    simstore *store;
    const char *host; /* "127.0.0.1" */
    int port;         /* 0 = a free port */
    int kube_minor;   /* /version minor; 0 = 30 */
    /* The emulated link (link.h): one-way latency, bytes/s per connection; 0 = none. */
    int latency_ms;
    long bandwidth;
    int no_gzip;   /* never gzip (kube-apiserver with APIResponseCompression=false) */
    int rv0_limit; /* resourceVersion=0 lists honour limit (served from storage, not a cache) */
    /* TLS: PEM text of the server certificate and key, and the CA that signs client certs. */
    const char *cert_pem, *key_pem, *ca_pem;
    const char *auth;   /* "none", "token", "client-cert" */
    const char *token;  /* the bearer token accepted with auth=token */
    const char *faults; /* comma list, see veltop-sim --help */
    int bookmark_ms;    /* interval of BOOKMARK events when asked for; 0 = 60000 */
    simserver_download_fn download;
    void *download_arg;
    /* The cluster's clock (unix seconds) for ages in Tables and sinceSeconds; NULL = wall. */
    double (*now)(void *arg);
    void *now_arg;
    double clock_skew;    /* the server's clock minus the real one: its Date headers (link.h) */
    const sim_rbac *rbac; /* --rbac: a request its rules do not allow answers 403 (rbac.h); NULL:
                             everything is allowed. Borrowed: outlives the server. */
    const char *record;   /* appends {"method","path","query","contentType","user","body"} per API
                             request that is not a GET (what a client sent on the wire); NULL none */
} simserver_opts;

/* Parses the fault list without starting anything: 0, or -1 with err. */
int simserver_check_faults(const char *faults, char *err, size_t errlen);
simserver *simserver_start(const simserver_opts *opts, char *err, size_t errlen);
void simserver_stop(simserver *s); /* NULL is a no-op */
int simserver_port(const simserver *s);
/* Counters as served by GET /debug/stats (malloc'd JSON). */
char *simserver_stats_json(simserver *s);
void simserver_set_bookmark_ms(simserver *s, int ms);
/* Whether resourceVersion=0 lists honour limit from now on (simserver_opts.rv0_limit). */
void simserver_set_rv0_limit(simserver *s, int on);
