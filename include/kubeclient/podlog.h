/* podlog.h: follows a pod's log (GET .../pods/<pod>/log?follow=true) line by line from a start
 * time, finding the Velero server pod when no pod is named, reconnecting without repeating lines.
 */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

#include "kubeclient/client.h"

typedef struct kc_podlog kc_podlog;

typedef enum {
    KC_PL_FINDING_POD, /* listing pods for the Velero server */
    KC_PL_CONNECTING,
    KC_PL_STREAMING,
    KC_PL_RETRYING, /* waiting to reconnect (error() says why) */
    KC_PL_FAILED    /* no pod found, or not allowed: will not retry */
} kc_pl_state;

typedef struct kc_podlog_opts {
    const char *ns;        /* the pod's namespace ("velero") */
    const char *pod;       /* NULL: the Velero server pod (kc_podlog_pick_server) among pods
                              labelled deploy=velero, else name=velero, else
                              app.kubernetes.io/name=velero */
    const char *container; /* NULL: the pod's only/default container */
    double since;          /* unix seconds; 0 = the whole log */
    int no_follow;         /* 1: read what is there and stop */
} kc_podlog_opts;

/* line: one log line, without '\n' and without the API server's timestamp prefix. status: the
 * state changed (screen shows it). Both from the loop. */
typedef void (*kc_podlog_line_fn)(void *arg, const char *line, size_t n);
typedef void (*kc_podlog_status_fn)(void *arg, kc_podlog *p);

kc_podlog *kc_podlog_start(kc_client *c, const kc_podlog_opts *o, kc_podlog_line_fn line,
                           kc_podlog_status_fn status, void *arg);
void kc_podlog_free(kc_podlog *p); /* NULL is a no-op */
/* The pod has ended (its phase is Succeeded or Failed): a followed log is read to its end and
 * not reconnected (the kubelet closes it when the container exits); then KC_PL_FAILED with
 * "end of log", as a log read once. */
void kc_podlog_finish(kc_podlog *p);
kc_pl_state kc_podlog_state(const kc_podlog *p);
const char *kc_podlog_pod(const kc_podlog *p);   /* NULL until found */
const char *kc_podlog_error(const kc_podlog *p); /* "" when none */
unsigned long kc_podlog_lines(const kc_podlog *p);

/* The Velero server pod among the items of a pod list (a cJSON array): kc_pod_pick_server's
 * rule (pod.h: never a node-agent or data-mover pod; deploy=velero, else the Helm chart's labels;
 * the newest Running and Ready). Returns its index, -1 when none. */
int kc_podlog_pick_server(const cJSON *pods);
