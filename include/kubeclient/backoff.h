/* backoff.h: the one retry policy of every loop that talks to the server (reflectors, the
 * DownloadRequest watch, pod log follow, the liveness probe): client-go's ListAndWatch backoff.
 * Exponential from base (800 ms) doubling to max (30 s), jitter factor 1.0 (a delay d becomes a
 * random value in [d, 2d], capped at max), and the steps start over once reset (2 min) passed
 * since the last delay was handed out, i.e. after sustained success. Retry-After raises a delay
 * but never above max, so a server cannot park a client for ever. */
#pragma once
#include <stdint.h>

typedef struct kc_backoff {
    int64_t base_ms, max_ms, reset_ms;
    int steps;       /* delays handed out since the last reset */
    int64_t last_ms; /* monotonic time of the last delay handed out; 0 = never */
    uint64_t rng;
} kc_backoff;

#define KC_BACKOFF_BASE_MS  800
#define KC_BACKOFF_MAX_MS   30000
#define KC_BACKOFF_RESET_MS 120000

/* Zero or negative values take client-go's (the KC_BACKOFF_* above). */
void kc_backoff_init(kc_backoff *b, int64_t base_ms, int64_t max_ms, int64_t reset_ms);
/* The delay before the next try at monotonic now_ms. retry_after_s < 0: none given. */
int64_t kc_backoff_next(kc_backoff *b, int64_t now_ms, long retry_after_s);
/* The wait a server asked for with Retry-After (seconds), capped at b's max (client-go's defaults
 * when b is NULL): client-go's rest client waits it exactly before trying the same request again
 * (rest/with_retry.go); the cap keeps a server from parking a client for ever. */
int64_t kc_backoff_retry_after(const kc_backoff *b, long retry_after_s);
/* How many times one request answered 429 (or 5xx) with Retry-After is tried again: client-go's
 * rest.Request maxRetries (rest/request.go). */
#define KC_BACKOFF_RETRY_AFTER_TRIES 10
/* The number of consecutive delays handed out (0 after a reset). */
int kc_backoff_steps(const kc_backoff *b, int64_t now_ms);
