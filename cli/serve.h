/* serve.h: veltop --serve ADDR: no screen, a Prometheus exporter of the answers of one or more
 * contexts watched over one loop (metrics.h is what it serves). */
#pragma once
#include <stddef.h>
#include <sys/socket.h>

#include "app.h"
#include "webcfg.h"

/* ADDR: "HOST:PORT", "[V6]:PORT", ":PORT" (every interface: only when asked so) or "PORT"
 * (loopback). Fills ss/len; returns 0, or -1 with a message in err. Resolves HOST (once, at
 * start). */
int serve_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len, char *err,
                     size_t errn);

/* What the descriptor budget (kubeclient/fdbudget.h) gave the server. */
typedef struct serve_opts {
    unsigned max_conns; /* connections served at once (kc_fd_serve_conns) */
    size_t not_watched; /* contexts asked for and not watched: the open-file limit */
    long fd_limit;      /* the open-file limit (for the metric), 0 unknown */
    webcfg *web;        /* --web-config: TLS and basic auth; NULL plain, open */
} serve_opts;

/* Binds addr, then serves GET /metrics and GET /healthz of apps[0..n) (all on one loop) until
 * SIGTERM or SIGINT. At most o->max_conns connections at once; one still sending its request's
 * headers after 5 s is dropped, and at the limit a new connection takes the slot of the oldest
 * one still sending its headers. Returns 0 after a clean stop, 2 (with a message in err) when
 * addr cannot be served. Installs and restores its own signal handlers. */
int serve_run(app **apps, size_t n, const char *addr, const serve_opts *o, char *err, size_t errn);
