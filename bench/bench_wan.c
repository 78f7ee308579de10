/* bench_wan.c: the first frame over a slow link. The cluster of bench_firstframe (10 000 backups,
 * 40 000 PodVolumeBackups, 10 000 DataUploads) in an in-process veltop-sim whose emulated link
 * (sim/link.h) adds a one-way latency and paces every connection's bytes. The real veltop on a
 * pty: first rows drawn, full frame (every list loaded, the lamp says "live"), bytes of bodies
 * the sim sent by then and requests made; side by side kubectl get
 * backups,podvolumebackups,datauploads -o json through the same link (fresh KUBECACHEDIR).
 * veltop runs twice: against a server answering resourceVersion=0 lists from a cache (limit
 * ignored: kube-apiserver's watch cache) and from storage (limit honoured: pages).
 * Usage: bench_wan [BACKUPS=10000] [RTT_MS=50] [BYTES_PER_S=2500000] [LIMIT_S=60] */
#include "benchpop.h"

/* What the three lists weigh uncompressed: the sim's own serialization of every item. */
static double list_bytes(bench_sim *bs, const char *plural)
{
    uint64_t rv = 0;
    char *nns = NULL, *nname = NULL, *msg = NULL;
    long remaining = 0;
    int st = 0;
    cJSON *items = simstore_list_page_raw(vsim_store(bs->sim), plural, "velero", NULL, NULL, 0,
                                          NULL, NULL, &rv, &nns, &nname, &remaining, &st, &msg);
    free(nns);
    free(nname);
    free(msg);
    if (!items) return 0;
    char *s = cJSON_PrintUnformatted(items);
    double n = s ? (double)strlen(s) : 0;
    free(s);
    cJSON_Delete(items);
    return n;
}

typedef struct {
    double requests, bytes;
} counters;

static counters sim_counters(bench_sim *bs)
{
    counters c = {0, 0};
    char *s = vsim_stats(bs->sim);
    cJSON *j = cJSON_Parse(s);
    free(s);
    const cJSON *r = cJSON_GetObjectItem(j, "requests"), *b = cJSON_GetObjectItem(j, "bodyBytes");
    if (cJSON_IsNumber(r)) c.requests = r->valuedouble;
    if (cJSON_IsNumber(b)) c.bytes = b->valuedouble;
    cJSON_Delete(j);
    return c;
}

/* One veltop on a pty until its full frame: prints the figures, returns the full frame's time
 * (< 0: not within limit_s). server says how the sim answers resourceVersion=0 lists. */
static double measure(bench_sim *bs, const char *link, int nb, int limit_s, double raw,
                      const char *server)
{
    char *veltop = bench_veltop_path();
    char *args[] = {veltop, "--kubeconfig", bs->kubeconfig, NULL};
    counters c0 = sim_counters(bs);
    bench_pty p;
    if (bench_pty_spawn(&p, args, 40, 120)) {
        free(veltop);
        return -1;
    }
    const char *needles[] = {"nightly-", " live"};
    double when[2] = {-1, -1};
    double deadline = p.started + limit_s;
    counters at_live = c0;
    while (bench_now() < deadline && when[1] < 0) {
        long r = bench_pty_read(&p, 50);
        if (r < 0) break;
        for (int k = 0; k < 2; k++)
            if (when[k] < 0 && bench_pty_has(&p, needles[k])) when[k] = bench_now() - p.started;
    }
    if (when[1] >= 0) at_live = sim_counters(bs);
    long hwm = bench_proc_status_kb(p.pid, "VmHWM");
    bench_pty_quit(&p, NULL);
    free(veltop);
    double bytes = at_live.bytes - c0.bytes, reqs = at_live.requests - c0.requests;

    char what[320];
    snprintf(what, sizeof what, "wan %s, %d backups + %d volumes, %s", link, nb,
             nb * vols_per_backup, server);
    printf("%s: first rows drawn in %.3f s (target <= 1) %s\n", what, when[0],
           bench_verdict(when[0] >= 0 && when[0] <= 1.0));
    if (when[1] < 0) {
        printf("%s: NOT fully listed within %d s (target <= 3) %s\n", what, limit_s,
               bench_verdict(0));
    } else {
        printf("%s: full frame in %.3f s (target <= 3) %s\n", what, when[1],
               bench_verdict(when[1] <= 3.0));
        printf("%s: by then %.0f requests, %.2f MB of bodies = %.1f %% of the %.1f MB of "
               "uncompressed lists (target <= 15 %%) %s\n",
               what, reqs, bytes / 1e6, raw > 0 ? 100.0 * bytes / raw : 0, raw / 1e6,
               bench_verdict(raw > 0 && bytes <= 0.15 * raw));
    }
    printf("%s: veltop peak RSS (VmHWM) %.1f MB\n", what, (double)hwm / 1024.0);
    return when[1];
}

