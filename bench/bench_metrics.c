/* bench_metrics.c: veltop --serve with the big cluster of bench_firstframe (benchpop.h: 10 000
 * backups and 50 000 volume objects) plus ACTIVE backups in progress with a pod volume each: the
 * real veltop serving 127.0.0.1, scraped N times (10 ms apart, one kept-alive connection, as
 * Prometheus does) while the runs in flight move (a patch every 100 ms round them, so the loop
 * thread keeps re-rendering): scrape latency p50 / p99 / max, the exposition's size, veltop's
 * CPU over the scrapes, then 10 s at rest, then scraped every 5 s, and its peak RSS (VmHWM). */
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "benchpop.h"

static size_t collect(char *ptr, size_t sz, size_t n, void *arg)
{
    kc_buf_append(arg, ptr, sz * n);
    return sz * n;
}

static int add_active(bench_sim *bs, int n)
{
    char start[40];
    kc_format_time(kc_wall_now() - 600, start, sizeof start);
    kc_buf b = {0};
    for (int i = 0; i < n; i++) {
        b.len = 0;
        kc_buf_printf(&b,
                      "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                      "\"live-%03d\",\"namespace\":\"velero\",\"labels\":{\"velero.io/"
                      "schedule-name\":\"hourly\"}},\"spec\":{\"storageLocation\":\"default\"},"
                      "\"status\":{\"phase\":\"InProgress\",\"startTimestamp\":\"%s\","
                      "\"progress\":{\"totalItems\":5000,\"itemsBackedUp\":600}}}",
                      i, start);
        if (bench_sim_create(bs, "backups", "velero", kc_buf_cstr(&b))) return -1;
        b.len = 0;
        kc_buf_printf(
            &b,
            "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":{\"name\":"
            "\"live-%03d-vol\",\"namespace\":\"velero\",\"labels\":{\"velero.io/backup-name\":"
            "\"live-%03d\"}},\"spec\":{\"node\":\"worker-1\",\"pod\":{\"kind\":\"Pod\","
            "\"namespace\":\"shop\",\"name\":\"db-%d\"},\"volume\":\"data\",\"uploaderType\":"
            "\"kopia\"},\"status\":{\"phase\":\"InProgress\",\"startTimestamp\":\"%s\","
            "\"progress\":{\"totalBytes\":107374182400,\"bytesDone\":1073741824}}}",
            i, i, i, start);
        if (bench_sim_create(bs, "podvolumebackups", "velero", kc_buf_cstr(&b))) return -1;
    }
    kc_buf_free(&b);
    return 0;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        getsockname(fd, (struct sockaddr *)&sa, &len)) {
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return ntohs(sa.sin_port);
}

/* Counts lines of body that start with prefix. */
static int count_lines(const char *body, const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);
    for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, pl)) n++;
    return n;
}

