/* bench_latency.c: how long a counter change on the server takes to reach the terminal: the real
 * veltop on a pty (120x40, xterm-256color) watches an in-process veltop-sim; we merge-patch a
 * backup's status.progress.itemsBackedUp over HTTP N times and time from each PATCH's response to
 * the moment the new value appears in the bytes veltop writes to the pty. */
#include <curl/curl.h>

#include "benchutil.h"

#define BACKUP "bench-latency"
#define TOTAL  9999

static size_t sink(char *p, size_t sz, size_t n, void *arg)
{
    (void)p, (void)arg;
    return sz * n;
}

/* One HTTP request with a JSON body; returns the HTTP status (0 on a transport error). */
static long http_json(CURL *c, const char *method, const char *url, const char *ctype,
                      const char *body)
{
    struct curl_slist *h = curl_slist_append(NULL, ctype);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    return code;
}

/* The k-th value: four digits, each different from the previous value's digit in the same place,
 * so ncurses (which rewrites only the changed span of a line) writes all four of them. */
static int value_of(int k)
{
    int a = k % 9 + 1, b = (k + 4) % 9 + 1;
    return a * 1010 + b * 101;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 1) n = 1;
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    bench_sim bs;
    if (bench_sim_start(&bs, "empty")) return 1;
    CURL *c = curl_easy_init();
    char *base = xasprintf("%s/apis/velero.io/v1/namespaces/velero/backups", vsim_url(bs.sim));
    char *obj_url = xasprintf("%s/" BACKUP, base);
    char ts[40];
    kc_format_time(kc_wall_now() - 30, ts, sizeof ts);
    char *body = xasprintf(
        "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"" BACKUP
        "\",\"namespace\":\"velero\"},\"spec\":{\"storageLocation\":\"default\"},\"status\":{"
        "\"phase\":\"InProgress\",\"startTimestamp\":\"%s\",\"progress\":{\"totalItems\":%d,"
        "\"itemsBackedUp\":%d}}}",
        ts, TOTAL, 4848); /* no digit in common with the first value */
    long code = http_json(c, "POST", base, "Content-Type: application/json", body);
    free(body);
    if (code != 201 && code != 200) {
        fprintf(stderr, "bench_latency: POST backup answered %ld\n", code);
        return 1;
    }

    char *veltop = bench_veltop_path();
    char *args[] = {veltop, "--kubeconfig", bs.kubeconfig, NULL};
    bench_pty p;
    if (bench_pty_spawn(&p, args, 40, 120)) {
        fprintf(stderr, "bench_latency: forkpty failed\n");
        return 1;
    }
    int ok = bench_pty_wait_for(&p, BACKUP, 10000, NULL);
    if (ok != 1) {
        fprintf(stderr, "bench_latency: veltop never showed the backup (%d)\n", ok);
        bench_pty_quit(&p, NULL);
        return 1;
    }
    bench_pty_drain(&p, 300);

    double *lat = xcalloc((size_t)n, sizeof *lat), *rtt = xcalloc((size_t)n, sizeof *rtt);
    size_t got = 0, nrtt = 0;
    int missed = 0;
    srand(42);
    for (int k = 0; k < n; k++) {
        bench_pty_drain(&p, 50 + rand() % 51); /* the spacing: 50-100 ms */
        int v = value_of(k);
        char patch[128], needle[16];
        snprintf(patch, sizeof patch, "{\"status\":{\"progress\":{\"itemsBackedUp\":%d}}}", v);
        snprintf(needle, sizeof needle, "%d", v);
        bench_pty_mark(&p);
        double t_sent = bench_now();
        code = http_json(c, "PATCH", obj_url, "Content-Type: application/merge-patch+json", patch);
        double t_resp = bench_now();
        rtt[nrtt++] = (t_resp - t_sent) * 1000.0;
        if (code != 200) {
            fprintf(stderr, "bench_latency: PATCH answered %ld\n", code);
            break;
        }
        double seen = 0;
        int r = bench_pty_wait_for(&p, needle, 2000, &seen);
        if (r == 1) {
            double ms = (seen - t_resp) * 1000.0;
            lat[got++] = ms < 0 ? 0 : ms;
        } else {
            missed++;
            if (r < 0) break;
        }
    }
    struct rusage ru;
    bench_pty_quit(&p, &ru);
    double p50 = bench_percentile(lat, got, 50), p99 = bench_percentile(lat, got, 99);
    double mx = got ? lat[got - 1] : 0;
    printf("latency server->terminal: p50 %.1f ms (target <= 15) %s\n", p50,
           bench_verdict(got && p50 <= 15));
    printf("latency server->terminal: p99 %.1f ms (target <= 120) %s\n", p99,
           bench_verdict(got && p99 <= 120));
    printf("latency server->terminal: max %.1f ms over %zu changes, %d not seen within 2 s\n", mx,
           got, missed);
    printf("latency server->terminal: PATCH round trip p50 %.1f ms (for scale)\n",
           bench_percentile(rtt, nrtt, 50));
    free(lat);
    free(rtt);
    free(veltop);
    free(obj_url);
    free(base);
    curl_easy_cleanup(c);
    bench_sim_stop(&bs);
    curl_global_cleanup();
    return got ? 0 : 1;
}
