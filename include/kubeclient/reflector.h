/* reflector.h: keeps a store in sync with one resource: paginated LIST, then WATCH with bookmarks,
 * resume from the last resourceVersion, re-list on 410, exponential backoff with jitter. */
#pragma once
#include <stdint.h>
#include "kubeclient/client.h"
#include "kubeclient/store.h"

typedef enum {
    KC_REFL_SYNCING,  /* listing (first time or after 410) */
    KC_REFL_LIVE,     /* watching */
    KC_REFL_RETRYING, /* waiting to try again */
    KC_REFL_FAILED    /* will not retry (e.g. the resource does not exist) */
} kc_refl_state;

enum { KC_REFL_ERROR_MAX = 512 }; /* kc_refl_status.last_error's bound, with its NUL */

typedef struct kc_refl_status {
    kc_refl_state state;
    int attempt;         /* consecutive failures */
    int64_t next_try_ms; /* monotonic time of the next try when RETRYING */
    /* person-readable, at most KC_REFL_ERROR_MAX - 1 bytes; "" when none, never NULL. The
     * reflector's own text (a fleet holds 13 reflectors a context, and most never fail): valid
     * until its next change of status */
    const char *last_error;
    int last_status; /* HTTP status of the last failure */
    char resource_version[64];
    int synced;              /* the first list completed at least once */
    unsigned long events;    /* watch events applied */
    unsigned long malformed; /* watch lines that could not be decoded (skipped) */
    unsigned long relists;
    /* monotonic ms since when the store is not known to be current (no watch open: a failure,
     * a re-list, a pause before re-watching); 0 while a watch is open */
    int64_t stale_since_ms;
    /* the server answered 429 (or 5xx) with Retry-After and the same request is tried again
     * after that wait (client-go's rest client, up to KC_BACKOFF_RETRY_AFTER_TRIES times): not
     * a failure yet, whatever the state says */
    int throttled;
    /* ms from sending the first list request to its 2xx answer's headers (the server's round
     * trip: the connection, the request, the server's start of the answer); -1 until known.
     * An int beside throttled: the struct's padding, not 8 bytes more (a fleet holds 13 a
     * context) */
    int first_headers_ms;
    long listed; /* objects of the list under way (or the last one) so far, pages together */
} kc_refl_status;

typedef struct kc_reflector kc_reflector;

typedef struct kc_reflector_opts {
    const char *api_path;       /* "/apis/velero.io/v1" or "/api/v1" */
    const char *resource;       /* plural, e.g. "backups" */
    const char *ns;             /* NULL = all namespaces */
    const char *label_selector; /* NULL = none */
    const char *field_selector; /* NULL = none */
    int page_size;              /* 0 = 500 */
    size_t max_line;            /* 0 = 16 MiB */
    int max_pages;              /* pages of one list (continue tokens); 0 = KC_CAP_LIST_PAGES */
    long max_items;             /* objects of one list, pages together; 0 = KC_CAP_LIST_ITEMS */
    /* Backoff (backoff.h) before every retry, re-list and re-watch of a watch that ended within
     * a second. 0 = client-go's 800 ms, 30 s, 2 min. Tests make them small. */
    int64_t backoff_base_ms, backoff_max_ms, backoff_reset_ms;
    /* The lists add to the store and never take out what they did not bring: a reflector over a
     * part of a store that another reflector keeps whole (its label selector's objects first,
     * the whole later). Watch events (DELETED too) apply as always. */
    int additive;
    /* The lists go out when started, but their answers are read only after
     * kc_reflector_release (kc_request_opts.hold): the bytes travel while the CPU goes to
     * lists that matter first. Until then the reflector is syncing, nothing listed. */
    int held;
} kc_reflector_opts;

kc_reflector *kc_reflector_new(kc_client *c, const kc_reflector_opts *opts, kc_store *store);
void kc_reflector_start(kc_reflector *r);
void kc_reflector_free(kc_reflector *r);
/* Ends kc_reflector_opts.held: the list under way is read from the loop's next pass. */
void kc_reflector_release(kc_reflector *r);
/* A held reflector started and not released, its list under way: that list is cancelled (the
 * server stops sending it) and the reflector is as if never started (kc_reflector_start asks
 * again, first_headers_ms -1). A no-op otherwise (e.g. waiting to retry a failed list). */
void kc_reflector_withdraw(kc_reflector *r);
const kc_refl_status *kc_reflector_status(const kc_reflector *r);
/* The server answers again (another reflector of it is back): a reflector waiting out its own
 * backoff after a connection failure or a 5xx tries now, once (its backoff keeps growing if it
 * fails again); a Retry-After or a refusal (4xx) is still waited out. */
void kc_reflector_retry_now(kc_reflector *r);
/* Called whenever the status changes (state, attempt, error). */
void kc_reflector_on_status(kc_reflector *r, void (*fn)(void *arg, const kc_refl_status *st),
                            void *arg);
