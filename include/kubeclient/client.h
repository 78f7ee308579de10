/* client.h: requests to the API server over the loop's curl multi handle, with the kubeconfig's
 * TLS and credentials, Kubernetes Status errors turned into messages a person can act on. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "kubeclient/kubeconfig.h"
#include "kubeclient/loop.h"

typedef struct kc_client kc_client;
typedef struct kc_request kc_request;

/* Copies what it needs from cfg. */
kc_client *kc_client_new(kc_loop *loop, const kc_rest_config *cfg, kc_err *err);
void kc_client_free(kc_client *c);
kc_loop *kc_client_loop(kc_client *c);
/* The client's credentials (auth.h), e.g. to run an interactive exec plugin before the screen. */
struct kc_auth *kc_client_auth(kc_client *c);
const char *kc_client_server(kc_client *c);
/* The kubeconfig's user entry name of the context (for "not allowed for user X"); NULL if none. */
const char *kc_client_user(const kc_client *c);
/* Monotonic ms when the API server last sent anything (a header or body byte of any answer,
 * errors included); 0 = never. The liveness probe (liveness.h) reads it. */
int64_t kc_client_last_heard(const kc_client *c);
/* The API server's clock minus ours (seconds, > 0: it is ahead), estimated from the Date headers
 * of its answers (clockoff.h); 0 with *known = 0 (known may be NULL) before any answer had one.
 * Every cluster timestamp is judged on the cluster's clock: ours plus this. */
double kc_client_clock_offset(const kc_client *c, int *known);

typedef struct kc_request_opts {
    const char *method; /* NULL = GET */
    const char *path;   /* "/apis/velero.io/v1/..." (with query), or an absolute URL (downloads:
                           then no credentials are sent unless it is the API server's host) */
    int external;       /* 1: path is an absolute URL from outside (a downloadURL): never sent
                           the API server's credentials, whatever its host */
    const char *body;
    size_t body_len;
    const char *content_type;    /* of the body */
    const char *accept;          /* NULL = application/json */
    const char *accept_encoding; /* NULL: gzip to the API server (decoded by libcurl), none
                                    elsewhere; "identity" for downloads */
    int stream;                  /* 1: body delivered by on_data as it arrives, not buffered */
    long timeout_ms;             /* whole request; 0 = none (watches rely on timeoutSeconds) */
    long low_speed_secs;         /* abort when < low_speed_bytes a second for this long; 0 = off */
    long low_speed_bytes;        /* 0 = 1 */
    /* A URL not the API server's (an object store): PEM certificates trusted beside the system
     * roots (a BSL's caCert, --cacert), handed to libcurl as a memory blob. NULL: system roots. */
    const char *extra_ca_pem;
    size_t extra_ca_len;
    /* Optional: called once when a 2xx answer's headers arrived (before any on_data), e.g. so a
     * watch can tell "connected" from "connecting". */
    void (*on_headers)(void *arg, long status);
    /* An answer 429 or 5xx with a Retry-After header is tried again after that wait, up to
     * KC_BACKOFF_RETRY_AFTER_TRIES times, as client-go's rest client (rest/with_retry.go): a
     * list page, a watch, a create alike. Optional: called before each such wait with the
     * answer's message and the try number (1..); returns the wait in ms (the caller's backoff,
     * backoff.h) or -1 for no retry (on_done then gets the answer). NULL: the Retry-After,
     * capped as backoff.h caps it. */
    int64_t (*on_retry)(void *arg, const kc_err *err, long retry_after_s, int attempt);
    /* 1 (stream only): the 2xx body is not handed to on_data until kc_request_release; the
     * request goes out at once, and the transfer pauses at its first bytes (a connection of its
     * own keeps receiving into the kernel's buffers; over HTTP/2 it is not paused, as libcurl
     * would stall the shared connection). Error answers and failures are not held. */
    int hold;
} kc_request_opts;

typedef struct kc_response {
    long status;      /* HTTP status, 0 if none arrived */
    const char *body; /* buffered body (not for stream requests), NUL-terminated */
    size_t body_len;
    long retry_after; /* seconds from Retry-After, -1 if absent */
} kc_response;

typedef void (*kc_data_fn)(void *arg, const char *data, size_t n);
/* err->msg is empty for a 2xx answer; otherwise it holds the message (err->code = HTTP status). */
typedef void (*kc_done_fn)(void *arg, const kc_response *resp, const kc_err *err);

/* Starts a request; callbacks run from the loop. Never blocks. */
kc_request *kc_client_request(kc_client *c, const kc_request_opts *opts, kc_data_fn on_data,
                              kc_done_fn on_done, void *arg);
/* A held request (kc_request_opts.hold) hands its body on from the loop's next pass; no callback
 * runs from inside this call. */
void kc_request_release(kc_request *r);
/* Cancels a request; no callback runs after this. */
void kc_request_cancel(kc_request *r);

/* The message for a failed request (also used by the program for --once):
 * 401 `unauthorized: the server rejected the credentials of user "u"`, 403 the server's message,
 * 404 on velero.io `Velero's resources are not installed in this cluster (no velero.io API group)`,
 * TLS failures naming the certificate, connection errors naming the server URL. */
void kc_client_describe_error(kc_client *c, long status, const char *body, CURLcode res,
                              const char *path, kc_err *err);
