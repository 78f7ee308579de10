/* client.c: HTTP requests to the API server on the loop's curl multi handle, errors made readable.
 */
#include "kubeclient/client.h"
#include "kubeclient/auth.h"
#include "kubeclient/backoff.h"
#include "kubeclient/caps.h"
#include "kubeclient/clockoff.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "veltop_version.h"

struct kc_client {
    kc_loop *loop;
    kc_rest_config *cfg; /* our own copy: kc_auth keeps a pointer to it */
    kc_auth *auth;
    char *server; /* without a trailing '/' */
    char *shown;  /* server for messages: userinfo redacted */
    kc_request *reqs;
    int in_curl_cb;    /* inside a curl callback: the multi handle must not be touched */
    int64_t heard_ms;  /* monotonic time the API server last sent anything; 0 = never */
    kc_clockoff clock; /* the API server's clock against ours, from its Date headers */
};

struct kc_request {
    kc_client *c;
    kc_request *prev, *next;
    char *method, *url, *body, *content_type, *accept, *accept_encoding;
    kc_buf extra_ca; /* opts.extra_ca_pem (copied) */
    size_t body_len;
    int stream, api;
    long timeout_ms, low_speed_secs, low_speed_bytes;
    void (*on_headers)(void *arg, long status);
    int64_t (*on_retry)(void *arg, const kc_err *err, long retry_after_s, int attempt);
    int retries; /* tries again after a Retry-After answer */
    kc_data_fn on_data;
    kc_done_fn on_done;
    void *arg;

    CURL *easy;
    struct curl_slist *hdrs;
    kc_buf buf;
    long status, retry_after;
    int active;       /* in the loop's multi handle */
    int waiting_auth; /* waiting for kc_auth_ready's callback */
    int retried_401;
    int too_big;     /* the body passed KC_CAP_BODY_BYTES: the transfer was cut */
    int sock_errno;  /* socket() failed with this (libcurl reports only "couldn't connect") */
    int in_done;     /* on_done is running: free after it */
    int cancelled;   /* no callback may run any more */
    int held;        /* kc_request_opts.hold, until kc_request_release */
    int paused;      /* the body waits: on_write returned CURL_WRITEFUNC_PAUSE */
    uint64_t resume; /* the loop's timer that unpauses it (never from inside a callback) */
    uint64_t timer;  /* deferred start or reap */
    double launched; /* our wall clock when the transfer was handed to curl */
    char errbuf[CURL_ERROR_SIZE];
};

/* ---- client ---- */

kc_client *kc_client_new(kc_loop *loop, const kc_rest_config *cfg, kc_err *err)
{
    if (!cfg || !cfg->server || !*cfg->server) {
        kc_err_set(err, "no API server address in the configuration");
        return NULL;
    }
    if (strncmp(cfg->server, "http://", 7) != 0 && strncmp(cfg->server, "https://", 8) != 0) {
        char *shown = kc_url_redact(cfg->server);
        kc_err_set(err, "the API server address %s is not an http:// or https:// URL", shown);
        free(shown);
        return NULL;
    }
    kc_client *c = xcalloc(1, sizeof *c);
    c->loop = loop;
    c->cfg = kc_rest_config_dup(cfg);
    c->server = xstrdup(cfg->server);
    size_t n = strlen(c->server);
    while (n > 0 && c->server[n - 1] == '/') c->server[--n] = 0;
    c->shown = kc_url_redact(c->server);
    c->auth = kc_auth_new(c->cfg, loop);
    kc_err_clear(err);
    return c;
}

static void req_free(kc_request *r);

void kc_client_free(kc_client *c)
{
    if (!c) return;
    while (c->reqs) req_free(c->reqs);
    kc_auth_free(c->auth);
    kc_rest_config_free(c->cfg);
    free(c->server);
    free(c->shown);
    free(c);
}

kc_loop *kc_client_loop(kc_client *c)
{
    return c->loop;
}

