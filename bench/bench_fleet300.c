/* bench_fleet300.c: 300 contexts as a workload. CONTEXTS contexts served on loopback from a child
 * process (so that the figures of veltop's side are its own; no emulated link), each with RUNS
 * Completed backups and 5 volume objects per backup (benchpop.h: 200 runs, 1 000 volumes) and
 * ACTIVE backups in flight with a PodVolumeBackup each: one populated sim and CONTEXTS - 1 more
 * API servers over its store (serve() says why). This process and every veltop it starts
 * have the soft open-file limit 1024 (the usual default; veltop raises it to the hard one).
 * Measured:
 *   - the real `veltop --once --all-contexts`, ONCE_N times: wall time (median and range), exit
 *     status, peak RSS (ru_maxrss), most descriptors open at once (/proc/PID/fd, every 20 ms);
 *   - the fleet core in this process (core/fleet.c as the fleet screen runs it, a summary of
 *     every row every 100 ms): when every context's row is live and listed with its ACTIVE runs
 *     in flight and their volumes in the model, this process's peak RSS (total and per context,
 *     over the process before the fleet) and most descriptors open at once;
 *   - the real fleet screen (`veltop --all-contexts` on a 120x40 pty) for SCREEN_S seconds: peak
 *     RSS and most descriptors open at once.
 * BENCH_BACKUP_EVERY_S (600): how far apart the finished backups started (the summaries keep
 * whole the volumes of runs in flight and of the finished runs their answers read, core/app.c,
 * whatever the spacing; before, every volume finished within two days, all 1 000 at 600 s).
 * BENCH_HOLD=S: only serve the contexts for S seconds and print the kubeconfig's path (to time
 * veltop from outside); BENCH_SHOW_ERRORS=1: --once's per-context lines on stderr.
 * Usage: bench_fleet300 [CONTEXTS=300] [RUNS=200] [ACTIVE=3] [ONCE_N=5] [SCREEN_S=15] */
#include <dirent.h>
#include <malloc.h>
#include <sys/resource.h>

#include "benchpop.h"
#include "server.h"
#include "fleet.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/kubeconfig.h"

#define READY_LIMIT_S  300.0
#define FINAL_LIMIT_S  60.0
#define ONCE_LIMIT_S   60.0
#define START_SOFT_NOF 1024

/* Runs in flight in a sim, attached mid-run, a pod volume each. */
static int add_active(bench_sim *bs, int active, const char *start)
{
    for (int k = 0; k < active; k++) {
        char uid[64], vuid[64];
        char *j =
            xasprintf("{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
                      "\"live-%02d\",\"namespace\":\"velero\"},\"spec\":{},\"status\":{\"phase\":"
                      "\"InProgress\",\"startTimestamp\":\"%s\",\"progress\":{\"totalItems\":5000,"
                      "\"itemsBackedUp\":%d}}}",
                      k, start, 100 + k);
        int bad = create_uid(bs, "backups", j, uid, sizeof uid, "velero-server", kc_wall_now() - 60,
                             "velero-server", kc_wall_now());
        free(j);
        j = xasprintf(
            "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"PodVolumeBackup\",\"metadata\":{"
            "\"name\":\"live-%02d-pvb\",\"namespace\":\"velero\",\"labels\":{"
            "\"velero.io/backup-name\":\"live-%02d\",\"velero.io/backup-uid\":\"%s\"}},"
            "\"spec\":{\"node\":\"worker-1\",\"pod\":{\"kind\":\"Pod\",\"namespace\":\"shop\","
            "\"name\":\"db-0\"},\"volume\":\"data\",\"uploaderType\":\"kopia\"},\"status\":{"
            "\"phase\":\"InProgress\",\"startTimestamp\":\"%s\",\"progress\":{\"totalBytes\":"
            "10737418240,\"bytesDone\":%d}}}",
            k, k, uid, start, 1048576 * (k + 1));
        bad = bad || create_uid(bs, "podvolumebackups", j, vuid, sizeof vuid, "velero-server",
                                kc_wall_now() - 60, "node-agent-server", kc_wall_now());
        free(j);
        if (bad) return -1;
    }
    return 0;
}

