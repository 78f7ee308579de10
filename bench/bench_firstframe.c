/* bench_firstframe.c: time to the first full frame and peak memory with a big cluster: 10 000
 * backups and 50 000 volume objects (40 000 PodVolumeBackups, 10 000 DataUploads, 5 per backup,
 * linked by velero.io/backup-name) plus INFLIGHT backups in progress with a volume each, in an
 * in-process veltop-sim; the real veltop on a pty (120x40) from exec to the first rows drawn, to
 * the runs in flight with their volume bytes, then to the full frame (every list loaded: the lamp
 * says "live"), whether the newest row and its volume bytes are on screen; peak RSS (VmHWM).
 * Then, in this process over the same lists: the item parse exact against lean (fieldsV1
 * skimmed), and the floor: `gzip -dc` of the same gzip'd answers into `wc -c`. Side by side:
 * kubectl get ... -o json against the same sim. */
#include <curl/curl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "kubeclient/listsplit.h"

#include "benchpop.h"

static size_t collect(char *ptr, size_t sz, size_t n, void *arg)
{
    kc_buf_append(arg, ptr, sz * n);
    return sz * n;
}

/* Lists RESOURCE in pages of 500 as a reflector does (no decoding): what serving the list costs
 * the sim alone, the floor under any client's first frame. Returns seconds, -1 on an error. */
static double list_bytes; /* the JSON bytes of the lists sim_list_all fetched (uncompressed) */
static kc_buf *pages;     /* and the pages themselves (for the parse figures) */
static size_t n_pages;

static const char *sim_url; /* the sim's base URL, in this process or in the child */

