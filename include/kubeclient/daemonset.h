/* daemonset.h: apps/v1 DaemonSets of the Velero namespace, decoded to what the health picture
 * counts the node-agents against (status.desiredNumberScheduled and the like). */
#pragma once
#include <cjson/cJSON.h>

typedef struct kc_daemonset {
    char *name, *ns;
    int has_status;   /* status was there (a new DaemonSet may have none yet) */
    int desired;      /* status.desiredNumberScheduled: nodes that should run one */
    int current;      /* status.currentNumberScheduled: nodes running one */
    int ready;        /* status.numberReady */
    int available;    /* status.numberAvailable */
    int misscheduled; /* status.numberMisscheduled */
    double created;   /* metadata.creationTimestamp */
} kc_daemonset;

kc_daemonset *kc_daemonset_decode(const cJSON *obj); /* NULL only when obj is not an object */
void kc_daemonset_free(kc_daemonset *d);
/* Store adapters. */
void *kc_daemonset_decode_any(const cJSON *obj);
void kc_daemonset_release(void *d);
/* The node-agent DaemonSet among n (named "node-agent", as velero install and the Helm chart name
 * it); NULL when none. */
const kc_daemonset *kc_daemonset_pick_node_agent(const kc_daemonset *const *v, size_t n);