/* The child: the sims, a kubeconfig at path, "ready SECONDS RSS_KB" on wfd; runs until rfd
 * closes. Its own open-file limit is raised to the hard one: it holds every connection.
 * By default one populated sim and n - 1 more API servers over the same store, each on its own
 * port with a context of its own (veltop cannot tell: every context has its own connections,
 * lists and watches); a sim's objects with their managedFields and serializations take ~28 MB,
 * 8.4 GB for 300. BENCH_SEPARATE_SIMS=1: a populated sim for each context. */
static int serve(int n, int runs, int active, const char *path, int wfd, int rfd)
{
    kc_fd_raise();
    int separate = getenv("BENCH_SEPARATE_SIMS") != NULL;
    bench_sim *bs = calloc((size_t)n, sizeof *bs);
    simserver **extra = calloc((size_t)n, sizeof *extra);
    kc_buf parts[3] = {{0}, {0}, {0}};
    double t0 = bench_now();
    char start[40];
    kc_format_time(kc_wall_now() - 60, start, sizeof start);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "fleet-%03d", i);
        if (i > 0 && !separate) {
            char err[256] = "";
            simserver_opts so = {.store = vsim_store(bs[0].sim), .host = "127.0.0.1"};
            extra[i] = simserver_start(&so, err, sizeof err);
            if (!extra[i]) {
                fprintf(stderr, "bench_fleet300: %s\n", err);
                return 1;
            }
            kc_buf_printf(&parts[0],
                          "- name: \"%s\"\n  cluster:\n    server: http://127.0.0.1:%d\n", name,
                          simserver_port(extra[i]));
            kc_buf_printf(&parts[1], "- name: \"%s\"\n  user: {}\n", name);
            kc_buf_printf(&parts[2],
                          "- name: \"%s\"\n  context:\n    cluster: \"%s\"\n    user: \"%s\"\n"
                          "    namespace: velero\n",
                          name, name, name);
            continue;
        }
        /* passive: the controller leaves the runs in flight as they are */
        vsim_opts o = {.context_name = name, .passive = 1};
        if (bench_sim_start_opts(&bs[i], "empty", o) || populate(&bs[i], runs) ||
            add_active(&bs[i], active, start))
            return 1;
        for (int p = 0; p < 3; p++) vsim_kubeconfig_parts(bs[i].sim, &parts[p], p);
    }
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "apiVersion: v1\nkind: Config\nclusters:\n%s", kc_buf_cstr(&parts[0]));
    fprintf(f, "users:\n%scontexts:\n%s", kc_buf_cstr(&parts[1]), kc_buf_cstr(&parts[2]));
    fprintf(f, "current-context: fleet-000\n");
    fclose(f);
    char line[64];
    int len = snprintf(line, sizeof line, "ready %.1f %ld\n", bench_now() - t0,
                       bench_proc_status_kb(getpid(), "VmRSS"));
    if (write(wfd, line, (size_t)len) != len) return 1;
    char c;
    while (read(rfd, &c, 1) > 0) {
    }
    for (int i = n - 1; i >= 0; i--) {
        if (extra[i]) simserver_stop(extra[i]);
        if (bs[i].sim) bench_sim_stop(&bs[i]);
    }
    for (int p = 0; p < 3; p++) kc_buf_free(&parts[p]);
    free(extra);
    free(bs);
    return 0;
}

/* Descriptors open in pid now (entries of /proc/PID/fd), -1 when it is gone. */
static int fd_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One `veltop --once --all-contexts`: wall seconds, exit status, peak RSS (KiB), most fds, CPU
 * seconds. */
