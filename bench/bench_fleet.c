/* bench_fleet.c: a fleet of clusters behind slow links. CLUSTERS in-process sims (in a child
 * process, so that the figures of veltop's side are its own), each with RUNS Completed backups
 * and 5 volume objects per backup (benchpop.h) behind its own emulated link, 10 runs in flight
 * across the fleet, and (HOLE=1) one more context whose address accepts connections and never
 * answers. Measured:
 *   - the fleet core in this process (core/fleet.c, what the fleet screen draws, summaries every
 *     100 ms as the screen's frames): when every row's lamp is final (each reachable one live
 *     and listed, the black hole unreachable), this process's peak RSS, and its CPU while idle;
 *   - the real `veltop --once --all-contexts`: wall time, exit status, peak RSS;
 *   - the real fleet screen (`veltop --all-contexts` on a 120x40 pty): peak RSS, and idle CPU
 *     and bytes written to the terminal with 10 runs in flight;
 *   - side by side: `kubectl get backups -o json` per context, one after the other.
 * Usage: bench_fleet [CLUSTERS=20] [RUNS=2000] [RTT_MS=50] [BYTES_PER_S=2500000] [HOLE=1] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "benchpop.h"
#include "fleet.h"
#include "kubeclient/kubeconfig.h"

#define FINAL_LIMIT_S 30.0

/* The child: the sims, a merged kubeconfig at path, "ready" on wfd; runs until rfd closes. */
static int serve(int n, int runs, int rtt, long bw, int hole, const char *path, int wfd, int rfd)
{
    bench_sim *bs = calloc((size_t)n, sizeof *bs);
    kc_buf parts[3] = {{0}, {0}, {0}};
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "fleet-%02d", i);
        vsim_opts o = {.latency_ms = rtt / 2, .bandwidth = bw, .context_name = name};
        if (bench_sim_start_opts(&bs[i], "empty", o) || populate(&bs[i], runs)) return 1;
        for (int p = 0; p < 3; p++) vsim_kubeconfig_parts(bs[i].sim, &parts[p], p);
    }
    /* 10 runs in flight across the fleet, attached mid-run */
    char start[40];
    kc_format_time(kc_wall_now() - 60, start, sizeof start);
    for (int k = 0; k < 10; k++) {
        char *j =
            xasprintf("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                      "\"live-%02d\",\"namespace\":\"velero\"},\"spec\":{},\"status\":{\"phase\":"
                      "\"InProgress\",\"startTimestamp\":\"%s\",\"progress\":{\"totalItems\":5000,"
                      "\"itemsBackedUp\":%d}}}",
                      k, start, 100 + k);
        bench_sim_create(&bs[k % n], "backups", "velero", j);
        free(j);
    }
    int hs = -1;
    if (hole) { /* listens, never accepts: the handshake completes, nothing answers */
        hs = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        if (bind(hs, (struct sockaddr *)&a, sizeof a) || listen(hs, 256) ||
            getsockname(hs, (struct sockaddr *)&a, &len))
            return 1;
        kc_buf_printf(&parts[0], "- name: hole\n  cluster:\n    server: http://127.0.0.1:%d\n",
                      ntohs(a.sin_port));
        kc_buf_printf(&parts[1], "- name: hole\n  user: {}\n");
        kc_buf_printf(&parts[2], "- name: hole\n  context:\n    cluster: hole\n    user: hole\n");
    }
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "apiVersion: v1\nkind: Config\nclusters:\n%s", kc_buf_cstr(&parts[0]));
    fprintf(f, "users:\n%scontexts:\n%s", kc_buf_cstr(&parts[1]), kc_buf_cstr(&parts[2]));
    fprintf(f, "current-context: fleet-00\n");
    fclose(f);
    char line[64];
    int len = snprintf(line, sizeof line, "ready %.1f\n", bench_now() - t0);
    if (write(wfd, line, (size_t)len) != len) return 1;
    char c;
    while (read(rfd, &c, 1) > 0) {
    }
    for (int i = 0; i < n; i++) bench_sim_stop(&bs[i]);
    if (hs >= 0) close(hs);
    for (int p = 0; p < 3; p++) kc_buf_free(&parts[p]);
    free(bs);
    return 0;
}