kc_auth *kc_client_auth(kc_client *c)
{
    return c->auth;
}

const char *kc_client_server(kc_client *c)
{
    return c->server;
}

const char *kc_client_user(const kc_client *c)
{
    return c && c->cfg->user && *c->cfg->user ? c->cfg->user : NULL;
}

int64_t kc_client_last_heard(const kc_client *c)
{
    return c->heard_ms;
}

double kc_client_clock_offset(const kc_client *c, int *known)
{
    return kc_clockoff_get(&c->clock, known);
}

/* ---- requests ---- */

static void req_free(kc_request *r)
{
    kc_client *c = r->c;
    if (r->active) kc_loop_remove_transfer(c->loop, r->easy);
    if (r->waiting_auth) kc_auth_forget(c->auth, r);
    if (r->timer) kc_loop_cancel(c->loop, r->timer);
    if (r->resume) kc_loop_cancel(c->loop, r->resume);
    if (r->easy) curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->hdrs);
    kc_buf_free(&r->buf);
    if (r->prev)
        r->prev->next = r->next;
    else
        c->reqs = r->next;
    if (r->next) r->next->prev = r->prev;
    free(r->method);
    free(r->url);
    free(r->body);
    free(r->content_type);
    free(r->accept);
    free(r->accept_encoding);
    kc_buf_free(&r->extra_ca);
    free(r);
}

/* A held body waits only on a connection of its own (HTTP/1.x): libcurl 7.88 may stop a whole
 * HTTP/2 connection for one paused stream, and the answers that are not held share it. */
static int held_here(kc_request *r)
{
    long v = 0;
    curl_easy_getinfo(r->easy, CURLINFO_HTTP_VERSION, &v);
    return v != CURL_HTTP_VERSION_2_0 && v != CURL_HTTP_VERSION_3;
}

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
    kc_request *r = arg;
    size_t n = size * nmemb;
    if (r->cancelled) return 0;
    if (r->api) r->c->heard_ms = kc_now_ms();
    if (!r->status) curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->stream && r->status >= 200 && r->status < 300) {
        if (r->held && held_here(r)) {
            r->paused = 1; /* curl keeps these bytes and hands them again on release */
            return CURL_WRITEFUNC_PAUSE;
        }
        r->c->in_curl_cb++;
        r->on_data(r->arg, ptr, n);
        r->c->in_curl_cb--;
        return r->cancelled ? 0 : n;
    }
    if (r->status >= 200 && r->status < 300) {
        if (n > KC_CAP_BODY_BYTES - r->buf.len) { /* caps.h: cut, never buffered on */
            r->too_big = 1;
            return 0;
        }
        kc_buf_append(&r->buf, ptr, n);
    } else if (r->buf.len < KC_CAP_ERR_BODY_BYTES) {
        size_t room = KC_CAP_ERR_BODY_BYTES - r->buf.len;
        kc_buf_append(&r->buf, ptr, n < room ? n : room);
    }
    return n;
}

/* A Date header of the API server's: one sample of its clock (clockoff.h). The request went out
 * when curl was done connecting (TLS included), not when it was handed over. */