int main(int argc, char **argv)
{
    int nb = argc > 1 ? atoi(argv[1]) : 10000;
    int rtt = argc > 2 ? atoi(argv[2]) : 50;
    long bw = argc > 3 ? atol(argv[3]) : 2500000; /* 20 Mbit/s */
    int limit_s = argc > 4 ? atoi(argv[4]) : 60;
    if (nb < 1) nb = 1;
    if (rtt < 0) rtt = 0;
    if (bw < 0) bw = 0;
    if (limit_s < 1) limit_s = 1;
    signal(SIGPIPE, SIG_IGN);
    bench_sim bs;
    if (bench_sim_start_opts(&bs, "empty", (vsim_opts){.latency_ms = rtt / 2, .bandwidth = bw}))
        return 1;
    double t0 = bench_now();
    if (populate(&bs, nb)) return 1;
    fprintf(stderr, "bench_wan: %d backups and %d volume objects created in %.1f s\n", nb,
            nb * vols_per_backup, bench_now() - t0);
    double raw = list_bytes(&bs, "backups") + list_bytes(&bs, "podvolumebackups") +
                 list_bytes(&bs, "datauploads");
    char link[96];
    snprintf(link, sizeof link, "%d ms RTT, %.1f Mbit/s per connection", rtt, bw * 8 / 1e6);

    /* both server behaviours at resourceVersion=0: kube-apiserver's watch cache ignores limit
     * (the whole list in one answer); a server listing from storage honours it (pages) */
    double full = measure(&bs, link, nb, limit_s, raw, "rv=0 from a cache (limit ignored)");
    vsim_set_rv0_limit(bs.sim, 1);
    double full_paged = measure(&bs, link, nb, limit_s, raw, "rv=0 from storage (limit honoured)");
    vsim_set_rv0_limit(bs.sim, 0);
    char what[256];
    snprintf(what, sizeof what, "wan %s, %d backups + %d volumes", link, nb, nb * vols_per_backup);
    if (getenv("BENCH_NO_KUBECTL")) {
        bench_sim_stop(&bs);
        return 0;
    }
    counters k0 = sim_counters(&bs);
    double k = bench_kubectl_get(&bs, "backups,podvolumebackups,datauploads", NULL);
    counters k1 = sim_counters(&bs);
    if (k < 0) {
        printf("%s: kubectl side by side: kubectl missing or failed\n", what);
    } else {
        printf("%s: kubectl get backups,podvolumebackups,datauploads -o json: %.3f s, %.0f "
               "requests, %.2f MB of bodies\n",
               what, k, k1.requests - k0.requests, (k1.bytes - k0.bytes) / 1e6);
        double f[2] = {full, full_paged};
        const char *how[2] = {"rv=0 from a cache", "rv=0 from storage"};
        for (int i = 0; i < 2; i++)
            if (f[i] >= 0)
                printf("%s, %s: veltop's full frame in %.2f of kubectl's time (target <= 0.33) "
                       "%s\n",
                       what, how[i], f[i] / k, bench_verdict(f[i] <= k / 3));
    }
    bench_sim_stop(&bs);
    return 0; /* a missed target is a figure, not a failure of the benchmark */
}
