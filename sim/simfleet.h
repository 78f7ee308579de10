/* simfleet.h: several simulated clusters in one process, each on its own port with a world of its
 * own, and one kubeconfig with a context for each (veltop-sim --fleet, veltop --demo --fleet). */
#pragma once
#include <stddef.h>

#include "vsim.h"

typedef struct vsim_fleet vsim_fleet;

/* One cluster of a fleet. */
typedef struct vsim_fleet_def {
    const char *context;   /* the kubeconfig's context (and cluster and user) name */
    const char *world;     /* scenario: a built-in world (simworlds.h), demo, empty or a file */
    const char *faults;    /* veltop-sim --faults; NULL none */
    const char *velero_ns; /* NULL = velero */
    int tls, token;        /* HTTPS; a bearer token required */
    int bad_token;         /* the kubeconfig's token is not the one accepted (401) */
    int unreachable;       /* no server: a port that refuses connections */
} vsim_fleet_def;

/* The demo fleet: a healthy cluster, a stalled restore, an overdue schedule, an unreachable one,
 * pods forbidden, Velero in another namespace (openshift-adp), an unauthorised user. */
const vsim_fleet_def *vsim_fleet_demo(size_t *n);

/* Starts every cluster (speed, quiet as vsim_opts). NULL with err on failure. */
vsim_fleet *vsim_fleet_start(const vsim_fleet_def *defs, size_t n, double speed, double freeze_at,
                             int quiet, char *err, size_t errlen);
void vsim_fleet_stop(vsim_fleet *f); /* NULL is a no-op */
size_t vsim_fleet_len(const vsim_fleet *f);
const vsim_fleet_def *vsim_fleet_member(const vsim_fleet *f, size_t i);
vsim *vsim_fleet_sim(const vsim_fleet *f, size_t i); /* NULL for an unreachable one */
const char *vsim_fleet_url(const vsim_fleet *f, size_t i);
/* The token the kubeconfig gives member i (NULL none) and its CA (PEM, NULL without TLS). */
const char *vsim_fleet_token(const vsim_fleet *f, size_t i);
const char *vsim_fleet_ca(const vsim_fleet *f, size_t i);
/* One kubeconfig with a context per member (current: the first). malloc'd. */
char *vsim_fleet_kubeconfig(const vsim_fleet *f);
