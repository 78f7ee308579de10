/* loop.c: the one-thread event loop, with fd watchers and timers. libcurl is driven by
 * curl_multi_socket_action over epoll: curl says which sockets it waits on and when it wants a
 * timeout (CURLMOPT_SOCKETFUNCTION / CURLMOPT_TIMERFUNCTION), and a pass hands it only the
 * sockets that are ready. curl_multi_perform checked every open transfer on every pass: with 300
 * contexts (~3 600 transfers) a loop at rest made ~45 000 poll(2) calls a second. */
#include "kubeclient/loop.h"
#include "kubeclient/util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define LOOP_EVENTS 256 /* ready sockets handed to curl in one pass; the rest in the next */

typedef struct {
    int id, fd;
    short events;
    kc_fd_fn fn;
    void *arg;
    int dead;
} fd_watch;

typedef struct {
    uint64_t id;
    int64_t due;
    kc_timer_fn fn;
    void *arg;
} timer_ent;

typedef struct {
    CURL *easy;
    kc_xfer_done_fn done;
    void *arg;
} xfer_ent;

struct kc_loop {
    CURLM *multi;
    int epfd;         /* curl's sockets, as its socket callback asks */
    int wakefd;       /* an eventfd: kc_loop_wakeup */
    int64_t curl_due; /* kc_now_ms() when curl wants its timeout handled; -1: none */
    fd_watch *fds;
    size_t nfds, capfds;
    int next_fd_id;
    timer_ent *timers; /* unsorted; few timers exist at once */
    size_t ntimers, captimers;
    uint64_t next_timer_id;
    xfer_ent *xfers;
    size_t nxfers, capxfers;
};

/* CURLMOPT_SOCKETFUNCTION: what curl waits for on socket s (level-triggered, as curl expects). */
static int loop_sock_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    kc_loop *l = userp;
    (void)easy;
    (void)socketp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, s, NULL); /* ENOENT/EBADF: already gone with its close */
        return 0;
    }
    struct epoll_event ev = {0};
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = s;
    /* a number curl closed and opened again is no longer in the set: add it then */
    if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, s, &ev) && errno == ENOENT)
        epoll_ctl(l->epfd, EPOLL_CTL_ADD, s, &ev);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: when curl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT). */
static int loop_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    kc_loop *l = userp;
    (void)multi;
    l->curl_due = timeout_ms < 0 ? -1 : kc_now_ms() + timeout_ms;
    return 0;
}

kc_loop *kc_loop_new(void)
{
    static int curl_ready;
    if (!curl_ready) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        curl_ready = 1;
    }
    kc_loop *l = xcalloc(1, sizeof *l);
    l->multi = curl_multi_init();
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    l->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->epfd < 0 || l->wakefd < 0) abort(); /* as an allocation failure: nothing can run */
    l->curl_due = -1;
    curl_multi_setopt(l->multi, CURLMOPT_SOCKETFUNCTION, loop_sock_cb);
    curl_multi_setopt(l->multi, CURLMOPT_SOCKETDATA, l);
    curl_multi_setopt(l->multi, CURLMOPT_TIMERFUNCTION, loop_timer_cb);
    curl_multi_setopt(l->multi, CURLMOPT_TIMERDATA, l);
    /* HTTP/2 streams share one connection (client.c asks for h2 over TLS and to wait for it) */
    curl_multi_setopt(l->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    l->next_fd_id = 1;
    l->next_timer_id = 1;
    return l;
}

void kc_loop_free(kc_loop *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->nxfers; i++) curl_multi_remove_handle(l->multi, l->xfers[i].easy);
    curl_multi_cleanup(l->multi);
    close(l->epfd);
    close(l->wakefd);
    free(l->fds);
    free(l->timers);
    free(l->xfers);
    free(l);
}

CURLM *kc_loop_multi(kc_loop *l)
{
    return l->multi;
}