static void clock_sample(kc_request *r, const char *v, size_t n)
{
    char tmp[64];
    size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
    memcpy(tmp, v, k);
    tmp[k] = 0;
    time_t date = curl_getdate(tmp, NULL);
    if (date <= 0 || !r->launched) return;
    double sent = r->launched;
    curl_off_t pre = 0;
    if (curl_easy_getinfo(r->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) == CURLE_OK && pre > 0)
        sent += (double)pre / 1e6;
    double now = kc_wall_now();
    kc_clockoff_add(&r->c->clock, sent < now ? sent : now, now, (double)date);
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
    kc_request *r = arg;
    size_t n = size * nmemb;
    if (r->cancelled) return 0;
    if (r->api) r->c->heard_ms = kc_now_ms();
    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) {
        r->status = 0; /* a new response (after 100 Continue or a redirect) */
        r->retry_after = -1;
    } else if (n > 12 && strncasecmp(ptr, "Retry-After:", 12) == 0) {
        char tmp[32];
        size_t k = n - 12 < sizeof tmp - 1 ? n - 12 : sizeof tmp - 1;
        memcpy(tmp, ptr + 12, k);
        tmp[k] = 0;
        char *end;
        long v = strtol(tmp, &end, 10);
        if (end != tmp && v >= 0) r->retry_after = v;
    } else if (r->api && n > 5 && strncasecmp(ptr, "Date:", 5) == 0) {
        clock_sample(r, ptr + 5, n - 5);
    } else if ((n == 2 && ptr[0] == '\r') || (n == 1 && ptr[0] == '\n')) {
        long st = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &st);
        if (st >= 200 && st < 300 && r->on_headers) {
            r->c->in_curl_cb++;
            r->on_headers(r->arg, st);
            r->c->in_curl_cb--;
            if (r->cancelled) return 0;
        }
    }
    return n;
}

static void req_start(kc_request *r);

/* 1 when the transfer failed because the https proxy's certificate did not verify. */
static int proxy_refused(kc_request *r, CURLcode res)
{
    const char *p = r->c->cfg->proxy_url;
    if (!p || strncasecmp(p, "https://", 8) != 0) return 0;
    if (res != CURLE_PEER_FAILED_VERIFICATION && res != CURLE_SSL_CONNECT_ERROR) return 0;
    long v = 0;
    return curl_easy_getinfo(r->easy, CURLINFO_PROXY_SSL_VERIFYRESULT, &v) == CURLE_OK && v != 0;
}

/* libcurl's socket(), remembering why it failed: libcurl 7.88 turns every failure into
 * CURLE_COULDNT_CONNECT with no errno (CURLINFO_OS_ERRNO stays 0), and running out of
 * descriptors must not read as a server that refuses. Close-on-exec, so no child inherits it. */
static curl_socket_t open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *addr)
{
    kc_request *r = arg;
    (void)purpose;
    int fd = socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
    if (fd < 0) r->sock_errno = errno;
    return fd < 0 ? CURL_SOCKET_BAD : fd;
}

/* EMFILE or ENFILE when the request failed for want of a descriptor, else 0: socket() said so,
 * or (a resolver's socket pair, which libcurl reports as a failed lookup) none can be had now. */
static int out_of_fds(const kc_request *r, CURLcode res)
{
    if (res == CURLE_OK) return 0;
    if (kc_fd_exhausted(r->sock_errno)) return r->sock_errno;
    long oserr = 0;
    if (curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &oserr) == CURLE_OK &&
        kc_fd_exhausted((int)oserr))
        return (int)oserr;
    if (res != CURLE_COULDNT_CONNECT && res != CURLE_COULDNT_RESOLVE_HOST) return 0;
    int probe = fcntl(0, F_DUPFD_CLOEXEC, 0);
    if (probe >= 0) {
        close(probe);
        return 0;
    }
    return kc_fd_exhausted(errno) ? errno : 0;
}