static double sim_list_all(const char *gv, const char *resource)
{
    CURL *c = curl_easy_init();
    kc_buf body = {0};
    char *cont = NULL;
    double t0 = bench_now();
    int ok = 1;
    do {
        char *url = xasprintf("%s/apis/%s/namespaces/velero/%s?limit=500%s%s", sim_url, gv,
                              resource, cont ? "&continue=" : "", cont ? cont : "");
        body.len = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        ok = curl_easy_perform(c) == CURLE_OK;
        list_bytes += (double)body.len;
        pages = xrealloc(pages, (n_pages + 1) * sizeof *pages);
        pages[n_pages] = (kc_buf){0};
        kc_buf_append(&pages[n_pages++], body.data, body.len);
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

/* The whole list as veltop's first list asks for it (resourceVersion=0, no limit: one answer),
 * gzip'd as the sim sends it to veltop, appended raw (a gzip member) to f. 0 or -1. */
static int sim_list_gz(const char *gv, const char *resource, FILE *f)
{
    CURL *c = curl_easy_init();
    kc_buf body = {0};
    char *url =
        xasprintf("%s/apis/%s/namespaces/velero/%s?resourceVersion=0", sim_url, gv, resource);
    struct curl_slist *hdr = curl_slist_append(NULL, "Accept-Encoding: gzip");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    int ok = curl_easy_perform(c) == CURLE_OK && body.len > 2 &&
             (unsigned char)body.data[0] == 0x1f && (unsigned char)body.data[1] == 0x8b &&
             fwrite(body.data, 1, body.len, f) == body.len;
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    free(url);
    kc_buf_free(&body);
    return ok ? 0 : -1;
}

static double cpu_self(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_children(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int count_item(void *arg, const cJSON *item, const char *text, size_t n)
{
    (void)item;
    (void)text;
    (void)n;
    ++*(long *)arg;
    return 0;
}

/* CPU seconds to split and parse every page fetched (as the reflector does), exact or lean. */
static double parse_pages(int lean, long *items)
{
    double t0 = cpu_self();
    *items = 0;
    for (size_t i = 0; i < n_pages; i++) {
        kc_listsplit *sp = kc_listsplit_new(0, count_item, items);
        kc_listsplit_set_lean(sp, lean);
        if (kc_listsplit_feed(sp, pages[i].data, pages[i].len)) *items = -1;
        kc_listsplit_free(sp);
    }
    return cpu_self() - t0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median5(double *v)
{
    qsort(v, 5, sizeof *v, cmp_dbl);
    return v[2];
}

static double loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

/* Stops the sim: this process's, or the child's (which stops when its pipe closes). */
static void stop_sim(bench_sim *bs, pid_t child, int hold_fd)
{
    if (child <= 0) {
        bench_sim_stop(bs);
        return;
    }
    close(hold_fd);
    waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
    int nb = argc > 1 ? atoi(argv[1]) : 10000;
    int limit_s = argc > 2 ? atoi(argv[2]) : 30; /* give up on the first frame after this */
    if (nb < 1) nb = 1;
    if (limit_s < 1) limit_s = 1;
    if (argc > 3) vols_per_backup = atoi(argv[3]);
    if (vols_per_backup < 0) vols_per_backup = 0;
    int inflight = argc > 4 ? atoi(argv[4]) : 10;
    if (inflight < 0) inflight = 0;
    signal(SIGPIPE, SIG_IGN);
    bench_sim bs;
    /* BENCH_SIM_CHILD=1: the sim serves from a child process forked before anything is timed
     * (a server that is not veltop's process; this one stays small, so forking veltop costs
     * what it costs from a shell); BENCH_PIN=1 with it: the sim on the second core, this
     * process and veltop on the first (a server on another machine, as far as two cores go) */
    int child = getenv("BENCH_SIM_CHILD") != NULL, pin = child && getenv("BENCH_PIN") != NULL;
    pid_t sim_pid = -1;
    int ready[2] = {-1, -1}, hold[2] = {-1, -1};
    if (child) {
        if (pipe(ready) || pipe(hold)) return 1;
        sim_pid = fork();
        if (sim_pid < 0) return 1;
    }
    if (sim_pid <= 0) { /* the sim's process: this one, or the child */
        if (pin) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(1, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        /* BENCH_NO_GZIP=1: the sim never compresses (kube-apiserver with APIResponseCompression
         * off) */
        if (bench_sim_start_opts(&bs, "empty",
                                 (vsim_opts){.no_gzip = getenv("BENCH_NO_GZIP") != NULL}))
            return 1;
        double t0 = bench_now();
        if (populate(&bs, nb) || populate_active(&bs, inflight)) return 1;
        fprintf(stderr,
                "bench_firstframe: %d backups and %d volume objects (+ %d in flight) created in "
                "%.1f s%s\n",
                nb, nb * vols_per_backup, inflight, bench_now() - t0,
                child ? (pin ? " (the sim in a child process, on CPU 1)"
                             : " (the sim in a child process)")
                      : "");
        sim_url = vsim_url(bs.sim);
    }
    if (sim_pid == 0) { /* serve until the parent closes the pipe */
        char line[512];
        int k = snprintf(line, sizeof line, "%s\n", sim_url);
        close(ready[0]);
        close(hold[1]);
        if (write(ready[1], line, (size_t)k) != k) _exit(1);
        if (write(ready[1], &bs, sizeof bs) != (ssize_t)sizeof bs) _exit(1);
        close(ready[1]);
        while (read(hold[0], line, sizeof line) > 0) {
        }
        bench_sim_stop(&bs);
        _exit(0);
    }
    if (child) {
        static char url[512];
        close(ready[1]);
        close(hold[0]);
        size_t got = 0;
        for (;;) { /* the URL's line, then the bench_sim (its kubeconfig path) */
            ssize_t k = read(ready[0], url + got, 1);
            if (k != 1) return 1;
            if (url[got] == '\n') break;
            if (++got == sizeof url - 1) return 1;
        }
        url[got] = 0;
        sim_url = url;
        if (read(ready[0], &bs, sizeof bs) != (ssize_t)sizeof bs) return 1;
        bs.sim = NULL;
        close(ready[0]);
        if (pin) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(0, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
    }
    double load0 = loadavg();

    if (getenv("BENCH_HOLD")) { /* debugging: keep the populated sim up for a while */
        fprintf(stderr, "bench_firstframe: sim at %s, kubeconfig %s\n", sim_url, bs.kubeconfig);
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
    /* the first time each of these shows up in the byte stream: a row, the runs in flight's
     * volume bytes (their rows are the newest: on top), the lamp live (every list in) */
    char live_bytes[64];
    snprintf(live_bytes, sizeof live_bytes, "%s/%s", fmt_bytes(b1, sizeof b1, BENCH_LIVE_DONE),
             fmt_bytes(b2, sizeof b2, BENCH_LIVE_TOTAL));
    const char *needles[] = {"nightly-", " live", live_bytes};
    double when[3] = {-1, -1, -1}, cpu_at[3] = {-1, -1, -1};
    int nneedles = inflight ? 3 : 2;
    double deadline = p.started + limit_s, cpu_live = -1;
    while (bench_now() < deadline && when[1] < 0) {
        long r = bench_pty_read(&p, 20);
        if (r < 0) break;
        for (int k = 0; k < nneedles; k++)
            if (when[k] < 0 && bench_pty_has(&p, needles[k])) {
                when[k] = bench_now() - p.started;
                cpu_at[k] = bench_proc_cpu(p.pid);
            }
    }
    if (when[1] >= 0) cpu_live = cpu_at[1];
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
    printf("%s: first rows drawn in %.3f s (load average %.1f before)\n", what, when[0], load0);
    if (inflight)
        printf("%s: the %d runs in flight with their volume bytes (%s) in %.3f s, veltop CPU "
               "%.2f s (target <= 0.25 s, <= 0.15 s CPU) %s\n",
               what, inflight, live_bytes, when[2], cpu_at[2],
               bench_verdict(when[2] >= 0 && when[2] <= 0.25 && cpu_at[2] <= 0.15));
    if (when[1] < 0)
        printf("%s: NOT fully listed within %d s (veltop used %.1f s CPU) (target <= 0.5) %s\n",
               what, limit_s, cpu, bench_verdict(0));
    else
        printf("%s: full frame (all listed, lamp live) in %.3f s, veltop CPU %.2f s (target <= "
               "0.7) %s\n",
               what, when[1], cpu_live, bench_verdict(when[1] <= 0.7));
    printf("%s: after it (Ctrl-L repaint) the newest row %s, its volume bytes %s%s%s\n", what,
           shown_newest ? "is on screen" : "is NOT on screen",
           shown_vols ? "on screen" : "NOT on screen",
           shown_newest ? "" : "; the top row: ", shown_newest ? "" : top);
    printf("%s: peak RSS (VmHWM) %.1f MB (target <= 40) %s\n", what, peak_mb,
           bench_verdict(hwm > 0 && peak_mb <= 40));

    double lb = sim_list_all("velero.io/v1", "backups");
    double lp = sim_list_all("velero.io/v1", "podvolumebackups");
    double ld = sim_list_all("velero.io/v2alpha1", "datauploads");
    printf("%s: the sim alone serves the paginated lists (limit=500, no decoding) in %.3f s "
           "(backups %.3f, podvolumebackups %.3f, datauploads %.3f), %.1f MB of JSON%s\n",
           what, lb + lp + ld, lb, lp, ld, list_bytes / 1e6,
           getenv("BENCH_NO_MANAGED_FIELDS") ? " (no managedFields)" : " with managedFields");
    printf("%s: peak RSS per run: %.1f KB (%d runs, %d volume objects)\n", what,
           (double)hwm / (nb + inflight), nb + inflight, nb * vols_per_backup + inflight);

    /* the parse, exact against lean, over the pages just fetched (5 each, alternating) */
    double ex[5], ln[5];
    long items_ex = 0, items_ln = 0;
    for (int i = 0; i < 5; i++) {
        ex[i] = parse_pages(0, &items_ex);
        ln[i] = parse_pages(1, &items_ln);
    }
    double mex = median5(ex), mln = median5(ln);
    printf("%s: split + parse of the pages, %ld items: exact %.3f s CPU, lean (fieldsV1 skimmed) "
           "%.3f s (%.2fx), medians of 5\n",
           what, items_ln, mex, mln, mex > 0 ? mln / mex : 0);
    for (size_t i = 0; i < n_pages; i++) kc_buf_free(&pages[i]);
    free(pages);
    if (items_ex != items_ln)
        printf("%s: the two parses saw %ld and %ld items!\n", what, items_ex, items_ln);
    /* the floor: the answers veltop gets (gzip'd, whole) inflated, and nothing else */
    char gz[] = "/tmp/bench_firstframe_XXXXXX";
    int gfd = mkstemp(gz);
    FILE *gf = gfd >= 0 ? fdopen(gfd, "w") : NULL;
    int gok = gf && !sim_list_gz("velero.io/v1", "backups", gf) &&
              !sim_list_gz("velero.io/v1", "podvolumebackups", gf) &&
              !sim_list_gz("velero.io/v2alpha1", "datauploads", gf);
    long gz_bytes = gf ? ftell(gf) : 0;
    if (gf) fclose(gf);
    if (gok) {
        double fl[5];
        char *cmd = xasprintf("gzip -dc %s | wc -c >/dev/null", gz);
        for (int i = 0; i < 5; i++) {
            double c0 = cpu_children();
            if (system(cmd) != 0) gok = 0;
            fl[i] = cpu_children() - c0;
        }
        free(cmd);
        double floor_cpu = median5(fl);
        printf("%s: the floor, gzip -dc of the same %.1f MB gzip'd (%.1f MB JSON) | wc -c: "
               "%.3f s CPU (median of 5); veltop's full-frame CPU is %.1fx that%s\n",
               what, gz_bytes / 1e6, list_bytes / 1e6, floor_cpu,
               floor_cpu > 0 ? cpu_live / floor_cpu : 0, gok ? "" : " (gzip failed)");
    } else {
        printf("%s: the floor: could not fetch the gzip'd lists\n", what);
    }
    unlink(gz);
    if (getenv("BENCH_NO_KUBECTL")) {
        free(veltop);
        stop_sim(&bs, sim_pid, hold[1]);
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
    stop_sim(&bs, sim_pid, hold[1]);
    return 0; /* a missed target is a figure, not a failure of the benchmark */
}
