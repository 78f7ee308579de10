/* serve.c: veltop --serve: the Prometheus exporter (serve.h). The loop thread watches the
 * contexts as the TUI does and renders the exposition (metrics.h) into a buffer whenever the model
 * changes and as the clock moves (ages, ETAs, stalled-for), paced by how often it is scraped: a
 * change within an eighth of the scrape interval and the clock within a quarter (bounds below),
 * so a scrape finds answers a small part of its interval old and an idle 15 s scraper does not
 * pay for renderings nobody reads; the serving thread only copies the newest finished buffer out
 * under a mutex.
 *
 * Why a second thread and not MHD driven from kc_loop: the loop waits in one poll(), and
 * every fd MHD would add (the listen socket and each connection) would go through
 * kc_loop_watch_fd and be re-registered on every MHD state change; a scrape's reply would then
 * wait behind whatever the loop is doing (decoding a 10 000-run re-list), which is exactly the
 * wait a scrape must never have. The serving thread touches nothing of the model: it takes the
 * mutex only to copy a finished buffer (a memcpy of a few hundred KB), so a scrape costs the same
 * whatever the cluster does, and a cluster that hangs cannot hang a scrape.
 *
 * Slow clients. The serving thread accepts the connections itself and drives MHD over epoll
 * (MHD_USE_EPOLL, external: MHD_run from this thread), so that it sees every connection and can
 * end one: a connection has SERVE_HEADER_S to send a request's headers (Go's ReadHeaderTimeout;
 * MHD's own timeout is an idle one, which a client sending a line every 2 s never meets), and at
 * the connection limit (sized from the descriptor budget, fdbudget.h) a new connection takes the
 * slot of the oldest one still sending its headers. An honest scraper sends its headers at once,
 * so it is never the oldest, and is served whatever number of slow ones come and from where; the
 * slow ones wait their turn or are dropped. A connection is ended by shutdown() from this same
 * thread (MHD then reads its end and closes it; no descriptor changes hands under it). Running out
 * of descriptors in accept() ends the oldest such connection and pauses accepting for a moment:
 * never a loop spinning on a readable listen socket. */
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
#include <openssl/crypto.h>
#include <strings.h>
#include <zlib.h>

#include "health.h"
#include "logderive.h"
#include "opsfetch.h"
#include "metrics.h"

#define SERVE_CHANGE_MIN_MS   250 /* a change re-renders after 1/8 of the scrape gap, within */
#define SERVE_CHANGE_MAX_MS   2000
#define SERVE_TICK_MIN_MS     1000 /* the clock re-renders after 1/4 of it, within */
#define SERVE_TICK_MAX_MS     5000 /* (also with no scraper seen for SERVE_SCRAPER_GONE_MS) */
#define SERVE_SCRAPER_GONE_MS 120000
#define SERVE_CONN_TIMEOUT_S  10   /* MHD's idle timeout: nothing read or written */
#define SERVE_HEADER_MS       5000 /* a request's headers, from accept (or the last answer) */
#define SERVE_EMFILE_PAUSE_MS 100  /* accept() out of descriptors: listen again after this */
#define SERVE_SWEEP_MS        250  /* the header deadlines are checked this often */
#define SERVE_ACCEPT_BATCH    8    /* connections accepted between two turns of MHD */
#define SERVE_GRACE_MS        1000 /* a new connection keeps its slot this long, whoever comes */

/* One accepted connection (the serving thread's only). */
typedef struct serve_conn {
    struct serve_conn *prev, *next;
    int fd;
    unsigned char addr[16]; /* the client's address (IPv4 as v4-mapped IPv6) */
    int64_t born_ms;
    int pending;         /* its request's headers are not all in yet */
    int ended;           /* shut down by us: MHD closes it on its next turn */
    int64_t deadline_ms; /* the headers are due by then */
} serve_conn;

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
    kc_buf text, om, text_gz, om_gz; /* each also gzipped, for Accept-Encoding: gzip */
    int64_t scraped_ms, scrape_gap_ms;
    webcfg *web; /* the serving thread's: TLS, users, verified pairs */
    /* the serving thread's own: its connections (in the order accepted), how many are open and
     * not ended, and the limit */
    struct MHD_Daemon *d;
    pthread_t thread;
    int listen_fd, stop_pipe[2];
    serve_conn *head, *tail;
    unsigned n_open, limit;
    size_t not_watched; /* the budget's: contexts not watched, and the limit it had */
    long fd_limit;
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
    /* the kernel's whole queue (SOMAXCONN): a burst of connections must not drop an honest
     * scraper's SYN (a retransmit costs it a second); the serving thread drains it at once */
    if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, SOMAXCONN) ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
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