/* Hands the answer to on_done, then frees the request. */
static void req_finish(kc_request *r, CURLcode res, const char *auth_error)
{
    kc_client *c = r->c;
    kc_err err;
    kc_err_clear(&err);
    kc_response resp = {.status = r->status, .retry_after = r->retry_after};
    if (auth_error) {
        kc_err_set(&err, "%s", auth_error);
    } else if (r->too_big) {
        kc_err_set(&err,
                   "the answer to %s is larger than %zu MiB, veltop's limit for one response: "
                   "the server is misbehaving",
                   r->api ? r->url + strlen(c->server) : "the download", KC_CAP_BODY_BYTES >> 20);
        err.code = KC_ERR_CAPPED;
        kc_buf_free(&r->buf);
    } else if (res != CURLE_OK || r->status < 200 || r->status >= 300) {
        /* a transport error mid-body is reported as such even after a 200 */
        kc_client_describe_error(c, res != CURLE_OK ? 0 : r->status, kc_buf_cstr(&r->buf), res,
                                 r->url, &err);
        if (res != CURLE_OK && r->errbuf[0] && res != CURLE_COULDNT_CONNECT &&
            res != CURLE_COULDNT_RESOLVE_HOST && res != CURLE_OPERATION_TIMEDOUT) {
            size_t len = strlen(err.msg);
            if (!strstr(err.msg, r->errbuf) && len + 4 < sizeof err.msg)
                snprintf(err.msg + len, sizeof err.msg - len, " (%s)", r->errbuf);
        }
        if (res != CURLE_OK) err.code = 0;
        int oserr = out_of_fds(r, res);
        if (oserr) {
            /* socket() failed: this process (EMFILE) or the system (ENFILE) is out of
             * descriptors; the server was never asked */
            kc_err_set(&err,
                       "open-file limit %ld reached: cannot open a connection to %s; raise it "
                       "with ulimit -n",
                       kc_fd_limit(), r->api ? c->shown : "the download");
            if (oserr == ENFILE)
                kc_err_set(&err,
                           "the system's open-file table is full (ENFILE): cannot open a "
                           "connection to %s",
                           r->api ? c->shown : "the download");
            err.code = KC_ERR_NOFILE;
        } else if (r->api && proxy_refused(r, res)) {
            /* the https proxy's certificate failed, not the API server's: say so */
            char *shown = kc_url_redact(c->cfg->proxy_url);
            kc_err_set(&err,
                       "the proxy's certificate is not trusted by the %s certificate authority, "
                       "or does not match its host name (proxy-url %s)",
                       c->cfg->ca_data ? "configured" : "system's", shown);
            free(shown);
        }
    }
    resp.body = kc_buf_cstr(&r->buf);
    resp.body_len = r->buf.len;
    r->in_done = 1;
    if (r->on_done) r->on_done(r->arg, &resp, &err);
    req_free(r);
}

static void deferred_start(void *arg);

static void xfer_done(void *arg, CURL *easy, CURLcode res)
{
    (void)easy;
    kc_request *r = arg;
    r->active = 0;
    if (r->cancelled) {
        req_free(r);
        return;
    }
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
    if (res == CURLE_OK && r->status == 401 && r->api && !r->retried_401 &&
        kc_auth_invalidate(r->c->auth)) {
        /* the credential was refreshed (exec plugin, tokenFile): one more try */
        r->retried_401 = 1;
        req_start(r);
        return;
    }
    if (res == CURLE_OK && r->api && (r->status == 429 || r->status >= 500) &&
        r->retry_after >= 0 && r->retries < KC_BACKOFF_RETRY_AFTER_TRIES) {
        /* the server asked to wait (client-go rest/with_retry.go checkWait): the same request
         * again after Retry-After, never sooner, at most KC_BACKOFF_RETRY_AFTER_TRIES times */
        int64_t d = kc_backoff_retry_after(NULL, r->retry_after);
        if (r->on_retry) {
            kc_err err;
            kc_client_describe_error(r->c, r->status, kc_buf_cstr(&r->buf), CURLE_OK, r->url, &err);
            r->c->in_curl_cb++; /* the owner must not start or cancel from here synchronously */
            d = r->on_retry(r->arg, &err, r->retry_after, r->retries + 1);
            r->c->in_curl_cb--;
        }
        if (d >= 0 && !r->cancelled) {
            r->retries++;
            r->timer = kc_loop_timer(r->c->loop, d, deferred_start, r);
            return;
        }
        if (r->cancelled) {
            req_free(r);
            return;
        }
    }
    req_finish(r, res, NULL);
}

