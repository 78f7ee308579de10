/* liveness.h: is the API server answering at all? An open watch says nothing when the server hangs
 * (SIGSTOP, a wedged apiserver, a half-open connection): no error, no data. The probe sends a
 * small GET /version only when nothing at all was heard from the server for interval_ms (a busy
 * watch costs no probes) and at most one at a time, with a deadline; the server is "silent" once
 * nothing was heard for silent_ms. GET /version is what kubectl itself asks first: readable by
 * everyone (system:public-info-viewer), tiny, and answered by the apiserver without touching
 * etcd; bookmarks cannot serve, real servers send them only about once a minute. */
#pragma once
#include <stdint.h>
#include "kubeclient/client.h"

typedef struct kc_liveness kc_liveness;

typedef struct kc_liveness_opts {
    int64_t interval_ms; /* 0 = 5000 */
    int64_t silent_ms;   /* 0 = 10000: with a 5 s interval, a probe unanswered for 5 s */
} kc_liveness_opts;

kc_liveness *kc_liveness_new(kc_client *c, const kc_liveness_opts *o);
void kc_liveness_free(kc_liveness *l);
/* 0 while the server answers; else ms since it last answered anything (since the probe started
 * when it never did). */
int64_t kc_liveness_silent_ms(const kc_liveness *l, int64_t now_ms);
/* Probes sent so far (tests). */
unsigned long kc_liveness_probes(const kc_liveness *l);
