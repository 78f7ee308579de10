/* backoff.c: client-go's jittered, capped exponential backoff (backoff.h). */
#include "kubeclient/backoff.h"

void kc_backoff_init(kc_backoff *b, int64_t base_ms, int64_t max_ms, int64_t reset_ms)
{
    b->base_ms = base_ms > 0 ? base_ms : KC_BACKOFF_BASE_MS;
    b->max_ms = max_ms > 0 ? max_ms : KC_BACKOFF_MAX_MS;
    if (b->max_ms < b->base_ms) b->max_ms = b->base_ms;
    b->reset_ms = reset_ms > 0 ? reset_ms : KC_BACKOFF_RESET_MS;
    b->steps = 0;
    b->last_ms = 0;
    /* seeded from the object's address: two loops started together do not retry in step */
    b->rng = ((uint64_t)(uintptr_t)b * 0x9E3779B97F4A7C15ull) ^ 0x2545F4914F6CDD1Dull;
    if (!b->rng) b->rng = 1;
}

static uint64_t bo_rand(kc_backoff *b)
{
    /* xorshift64*: jitter only */
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return b->rng * 2685821657736338717ull;
}

int kc_backoff_steps(const kc_backoff *b, int64_t now_ms)
{
    if (b->last_ms && now_ms - b->last_ms >= b->reset_ms) return 0;
    return b->steps;
}

int64_t kc_backoff_next(kc_backoff *b, int64_t now_ms, long retry_after_s)
{
    b->rng ^= (uint64_t)now_ms;
    b->steps = kc_backoff_steps(b, now_ms);
    b->last_ms = now_ms ? now_ms : 1;
    int64_t d = b->base_ms;
    for (int i = 0; i < b->steps && d < b->max_ms; i++) d *= 2;
    if (d > b->max_ms) d = b->max_ms;
    if (b->steps < 64) b->steps++;
    d += (int64_t)(bo_rand(b) % (uint64_t)(d + 1));
    if (d > b->max_ms) d = b->max_ms;
    if (retry_after_s > 0) {
        int64_t ra = kc_backoff_retry_after(b, retry_after_s);
        if (ra > d) d = ra;
    }
    return d;
}

int64_t kc_backoff_retry_after(const kc_backoff *b, long retry_after_s)
{
    int64_t max = b ? b->max_ms : KC_BACKOFF_MAX_MS;
    if (retry_after_s <= 0) return 0;
    /* compared in seconds first: Retry-After: 999999999999 must not overflow */
    return retry_after_s >= max / 1000 ? max : (int64_t)retry_after_s * 1000;
}
