/* auth.h: credentials for requests: static token, tokenFile (re-read once a minute), basic auth,
 * client certificates (as memory blobs) and exec credential plugins run as children of the loop. */
#pragma once
#include <curl/curl.h>
#include "kubeclient/kubeconfig.h"
#include "kubeclient/loop.h"

typedef struct kc_auth kc_auth;

kc_auth *kc_auth_new(const kc_rest_config *cfg, kc_loop *loop); /* cfg must outlive it */
void kc_auth_free(kc_auth *a);

/* Returns 1 when credentials are ready now. Otherwise returns 0, starts the exec plugin if it is
 * not running, and calls cb(arg, err) once it finished (err->msg empty on success). */
typedef void (*kc_auth_ready_fn)(void *arg, const kc_err *err);
int kc_auth_ready(kc_auth *a, kc_auth_ready_fn cb, void *arg);
/* Forgets a pending cb (the requester went away). */
void kc_auth_forget(kc_auth *a, void *arg);

/* Sets TLS client blobs and auth options on the handle and appends headers (Authorization). */
struct curl_slist *kc_auth_apply(kc_auth *a, CURL *easy, struct curl_slist *headers);

/* After a 401: the cached exec credential is dropped so the next kc_auth_ready re-runs the
 * plugin. Returns 1 if a retry makes sense (an exec plugin or tokenFile is in use), once per
 * credential. */
int kc_auth_invalidate(kc_auth *a);

/* Clocks, injectable for tests: mono_ms drives the tokenFile re-read interval, wall (unix
 * seconds) the exec credential expiry. NULL means the real clock (kc_now_ms, kc_wall_now). */
void kc_auth_set_clocks(kc_auth *a, int64_t (*mono_ms)(void *), double (*wall)(void *), void *arg);
/* The tokenFile re-read interval (default 60 000 ms, as client-go's cached file token source). */
void kc_auth_set_token_file_interval(kc_auth *a, int64_t ms);
/* How long an exec plugin may run before it is stopped (with its process group) and named in the
 * error (default 60 000 ms; kubectl has none, see auth.c). */
void kc_auth_set_exec_timeout(kc_auth *a, int64_t ms);
/* Standard input as an exec plugin's interactiveMode sees it (client-go's isInteractive):
 * is_terminal -1 (the default) asks isatty(0) at each run, 0/1 say it (tests). An interactive
 * run (Always, or IfAvailable on a terminal) gets the terminal as stdin and stderr and
 * spec.interactive true. why != NULL: veltop itself uses the terminal (its screen is up), so
 * IfAvailable runs without it and Always fails with "standard input is unavailable: why";
 * NULL makes it available again. */
void kc_auth_set_stdin_terminal(kc_auth *a, int is_terminal);
void kc_auth_set_stdin_unavailable(kc_auth *a, const char *why);
/* 1 when credentials are not ready and the exec plugin's next run would be interactive: the
 * program runs it (kc_auth_ready, the loop) before it takes the terminal for its screen. */
int kc_auth_wants_terminal(const kc_auth *a);
/* How many times the exec plugin has been started (for tests and the debug screen). */
unsigned kc_auth_exec_runs(const kc_auth *a);
/* The exec plugin's command while a run of it is in flight (*secs: how long so far), else NULL:
 * nothing has been asked of the API server yet, so a silence is the plugin's, not the server's. */
const char *kc_auth_exec_running(const kc_auth *a, double *secs);