static double run_once(const char *veltop, const char *path, int *code, long *rss_kb, int *fds,
                       double *cpu)
{
    double t0 = bench_now();
    pid_t v = fork();
    if (v == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        if (null >= 0 && !getenv("BENCH_SHOW_ERRORS")) dup2(null, 2);
        execl(veltop, veltop, "--kubeconfig", path, "--once", "--all-contexts", (char *)NULL);
        _exit(127);
    }
    int status = 0, most = 0, killed = 0;
    struct rusage ru = {0};
    for (;;) {
        pid_t w = wait4(v, &status, WNOHANG, &ru);
        if (w == v) break;
        int c = fd_count(v);
        if (c > most) most = c;
        if (!killed && bench_now() - t0 > ONCE_LIMIT_S) kill(v, SIGKILL), killed = 1;
        usleep(20000); /* a sample every 20 ms: the process is not ours to wait on otherwise */
    }
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    *rss_kb = ru.ru_maxrss;
    *fds = most;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
    return bench_now() - t0;
}

/* The fleet core in this process, as the fleet screen runs it: its figures. */
static void fleet_core(const char *path, const char *what, int runs, int active)
{
    long limit = kc_fd_raise(); /* as veltop's main does */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    kc_loop *loop = kc_loop_new();
    kc_config_opts co = {.kubeconfig = path};
    kc_err err;
    size_t nn = 0;
    char **names = kc_config_contexts(&co, &nn, &err);
    long base_kb = bench_proc_status_kb(getpid(), "VmRSS");
    int base_fds = fd_count(getpid());
    fleet *f = fleet_new(loop);
    f->summary = 1; /* as the fleet screen: what the summaries read until a cluster opens */
    double t0 = bench_now();
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    for (size_t i = 0; i < nn; i++) {
        co.context = names[i];
        kc_rest_config *cfg = kc_config_load(&co, &err);
        fleet_add(f, names[i], "velero", cfg, cfg ? NULL : err.msg);
    }
    double added = bench_now() - t0; /* each context's configuration read from the file */
    double *final = calloc(nn, sizeof *final), *listed = calloc(nn, sizeof *listed);
    fleet_sum *s = calloc(nn, sizeof *s);
    size_t done = 0, n_listed = 0;
    int most = 0;
    double next = 0;
    while (done < nn && bench_now() - t0 < FINAL_LIMIT_S) {
        kc_loop_run_once(loop, 20);
        double now = bench_now();
        if (now < next) continue;
        next = now + 0.1;
        int c = fd_count(getpid());
        if (c > most) most = c;
        for (size_t i = 0; i < nn; i++) {
            if (final[i]) continue;
            fleet_member *m = f->m[i];
            fleet_member_summary(m, (double)kc_now_ms() / 1000.0, kc_wall_now(), &s[i]);
            int live = s[i].lamp == FL_LIVE && s[i].listed;
            if (live && !listed[i]) listed[i] = now - t0, n_listed++;
            /* its rows in flight, with their volumes */
            if (live && s[i].n_active == active && m->app &&
                m->app->model->n_vols >= (size_t)active) {
                final[i] = now - t0;
                done++;
            }
        }
    }
    if (getenv("BENCH_SHOW_ERRORS")) /* the contexts that did not end, and why */
        for (size_t i = 0, shown = 0; i < nn && shown < 10; i++)
            if (!final[i])
                shown++, printf("%s: not done: %s lamp %d listed %d in flight %d: %s\n", what,
                                names[i], (int)s[i].lamp, s[i].listed, s[i].n_active, s[i].why);
    double all = 0, all_listed = 0;
    for (size_t i = 0; i < nn; i++) {
        if (final[i] > all) all = final[i];
        if (listed[i] > all_listed) all_listed = listed[i];
    }
    getrusage(RUSAGE_SELF, &ru1);
    double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    size_t kept = 0;
    for (size_t i = 0; i < nn; i++)
        if (f->m[i]->app) kept += f->m[i]->app->model->n_vols;
    long hwm = bench_proc_status_kb(getpid(), "VmHWM");
    printf("%s: the fleet core: volumes kept by the summaries %zu (of %zu)\n", what, kept,
           nn * (size_t)(runs * vols_per_backup + active));
    printf("%s: the fleet core: %zu contexts loaded from the kubeconfig and added in %.2f s\n",
           what, nn, added);
    printf("%s: the fleet core: every row live and listed in %.2f s (%zu of %zu)\n", what,
           all_listed, n_listed, nn);
    printf("%s: the fleet core: every context's %d runs in flight and their volumes in the model "
           "in %.2f s, CPU %.2f s (%zu of %zu) (target <= 5) %s\n",
           what, active, all, cpu, done, nn, bench_verdict(done == nn && all <= 5.0));
    printf("%s: the fleet core: peak RSS %.1f MB, %.1f MB over the process before the fleet: "
           "%.0f KB a context (target <= 512) %s\n",
           what, (double)hwm / 1024.0, (double)(hwm - base_kb) / 1024.0,
           (double)(hwm - base_kb) / (double)nn,
           bench_verdict(done == nn && (double)(hwm - base_kb) / (double)nn <= 512));
    printf("%s: the fleet core: descriptors up to %d (%d before the fleet; %.1f a context), soft "
           "limit raised to %ld\n",
           what, most, base_fds, (double)(most - base_fds) / (double)nn, limit);
    /* settled: the watches alone; what the heap holds then (in use) against what it took */
    int settled = fd_count(getpid());
    struct mallinfo2 mi = mallinfo2();
    long rss = bench_proc_status_kb(getpid(), "VmRSS");
    printf("%s: the fleet core settled: %d descriptors (%.1f a context), RSS %.1f MB (%.0f KB a "
           "context over the process before), malloc in use %.1f MB of %.1f MB taken\n",
           what, settled, (double)(settled - base_fds) / (double)nn, (double)rss / 1024.0,
           (double)(rss - base_kb) / (double)nn, (double)mi.uordblks / 1048576.0,
           (double)(mi.arena + mi.hblkhd) / 1048576.0);
    fleet_free(f);
    kc_loop_free(loop);
    curl_global_cleanup();
    for (size_t i = 0; i < nn; i++) free(names[i]);
    free(names);
    free(final);
    free(listed);
    free(s);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300, runs = argc > 2 ? atoi(argv[2]) : 200;
    int active = argc > 3 ? atoi(argv[3]) : 3, once_n = argc > 4 ? atoi(argv[4]) : 5;
    int screen_s = argc > 5 ? atoi(argv[5]) : 15;
    if (n < 1) n = 1;
    if (runs < 1) runs = 1;
    if (active < 0) active = 0;
    const char *every = getenv("BENCH_BACKUP_EVERY_S");
    if (every && atof(every) > 0) backup_every_s = atof(every);
    signal(SIGPIPE, SIG_IGN);
    char dir[] = "/tmp/veltop-bench-fleet300-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/kubeconfig", dir);
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return 1;
    pid_t child = fork();
    if (child == 0) {
        close(up[0]);
        close(down[1]);
        _exit(serve(n, runs, active, path, up[1], down[0]));
    }
    close(up[1]);
    close(down[0]);
    /* the usual soft limit (the hard one stays): what veltop starts with on most machines */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur =
        rl.rlim_max != RLIM_INFINITY && rl.rlim_max < START_SOFT_NOF ? rl.rlim_max : START_SOFT_NOF;
    setrlimit(RLIMIT_NOFILE, &rl);
    char ready[96] = "";
    struct pollfd pf = {.fd = up[0], .events = POLLIN};
    ssize_t r =
        poll(&pf, 1, (int)(READY_LIMIT_S * 1000)) == 1 ? read(up[0], ready, sizeof ready - 1) : -1;
    if (r <= 0 || strncmp(ready, "ready", 5)) {
        fprintf(stderr, "bench_fleet300: the sims did not start\n");
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        return 1;
    }
    double made_s = 0, ready_at = bench_now(); /* the runs in flight last moved about then */
    long sim_kb = 0;
    sscanf(ready + 6, "%lf %ld", &made_s, &sim_kb);
    char what[200];
    snprintf(what, sizeof what,
             "%d contexts x (%d runs + %d volumes, %d in flight, a run every %.0f s), loopback", n,
             runs + active, runs * vols_per_backup + active, active, backup_every_s);
    printf("%s: the sims made in %.1f s, their process %.0f MB, soft open-file limit %ld (hard "
           "%ld)\n",
           what, made_s, (double)sim_kb / 1024.0, (long)rl.rlim_cur, (long)rl.rlim_max);
    fflush(stdout);
    char *veltop = bench_veltop_path();
    const char *hold = getenv("BENCH_HOLD");
    if (hold && atoi(hold) > 0) { /* the sims alone for HOLD s, to time veltop from outside */
        printf("%s: kubeconfig %s, serving for %d s\n", what, path, atoi(hold));
        fflush(stdout);
        sleep((unsigned)atoi(hold));
        once_n = screen_s = 0;
        n = -n; /* below: no fleet core either */
    }

    /* the real --once, ONCE_N times */
    double *once = calloc((size_t)(once_n > 0 ? once_n : 1), sizeof *once);
    long rss_max = 0;
    int fds_max = 0, bad = 0;
    for (int k = 0; k < once_n; k++) {
        int code, fds;
        long rss;
        double cpu;
        once[k] = run_once(veltop, path, &code, &rss, &fds, &cpu);
        /* the controller is passive: the runs in flight never move, and 30 s (3 of the bytes'
         * 10 s intervals) after they last did they are stalled, which is wrong (7): the truth */
        printf("%s: veltop --once --all-contexts run %d: %.2f s (CPU %.2f s), exit %d, peak RSS "
               "%.1f MB, descriptors %d; ended %.0f s after the runs in flight last moved (%s)\n",
               what, k + 1, once[k], cpu, code, (double)rss / 1024.0, fds, bench_now() - ready_at,
               bench_now() - ready_at > 30 ? "stalled by then: 7 expected" : "0 expected");
        fflush(stdout);
        bad |= code != 0 && code != 7; /* 7: every context read, something wrong in one */
        if (rss > rss_max) rss_max = rss;
        if (fds > fds_max) fds_max = fds;
    }
    if (once_n > 0) {
        qsort(once, (size_t)once_n, sizeof *once, cmp_d);
        double med = once[once_n / 2];
        if (once_n % 2 == 0) med = (once[once_n / 2 - 1] + once[once_n / 2]) / 2;
        printf("%s: veltop --once --all-contexts: median %.2f s (%.2f-%.2f, %d runs) (target <= "
               "10) %s; peak RSS up to %.1f MB (%.0f KB a context); descriptors up to %d\n",
               what, med, once[0], once[once_n - 1], once_n, bench_verdict(!bad && med <= 10.0),
               (double)rss_max / 1024.0, (double)rss_max / n, fds_max);
    }

    /* the real fleet screen on a 120x40 pty */
    if (screen_s > 0) {
        char *targs[] = {veltop, "--kubeconfig", path, "--all-contexts", NULL};
        bench_pty p;
        if (!bench_pty_spawn(&p, targs, 40, 120)) {
            int most = 0;
            double s0 = bench_now();
            while (bench_now() - s0 < screen_s) {
                bench_pty_drain(&p, 100);
                int c = fd_count(p.pid);
                if (c > most) most = c;
            }
            int drawn = bench_pty_has(&p, "fleet of");
            long vhwm = bench_proc_status_kb(p.pid, "VmHWM");
            int now_fds = fd_count(p.pid);
            bench_pty_quit(&p, NULL);
            printf("%s: veltop's fleet screen (120x40)%s after %d s: peak RSS %.1f MB (%.0f KB a "
                   "context), descriptors up to %d (%d at the end)\n",
                   what, drawn ? "" : " NOT DRAWN", screen_s, (double)vhwm / 1024.0,
                   (double)vhwm / n, most, now_fds);
        }
    }

    /* the fleet core in this process, as the fleet screen runs it */
    if (n > 0) fleet_core(path, what, runs, active);

    free(once);
    free(veltop);
    close(down[1]); /* the child stops its sims */
    waitpid(child, NULL, 0);
    char *rm = xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "bench_fleet300: cannot remove %s\n", dir);
    free(rm);
    return 0;
}
