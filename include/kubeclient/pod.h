/* pod.h: the pods of the Velero namespace decoded for health checks: which is the Velero server,
 * which are node-agents, whether each is ready, how often and why its containers restarted, and
 * the Velero version from its image. A missing field is zero/NULL, never a failure. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

typedef enum {
    KC_POD_OTHER,     /* data-mover / hosting pods, anything else */
    KC_POD_SERVER,    /* the Velero server (deploy=velero, name=velero, app.kubernetes.io/name) */
    KC_POD_NODE_AGENT /* name=node-agent or role=node-agent */
} kc_pod_role;

typedef struct kc_pod {
    char *name, *ns, *node, *phase;   /* spec.nodeName, status.phase */
    char *image;                      /* the first container's image (the "velero" one if named) */
    char *version;                    /* image tag, e.g. "v1.18.1"; NULL when untagged */
    double created, deleted, started; /* creationTimestamp, deletionTimestamp, status.startTime */
    int ready;                        /* condition Ready is True */
    int restarts;                     /* sum of the containers' restartCount */
    double last_restart;              /* newest lastState.terminated.finishedAt; 0 none */
    char *last_reason;                /* its reason ("OOMKilled", "Error"); NULL none */
    int last_exit_code;
    char *waiting_reason; /* a container's state.waiting.reason ("CrashLoopBackOff") */
    kc_pod_role role;
    /* --concurrent-backups of the Velero server container (named "velero", else the first):
     * its args and command, "--concurrent-backups=N" or "--concurrent-backups N"; 0 when not
     * given (Velero's default, 1, applies) */
    int concurrent_backups;
    size_t nlabels;
    char **label_keys, **label_values;
} kc_pod;

kc_pod *kc_pod_decode(const cJSON *obj); /* NULL only when obj is not an object */
void kc_pod_free(kc_pod *p);
const char *kc_pod_label(const kc_pod *p, const char *key); /* NULL if absent */
/* Store adapters. */
void *kc_pod_decode_any(const cJSON *obj);
void kc_pod_release(void *p);
/* The Velero server pod among pods, the one rule for the health screen and the live log
 * (podlog.c): never a node-agent pod (name=node-agent or role=node-agent) nor a pod hosting a
 * volume's data path (labelled velero.io/data-upload, data-download, pod-volume-backup or
 * pod-volume-restore: data-mover pods are named after their DataUpload); of the others, those
 * labelled deploy=velero (velero install) first, else name=velero, else
 * app.kubernetes.io/name=velero (Helm); of those the newest Running and Ready one (not being
 * deleted), else the newest Running one, else the newest. NULL if none. */
const kc_pod *kc_pod_pick_server(const kc_pod *const *pods, size_t n);
/* The same over the items of a pod list (a cJSON array): the index of that pod, -1 if none. */
int kc_pod_pick_server_json(const cJSON *items);
