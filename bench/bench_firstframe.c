/* bench_firstframe.c: time to the first full frame and peak memory with a big cluster: 10 000
 * backups and 50 000 volume objects (40 000 PodVolumeBackups, 10 000 DataUploads, 5 per backup,
 * linked by velero.io/backup-name) in an in-process veltop-sim; the real veltop on a pty (120x40)
 * from exec to the first rows drawn, then to the full frame (every list loaded: the lamp says
 * "live"), whether the newest row and its volume bytes are on screen; peak RSS (VmHWM). Side by
 * side: kubectl get ... -o json against the same sim. */
#include <curl/curl.h>

#include "benchpop.h"

static size_t collect(char *ptr, size_t sz, size_t n, void *arg)
{
    kc_buf_append(arg, ptr, sz * n);
    return sz * n;
}

/* Lists RESOURCE in pages of 500 as a reflector does (no decoding): what serving the list costs
 * the sim alone, the floor under any client's first frame. Returns seconds, -1 on an error. */
static double list_bytes; /* the JSON bytes of the lists sim_list_all fetched (uncompressed) */

static double sim_list_all(bench_sim *bs, const char *gv, const char *resource)
{
    CURL *c = curl_easy_init();
    kc_buf body = {0};
    char *cont = NULL;
    double t0 = bench_now();
    int ok = 1;
    do {
        char *url = xasprintf("%s/apis/%s/namespaces/velero/%s?limit=500%s%s", vsim_url(bs->sim),
                              gv, resource, cont ? "&continue=" : "", cont ? cont : "");
        body.len = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        ok = curl_easy_perform(c) == CURLE_OK;
        list_bytes += (double)body.len;
        free(url);
        free(cont);
        cont = NULL;
        /* the continue token from the metadata at the head of the page, without parsing the
         * 600 KB of items: this figure is the sim's (and the transfer's), not a client's */
        const char *head = ok ? kc_buf_cstr(&body) : NULL, *ct = NULL;
        if (head && strncmp(head, "{\"kind\":", 8) != 0) ok = 0;
        char *items = head ? strstr(head, "\"items\":") : NULL;
        if (items) *items = '\0';
        if (head) ct = strstr(head, "\"continue\":\"");
        if (ct) {
            ct += 12;
            const char *e = strchr(ct, '"');
            char *tok = e ? xstrndup(ct, (size_t)(e - ct)) : NULL;
            char *esc = tok ? curl_easy_escape(c, tok, 0) : NULL;
            if (esc) cont = xstrdup(esc);
            curl_free(esc);
            free(tok);
        }
    } while (ok && cont);
    double el = bench_now() - t0;
    kc_buf_free(&body);
    curl_easy_cleanup(c);
    return ok ? el : -1;
}

