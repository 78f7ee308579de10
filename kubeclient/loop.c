/* loop.c: the one-thread event loop over curl_multi_poll(), with fd watchers and timers. */
#include "kubeclient/loop.h"
#include "kubeclient/util.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

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
    fd_watch *fds;
    size_t nfds, capfds;
    int next_fd_id;
    timer_ent *timers; /* unsorted; few timers exist at once */
    size_t ntimers, captimers;
    uint64_t next_timer_id;
    xfer_ent *xfers;
    size_t nxfers, capxfers;
};

kc_loop *kc_loop_new(void)
{
    static int curl_ready;
    if (!curl_ready) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        curl_ready = 1;
    }
    kc_loop *l = xcalloc(1, sizeof *l);
    l->multi = curl_multi_init();
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

void kc_loop_run_once(kc_loop *l, int max_wait_ms)
{
    int64_t now = kc_now_ms();
    int64_t wait = max_wait_ms;
    int64_t t = next_timer_in(l, now);
    if (t >= 0 && t < wait) wait = t;
    if (wait < 0) wait = 0;

    compact_fds(l);
    size_t n = l->nfds;
    struct curl_waitfd *wfds = n ? xcalloc(n, sizeof *wfds) : NULL;
    int *ids = n ? xcalloc(n, sizeof *ids) : NULL;
    for (size_t i = 0; i < n; i++) {
        wfds[i].fd = l->fds[i].fd;
        wfds[i].events = (short)((l->fds[i].events & POLLIN ? CURL_WAIT_POLLIN : 0) |
                                 (l->fds[i].events & POLLOUT ? CURL_WAIT_POLLOUT : 0));
        ids[i] = l->fds[i].id;
    }
    int numfds = 0;
    curl_multi_poll(l->multi, wfds, (unsigned)n, (int)wait, &numfds);
    /* curl reports only IN/OUT/PRI: ask poll() itself so that a hang-up (a child's closed pipe)
     * is seen too instead of waking the loop forever. */
    struct pollfd *pfds = n ? xcalloc(n, sizeof *pfds) : NULL;
    for (size_t i = 0; i < n; i++)
        pfds[i] = (struct pollfd){.fd = wfds[i].fd, .events = l->fds[i].events};
    if (n) poll(pfds, n, 0);

    int running = 0;
    curl_multi_perform(l->multi, &running);
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
        short rev = pfds[i].revents;
        if (!rev) continue;
        /* find the watcher again: callbacks may have changed the table */
        for (size_t k = 0; k < l->nfds; k++) {
            if (l->fds[k].id == ids[i] && !l->fds[k].dead) {
                l->fds[k].fn(l->fds[k].arg, l->fds[k].fd, rev);
                break;
            }
        }
    }
    free(wfds);
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
    curl_multi_wakeup(l->multi);
}