/* Does the URL point at the API server (so that credentials may be sent)? */
static int is_api_url(kc_client *c, const char *url)
{
    size_t n = strlen(c->server);
    return strncmp(url, c->server, n) == 0 && (url[n] == 0 || url[n] == '/' || url[n] == '?');
}

/* Trust the system roots plus extra PEM certificates for this transfer. libcurl takes one CA
 * bundle: its own default bundle's text (read, never written) and the extra ones go in as a blob,
 * so no certificate ever lands in a file. */
static void trust_extra(CURL *e, const kc_buf *extra)
{
    const char *sys = NULL;
#if LIBCURL_VERSION_NUM >= 0x075400 /* 7.84: the built-in default */
    curl_easy_getinfo(e, CURLINFO_CAINFO, &sys);
#endif
    if (!sys) sys = "/etc/ssl/certs/ca-certificates.crt";
    kc_buf b = {0};
    /* read as every file veltop reads, with the one cap (caps.h); unreadable: the extra ones only
     */
    size_t n = 0;
    char *roots = kc_read_file(sys, KC_CAP_FILE_BYTES, &n);
    if (roots) kc_buf_append(&b, roots, n);
    free(roots);
    kc_buf_append(&b, "\n", 1);
    kc_buf_append(&b, extra->data, extra->len);
    struct curl_blob blob = {.data = b.data, .len = b.len, .flags = CURL_BLOB_COPY};
    curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &blob);
    kc_buf_free(&b);
}

/* What the request asks for in Accept-Encoding (libcurl then decodes the answer). API requests
 * ask for gzip as client-go does: kube-apiserver gzips any list or object over 128 KiB for a
 * client that asks (a tenth of the bytes over a slow link); watches stay identity there. Other
 * URLs (artifact downloads, gzip files veltop decodes itself) ask for what the caller says, or
 * nothing. The kubeconfig's disable-compression turns it off (kc_auth_apply). */
static const char *accept_encoding(const kc_request *r)
{
    if (r->accept_encoding) return r->accept_encoding;
    return r->api ? "gzip" : NULL;
}

static void setup_easy(kc_request *r)
{
    kc_client *c = r->c;
    if (r->easy)
        curl_easy_reset(r->easy);
    else
        r->easy = curl_easy_init();
    curl_slist_free_all(r->hdrs);
    r->hdrs = NULL;
    kc_buf_free(&r->buf);
    r->status = 0;
    r->retry_after = -1;
    r->errbuf[0] = 0;
    r->too_big = 0;
    r->sock_errno = 0;
    r->paused = 0;

    CURL *e = r->easy;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, r);
    /* half-open connections must not hang a watch forever (kube-api.md §6) */
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 15000L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "veltop/" VELTOP_VERSION);
    if (r->timeout_ms > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    if (r->low_speed_secs > 0) {
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT,
                         r->low_speed_bytes > 0 ? r->low_speed_bytes : 1L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, r->low_speed_secs);
    }
    if (strcmp(r->method, "GET") != 0) {
        if (strcmp(r->method, "HEAD") == 0)
            curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        else
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    }
    if (r->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        if (strcmp(r->method, "POST") != 0) curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    }
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, accept_encoding(r));
    if (r->api && strncmp(r->url, "https://", 8) == 0) {
        /* as client-go: HTTP/2 over TLS when the server offers it (ALPN), and every request to
         * the API server multiplexed on one connection: a request started while the first
         * connection is still being set up waits for it instead of opening its own (one TLS
         * handshake, not nine). A server that speaks only HTTP/1.1 gets a connection each. */
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
        /* a held answer is not paused over HTTP/2 (held_here): the server is asked to send the
         * others' frames first (weight 1 of 256; the default is 16) */
        if (r->held) curl_easy_setopt(e, CURLOPT_STREAM_WEIGHT, 1L);
    }
    if (!r->api) {
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(e, CURLOPT_MAXREDIRS, KC_CAP_REDIRECTS);
    }

    /* TLS trust, proxy and credentials of the API server: kc_auth_apply below */
    if (!r->api && r->extra_ca.len) trust_extra(e, &r->extra_ca);

    char *h = xasprintf("Accept: %s", r->accept ? r->accept : "application/json");
    r->hdrs = curl_slist_append(r->hdrs, h);
    free(h);
    if (r->content_type) {
        h = xasprintf("Content-Type: %s", r->content_type);
        r->hdrs = curl_slist_append(r->hdrs, h);
        free(h);
    }
    r->hdrs = curl_slist_append(r->hdrs, "Expect:");
    if (r->api && c->auth) r->hdrs = kc_auth_apply(c->auth, e, r->hdrs);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs);
}

