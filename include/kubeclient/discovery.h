/* discovery.h: the API server's resource names (Kind -> plural) per group/version, from its
 * discovery documents (/api/v1, /apis/<group>/<version>), asked once each and cached. The plural
 * of a Kind is the server's, never a guess ("Gateway" is "gateways", not "gatewaies"). */
#pragma once
#include "kubeclient/client.h"

typedef struct kc_discovery kc_discovery;

kc_discovery *kc_discovery_new(kc_client *c);
void kc_discovery_free(kc_discovery *d); /* NULL is a no-op; cancels what is in flight */

/* Called (from the loop) each time an answer arrives. */
void kc_discovery_on_change(kc_discovery *d, void (*cb)(void *arg), void *arg);

/* The plural of kind in group_version ("v1" is the core group, "apps/v1", ...).
 * Returns 1 with *plural set (valid until d is freed); 0 while the server is being asked (the
 * answer comes with the on_change callback); -1 when the server does not serve it (the group
 * version is unknown to it, or lists no such kind): asked again at most every retry_ms after
 * (a CRD restored later makes it appear). Past KC_CAP_DISCOVERY_GVS group versions, a new one is
 * -1 at once, never asked. */
int kc_discovery_plural(kc_discovery *d, const char *group_version, const char *kind,
                        const char **plural);
#define KC_DISCOVERY_RETRY_MS 10000
/* Requests in flight. */
int kc_discovery_asking(const kc_discovery *d);

/* An APIResourceList document to its Kind -> plural pairs (subresources such as "pods/log"
 * skipped): fills kinds/plurals (malloc'd arrays of malloc'd strings), returns the count, or -1
 * when it is not an APIResourceList object. */
long kc_discovery_parse(const char *json, size_t len, char ***kinds, char ***plurals);