static int lamp_final(const fleet_sum *s)
{
    return (s->lamp == FL_LIVE && s->listed) || s->lamp == FL_UNREACHABLE ||
           s->lamp == FL_UNAUTHORIZED || s->lamp == FL_CONFIG;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20, runs = argc > 2 ? atoi(argv[2]) : 2000;
    int rtt = argc > 3 ? atoi(argv[3]) : 50, hole = argc > 5 ? atoi(argv[5]) : 1;
    long bw = argc > 4 ? atol(argv[4]) : 2500000;
    if (n < 1) n = 1;
    if (runs < 1) runs = 1;
    signal(SIGPIPE, SIG_IGN);
    char dir[] = "/tmp/veltop-bench-fleet-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/kubeconfig", dir);
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return 1;
    pid_t child = fork();
    if (child == 0) {
        close(up[0]);
        close(down[1]);
        _exit(serve(n, runs, rtt, bw, hole, path, up[1], down[0]));
    }
    close(up[1]);
    close(down[0]);
    char ready[64] = "";
    ssize_t r = read(up[0], ready, sizeof ready - 1);
    if (r <= 0 || strncmp(ready, "ready", 5)) {
        fprintf(stderr, "bench_fleet: the sims did not start\n");
        return 1;
    }
    ready[strcspn(ready, "\n")] = 0;
    fprintf(stderr, "bench_fleet: %d clusters x (%d backups + %d volumes) made in %s s\n", n, runs,
            runs * vols_per_backup, ready + 6);
    char what[160];
    snprintf(what, sizeof what, "fleet %d x (%d runs + %d volumes), %d ms RTT, %.0f Mbit/s%s", n,
             runs, runs * vols_per_backup, rtt, bw * 8 / 1e6, hole ? ", 1 black-holed" : "");
    char *veltop = bench_veltop_path();

    /* the real program first (this process is still small: its child's peak is its own) */
    double t0 = bench_now();
    pid_t v = fork();
    if (v == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        if (null >= 0 && !getenv("BENCH_SHOW_ERRORS")) dup2(null, 2); /* each context's */
        execl(veltop, veltop, "--kubeconfig", path, "--once", "--all-contexts", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    wait4(v, &status, 0, &ru);
    double once_s = bench_now() - t0;
    printf("%s: veltop --once --all-contexts: %.2f s, exit %d, peak RSS %.1f MB\n", what, once_s,
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, (double)ru.ru_maxrss / 1024.0);

    /* the real fleet screen on a 120x40 pty: settled (12 s: the black hole's verdict is at
     * 8 s), then idle for IDLE_S with 10 runs in flight: CPU, bytes to the terminal, peak RSS */
    int idle_s = getenv("BENCH_QUICK") ? 15 : 30;
    char *targs[] = {veltop, "--kubeconfig", path, "--all-contexts", NULL};
    bench_pty p;
    if (!bench_pty_spawn(&p, targs, 40, 120)) {
        bench_pty_drain(&p, 12000);
        int drawn = bench_pty_has(&p, "fleet of");
        double cpu0 = bench_proc_cpu(p.pid), b0 = (double)p.total, w0 = bench_now();
        bench_pty_drain(&p, idle_s * 1000);
        double el = bench_now() - w0;
        double cpu = (bench_proc_cpu(p.pid) - cpu0) / el * 100;
        double kbmin = ((double)p.total - b0) / 1024.0 / el * 60.0;
        long vhwm = bench_proc_status_kb(p.pid, "VmHWM");
        bench_pty_quit(&p, NULL);
        printf("%s: veltop's fleet screen (120x40)%s: peak RSS %.1f MB (target <= 150) %s\n", what,
               drawn ? "" : " NOT DRAWN", (double)vhwm / 1024.0,
               bench_verdict(drawn && vhwm > 0 && vhwm <= 150 * 1024));
        printf("%s: veltop's fleet screen idle %d s: %.2f %% of a core (target <= 2) %s, "
               "%.1f KB/min to the terminal (target <= 60) %s\n",
               what, idle_s, cpu, bench_verdict(cpu <= 2.0), kbmin, bench_verdict(kbmin <= 60));
    }

    /* the fleet core in process, as the fleet screen runs it */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    kc_loop *loop = kc_loop_new();
    kc_config_opts co = {.kubeconfig = path};
    kc_err err;
    size_t nn = 0;
    char **names = kc_config_contexts(&co, &nn, &err);
    fleet *f = fleet_new(loop);
    f->summary = 1; /* as the fleet screen: the volumes of runs in flight until a cluster opens */
    t0 = bench_now();
    for (size_t i = 0; i < nn; i++) {
        co.context = names[i];
        kc_rest_config *cfg = kc_config_load(&co, &err);
        fleet_add(f, names[i], "velero", cfg, cfg ? NULL : err.msg);
    }
    double *final = calloc(nn, sizeof *final);
    /* in flight first (app.h): when each context's runs and the volumes of its runs in flight
     * are in (its history may still be listing) */
    double *flight = calloc(nn, sizeof *flight);
    fleet_sum *s = calloc(nn, sizeof *s);
    size_t kept = 0;
    size_t done = 0;
    double next = 0;
    while (done < nn && bench_now() - t0 < FINAL_LIMIT_S) {
        kc_loop_run_once(loop, 20);
        double now = bench_now();
        if (now < next) continue;
        next = now + 0.1;
        for (size_t i = 0; i < nn; i++) {
            fleet_member_summary(f->m[i], (double)kc_now_ms() / 1000.0, kc_wall_now(), &s[i]);
            if (!final[i] && lamp_final(&s[i])) {
                final[i] = now - t0;
                done++;
            }
            if (!flight[i] && f->m[i]->app && f->m[i]->app->load_phase >= APP_LOAD_HISTORY)
                flight[i] = now - t0;
        }
    }
    double others = 0, hole_s = -1, flights = 0;
    int live = 0;
    for (size_t i = 0; i < nn; i++) {
        if (!strcmp(names[i], "hole")) {
            hole_s = final[i] ? final[i] : -1;
            continue;
        }
        if (!flight[i]) flights = -1;
        if (flights >= 0 && flight[i] > flights) flights = flight[i];
        live += s[i].lamp == FL_LIVE;
        if (!final[i]) others = -1;
        if (others >= 0 && final[i] > others) others = final[i];
    }
    for (size_t i = 0; i < nn; i++)
        if (f->m[i]->app) kept += f->m[i]->app->model->n_vols;
    printf("%s: volumes kept by the summaries: %zu (of %d)\n", what, kept,
           n * runs * vols_per_backup);
    long hwm = bench_proc_status_kb(getpid(), "VmHWM");
    printf("%s: every context's runs in flight with their volumes in %.2f s (target <= 3) %s\n",
           what, flights, bench_verdict(flights >= 0 && flights <= 3.0));
    printf("%s: fleet complete (%d rows live and listed) in %.2f s (target <= 3) %s\n", what, live,
           others, bench_verdict(others >= 0 && others <= 3.0));
    if (hole)
        printf("%s: the black-holed row says unreachable after %.2f s (target <= 10) %s\n", what,
               hole_s, bench_verdict(hole_s >= 0 && hole_s <= 10.0));
    printf("%s: peak RSS of the fleet core (VmHWM) %.1f MB (target <= 150) %s\n", what,
           (double)hwm / 1024.0, bench_verdict(hwm > 0 && hwm <= 150 * 1024));
    /* opening a cluster: its every volume listed again, whole */
    app *open = f->m[0]->app;
    double o0 = bench_now();
    app_load_all_volumes(open);
    int listed = 0;
    while (!listed && bench_now() - o0 < FINAL_LIMIT_S) {
        kc_loop_run_once(loop, 20);
        listed = 1;
        for (int i = APP_R_PVBS; i <= APP_R_DDS; i++)
            listed &= kc_reflector_status(open->refl[i])->synced;
    }
    model_refresh_volumes(open->model);
    printf("%s: opening a cluster: every volume (%zu) listed in %.2f s (target <= 1.5) %s\n", what,
           open->model->n_vols, bench_now() - o0, bench_verdict(listed && bench_now() - o0 <= 1.5));
    hwm = bench_proc_status_kb(getpid(), "VmHWM");
    printf("%s: peak RSS with one cluster opened %.1f MB\n", what, (double)hwm / 1024.0);
    /* idle: 10 runs in flight, a summary of every row once a second (the screen's clock) */
    double c0 = cpu_s(), i0 = bench_now();
    next = 0;
    while (bench_now() - i0 < 10.0) {
        kc_loop_run_once(loop, 50);
        if (bench_now() < next) continue;
        next = bench_now() + 1.0;
        for (size_t i = 0; i < nn; i++)
            fleet_member_summary(f->m[i], (double)kc_now_ms() / 1000.0, kc_wall_now(), &s[i]);
    }
    double idle = (cpu_s() - c0) / (bench_now() - i0) * 100;
    /* no target here: this loop wakes every 50 ms; the real screen's figure above is the one */
    printf("%s: idle CPU of the fleet core in this loop %.2f %% of a core\n", what, idle);
    fleet_free(f);
    kc_loop_free(loop);
    curl_global_cleanup();

    /* kubectl, one context after the other, as a script does it today */
    if (!getenv("BENCH_NO_KUBECTL")) {
        double k0 = bench_now();
        int ok = 1;
        for (size_t i = 0; i < nn && ok; i++) {
            if (!strcmp(names[i], "hole")) continue;
            char *cmd = xasprintf("KUBECACHEDIR=%s/cache kubectl --kubeconfig %s --context %s get "
                                  "backups -n velero -o json >/dev/null 2>&1",
                                  dir, path, names[i]);
            ok = system(cmd) == 0;
            free(cmd);
        }
        if (ok)
            printf("%s: kubectl get backups -o json per context, sequentially: %.2f s\n", what,
                   bench_now() - k0);
        else
            printf("%s: kubectl side by side: kubectl missing or failed\n", what);
    }
    for (size_t i = 0; i < nn; i++) free(names[i]);
    free(names);
    free(final);
    free(flight);
    free(s);
    free(veltop);
    close(down[1]); /* the child stops its sims */
    waitpid(child, NULL, 0);
    char *rm = xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "bench_fleet: cannot remove %s\n", dir);
    free(rm);
    return 0;
}
