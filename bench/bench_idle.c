/* bench_idle.c: what veltop costs while it just watches: 2 000 runs (1 900 backups, 100 restores)
 * of which 10 are in progress and move slowly (each run's item counter patched every 3 s, its pod
 * volume's bytes every 10 s, as Velero does), the real veltop on a 120x40 pty for D seconds
 * (default 60): CPU (utime+stime from /proc/PID/stat) and the bytes it writes to the terminal. */
#include "benchutil.h"

#define NRUNS    2000
#define NACTIVE  10
#define NRESTORE 100

static int populate(bench_sim *bs, double now)
{
    char start[40], done[40];
    kc_buf b = {0};
    for (int i = 0; i < NRUNS; i++) {
        int restore = i % (NRUNS / NRESTORE) == 7;
        int active = i >= NRUNS - NACTIVE;
        double t = active ? now - 600 - (NRUNS - i) * 60.0 : now - (double)(NRUNS - i) * 1800.0;
        kc_format_time(t, start, sizeof start);
        kc_format_time(t + 900, done, sizeof done);
        b.len = 0;
        kc_buf_printf(&b,
                      "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"%s\",\"metadata\":{\"name\":"
                      "\"%s-%04d\",\"namespace\":\"velero\"},\"spec\":{%s\"storageLocation\":"
                      "\"default\"},\"status\":{\"phase\":\"%s\",\"startTimestamp\":\"%s\"",
                      restore ? "Restore" : "Backup", restore ? "restore" : "nightly", i,
                      restore ? "\"backupName\":\"nightly-0001\"," : "",
                      active ? "InProgress" : "Completed", start);
        if (!active) kc_buf_printf(&b, ",\"completionTimestamp\":\"%s\"", done);
        kc_buf_printf(&b, ",\"progress\":{\"totalItems\":5000,\"%s\":%d}}}",
                      restore ? "itemsRestored" : "itemsBackedUp", active ? 600 : 5000);
        if (bench_sim_create(bs, restore ? "restores" : "backups", "velero", kc_buf_cstr(&b)))
            return -1;
        if (!active) continue;
        b.len = 0;
        kc_buf_printf(
            &b,
            "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":"
            "{\"name\":\"nightly-%04d-vol\",\"namespace\":\"velero\",\"labels\":{"
            "\"velero.io/backup-name\":\"nightly-%04d\"}},\"spec\":{\"node\":\"worker-1\","
            "\"pod\":{\"kind\":\"Pod\",\"namespace\":\"shop\",\"name\":\"db-0\"},\"volume\":"
            "\"data\",\"uploaderType\":\"kopia\"},\"status\":{\"phase\":\"InProgress\","
            "\"startTimestamp\":\"%s\",\"progress\":{\"totalBytes\":107374182400,"
            "\"bytesDone\":1073741824}}}",
            i, i, start);
        if (bench_sim_create(bs, "podvolumebackups", "velero", kc_buf_cstr(&b))) return -1;
    }
    kc_buf_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 60;
    if (secs < 5) secs = 5;
    signal(SIGPIPE, SIG_IGN);
    bench_sim bs;
    if (bench_sim_start(&bs, "empty")) return 1;
    if (populate(&bs, kc_wall_now())) return 1;

    char *veltop = bench_veltop_path();
    char *args[] = {veltop, "--kubeconfig", bs.kubeconfig, NULL};
    bench_pty p;
    if (bench_pty_spawn(&p, args, 40, 120)) return 1;
    char newest[32];
    snprintf(newest, sizeof newest, "nightly-%04d", NRUNS - 1);
    if (bench_pty_wait_for(&p, newest, 20000, NULL) != 1) {
        fprintf(stderr, "bench_idle: veltop never showed %s\n", newest);
        bench_pty_quit(&p, NULL);
        return 1;
    }
    bench_pty_drain(&p, 2000); /* the start-up frames and watches are not the idle cost */

    double cpu0 = bench_proc_cpu(p.pid), t0 = bench_now();
    size_t bytes0 = p.total;
    int items[NACTIVE];
    long long bytes[NACTIVE];
    double last_bytes[NACTIVE];
    for (int k = 0; k < NACTIVE; k++) items[k] = 600, bytes[k] = 1073741824LL, last_bytes[k] = t0;
    /* one patch every 300 ms round the 10 runs: each run's items every 3 s */
    int tick = 0;
    while (bench_now() - t0 < secs) {
        bench_pty_drain(&p, 300);
        int k = tick % NACTIVE, i = NRUNS - NACTIVE + k;
        char name[32], json[160];
        int restore = i % (NRUNS / NRESTORE) == 7;
        snprintf(name, sizeof name, "%s-%04d", restore ? "restore" : "nightly", i);
        items[k] += 10 + k;
        snprintf(json, sizeof json, "{\"status\":{\"progress\":{\"%s\":%d}}}",
                 restore ? "itemsRestored" : "itemsBackedUp", items[k]);
        bench_patch(&bs, "bench_idle", restore ? "restores" : "backups", name, json);
        if (!restore && bench_now() - last_bytes[k] >= 10) { /* bytes every 10 s */
            last_bytes[k] = bench_now();
            bytes[k] += 50LL << 20;
            snprintf(name, sizeof name, "nightly-%04d-vol", i);
            snprintf(json, sizeof json, "{\"status\":{\"progress\":{\"bytesDone\":%lld}}}",
                     bytes[k]);
            bench_patch(&bs, "bench_idle", "podvolumebackups", name, json);
        }
        tick++;
    }
    double wall = bench_now() - t0, cpu = bench_proc_cpu(p.pid) - cpu0;
    size_t written = p.total - bytes0;
    bench_pty_quit(&p, NULL);
    double pct = cpu / wall * 100.0, kb_min = (double)written / 1024.0 / wall * 60.0;
    printf("idle, %d runs (%d in progress), %.0f s: CPU %.2f%% of a core (target <= 1%%) %s\n",
           NRUNS, NACTIVE, wall, pct, bench_verdict(pct <= 1.0));
    printf("idle, %d runs (%d in progress), %.0f s: %.1f KB/min written to the terminal (target "
           "<= 60) %s\n",
           NRUNS, NACTIVE, wall, kb_min, bench_verdict(kb_min <= 60));
    free(veltop);
    bench_sim_stop(&bs);
    return 0;
}