/* in gzipped into out (empty when zlib fails: the plain one is served then) */
static void serve_gzip(const kc_buf *in, kc_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return;
    uLong cap = deflateBound(&z, (uLong)in->len);
    out->data = xmalloc(cap ? cap : 1);
    out->cap = cap;
    z.next_in = (Bytef *)(in->data ? in->data : "");
    z.avail_in = (uInt)in->len;
    z.next_out = (Bytef *)out->data;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) == Z_STREAM_END)
        out->len = z.total_out;
    else
        kc_buf_free(out);
    deflateEnd(&z);
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
        _Static_assert(sizeof cl[i].incomplete ==
                           sizeof c.missing_why + HEALTH_NIN * sizeof c.missing_why[0],
                       "one list of lists");
        memcpy(cl[i].incomplete, c.missing_why, sizeof c.missing_why);
        /* the lists health needs, as --once says them, once their list failed (not while the
         * first list is on its way: the answers' own lists are said the same way) */
        for (int r = 0; r < APP_NREFL; r++) {
            int k = health_input_of_list(r);
            const kc_refl_status *st = kc_reflector_status(a->refl[r]);
            if (k < 0 || st->synced ||
                !(st->state == KC_REFL_FAILED || st->state == KC_REFL_RETRYING ||
                  (st->attempt > 0 && st->last_error[0])))
                continue;
            char *e = cl[i].incomplete[5 + k];
            if (!health_incomplete(hs[i], (health_input)k, e, sizeof cl[i].incomplete[0])) e[0] = 0;
        }
        live[i] = mx_run_answers(&c, a->model, &cl[i].n_runs);
        cl[i].runs = live[i];
        last[i] = mx_last_runs(&c, a->model, &cl[i].n_last);
        cl[i].last = last[i];
        cl[i].m = a->model;
        cl[i].now = c.now;
        cl[i].wall = c.wall;
    }
    kc_buf text = {0}, om = {0};
    mx_render_budget(&text, s->not_watched, s->fd_limit, MX_TEXT);
    mx_render_budget(&om, s->not_watched, s->fd_limit, MX_OPENMETRICS);
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
    kc_buf text_gz = {0}, om_gz = {0};
    serve_gzip(&text, &text_gz);
    serve_gzip(&om, &om_gz);
    pthread_mutex_lock(&s->mu);
    kc_buf old[4] = {s->text, s->om, s->text_gz, s->om_gz};
    s->text = text;
    s->om = om;
    s->text_gz = text_gz;
    s->om_gz = om_gz;
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < 4; i++) kc_buf_free(&old[i]);
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
                                   const char *body, size_t len, enum MHD_ResponseMemoryMode mode,
                                   int gzipped)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (gzipped) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    if (code == MHD_HTTP_OK) MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

/* Accept-Encoding names gzip (or *) with a q above 0. */
static int serve_wants_gzip(const char *ae)
{
    while (ae && *ae) {
        while (*ae == ' ' || *ae == ',') ae++;
        size_t n = strcspn(ae, ",;");
        int named = (n == 4 && !strncasecmp(ae, "gzip", 4)) || (n == 1 && *ae == '*');
        const char *end = ae + strcspn(ae, ",");
        const char *q = strstr(ae, "q=");
        int zero = q && q < end && strtod(q + 2, NULL) <= 0;
        if (named && !zero) return 1;
        ae = end;
    }
    return 0;
}

