/* serve.c: veltop --serve: the Prometheus exporter (serve.h). The loop thread watches the
 * contexts as the TUI does and renders the exposition (metrics.h) into a buffer whenever the model
 * changes and as the clock moves (ages, ETAs, stalled-for), paced by how often it is scraped: a
 * change within an eighth of the scrape interval and the clock within a quarter (bounds below),
 * so a scrape finds answers a small part of its interval old and an idle 15 s scraper does not
 * pay for renderings nobody reads; libmicrohttpd's own thread only copies the newest finished
 * buffer out under a mutex.
 *
 * Why a second thread and not MHD's external-select mode driven from kc_loop: the loop waits in
 * curl_multi_poll, and every fd MHD would add (the listen socket and each connection) would go
 * through kc_loop_watch_fd and be re-registered on every MHD state change; a scrape's reply would
 * then wait behind whatever the loop is doing (decoding a 10 000-run re-list), which is exactly
 * the wait a scrape must never have. The MHD thread touches nothing of the model: it takes the
 * mutex only to copy a finished buffer (a memcpy of a few hundred KB), so a scrape costs the same
 * whatever the cluster does, and a cluster that hangs cannot hang a scrape. */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "health.h"
#include "logderive.h"
#include "metrics.h"

#define SERVE_CHANGE_MIN_MS   250 /* a change re-renders after 1/8 of the scrape gap, within */
#define SERVE_CHANGE_MAX_MS   2000
#define SERVE_TICK_MIN_MS     1000 /* the clock re-renders after 1/4 of it, within */
#define SERVE_TICK_MAX_MS     5000 /* (also with no scraper seen for SERVE_SCRAPER_GONE_MS) */
#define SERVE_SCRAPER_GONE_MS 120000
#define SERVE_CONN_LIMIT      64
#define SERVE_CONN_TIMEOUT_S  10

typedef struct serve {
    app **apps;
    size_t n;
    kc_loop *loop;
    int quit, dirty;
    int64_t last_render_ms;
    uint64_t timer;
    int sigpipe[2], sig_id;
    /* what the MHD thread serves: the newest rendering, both formats; and when it was scraped
     * (the time of the last scrape and the gap before it, 0 none yet) */
    pthread_mutex_t mu;
    kc_buf text, om;
    int64_t scraped_ms, scrape_gap_ms;
} serve;

static serve *serve_signal_target;

/* ---- the address ----------------------------------------------------------------------------- */