int kc_loop_watch_fd(kc_loop *l, int fd, short events, kc_fd_fn fn, void *arg)
{
    if (l->nfds == l->capfds) {
        l->capfds = l->capfds ? l->capfds * 2 : 8;
        l->fds = xrealloc(l->fds, l->capfds * sizeof *l->fds);
    }
    fd_watch *w = &l->fds[l->nfds++];
    *w = (fd_watch){.id = l->next_fd_id++, .fd = fd, .events = events, .fn = fn, .arg = arg};
    return w->id;
}

void kc_loop_unwatch_fd(kc_loop *l, int id)
{
    for (size_t i = 0; i < l->nfds; i++)
        if (l->fds[i].id == id) l->fds[i].dead = 1;
}

static void compact_fds(kc_loop *l)
{
    size_t j = 0;
    for (size_t i = 0; i < l->nfds; i++)
        if (!l->fds[i].dead) l->fds[j++] = l->fds[i];
    l->nfds = j;
}

uint64_t kc_loop_timer(kc_loop *l, int64_t delay_ms, kc_timer_fn fn, void *arg)
{
    if (l->ntimers == l->captimers) {
        l->captimers = l->captimers ? l->captimers * 2 : 8;
        l->timers = xrealloc(l->timers, l->captimers * sizeof *l->timers);
    }
    timer_ent *t = &l->timers[l->ntimers++];
    *t = (timer_ent){.id = l->next_timer_id++,
                     .due = kc_now_ms() + (delay_ms > 0 ? delay_ms : 0),
                     .fn = fn,
                     .arg = arg};
    return t->id;
}

void kc_loop_cancel(kc_loop *l, uint64_t id)
{
    for (size_t i = 0; i < l->ntimers; i++) {
        if (l->timers[i].id == id) {
            l->timers[i] = l->timers[--l->ntimers];
            return;
        }
    }
}

void kc_loop_add_transfer(kc_loop *l, CURL *easy, kc_xfer_done_fn done, void *arg)
{
    if (l->nxfers == l->capxfers) {
        l->capxfers = l->capxfers ? l->capxfers * 2 : 8;
        l->xfers = xrealloc(l->xfers, l->capxfers * sizeof *l->xfers);
    }
    l->xfers[l->nxfers++] = (xfer_ent){easy, done, arg};
    curl_multi_add_handle(l->multi, easy);
}

static int take_xfer(kc_loop *l, CURL *easy, xfer_ent *out)
{
    for (size_t i = 0; i < l->nxfers; i++) {
        if (l->xfers[i].easy == easy) {
            if (out) *out = l->xfers[i];
            l->xfers[i] = l->xfers[--l->nxfers];
            curl_multi_remove_handle(l->multi, easy);
            return 1;
        }
    }
    return 0;
}

void kc_loop_remove_transfer(kc_loop *l, CURL *easy)
{
    take_xfer(l, easy, NULL);
}

static int64_t next_timer_in(kc_loop *l, int64_t now)
{
    int64_t best = -1;
    for (size_t i = 0; i < l->ntimers; i++) {
        int64_t d = l->timers[i].due - now;
        if (d < 0) d = 0;
        if (best < 0 || d < best) best = d;
    }
    return best;
}

static void fire_timers(kc_loop *l)
{
    /* Fire only timers due now; a timer added by a callback waits for the next round. */
    int64_t now = kc_now_ms();
    uint64_t limit = l->next_timer_id;
    for (;;) {
        size_t pick = (size_t)-1;
        for (size_t i = 0; i < l->ntimers; i++)
            if (l->timers[i].due <= now && l->timers[i].id < limit &&
                (pick == (size_t)-1 || l->timers[i].due < l->timers[pick].due))
                pick = i;
        if (pick == (size_t)-1) break;
        timer_ent t = l->timers[pick];
        l->timers[pick] = l->timers[--l->ntimers];
        t.fn(t.arg);
    }
}

