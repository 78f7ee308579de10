/* liveness.h: is the API server answering at all? An open watch says nothing when the server hangs
 * (SIGSTOP, a wedged apiserver, a half-open connection): no error, no data. The probe sends a
 * small GET /version only when nothing at all was heard from the server for interval_ms (a busy
 * watch costs no probes) and at most one at a time, with a deadline; the server is "silent" once
 * nothing was heard for silent_ms. GET /version is what kubectl itself asks first: readable by
 * everyone (system:public-info-viewer), tiny, and answered by the apiserver without touching
 * etcd; bookmarks cannot serve, real servers send them only about once a minute.
 *
 * The probe is also how a long outage ends promptly. Every reflector backs off on its own (up to
 * 30 s, jittered, backoff.h), so after a minute down the first of them may try again 30 s after
 * the server is back. While the server gives no answer at all (refused, reset, no route, or the
 * probe's deadline passed: a server that is not there pays nothing) the probe goes every down_ms
 * instead, one at a time as always, and the first probe answered after one that was not calls
 * on_back: the owner tells its reflectors to try now. An answered probe (any HTTP status, 5xx and
 * 429 included) never calls it twice in a row, so a server that answers with errors is not hurried
 * past its backoff. */
#pragma once
#include <stdint.h>
#include "kubeclient/client.h"

typedef struct kc_liveness kc_liveness;

typedef struct kc_liveness_opts {
    int64_t interval_ms;        /* 0 = 5000 */
    int64_t silent_ms;          /* 0 = 10000: with a 5 s interval, a probe unanswered for 5 s */
    int64_t down_ms;            /* 0 = 1000: the next probe after one that got no answer */
    void (*on_back)(void *arg); /* the server answers again after a probe that got no answer */
    void *arg;
} kc_liveness_opts;

kc_liveness *kc_liveness_new(kc_client *c, const kc_liveness_opts *o);
void kc_liveness_free(kc_liveness *l);
/* 0 while the server answers; else ms since it last answered anything (since the probe started
 * when it never did). */
int64_t kc_liveness_silent_ms(const kc_liveness *l, int64_t now_ms);
/* Probes sent so far (tests). */
unsigned long kc_liveness_probes(const kc_liveness *l);