static void launch(kc_request *r)
{
    setup_easy(r);
    r->active = 1;
    r->launched = kc_wall_now();
    kc_loop_add_transfer(r->c->loop, r->easy, xfer_done, r);
}

static void deferred_start(void *arg)
{
    kc_request *r = arg;
    r->timer = 0;
    req_start(r);
}

static void auth_ready(void *arg, const kc_err *err)
{
    kc_request *r = arg;
    r->waiting_auth = 0;
    if (r->cancelled) return;
    if (err && err->msg[0]) {
        req_finish(r, CURLE_OK, err->msg);
        return;
    }
    /* called from the loop, but perhaps from inside another request's callback */
    if (r->c->in_curl_cb)
        r->timer = kc_loop_timer(r->c->loop, 0, deferred_start, r);
    else
        launch(r);
}

static void req_start(kc_request *r)
{
    kc_client *c = r->c;
    if (c->in_curl_cb) {
        /* curl forbids adding a handle from inside its callbacks: start from the loop */
        r->timer = kc_loop_timer(c->loop, 0, deferred_start, r);
        return;
    }
    if (r->api && c->auth && !kc_auth_ready(c->auth, auth_ready, r)) {
        r->waiting_auth = 1;
        return;
    }
    launch(r);
}

kc_request *kc_client_request(kc_client *c, const kc_request_opts *o, kc_data_fn on_data,
                              kc_done_fn on_done, void *arg)
{
    kc_request *r = xcalloc(1, sizeof *r);
    r->c = c;
    r->method = xstrdup(o->method ? o->method : "GET");
    const char *path = o->path ? o->path : "/";
    if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0) {
        r->url = xstrdup(path);
        r->api = !o->external && is_api_url(c, path);
    } else if (o->external) { /* not a URL of its own: never joined to the API server's */
        r->url = xstrdup(path);
        r->api = 0;
    } else {
        r->url = xasprintf("%s%s%s", c->server, path[0] == '/' ? "" : "/", path);
        r->api = 1;
    }
    if (o->body) {
        r->body = xmalloc(o->body_len + 1);
        memcpy(r->body, o->body, o->body_len);
        r->body[o->body_len] = 0;
        r->body_len = o->body_len;
    }
    r->content_type = xstrdup(o->content_type);
    r->accept = xstrdup(o->accept);
    r->accept_encoding = xstrdup(o->accept_encoding);
    if (o->extra_ca_pem && o->extra_ca_len)
        kc_buf_append(&r->extra_ca, o->extra_ca_pem, o->extra_ca_len);
    r->stream = o->stream && on_data;
    r->timeout_ms = o->timeout_ms;
    r->low_speed_secs = o->low_speed_secs;
    r->low_speed_bytes = o->low_speed_bytes;
    r->on_headers = o->on_headers;
    r->on_retry = o->on_retry;
    r->on_data = on_data;
    r->on_done = on_done;
    r->arg = arg;
    r->retry_after = -1;
    r->held = o->hold && r->stream;
    r->next = c->reqs;
    if (c->reqs) c->reqs->prev = r;
    c->reqs = r;
    req_start(r);
    return r;
}

static void reap(void *arg)
{
    kc_request *r = arg;
    r->timer = 0;
    req_free(r);
}

