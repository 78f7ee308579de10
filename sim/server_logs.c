/* server_logs.c: pods/log of veltop-sim's API server (server_int.h): a pod's log as the kubelet
 * serves it through the apiserver, whole or followed, with tailLines, sinceTime, sinceSeconds
 * and timestamps, and the close-logs fault that ends a followed log as a restarted container's. */
#include "server_int.h"

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubeclient/util.h"

/* ---- pod logs ---- */

typedef struct log_ctx {
    simserver *s;
    struct MHD_Connection *conn;
    char *ns, *pod;
    size_t pos;
    int follow, timestamps;
    double since;
    kc_buf out;
    size_t off;
} log_ctx;

static void log_format(log_ctx *lc, char **lines, double *times, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (times[i] >= lc->since) {
            if (lc->timestamps) {
                time_t sec = (time_t)times[i];
                struct tm tm;
                gmtime_r(&sec, &tm);
                char buf[64];
                strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
                kc_buf_printf(&lc->out, "%s.%09ldZ ", buf, (long)((times[i] - (double)sec) * 1e9));
            }
            kc_buf_append(&lc->out, lines[i], strlen(lines[i]));
            kc_buf_append(&lc->out, "\n", 1);
        }
        free(lines[i]);
    }
    free(lines);
    free(times);
}

/* The pod's containers have exited for good (phase Succeeded or Failed), or it is gone: the
 * kubelet ends a followed log then. */
static int log_pod_ended(log_ctx *lc)
{
    cJSON *pod = simstore_get(lc->s->o.store, "pods", lc->ns, lc->pod);
    if (!pod) return 1;
    const char *ph = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pod, "status"), "phase"));
    int ended = ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
    cJSON_Delete(pod);
    return ended;
}

static ssize_t log_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    log_ctx *lc = cls;
    while (lc->off >= lc->out.len) {
        lc->out.len = 0;
        lc->off = 0;
        if (!lc->follow || atomic_load(&lc->s->stopping) || srv_peer_closed(lc->conn))
            return MHD_CONTENT_READER_END_OF_STREAM;
        /* ended before this read: its last lines were written before it ended (simctl), so
         * this read has them all, and an empty one is the end */
        int ended = log_pod_ended(lc);
        size_t n;
        double *times;
        char **lines =
            simstore_log_read(lc->s->o.store, lc->pod, &lc->pos, ended ? 0 : 250, &n, &times);
        if (lines) log_format(lc, lines, times, n);
        if (ended && !lines) return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = lc->out.len - lc->off;
    if (n > max) n = max;
    memcpy(buf, lc->out.data + lc->off, n);
    lc->off += n;
    return (ssize_t)n;
}

/* log-stall: what it has (already cut to N lines), then nothing until the client goes. */
static ssize_t log_stall_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    log_ctx *lc = cls;
    while (lc->off >= lc->out.len) {
        if (atomic_load(&lc->s->stopping) || srv_peer_closed(lc->conn))
            return MHD_CONTENT_READER_END_OF_STREAM;
        struct timespec nap = {0, 20 * 1000000};
        nanosleep(&nap, NULL);
    }
    size_t n = lc->out.len - lc->off;
    if (n > max) n = max;
    memcpy(buf, lc->out.data + lc->off, n);
    lc->off += n;
    return (ssize_t)n;
}

static void log_free(void *cls)
{
    log_ctx *lc = cls;
    free(lc->ns);
    free(lc->pod);
    kc_buf_free(&lc->out);
    free(lc);
}

enum MHD_Result srv_do_log(simserver *s, struct MHD_Connection *c, const target *t)
{
    cJSON *pod = simstore_get(s->o.store, "pods", t->ns, t->name);
    if (!pod) {
        char *m = xasprintf("pods \"%s\" not found", t->name);
        enum MHD_Result r = srv_send_status(c, 404, m, t);
        free(m);
        return r;
    }
    cJSON_Delete(pod);
    if (FA(s)->log_delay_ms) { /* a slow kubelet: on this connection's own thread */
        atomic_fetch_add(&s->fired[F_LOG_DELAY], 1);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
            if (ms >= FA(s)->log_delay_ms || atomic_load(&s->stopping) || srv_peer_closed(c)) break;
            struct timespec nap = {0, 20 * 1000000};
            nanosleep(&nap, NULL);
        }
    }
    log_ctx *lc = xcalloc(1, sizeof *lc);
    lc->s = s;
    lc->conn = c;
    lc->ns = xstrdup(t->ns ? t->ns : "");
    lc->pod = xstrdup(t->name);
    lc->follow = srv_arg_true(c, "follow");
    if (lc->follow && FA(s)->close_logs) {
        atomic_fetch_add(&s->fired[F_CLOSE_LOGS], 1);
        lc->follow = 0; /* what it has, then the end, as a restarted container's log */
    }
    lc->timestamps = srv_arg_true(c, "timestamps");
    lc->since = -1e18;
    const char *st = srv_arg(c, "sinceTime"), *ss = srv_arg(c, "sinceSeconds");
    if (st && *st && kc_parse_time(st, &lc->since)) {
        log_free(lc);
        return srv_send_status(c, 400, "sinceTime: invalid value, must be RFC3339", NULL);
    }
    if (ss && *ss) lc->since = server_now(s) - atof(ss);
    const char *tl = srv_arg(c, "tailLines");
    size_t total = simstore_log_count(s->o.store, lc->pod);
    if (tl && *tl) {
        long k = atol(tl);
        if (k >= 0 && (size_t)k < total) lc->pos = total - (size_t)k;
    }
    size_t n;
    double *times;
    char **lines = simstore_log_read(s->o.store, lc->pod, &lc->pos, 0, &n, &times);
    if (lines) log_format(lc, lines, times, n);
    if (FA(s)->log_stall) { /* the first N lines, then a hang */
        atomic_fetch_add(&s->fired[F_LOG_STALL], 1);
        size_t keep = 0;
        for (int k = 0; k < FA(s)->log_stall && keep < lc->out.len; k++) {
            const char *nl = memchr(lc->out.data + keep, '\n', lc->out.len - keep);
            keep = nl ? (size_t)(nl - lc->out.data) + 1 : lc->out.len;
        }
        lc->out.len = keep;
        return srv_stream(c, "text/plain", log_stall_reader, lc, log_free);
    }
    if (!lc->follow) {
        char *body = lc->out.data;
        size_t len = lc->out.len;
        lc->out.data = NULL;
        log_free(lc);
        return srv_queue(c, 200, "text/plain", body ? body : xstrdup(""), len);
    }
    return srv_stream(c, "text/plain", log_reader, lc, log_free);
}