/* The request's basic credentials are a user's of --web-config (webcfg_check). */
static int serve_authorized(serve *s, struct MHD_Connection *c)
{
    char *pass = NULL;
    char *user = MHD_basic_auth_get_username_password(c, &pass);
    int ok = user && pass && webcfg_check(s->web, user, pass);
    if (pass) OPENSSL_cleanse(pass, strlen(pass));
    MHD_free(user);
    MHD_free(pass);
    return ok;
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
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (ci && ci->socket_context) ((serve_conn *)ci->socket_context)->pending = 0;
    if (*upload_data_size) { /* a body is not for us: drop it */
        *upload_data_size = 0;
        return MHD_YES;
    }
    static const char plain[] = "text/plain; charset=utf-8";
    if (s->web && s->web->n_users && !serve_authorized(s, c)) {
        static const char msg[] = "unauthorized: veltop asks for a user and password\n";
        struct MHD_Response *r =
            MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, plain);
        enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "veltop", r);
        MHD_destroy_response(r);
        return ret;
    }
    int get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
    if (!strcmp(url, "/metrics") || !strcmp(url, "/healthz")) {
        if (!get) {
            static const char msg[] = "method not allowed: GET only\n";
            return serve_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, plain, msg, sizeof msg - 1,
                               MHD_RESPMEM_PERSISTENT, 0);
        }
    } else {
        static const char msg[] = "not found: veltop serves /metrics and /healthz\n";
        return serve_reply(c, MHD_HTTP_NOT_FOUND, plain, msg, sizeof msg - 1,
                           MHD_RESPMEM_PERSISTENT, 0);
    }
    if (!strcmp(url, "/healthz")) {
        static const char msg[] = "ok\n";
        return serve_reply(c, MHD_HTTP_OK, plain, msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT, 0);
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
    const kc_buf *gz = f == MX_OPENMETRICS ? &s->om_gz : &s->text_gz;
    int zip = gz->len && serve_wants_gzip(MHD_lookup_connection_value(
                             c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
    if (zip) b = gz;
    enum MHD_Result ret = serve_reply(
        c, MHD_HTTP_OK, f == MX_OPENMETRICS ? MX_CONTENT_TYPE_OPENMETRICS : MX_CONTENT_TYPE_TEXT,
        b->data ? b->data : "", b->len, MHD_RESPMEM_MUST_COPY, zip);
    pthread_mutex_unlock(&s->mu);
    return ret;
}

/* ---- connections (the serving thread) ------------------------------------------------------ */

static void serve_conn_end(serve *s, serve_conn *k)
{
    shutdown(k->fd, SHUT_RDWR); /* MHD reads its end on its next turn and closes it */
    k->ended = 1;
    s->n_open--;
}

/* The client's address as 16 bytes (IPv4 v4-mapped), the key of the per-address limit. */
static void serve_addr_key(const struct sockaddr *sa, unsigned char key[16])
{
    memset(key, 0, 16);
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    } else if (sa && sa->sa_family == AF_INET) {
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    }
}

/* How many connections one address may hold: an eighth of the slots (at least 4), so that a few
 * addresses cannot take them all. */
static unsigned serve_per_addr(const serve *s)
{
    return s->limit / 8 > 4 ? s->limit / 8 : 4;
}

static unsigned serve_addr_count(const serve *s, const unsigned char key[16])
{
    unsigned n = 0;
    for (const serve_conn *k = s->head; k; k = k->next) n += !k->ended && !memcmp(k->addr, key, 16);
    return n;
}

/* The slot a newcomer takes: the oldest connection (of address key, NULL any) still sending its
 * headers after its grace, or NULL. */
static serve_conn *serve_victim(serve *s, const unsigned char *key, int64_t now)
{
    serve_conn *best = NULL;
    for (serve_conn *k = s->head; k; k = k->next)
        if (k->pending && !k->ended && now - k->born_ms >= SERVE_GRACE_MS &&
            (!key || !memcmp(k->addr, key, 16)) && (!best || k->deadline_ms < best->deadline_ms))
            best = k;
    return best;
}

static void serve_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                enum MHD_ConnectionNotificationCode toe)
{
    serve *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ai =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        serve_conn *k = xcalloc(1, sizeof *k);
        k->fd = ci ? ci->connect_fd : -1;
        serve_addr_key(ai ? ai->client_addr : NULL, k->addr);
        k->pending = 1;
        k->born_ms = kc_now_ms();
        k->deadline_ms = k->born_ms + SERVE_HEADER_MS;
        k->prev = s->tail;
        if (s->tail)
            s->tail->next = k;
        else
            s->head = k;
        s->tail = k;
        s->n_open++;
        *socket_context = k;
        return;
    }
    serve_conn *k = *socket_context;
    if (!k) return;
    if (!k->ended) s->n_open--;
    if (k->prev)
        k->prev->next = k->next;
    else
        s->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        s->tail = k->prev;
    free(k);
    *socket_context = NULL;
}