/* Hands curl what is ready: the sockets epoll reports, then its timeout when due. */
static void loop_curl(kc_loop *l, int epoll_ready)
{
    int running = 0;
    if (epoll_ready) {
        struct epoll_event ev[LOOP_EVENTS];
        int k = epoll_wait(l->epfd, ev, LOOP_EVENTS, 0);
        for (int i = 0; i < k; i++) {
            uint32_t e = ev[i].events;
            int mask = (e & (EPOLLIN | EPOLLHUP) ? CURL_CSELECT_IN : 0) |
                       (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                       (e & EPOLLERR ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(l->multi, ev[i].data.fd, mask, &running);
        }
    }
    if (l->curl_due >= 0 && kc_now_ms() >= l->curl_due) {
        l->curl_due = -1; /* the timer callback sets it again when curl wants another */
        curl_multi_socket_action(l->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

void kc_loop_run_once(kc_loop *l, int max_wait_ms)
{
    int64_t now = kc_now_ms();
    int64_t wait = max_wait_ms;
    int64_t t = next_timer_in(l, now);
    if (t >= 0 && t < wait) wait = t;
    if (l->curl_due >= 0 && l->curl_due - now < wait) wait = l->curl_due - now;
    if (wait < 0) wait = 0;

    compact_fds(l);
    size_t n = l->nfds;
    /* one poll(2): curl's epoll set, the wakeup and the watched descriptors (poll() itself, so
     * that a hang-up, a child's closed pipe, is seen too instead of waking the loop forever) */
    struct pollfd *pfds = xcalloc(n + 2, sizeof *pfds);
    int *ids = n ? xcalloc(n, sizeof *ids) : NULL;
    pfds[0] = (struct pollfd){.fd = l->epfd, .events = POLLIN};
    pfds[1] = (struct pollfd){.fd = l->wakefd, .events = POLLIN};
    for (size_t i = 0; i < n; i++) {
        pfds[i + 2] = (struct pollfd){.fd = l->fds[i].fd, .events = l->fds[i].events};
        ids[i] = l->fds[i].id;
    }
    if (poll(pfds, n + 2, (int)wait) < 0)
        for (size_t i = 0; i < n + 2; i++) pfds[i].revents = 0; /* EINTR: a signal; go round */
    if (pfds[1].revents) {
        uint64_t v;
        if (read(l->wakefd, &v, sizeof v) < 0) { /* EAGAIN: another pass took it */
        }
    }

    loop_curl(l, pfds[0].revents != 0);
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(l->multi, &left))) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL *easy = msg->easy_handle;
        CURLcode res = msg->data.result;
        xfer_ent x;
        if (take_xfer(l, easy, &x) && x.done) x.done(x.arg, easy, res);
    }

    for (size_t i = 0; i < n; i++) {
        short rev = pfds[i + 2].revents;
        if (!rev) continue;
        /* find the watcher again: callbacks may have changed the table */
        for (size_t k = 0; k < l->nfds; k++) {
            if (l->fds[k].id == ids[i] && !l->fds[k].dead) {
                l->fds[k].fn(l->fds[k].arg, l->fds[k].fd, rev);
                break;
            }
        }
    }
    free(pfds);
    free(ids);
    fire_timers(l);
}

int kc_loop_run_until(kc_loop *l, int (*cond)(void *arg), void *arg, int64_t timeout_ms)
{
    int64_t end = kc_now_ms() + timeout_ms;
    while (!cond(arg)) {
        int64_t left = end - kc_now_ms();
        if (left <= 0) return cond(arg);
        kc_loop_run_once(l, left > 100 ? 100 : (int)left);
    }
    return 1;
}

void kc_loop_wakeup(kc_loop *l)
{
    uint64_t one = 1;
    if (write(l->wakefd, &one, sizeof one) < 0) { /* EAGAIN: a wakeup is pending already */
    }
}
