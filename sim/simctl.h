/* simctl.h: the simulated Velero controller: runs scenario backups and restores over simulated
 * time, writes their status, volumes, pod log and artifacts, processes DownloadRequests. */
#pragma once
#include <stddef.h>
#include "simstore.h"

typedef struct simctl simctl;

typedef struct simctl_opts {
    const char *scenario; /* "demo", "empty", or a YAML path */
    double speed;
    unsigned seed;
    int resource_progress; /* write status.resourceProgress (no Velero release has it; also the
                            * scenario's `resource_progress: true`); 0 = stock Velero */
    int log_json;          /* the server's --log-format json (pod log and stored logs); 0 = text */
    int passive; /* do not run Backups/Restores created by others (API conformance tests) */
    const char *base_url;        /* the sim's URL, for DownloadRequest downloadURLs */
    const char *object_store_ca; /* PEM of the object store's CA: the BSL's caCert; NULL = none */
    const char *ns;              /* Velero namespace, "velero" */
    int quiet;
    const char *restic; /* (h5) restic binary for restic-real volumes; NULL = "restic" in PATH */
    int helm;   /* the Helm chart's pod labels instead of `velero install`'s (--layout helm) */
    int manual; /* (i9) no thread, no real clock: the caller moves time with simctl_advance */
    double clock_skew; /* the cluster's clock minus the real one (s): every timestamp is off */
    int freeze;        /* the simulated clock stands at epoch + freeze_at for good (--freeze-at):
                        * every run stays where it is then, for tests comparing two reads */
    double freeze_at;
} simctl_opts;

/* Loads the scenario and starts the controller thread. NULL with err on a bad scenario. */
simctl *simctl_start(simstore *store, const simctl_opts *opts, char *err, size_t errlen);
void simctl_stop(simctl *c);

/* Serves GET /download/<token>: the gzip bytes of an artifact, or 404/410 (expired) with *status.
 */
int simctl_download(simctl *c, const char *token, unsigned char **data, size_t *len, int *status);

/* Additions (h5). Fault injection and tests: expires every download token (GETs answer 410). */
void simctl_expire_downloads(simctl *c);
/* The simulated time now (unix seconds): the scenario's epoch plus real time x speed. */
double simctl_now(simctl *c);
/* (i9) With opts.manual: sets the simulated time (unix seconds, never backwards) and runs one tick
 * of the controller there, on the caller's thread. For benchmarks over simulated hours. */
void simctl_advance(simctl *c, double t);
/* (i9) The simulated unix time the sim started at (the scenario's epoch or the wall clock). */
double simctl_epoch(simctl *c);
