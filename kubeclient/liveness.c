/* liveness.c: a GET /version when the server has said nothing for a while (liveness.h). */
#include "kubeclient/liveness.h"
#include "kubeclient/util.h"

#include <stdlib.h>

struct kc_liveness {
    kc_client *c;
    kc_loop *loop;
    int64_t interval, silent, down, started;
    uint64_t timer;
    kc_request *req;
    int64_t req_heard; /* the client's last_heard when req went out */
    int unanswered;    /* the last probe that ended got no answer */
    void (*on_back)(void *arg);
    void *arg;
    unsigned long probes;
};

static void lv_tick(void *arg);

static void lv_arm(kc_liveness *l, int64_t delay_ms)
{
    if (l->timer) kc_loop_cancel(l->loop, l->timer);
    l->timer = kc_loop_timer(l->loop, delay_ms, lv_tick, l);
}

static void lv_done(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    (void)err; /* what counts is whether the client heard the server, not the status */
    kc_liveness *l = arg;
    l->req = NULL;
    /* answered = the client heard the server after the probe went out (its status line at least) */
    int answered = kc_client_last_heard(l->c) != l->req_heard;
    if (!answered) {
        l->unanswered = 1;
        lv_arm(l, l->down);
        return;
    }
    if (l->unanswered) {
        l->unanswered = 0;
        if (l->on_back) l->on_back(l->arg);
    }
}

static void lv_tick(void *arg)
{
    kc_liveness *l = arg;
    l->timer = 0;
    int64_t now = kc_now_ms(), heard = kc_client_last_heard(l->c);
    if (!l->req && now - (heard ? heard : l->started) >= l->interval) {
        /* the deadline keeps one probe at a time from hanging for ever on a stopped server */
        kc_request_opts o = {.path = "/version", .timeout_ms = (long)(2 * l->interval)};
        l->probes++;
        l->req_heard = heard;
        l->req = kc_client_request(l->c, &o, NULL, lv_done, l);
    }
    lv_arm(l, l->interval);
}

kc_liveness *kc_liveness_new(kc_client *c, const kc_liveness_opts *o)
{
    kc_liveness *l = xcalloc(1, sizeof *l);
    l->c = c;
    l->loop = kc_client_loop(c);
    l->interval = o && o->interval_ms > 0 ? o->interval_ms : 5000;
    l->silent = o && o->silent_ms > 0 ? o->silent_ms : 10000;
    l->down = o && o->down_ms > 0 ? o->down_ms : 1000;
    l->on_back = o ? o->on_back : NULL;
    l->arg = o ? o->arg : NULL;
    l->started = kc_now_ms();
    lv_arm(l, l->interval);
    return l;
}

void kc_liveness_free(kc_liveness *l)
{
    if (!l) return;
    if (l->timer) kc_loop_cancel(l->loop, l->timer);
    kc_request_cancel(l->req);
    free(l);
}

int64_t kc_liveness_silent_ms(const kc_liveness *l, int64_t now_ms)
{
    int64_t heard = kc_client_last_heard(l->c);
    int64_t since = heard ? heard : l->started;
    return now_ms - since >= l->silent ? now_ms - since : 0;
}

unsigned long kc_liveness_probes(const kc_liveness *l)
{
    return l->probes;
}