/* A request answered: the connection may send another one (keep-alive), whose headers are due
 * once MHD's idle timeout would have allowed it to wait, plus the header time. */
static void serve_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                               enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con_cls;
    (void)toe;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    serve_conn *k = ci ? ci->socket_context : NULL;
    if (!k) return;
    k->pending = 1;
    k->deadline_ms = kc_now_ms() + SERVE_CONN_TIMEOUT_S * 1000 + SERVE_HEADER_MS;
}

static void serve_sweep(serve *s, int64_t now)
{
    for (serve_conn *k = s->head; k; k = k->next)
        if (k->pending && !k->ended && now >= k->deadline_ms) serve_conn_end(s, k);
}

/* Accepts up to SERVE_ACCEPT_BATCH of what is queued: MHD then reads what came in on the new
 * ones before more are let in, so that an honest scraper's headers are seen (and its connection
 * no longer pending) before a flood of newcomers could make it the oldest. Returns how long to
 * stop listening (ms): 0, or a pause after running out of descriptors. */
static int serve_accept(serve *s)
{
    for (int i = 0; i < SERVE_ACCEPT_BATCH; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* out of descriptors: the oldest slow one makes room, and the listen socket
                 * (still readable) waits a moment rather than waking this thread at once */
                serve_conn *v = serve_victim(s, NULL, kc_now_ms());
                if (v) serve_conn_end(s, v);
                return SERVE_EMFILE_PAUSE_MS;
            }
            return 0; /* EAGAIN: all taken */
        }
        /* an address at its share, or every slot taken: the newcomer takes the slot of the
         * oldest one still sending its headers (of that address first), or is closed when there
         * is none (all answering, or too new to judge) */
        unsigned char key[16];
        serve_addr_key((struct sockaddr *)&ss, key);
        int64_t now = kc_now_ms();
        serve_conn *v = NULL;
        if (serve_addr_count(s, key) >= serve_per_addr(s)) {
            if (!(v = serve_victim(s, key, now))) {
                close(fd);
                continue;
            }
        } else if (s->n_open >= s->limit && !(v = serve_victim(s, NULL, now))) {
            close(fd);
            continue;
        }
        if (v) serve_conn_end(s, v);
        MHD_add_connection(s->d, fd, (struct sockaddr *)&ss, len); /* closes fd on failure */
    }
    return 0;
}

