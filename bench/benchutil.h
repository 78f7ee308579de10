/* benchutil.h: helpers shared by the benchmarks (header-only, each bench is one executable): the
 * real veltop run on a pseudo-terminal we own, the byte stream read from its master side, its CPU
 * and memory from /proc, an in-process veltop-sim with its kubeconfig, and percentiles. */
#pragma once
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "simstore.h"
#include "vsim.h"

/* ---- clocks ---- */

static inline double bench_now(void) /* monotonic, seconds */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the veltop binary ---- */

/* VELTOP from the environment, else "veltop" beside this benchmark's executable. */
static inline char *bench_veltop_path(void)
{
    const char *env = getenv("VELTOP");
    if (env && *env) return xstrdup(env);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return xstrdup("./veltop");
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    return xasprintf("%s/veltop", self);
}

/* ---- a program on a pty ---- */

typedef struct bench_pty {
    pid_t pid;
    int fd;         /* master side */
    double started; /* bench_now() just before fork */
    size_t total;   /* bytes read from the master so far */
    char *win;      /* the last bytes read (a search window), NUL-terminated */
    size_t win_len, win_cap;
    int eof;
} bench_pty;

/* Runs argv[0] on a new pty of rows x cols with TERM=xterm-256color. Returns 0 or -1. */
static inline int bench_pty_spawn(bench_pty *p, char *const argv[], int rows, int cols)
{
    memset(p, 0, sizeof *p);
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    p->win_cap = 1 << 20;
    p->win = xmalloc(p->win_cap + 1);
    p->win[0] = 0;
    p->started = bench_now();
    p->pid = forkpty(&p->fd, NULL, NULL, &ws);
    if (p->pid < 0) return -1;
    if (p->pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("LANG", "C.UTF-8", 1);
        setenv("LC_ALL", "C.UTF-8", 1);
        unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

/* Reads what is there, waiting up to timeout_ms for the first byte. Keeps the last bytes in the
 * search window (the older half is dropped when it is full). Returns bytes read, -1 at EOF. */
static inline long bench_pty_read(bench_pty *p, int timeout_ms)
{
    if (p->eof) return -1;
    struct pollfd pf = {.fd = p->fd, .events = POLLIN};
    int r = poll(&pf, 1, timeout_ms < 0 ? 0 : timeout_ms);
    if (r <= 0) return 0;
    long got = 0;
    for (;;) {
        char buf[65536];
        ssize_t n = read(p->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n <= 0) { /* EIO: the child closed the slave side */
            p->eof = 1;
            return got ? got : -1;
        }
        if (p->win_len + (size_t)n > p->win_cap) {
            size_t keep = p->win_cap / 2 < p->win_len ? p->win_cap / 2 : p->win_len;
            if ((size_t)n > p->win_cap - keep) keep = 0;
            memmove(p->win, p->win + p->win_len - keep, keep);
            p->win_len = keep;
        }
        size_t take = (size_t)n > p->win_cap ? p->win_cap : (size_t)n;
        memcpy(p->win + p->win_len, buf + n - take, take);
        p->win_len += take;
        p->win[p->win_len] = 0;
        p->total += (size_t)n;
        got += n;
    }
    return got;
}

/* Forgets the search window (the next search looks only at bytes read from now on). */
static inline void bench_pty_mark(bench_pty *p)
{
    p->win_len = 0;
    p->win[0] = 0;
}

static inline int bench_pty_has(const bench_pty *p, const char *needle)
{
    return memmem(p->win, p->win_len, needle, strlen(needle)) != NULL;
}

/* Reads until needle shows up in the window (1, with *when = bench_now() at the read that
 * completed it) or timeout_ms passes (0) or the program ends (-1). */
static inline int bench_pty_wait_for(bench_pty *p, const char *needle, int timeout_ms, double *when)
{
    double deadline = bench_now() + timeout_ms / 1000.0;
    for (;;) {
        if (bench_pty_has(p, needle)) {
            if (when) *when = bench_now();
            return 1;
        }
        double left = deadline - bench_now();
        if (left <= 0) return 0;
        long n = bench_pty_read(p, (int)(left * 1000) + 1);
        if (n < 0) return bench_pty_has(p, needle) ? 1 : -1;
        if (n > 0 && when) *when = bench_now();
        if (n > 0 && bench_pty_has(p, needle)) return 1;
    }
}

/* Reads (and keeps counting) everything the program writes for ms milliseconds. */
static inline void bench_pty_drain(bench_pty *p, int ms)
{
    double deadline = bench_now() + ms / 1000.0;
    for (;;) {
        double left = deadline - bench_now();
        if (left <= 0) return;
        if (bench_pty_read(p, (int)(left * 1000) + 1) < 0) return;
    }
}

/* Sends `q`, reads until the program exits (SIGTERM after 5 s, SIGKILL after 8 s) and reaps it.
 * Returns its wait status; *ru gets its resource usage (ru_maxrss = peak RSS in KiB). */
static inline int bench_pty_quit(bench_pty *p, struct rusage *ru)
{
    if (write(p->fd, "q", 1) != 1) { /* nothing to do: the program is gone, reaped below */
    }
    double t0 = bench_now();
    int status = 0, sent = 0;
    struct rusage tmp;
    if (!ru) ru = &tmp;
    for (;;) {
        pid_t w = wait4(p->pid, &status, WNOHANG, ru);
        if (w == p->pid) break;
        double el = bench_now() - t0;
        if (el > 5 && sent == 0) kill(p->pid, SIGTERM), sent = 1;
        if (el > 8 && sent == 1) kill(p->pid, SIGKILL), sent = 2;
        if (bench_pty_read(p, 50) < 0) {
            wait4(p->pid, &status, 0, ru);
            break;
        }
    }
    close(p->fd);
    free(p->win);
    p->win = NULL;
    return status;
}

/* ---- /proc ---- */

/* utime + stime of pid in seconds, -1 on error. */
static inline double bench_proc_cpu(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return -1;
    unsigned long long ut = 0, st = 0;
    /* after ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14)
     * stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* A "Key:   N kB" line of /proc/PID/status in KiB, -1 when absent. */
static inline long bench_proc_status_kb(pid_t pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = strtol(line + kl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* ---- the in-process sim ---- */

typedef struct bench_sim {
    vsim *sim;
    char dir[64];         /* a temporary directory for the kubeconfig and kubectl's cache */
    char kubeconfig[128]; /* dir/kubeconfig */
} bench_sim;

/* Starts the sim with opts (e.g. the emulated link of bench_wan); scenario and quiet are set. */
static inline int bench_sim_start_opts(bench_sim *b, const char *scenario, vsim_opts o)
{
    memset(b, 0, sizeof *b);
    char err[512] = "";
    o.scenario = scenario;
    o.quiet = 1;
    b->sim = vsim_start(&o, err, sizeof err);
    if (!b->sim) {
        fprintf(stderr, "bench: cannot start the sim: %s\n", err);
        return -1;
    }
    snprintf(b->dir, sizeof b->dir, "/tmp/veltop-bench-XXXXXX");
    if (!mkdtemp(b->dir)) return -1;
    snprintf(b->kubeconfig, sizeof b->kubeconfig, "%s/kubeconfig", b->dir);
    char *kc = vsim_kubeconfig(b->sim);
    FILE *f = fopen(b->kubeconfig, "w");
    if (!f) {
        free(kc);
        return -1;
    }
    fputs(kc, f);
    fclose(f);
    free(kc);
    return 0;
}

/* A merge patch of velero/plural/name in the sim's store, as a controller writes it; who names
 * the bench in the message when it fails. */
static inline void bench_patch(bench_sim *bs, const char *who, const char *plural, const char *name,
                               const char *json)
{
    cJSON *pt = cJSON_Parse(json);
    int status = 0;
    char *msg = NULL;
    cJSON *r = simstore_merge_patch(vsim_store(bs->sim), plural, "velero", name, pt, &status, &msg);
    if (!r) fprintf(stderr, "%s: patch %s/%s: %d %s\n", who, plural, name, status, msg);
    cJSON_Delete(r);
    cJSON_Delete(pt);
    free(msg);
}

static inline int bench_sim_start(bench_sim *b, const char *scenario)
{
    return bench_sim_start_opts(b, scenario, (vsim_opts){0});
}

static inline void bench_sim_stop(bench_sim *b)
{
    vsim_stop(b->sim);
    b->sim = NULL;
    if (b->dir[0]) {
        char *cmd = xasprintf("rm -rf '%s'", b->dir);
        if (system(cmd) != 0) fprintf(stderr, "bench: cannot remove %s\n", b->dir);
        free(cmd);
    }
}

/* Creates an object from JSON text in the sim's store (no HTTP: fast population). */
static inline int bench_sim_create(bench_sim *b, const char *plural, const char *ns,
                                   const char *json)
{
    cJSON *o = cJSON_Parse(json);
    if (!o) return -1;
    int status = 0;
    char *msg = NULL;
    cJSON *r = simstore_create(vsim_store(b->sim), plural, ns, o, &status, &msg);
    if (!r) {
        fprintf(stderr, "bench: create %s: %d %s\n", plural, status, msg ? msg : "");
        free(msg);
        return -1;
    }
    cJSON_Delete(r);
    free(msg);
    return 0;
}

/* Runs kubectl get RESOURCE (one or more, comma-separated) -n velero -o json > /dev/null against
 * the sim with a fresh cache directory; returns the wall seconds (-1 when kubectl is missing or
 * fails). With maxrss_kb, *maxrss_kb gets its peak RSS through GNU time when installed (wait4's
 * figure for a child forked from this big process would count the pages it had before exec),
 * else -1. */
static inline double bench_kubectl_get(bench_sim *bs, const char *resource, long *maxrss_kb)
{
    char cache[256], rssfile[256];
    snprintf(cache, sizeof cache, "%s/cache-%s", bs->dir, resource);
    snprintf(rssfile, sizeof rssfile, "%s/rss-%s", bs->dir, resource);
    int have_time = maxrss_kb && access("/usr/bin/time", X_OK) == 0;
    if (maxrss_kb) *maxrss_kb = -1;
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setenv("KUBECONFIG", bs->kubeconfig, 1);
        setenv("KUBECACHEDIR", cache, 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1), dup2(null, 2);
        if (have_time)
            execl("/usr/bin/time", "time", "-f", "%M", "-o", rssfile, "kubectl", "get", resource,
                  "-n", "velero", "-o", "json", (char *)NULL);
        else
            execlp("kubectl", "kubectl", "get", resource, "-n", "velero", "-o", "json",
                   (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    double el = bench_now() - t0;
    FILE *f = have_time ? fopen(rssfile, "r") : NULL;
    if (f) {
        if (fscanf(f, "%ld", maxrss_kb) != 1) *maxrss_kb = -1;
        fclose(f);
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? el : -1;
}

/* ---- figures ---- */

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of v[0..n) (sorts v). */
static inline double bench_percentile(double *v, size_t n, double pct)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    size_t rank = (size_t)(pct / 100.0 * (double)n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}

/* "PASS"/"MISS" beside a figure and its target. */
static inline const char *bench_verdict(int ok)
{
    return ok ? "ok" : "MISSED";
}