int serve_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len, char *err,
                     size_t errn)
{
    char host[256] = "", port[16] = "";
    const char *colon = strrchr(addr, ':');
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':' || close == addr + 1) {
            snprintf(err, errn, "invalid --serve address '%s' (HOST:PORT, [V6]:PORT or :PORT)",
                     addr);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(close - addr - 1), addr + 1);
        colon = close + 1;
    } else if (colon) {
        if ((size_t)(colon - addr) >= sizeof host) {
            snprintf(err, errn, "invalid --serve address '%s': host name too long", addr);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    } else {
        snprintf(host, sizeof host, "127.0.0.1"); /* a bare port: loopback, never every interface */
    }
    const char *ps = colon ? colon + 1 : addr;
    char *end;
    long p = strtol(ps, &end, 10);
    if (!*ps || *end || p < 0 || p > 65535) {
        snprintf(err, errn, "invalid --serve port in '%s' (0-65535)", addr);
        return -1;
    }
    snprintf(port, sizeof port, "%ld", p);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc || !res) {
        snprintf(err, errn, "cannot resolve --serve host '%s': %s", host, gai_strerror(rc));
        if (res) freeaddrinfo(res);
        return -1;
    }
    /* ":PORT" (no host): every interface, IPv6 and IPv4 when the system has IPv6 */
    const struct addrinfo *pick = res;
    for (const struct addrinfo *ai = res; !host[0] && ai; ai = ai->ai_next)
        if (ai->ai_family == AF_INET6) pick = ai;
    memcpy(ss, pick->ai_addr, pick->ai_addrlen);
    *len = pick->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static int serve_listen(const char *addr, int *v6, char *err, size_t errn)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (serve_parse_addr(addr, &ss, &len, err, errn)) return -1;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errn, "cannot serve %s: %s", addr, strerror(errno));
        return -1;
    }
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    *v6 = ss.ss_family == AF_INET6;
    if (*v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
        snprintf(err, errn, "cannot serve %s: %s", addr, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- rendering (the loop thread) ------------------------------------------------------------- */

static int serve_refl_synced(const app *a, int i)
{
    const kc_refl_status *st = kc_reflector_status(a->refl[i]);
    return st && st->synced;
}

static void serve_render(serve *s)
{
    int64_t now_ms = kc_now_ms();
    double now = (double)now_ms / 1000.0, wall = kc_wall_now();
    mx_cluster *cl = xcalloc(s->n, sizeof *cl);
    health **hs = xcalloc(s->n, sizeof *hs);
    run_answer **live = xcalloc(s->n, sizeof *live);
    run_answer **last = xcalloc(s->n, sizeof *last);
    for (size_t i = 0; i < s->n; i++) {
        app *a = s->apps[i];
        app_conn conn;
        app_connection(a, now, &conn);
        int runs_known =
            serve_refl_synced(a, APP_R_BACKUPS) && serve_refl_synced(a, APP_R_RESTORES);
        cl[i].context = a->context;
        cl[i].ns = a->ns;
        /* reachable: the server answered recently (liveness.h), and it answered the run lists */
        cl[i].reachable = runs_known && conn.silent_s <= 0;
        cl[i].data_age = !runs_known ? -1 : conn.stale_since > 0 ? now - conn.stale_since : 0;
        cl[i].bsls_known = serve_refl_synced(a, APP_R_BSLS);
        cl[i].runs_known = runs_known;
        cl[i].clock_offset = model_clock_offset(a->model, &cl[i].clock_offset_known);
        if (a->model->vols_dirty) model_refresh_volumes(a->model); /* the schedules' trend */
        hs[i] = health_of_app(a, wall);
        cl[i].h = hs[i];
        ans_ctx c;
        answer_ctx_of_app(a, hs[i], now, wall, &c);
        live[i] = mx_run_answers(&c, a->model, &cl[i].n_runs);
        cl[i].runs = live[i];
        last[i] = mx_last_runs(&c, a->model, &cl[i].n_last);
        cl[i].last = last[i];
    }
    kc_buf text = {0}, om = {0};
    mx_render(&text, cl, s->n, MX_TEXT);
    mx_render(&om, cl, s->n, MX_OPENMETRICS);
    for (size_t i = 0; i < s->n; i++) {
        health_free(hs[i]);
        free(live[i]);
        free(last[i]);
    }
    free(hs);
    free(live);
    free(last);
    free(cl);
    pthread_mutex_lock(&s->mu);
    kc_buf old_text = s->text, old_om = s->om;
    s->text = text;
    s->om = om;
    pthread_mutex_unlock(&s->mu);
    kc_buf_free(&old_text);
    kc_buf_free(&old_om);
    s->dirty = 0;
    s->last_render_ms = now_ms;
}

static int64_t serve_clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* How long after the last rendering a change (change = 1) or the clock re-renders. */
static int64_t serve_pace(serve *s, int change, int64_t now_ms)
{
    pthread_mutex_lock(&s->mu);
    int64_t gap = s->scrape_gap_ms, last = s->scraped_ms;
    pthread_mutex_unlock(&s->mu);
    if (!gap || now_ms - last > SERVE_SCRAPER_GONE_MS)
        return change ? SERVE_CHANGE_MAX_MS : SERVE_TICK_MAX_MS;
    return change ? serve_clamp(gap / 8, SERVE_CHANGE_MIN_MS, SERVE_CHANGE_MAX_MS)
                  : serve_clamp(gap / 4, SERVE_TICK_MIN_MS, SERVE_TICK_MAX_MS);
}

static void serve_tick(void *arg)
{
    serve *s = arg;
    s->timer = 0;
    int64_t now = kc_now_ms();
    if (now - s->last_render_ms >= serve_pace(s, s->dirty, now)) serve_render(s);
    now = kc_now_ms();
    int64_t next = s->last_render_ms + serve_pace(s, s->dirty, now) - now;
    /* the pace follows the scrapes: look again within the shortest pace */
    if (next > SERVE_TICK_MIN_MS) next = SERVE_TICK_MIN_MS;
    s->timer = kc_loop_timer(s->loop, next > 0 ? next : 1, serve_tick, s);
}

static void serve_on_change(void *arg)
{
    serve *s = arg;
    if (s->dirty) return;
    s->dirty = 1;
    /* the next tick comes within the change pace of the last rendering */
    int64_t now = kc_now_ms(), next = s->last_render_ms + serve_pace(s, 1, now) - now;
    if (next > SERVE_TICK_MIN_MS) next = SERVE_TICK_MIN_MS;
    if (s->timer) kc_loop_cancel(s->loop, s->timer);
    s->timer = kc_loop_timer(s->loop, next > 0 ? next : 0, serve_tick, s);
}

/* ---- signals --------------------------------------------------------------------------------- */

static void serve_signal_handler(int sig)
{
    (void)sig;
    int e = errno;
    if (serve_signal_target && serve_signal_target->sigpipe[1] >= 0) {
        char c = 1;
        ssize_t r = write(serve_signal_target->sigpipe[1], &c, 1);
        (void)r;
    }
    errno = e;
}

static void serve_on_signal(void *arg, int fd, short revents)
{
    serve *s = arg;
    char buf[16];
    (void)revents;
    while (read(fd, buf, sizeof buf) > 0) {
    }
    s->quit = 1;
}

static int serve_quit(void *arg)
{
    return ((serve *)arg)->quit;
}

/* ---- HTTP (the MHD thread) ------------------------------------------------------------------- */

static enum MHD_Result serve_reply(struct MHD_Connection *c, unsigned code, const char *ctype,
                                   const char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve_handler(void *cls, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_data_size,
                                     void **con_cls)
{
    serve *s = cls;
    (void)version;
    (void)upload_data;
    (void)con_cls;
    if (*upload_data_size) { /* a body is not for us: drop it */
        *upload_data_size = 0;
        return MHD_YES;
    }
    static const char plain[] = "text/plain; charset=utf-8";
    int get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
    if (!strcmp(url, "/metrics") || !strcmp(url, "/healthz")) {
        if (!get) {
            static const char msg[] = "method not allowed: GET only\n";
            return serve_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, plain, msg, sizeof msg - 1,
                               MHD_RESPMEM_PERSISTENT);
        }
    } else {
        static const char msg[] = "not found: veltop serves /metrics and /healthz\n";
        return serve_reply(c, MHD_HTTP_NOT_FOUND, plain, msg, sizeof msg - 1,
                           MHD_RESPMEM_PERSISTENT);
    }
    if (!strcmp(url, "/healthz")) {
        static const char msg[] = "ok\n";
        return serve_reply(c, MHD_HTTP_OK, plain, msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT);
    }
    mx_format f =
        mx_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
    int64_t now = kc_now_ms();
    pthread_mutex_lock(&s->mu);
    if (s->scraped_ms) {
        int64_t g = now - s->scraped_ms;
        s->scrape_gap_ms = g > 0 ? g : 1; /* scrapers keep their interval: the last one */
    }
    s->scraped_ms = now;
    const kc_buf *b = f == MX_OPENMETRICS ? &s->om : &s->text;
    enum MHD_Result ret = serve_reply(
        c, MHD_HTTP_OK, f == MX_OPENMETRICS ? MX_CONTENT_TYPE_OPENMETRICS : MX_CONTENT_TYPE_TEXT,
        b->data ? b->data : "", b->len, MHD_RESPMEM_MUST_COPY);
    pthread_mutex_unlock(&s->mu);
    return ret;
}

/* ---- the program ----------------------------------------------------------------------------- */

/* SIGINT and SIGTERM end the loop (through a self-pipe), SIGPIPE is ignored; installed before
 * anything is served, so a signal sent once /healthz answers is never lost (a background job of
 * a non-interactive shell starts with SIGINT ignored). */
typedef struct serve_sigs {
    struct sigaction old_int, old_term, old_pipe;
} serve_sigs;

static void serve_signals_on(serve *s, serve_sigs *o)
{
    if (pipe2(s->sigpipe, O_CLOEXEC | O_NONBLOCK)) s->sigpipe[0] = s->sigpipe[1] = -1;
    serve_signal_target = s;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = serve_signal_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &o->old_int);
    sigaction(SIGTERM, &sa, &o->old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &o->old_pipe);
    s->sig_id = s->sigpipe[0] >= 0
                    ? kc_loop_watch_fd(s->loop, s->sigpipe[0], POLLIN, serve_on_signal, s)
                    : -1;
}

static void serve_signals_off(serve *s, const serve_sigs *o)
{
    if (s->sig_id >= 0) kc_loop_unwatch_fd(s->loop, s->sig_id);
    sigaction(SIGINT, &o->old_int, NULL);
    sigaction(SIGTERM, &o->old_term, NULL);
    sigaction(SIGPIPE, &o->old_pipe, NULL);
    serve_signal_target = NULL;
    if (s->sigpipe[0] >= 0) {
        close(s->sigpipe[0]);
        close(s->sigpipe[1]);
    }
}

int serve_run(app **apps, size_t n, const char *addr, char *err, size_t errn)
{
    int v6 = 0;
    int fd = serve_listen(addr, &v6, err, errn);
    if (fd < 0) return 2;
    serve s = {0};
    s.apps = apps;
    s.n = n;
    s.loop = apps[0]->loop;
    pthread_mutex_init(&s.mu, NULL);
    serve_sigs sigs;
    serve_signals_on(&s, &sigs);
    serve_render(&s); /* a scrape at once says what is known: nothing listed yet, unreachable */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_POLL_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, serve_handler, &s,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_CONN_LIMIT,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_CONN_TIMEOUT_S, MHD_OPTION_END);
    if (!d) {
        snprintf(err, errn, "cannot serve %s: the HTTP server did not start", addr);
        close(fd);
        serve_signals_off(&s, &sigs);
        kc_buf_free(&s.text);
        kc_buf_free(&s.om);
        pthread_mutex_destroy(&s.mu);
        return 2;
    }
    /* as the screen: the Velero server's live log for the runs in progress (log-derived rows and
     * the log's evidence of progress) */
    unsigned char *own_derive = xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        apps[i]->on_change = serve_on_change;
        apps[i]->on_change_arg = &s;
        if (!apps[i]->derive) {
            apps[i]->derive = logderive_new(apps[i]);
            own_derive[i] = 1;
        }
    }
    s.timer = kc_loop_timer(s.loop, SERVE_TICK_MIN_MS, serve_tick, &s);
    while (!s.quit) kc_loop_run_until(s.loop, serve_quit, &s, 60000);

    MHD_stop_daemon(d); /* joins its thread and closes the listen socket */
    for (size_t i = 0; i < n; i++) {
        apps[i]->on_change = NULL;
        if (own_derive[i]) {
            logderive_free(apps[i]->derive);
            apps[i]->derive = NULL;
        }
    }
    free(own_derive);
    if (s.timer) kc_loop_cancel(s.loop, s.timer);
    serve_signals_off(&s, &sigs);
    kc_buf_free(&s.text);
    kc_buf_free(&s.om);
    pthread_mutex_destroy(&s.mu);
    return 0;
}
