/* testutil.h: small helpers shared by the Check suites (temporary dirs and files, an in-process
 * veltop-sim with a client on it, running a suite). */
#pragma once
#include <check.h>
#include <stddef.h>

#include "kubeclient/client.h"
#include "simctl.h"
#include "simstore.h"
#include "vsim.h"

char *tu_mkdtemp(void); /* malloc'd path of a new temp dir */
char *tu_write(const char *dir, const char *name, const char *content); /* returns malloc'd path */
char *tu_read(const char *path, size_t *len); /* malloc'd, NUL-terminated, NULL if missing */
void tu_rmrf(const char *dir);

/* An in-process veltop-sim whose kubeconfig is written in a new temp dir, and (tu_sim_connect)
 * a loop and a client configured by that kubeconfig. */
typedef struct tu_sim {
    char *dir;        /* the temp dir */
    char *kubeconfig; /* dir/kubeconfig */
    vsim *sim;
    kc_loop *loop;     /* NULL until tu_sim_connect */
    kc_client *client; /* likewise */
    char *server;      /* the kubeconfig's server URL, likewise */
} tu_sim;

/* Starts the sim with o (kubeconfig_out and quiet are set here); fails the test if it cannot. */
void tu_sim_start(tu_sim *t, vsim_opts o);
/* Loads the sim's kubeconfig and makes a loop and a client by it; fails the test if it cannot. */
void tu_sim_connect(tu_sim *t);
/* Frees the client, the loop (if connected), the sim and the temp dir. */
void tu_sim_stop(tu_sim *t);

/* The artifact (kind: BackupLog, RestoreResourceList...) of target: a DownloadRequest named name
 * created in store s, awaited until the controller gives it a URL, downloaded through c and
 * gunzipped; malloc'd, NUL-terminated. Fails the test if a step does. */
char *tu_sim_artifact(simstore *s, simctl *c, const char *name, const char *kind,
                      const char *target);

/* Runs suite s (CK_NORMAL); EXIT_SUCCESS when every test passed: main's return value. */
int tu_run_suite(Suite *s);