static void resume(void *arg)
{
    kc_request *r = arg;
    r->resume = 0;
    if (r->cancelled || !r->paused || !r->active) return;
    r->paused = 0;
    /* curl hands the kept bytes to on_write from here, and runs the transfer on */
    curl_easy_pause(r->easy, CURLPAUSE_CONT);
}

void kc_request_release(kc_request *r)
{
    if (!r || r->cancelled || !r->held) return;
    r->held = 0;
    if (r->paused && !r->resume) r->resume = kc_loop_timer(r->c->loop, 0, resume, r);
}

void kc_request_cancel(kc_request *r)
{
    if (!r || r->cancelled) return;
    r->cancelled = 1;
    if (r->in_done) return; /* freed when on_done returns */
    if (r->c->in_curl_cb) {
        /* the multi handle cannot be touched from here: free it from the loop */
        if (r->timer) kc_loop_cancel(r->c->loop, r->timer);
        r->timer = kc_loop_timer(r->c->loop, 0, reap, r);
        return;
    }
    req_free(r);
}

/* ---- error messages ---- */

/* Copies a server-provided text with control characters replaced, so it is safe to show. */
static void clean_copy(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < n; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[j++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
    }
    dst[j] = 0;
    while (j > 0 && dst[j - 1] == ' ') dst[--j] = 0;
}

/* scheme://host[:port]/path of a URL, without the query (signed download URLs carry secrets). */
/* A URL for a message: no query (a signed URL's signature), no userinfo. */
static void url_without_query(char *dst, size_t n, const char *url)
{
    char *shown = kc_url_redact(url);
    size_t k = strcspn(shown, "?#");
    if (k >= n) k = n - 1;
    memcpy(dst, shown, k);
    dst[k] = 0;
    free(shown);
}

/* scheme://host[:port] of an absolute URL. */
static void url_origin(char *dst, size_t n, const char *url)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t k = (size_t)(host - url) + strcspn(host, "/?#");
    if (k >= n) k = n - 1;
    memcpy(dst, url, k);
    dst[k] = 0;
}

static const char *reason_phrase(long status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "";
    }
}