int main(int argc, char **argv)
{
    int nb = argc > 1 ? atoi(argv[1]) : 10000;
    int nscrape = argc > 2 ? atoi(argv[2]) : 1000;
    int nactive = argc > 3 ? atoi(argv[3]) : 20;
    if (nb < 1) nb = 1;
    if (nscrape < 10) nscrape = 10;
    if (nactive < 0) nactive = 0;
    signal(SIGPIPE, SIG_IGN);
    bench_sim bs;
    if (bench_sim_start(&bs, "empty")) return 1;
    double t0 = bench_now();
    if (populate(&bs, nb) || add_active(&bs, nactive)) return 1;
    fprintf(stderr, "bench_metrics: %d backups and %d volume objects created in %.1f s\n",
            nb + nactive, nb * vols_per_backup + nactive, bench_now() - t0);

    int port = free_port();
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    char *veltop = bench_veltop_path();
    double started = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(dn, 1);
        execl(veltop, veltop, "--kubeconfig", bs.kubeconfig, "--serve", addr, (char *)NULL);
        _exit(127);
    }
    char url[128];
    snprintf(url, sizeof url, "http://%s/metrics", addr);
    CURL *c = curl_easy_init();
    kc_buf body = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
    /* ready: every run in flight served with its volume bytes (every list in and joined) */
    double ready = -1;
    while (bench_now() - started < 60) {
        body.len = 0;
        if (curl_easy_perform(c) == CURLE_OK &&
            count_lines(kc_buf_cstr(&body), "veltop_run_done_bytes{") == nactive &&
            count_lines(kc_buf_cstr(&body), "veltop_cluster_runs_in_flight{") == 1) {
            ready = bench_now() - started;
            break;
        }
        usleep(20000);
    }
    if (ready < 0) {
        fprintf(stderr, "bench_metrics: veltop --serve never served the %d runs in flight\n",
                nactive);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        return 1;
    }
    double *lat = xcalloc((size_t)nscrape, sizeof *lat);
    double cpu0 = bench_proc_cpu(pid), w0 = bench_now(), last_patch = 0;
    size_t size = 0;
    int items = 600, tick = 0, failed = 0;
    for (int i = 0; i < nscrape; i++) {
        if (nactive && bench_now() - last_patch >= 0.1) { /* the runs in flight move */
            char name[32], json[96];
            snprintf(name, sizeof name, "live-%03d", tick % nactive);
            if (tick % nactive == 0) items += 7;
            snprintf(json, sizeof json, "{\"status\":{\"progress\":{\"itemsBackedUp\":%d}}}",
                     items);
            bench_patch(&bs, "bench_metrics", "backups", name, json);
            last_patch = bench_now();
            tick++;
        }
        body.len = 0;
        double s0 = bench_now();
        if (curl_easy_perform(c) != CURLE_OK) failed++;
        lat[i] = (bench_now() - s0) * 1000.0;
        size = body.len;
        usleep(10000);
    }
    double wall = bench_now() - w0, cpu = bench_proc_cpu(pid) - cpu0;
    int series = count_lines(kc_buf_cstr(&body), "veltop_");
    /* at rest: nothing moves, nobody scrapes; the loop still renders once a second */
    double icpu0 = bench_proc_cpu(pid), iw0 = bench_now();
    sleep(10);
    double iwall = bench_now() - iw0, icpu = bench_proc_cpu(pid) - icpu0;
    /* scraped every 5 s, nothing moving: the rendering paces itself to the scrapes (the last 20 s
     * of 40, once the pace has followed) */
    double scpu0 = 0, sw0 = 0, slat_max = 0;
    for (int i = 0; i < 8; i++) {
        if (i == 4) scpu0 = bench_proc_cpu(pid), sw0 = bench_now();
        body.len = 0;
        double s0 = bench_now();
        if (curl_easy_perform(c) != CURLE_OK) failed++;
        if (bench_now() - s0 > slat_max) slat_max = bench_now() - s0;
        sleep(5);
    }
    double swall = bench_now() - sw0, scpu = bench_proc_cpu(pid) - scpu0;
    long hwm = bench_proc_status_kb(pid, "VmHWM");
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    double p50 = bench_percentile(lat, (size_t)nscrape, 50),
           p99 = bench_percentile(lat, (size_t)nscrape, 99),
           mx = bench_percentile(lat, (size_t)nscrape, 100);
    char what[96];
    snprintf(what, sizeof what, "metrics, %d backups (%d in flight) + %d volumes", nb + nactive,
             nactive, nb * vols_per_backup + nactive);
    printf("%s: served complete %.2f s after exec\n", what, ready);
    printf("%s: scrape p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d scrapes, %d failed, %zu "
           "bytes, %d series (target p99 <= 50) %s\n",
           what, p50, p99, mx, nscrape, failed, size, series, bench_verdict(p99 <= 50 && !failed));
    printf("%s: veltop CPU %.1f%% of a core while scraped every 10 ms with a patch every 100 ms\n",
           what, cpu / wall * 100.0);
    printf("%s: veltop CPU %.2f%% of a core at rest (no patch, no scrape) for %.0f s\n", what,
           icpu / iwall * 100.0, iwall);
    printf("%s: veltop CPU %.2f%% of a core scraped every 5 s (nothing moving; slowest of those "
           "scrapes %.2f ms)\n",
           what, scpu / swall * 100.0, slat_max * 1000.0);
    printf("%s: peak RSS (VmHWM) %.1f MB (target <= 40) %s\n", what, (double)hwm / 1024.0,
           bench_verdict(hwm > 0 && hwm <= 40 * 1024));
    printf("%s: SIGTERM: exit status %d\n", what,
           WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    free(lat);
    kc_buf_free(&body);
    curl_easy_cleanup(c);
    free(veltop);
    bench_sim_stop(&bs);
    return 0;
}