static void *serve_thread(void *arg)
{
    serve *s = arg;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
    int efd = di ? di->epoll_fd : -1;
    int64_t listen_again = 0;
    for (;;) {
        int64_t now = kc_now_ms();
        struct pollfd p[3] = {{s->stop_pipe[0], POLLIN, 0}, {efd, POLLIN, 0}, {-1, POLLIN, 0}};
        if (now >= listen_again) p[2].fd = s->listen_fd;
        MHD_UNSIGNED_LONG_LONG mt = 0;
        int64_t wait = SERVE_SWEEP_MS;
        if (MHD_get_timeout(s->d, &mt) == MHD_YES && (int64_t)mt < wait) wait = (int64_t)mt;
        if (p[2].fd < 0 && listen_again - now < wait) wait = listen_again - now;
        if (poll(p, 3, (int)(wait > 0 ? wait : 0)) < 0 && errno != EINTR) break;
        if (p[0].revents) break;
        now = kc_now_ms();
        if (p[2].revents & POLLIN) {
            int pause = serve_accept(s);
            if (pause) listen_again = now + pause;
        }
        serve_sweep(s, now);
        MHD_run(s->d);
    }
    return NULL;
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

int serve_run(app **apps, size_t n, const char *addr, const serve_opts *o, char *err, size_t errn)
{
    int v6 = 0;
    int fd = serve_listen(addr, &v6, err, errn);
    if (fd < 0) return 2;
    serve s = {0};
    s.apps = apps;
    s.n = n;
    s.loop = apps[0]->loop;
    s.listen_fd = fd;
    s.limit = o->max_conns ? o->max_conns : 1;
    s.not_watched = o->not_watched;
    s.fd_limit = o->fd_limit;
    s.web = o->web;
    int tls = s.web && s.web->cert_pem;
    s.stop_pipe[0] = s.stop_pipe[1] = -1;
    pthread_mutex_init(&s.mu, NULL);
    serve_sigs sigs;
    serve_signals_on(&s, &sigs);
    serve_render(&s); /* a scrape at once says what is known: nothing listed yet, unreachable */
    /* MHD's own limit leaves room for the connections ended and not yet closed (ours is
     * s.limit); it accepts nothing itself (MHD_USE_NO_LISTEN_SOCKET): serve_accept does */
    struct MHD_OptionItem tlsopt[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, tls ? s.web->cert_pem : NULL},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? s.web->key_pem : NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    if (!tls) tlsopt[0].option = MHD_OPTION_END;
    s.d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET | (v6 ? MHD_USE_IPv6 : 0) |
                               (tls ? MHD_USE_TLS : 0),
                           0, NULL, NULL, serve_handler, &s, MHD_OPTION_CONNECTION_LIMIT,
                           s.limit * 2, MHD_OPTION_CONNECTION_TIMEOUT,
                           (unsigned)SERVE_CONN_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
                           serve_on_connection, &s, MHD_OPTION_NOTIFY_COMPLETED, serve_on_completed,
                           &s, MHD_OPTION_ARRAY, tlsopt, MHD_OPTION_END);
    if (!s.d || pipe2(s.stop_pipe, O_CLOEXEC | O_NONBLOCK) ||
        pthread_create(&s.thread, NULL, serve_thread, &s)) {
        snprintf(err, errn, "cannot serve %s: the HTTP server did not start", addr);
        if (s.d) MHD_stop_daemon(s.d);
        if (s.stop_pipe[0] >= 0) {
            close(s.stop_pipe[0]);
            close(s.stop_pipe[1]);
        }
        close(fd);
        serve_signals_off(&s, &sigs);
        kc_buf_free(&s.text);
        kc_buf_free(&s.om);
        kc_buf_free(&s.text_gz);
        kc_buf_free(&s.om_gz);
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
        if (!apps[i]->opsfetch) { /* the plugin operations of the runs waiting on them */
            apps[i]->opsfetch = opsfetch_new(apps[i]);
            own_derive[i] |= 2;
        }
    }
    s.timer = kc_loop_timer(s.loop, SERVE_TICK_MIN_MS, serve_tick, &s);
    while (!s.quit) kc_loop_run_until(s.loop, serve_quit, &s, 60000);

    char one = 1;
    ssize_t w = write(s.stop_pipe[1], &one, 1);
    (void)w;
    pthread_join(s.thread, NULL);
    MHD_stop_daemon(s.d); /* closes every connection (each told to serve_on_connection) */
    close(fd);
    close(s.stop_pipe[0]);
    close(s.stop_pipe[1]);
    for (size_t i = 0; i < n; i++) {
        apps[i]->on_change = NULL;
        if (own_derive[i] & 1) {
            logderive_free(apps[i]->derive);
            apps[i]->derive = NULL;
        }
        if (own_derive[i] & 2) {
            opsfetch_free(apps[i]->opsfetch);
            apps[i]->opsfetch = NULL;
        }
    }
    free(own_derive);
    if (s.timer) kc_loop_cancel(s.loop, s.timer);
    serve_signals_off(&s, &sigs);
    kc_buf_free(&s.text);
    kc_buf_free(&s.om);
    kc_buf_free(&s.text_gz);
    kc_buf_free(&s.om_gz);
    pthread_mutex_destroy(&s.mu);
    return 0;
}