void kc_client_describe_error(kc_client *c, long status, const char *body, CURLcode res,
                              const char *path, kc_err *err)
{
    char where[512];
    const char *server = c ? c->shown : "the API server";
    int absolute = path && (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0);
    if (absolute && c && !is_api_url(c, path)) {
        url_without_query(where, sizeof where, path);
    } else {
        snprintf(where, sizeof where, "%s", server);
    }
    const char *rpath = path ? path : "";
    if (absolute && c && is_api_url(c, path)) rpath = path + strlen(c->server);

    kc_err_clear(err);
    if (res != CURLE_OK) {
        err->code = 0;
        switch (res) {
        case CURLE_COULDNT_CONNECT:
            kc_err_set(err,
                       "cannot connect to %s: connection refused or unreachable (is the API server "
                       "running?)",
                       where);
            break;
        case CURLE_COULDNT_RESOLVE_HOST:
            kc_err_set(err, "cannot resolve the host name of %s (DNS lookup failed)", where);
            break;
        case CURLE_COULDNT_RESOLVE_PROXY:
            kc_err_set(err, "cannot resolve the proxy's host name for %s", where);
            break;
        case CURLE_OPERATION_TIMEDOUT:
            kc_err_set(err, "timed out waiting for %s", where);
            break;
        case CURLE_PEER_FAILED_VERIFICATION:
#if LIBCURL_VERSION_NUM < 0x073e00
        case CURLE_SSL_CACERT:
#endif
            if (absolute && c && !is_api_url(c, path)) {
                /* an object store (a signed download URL): the kubeconfig's CA is not its; only
                 * its origin is named (the path may be the signature) */
                char origin[256];
                url_origin(origin, sizeof origin, path);
                kc_err_set(err,
                           "TLS verification of the object store %s failed: its certificate is "
                           "not signed by a certificate authority trusted for it (the system's, "
                           "the BackupStorageLocation's caCert, --cacert), or is not for that "
                           "host name",
                           origin);
            } else if (c && c->cfg->ca_data)
                kc_err_set(err,
                           "the server's certificate is not trusted by the configured certificate "
                           "authority, or does not match the host name (%s)",
                           where);
            else
                kc_err_set(err,
                           "the server's certificate is not trusted by the system's certificate "
                           "authorities, or does not match the host name (%s); set "
                           "certificate-authority-data in the kubeconfig",
                           where);
            break;
        case CURLE_SSL_CACERT_BADFILE:
            if (c && c->cfg->ca_data)
                kc_err_set(err,
                           "the certificate authority data in the kubeconfig cannot be read as "
                           "PEM (%s)",
                           where);
            else /* no CA of our own: libcurl's system bundle is missing (no ca-certificates) */
                kc_err_set(err,
                           "the system's certificate authorities cannot be read (%s); install "
                           "the ca-certificates package or set certificate-authority-data in "
                           "the kubeconfig",
                           where);
            break;
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
            kc_err_set(err, "the client certificate or key in the kubeconfig cannot be used (%s)",
                       where);
            break;
        case CURLE_SSL_CONNECT_ERROR:
            kc_err_set(err, "TLS handshake with %s failed", where);
            break;
        case CURLE_GOT_NOTHING:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_PARTIAL_FILE:
            kc_err_set(err, "the connection to %s was closed unexpectedly", where);
            break;
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT:
            kc_err_set(err, "the address %s cannot be used: %s", where, curl_easy_strerror(res));
            break;
        default:
            kc_err_set(err, "request to %s failed: %s", where, curl_easy_strerror(res));
            break;
        }
        return;
    }

    char msg[700] = "", reason[64] = "";
    int has_name = 0;
    cJSON *st = body && *body ? cJSON_Parse(body) : NULL;
    if (st) {
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "message"));
        if (m) clean_copy(msg, sizeof msg, m);
        const char *rs = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "reason"));
        if (rs) clean_copy(reason, sizeof reason, rs);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(st, "details");
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));
        has_name = nm && *nm;
        cJSON_Delete(st);
    } else if (body && *body && status >= 400) {
        /* not a Status (a proxy's page): its first line, if short and readable */
        char line[200];
        size_t k = strcspn(body, "\r\n");
        if (k < sizeof line && body[0] != '<') {
            memcpy(line, body, k);
            line[k] = 0;
            clean_copy(msg, sizeof msg, line);
        }
    }
    err->code = (int)status;
    const char *user = c && c->cfg->user && *c->cfg->user ? c->cfg->user : NULL;
    switch (status) {
    case 401:
        if (user)
            kc_err_set(err, "unauthorized: the server rejected the credentials of user \"%s\"",
                       user);
        else
            kc_err_set(err, "unauthorized: the server rejected the credentials");
        break;
    case 403:
        if (msg[0])
            kc_err_set(err, "%s", msg);
        else
            kc_err_set(err, "forbidden: the server refused access to %s", rpath);
        break;
    case 404:
        if (strstr(rpath, "/apis/velero.io/") && !has_name)
            kc_err_set(
                err,
                "Velero's resources are not installed in this cluster (no velero.io API group)");
        else if (msg[0])
            kc_err_set(err, "%s", msg);
        else
            kc_err_set(err, "not found: %s", rpath);
        break;
    default:
        if (msg[0])
            kc_err_set(err, "%s (HTTP %ld%s%s)", msg, status, reason[0] ? " " : "", reason);
        else if (status)
            kc_err_set(err, "the server answered HTTP %ld %s for %s", status, reason_phrase(status),
                       rpath);
        else
            kc_err_set(err, "no answer from %s", where);
        break;
    }
    err->code = (int)status;
}