int main(int argc, char **argv)
{
    int nb = argc > 1 ? atoi(argv[1]) : 10000;
    int limit_s = argc > 2 ? atoi(argv[2]) : 30; /* give up on the first frame after this */
    if (nb < 1) nb = 1;
    if (limit_s < 1) limit_s = 1;
    if (argc > 3) vols_per_backup = atoi(argv[3]);
    if (vols_per_backup < 0) vols_per_backup = 0;
    signal(SIGPIPE, SIG_IGN);
    bench_sim bs;
    /* BENCH_NO_GZIP=1: the sim never compresses (kube-apiserver with APIResponseCompression off) */
    if (bench_sim_start_opts(&bs, "empty", (vsim_opts){.no_gzip = getenv("BENCH_NO_GZIP") != NULL}))
        return 1;
    double t0 = bench_now();
    if (populate(&bs, nb)) return 1;
    fprintf(stderr, "bench_firstframe: %d backups and %d volume objects created in %.1f s\n", nb,
            nb * vols_per_backup, bench_now() - t0);

    if (getenv("BENCH_HOLD")) { /* debugging: keep the populated sim up for a while */
        fprintf(stderr, "bench_firstframe: sim at %s, kubeconfig %s\n", vsim_url(bs.sim),
                bs.kubeconfig);
        sleep((unsigned)atoi(getenv("BENCH_HOLD")));
    }
    char newest[32], vols[64], b1[24], b2[24];
    snprintf(newest, sizeof newest, "nightly-%05d", nb - 1);
    int64_t vbytes = 246913578LL * vols_per_backup;
    snprintf(vols, sizeof vols, "%s/%s", fmt_bytes(b1, sizeof b1, vbytes),
             fmt_bytes(b2, sizeof b2, vbytes));

    char *veltop = bench_veltop_path();
    char *args[] = {veltop, "--kubeconfig", bs.kubeconfig, NULL};
    bench_pty p;
    if (bench_pty_spawn(&p, args, 40, 120)) return 1;
    /* the first time each of these shows up in the byte stream */
    const char *needles[] = {"nightly-", " live"};
    double when[2] = {-1, -1};
    double deadline = p.started + limit_s, cpu_live = -1;
    while (bench_now() < deadline && when[1] < 0) {
        long r = bench_pty_read(&p, 100);
        if (r < 0) break;
        for (int k = 0; k < 2; k++)
            if (when[k] < 0 && bench_pty_has(&p, needles[k])) when[k] = bench_now() - p.started;
    }
    if (when[1] >= 0) cpu_live = bench_proc_cpu(p.pid);
    bench_pty_drain(&p, 1000); /* every watch open, nothing left to draw */
    /* what is on screen now: ncurses writes only what changed, so a name can be on screen without
     * being whole in the stream; Ctrl-L makes it repaint everything */
    bench_pty_mark(&p);
    if (write(p.fd, "\f", 1) == 1) bench_pty_drain(&p, 500);
    int shown_newest = bench_pty_has(&p, newest), shown_vols = bench_pty_has(&p, vols);
    /* the first run name of the repaint: the top row, to say what is there instead */
    char top[32] = "?";
    const char *tp = memmem(p.win, p.win_len, "nightly-", 8);
    if (tp && (size_t)(p.win + p.win_len - tp) >= 13) snprintf(top, sizeof top, "%.13s", tp);
    if (getenv("BENCH_DUMP")) { /* BENCH_DUMP=FILE: the bytes of that repaint, to see the screen */
        FILE *df = fopen(getenv("BENCH_DUMP"), "w");
        if (df) fwrite(p.win, 1, p.win_len, df), fclose(df);
    }
    long hwm = bench_proc_status_kb(p.pid, "VmHWM");
    double cpu = bench_proc_cpu(p.pid);
    bench_pty_quit(&p, NULL);
    /* VmHWM, not wait4's ru_maxrss: the child was forked from this process, whose pages (the
     * populated sim) count in ru_maxrss from before the exec */
    double peak_mb = (double)hwm / 1024.0;
    char what[64];
    snprintf(what, sizeof what, "first frame, %d backups + %d volumes", nb, nb * vols_per_backup);
    printf("%s: first rows drawn in %.3f s\n", what, when[0]);
    if (when[1] < 0)
        printf("%s: NOT fully listed within %d s (veltop used %.1f s CPU) (target <= 0.5) %s\n",
               what, limit_s, cpu, bench_verdict(0));
    else
        printf("%s: full frame (all listed, lamp live) in %.3f s, veltop CPU %.2f s (target <= "
               "0.5) %s\n",
               what, when[1], cpu_live, bench_verdict(when[1] <= 0.5));
    printf("%s: after it (Ctrl-L repaint) the newest row %s, its volume bytes %s%s%s\n", what,
           shown_newest ? "is on screen" : "is NOT on screen",
           shown_vols ? "on screen" : "NOT on screen",
           shown_newest ? "" : "; the top row: ", shown_newest ? "" : top);
    printf("%s: peak RSS (VmHWM) %.1f MB (target <= 40) %s\n", what, peak_mb,
           bench_verdict(hwm > 0 && peak_mb <= 40));

    double lb = sim_list_all(&bs, "velero.io/v1", "backups");
    double lp = sim_list_all(&bs, "velero.io/v1", "podvolumebackups");
    double ld = sim_list_all(&bs, "velero.io/v2alpha1", "datauploads");
    printf("%s: the sim alone serves the paginated lists (limit=500, no decoding) in %.3f s "
           "(backups %.3f, podvolumebackups %.3f, datauploads %.3f), %.1f MB of JSON%s\n",
           what, lb + lp + ld, lb, lp, ld, list_bytes / 1e6,
           getenv("BENCH_NO_MANAGED_FIELDS") ? " (no managedFields)" : " with managedFields");
    if (getenv("BENCH_NO_KUBECTL")) {
        free(veltop);
        bench_sim_stop(&bs);
        return 0;
    }
    long rss_b = 0, rss_p = 0, rss_d = 0;
    double kb = bench_kubectl_get(&bs, "backups", &rss_b);
    double kp = bench_kubectl_get(&bs, "podvolumebackups", &rss_p);
    double kd = bench_kubectl_get(&bs, "datauploads", &rss_d);
    if (kb < 0)
        printf("kubectl side by side: kubectl missing or failed\n");
    else
        printf("kubectl side by side: get backups -o json %.3f s (peak RSS %.0f MB), get "
               "podvolumebackups -o json %.3f s (%.0f MB), get datauploads -o json %.3f s (%.0f "
               "MB)\n",
               kb, rss_b / 1024.0, kp, rss_p / 1024.0, kd, rss_d / 1024.0);
    free(veltop);
    bench_sim_stop(&bs);
    return 0; /* a missed target is a figure, not a failure of the benchmark */
}
