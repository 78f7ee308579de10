/* fdbudget.c: the open-file limit raised at start, restored for children, and spent per context
 * (fdbudget.h). */
#include "kubeclient/fdbudget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

/* Concurrent transfers of one context over HTTP/1.1: a watch per resource (app.h's twelve), the
 * Velero server's log stream, the liveness probe, a DownloadRequest and its download, and the
 * search for Velero's namespace. */
#define FD_H1_TRANSFERS 17
#define FD_H2_CONNS     3 /* the connection, its replacement while it drains, the resolver's */

static rlim_t fd_orig = 0; /* 0: not raised */

static long fd_clamp(rlim_t v)
{
    return v == RLIM_INFINITY || v > (rlim_t)0x7fffffff ? 0x7fffffff : (long)v;
}

long kc_fd_raise(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl)) return 1024;
    if (!fd_orig) fd_orig = rl.rlim_cur;
    rlim_t want = rl.rlim_max;
    if (want == RLIM_INFINITY) { /* the kernel's own ceiling */
        FILE *f = fopen("/proc/sys/fs/nr_open", "re");
        unsigned long v = 0;
        if (f) {
            if (fscanf(f, "%lu", &v) != 1) v = 0;
            fclose(f);
        }
        want = v ? (rlim_t)v : rl.rlim_cur;
    }
    if (want > rl.rlim_cur) {
        struct rlimit up = {want, rl.rlim_max};
        if (!setrlimit(RLIMIT_NOFILE, &up)) rl.rlim_cur = want;
    }
    return fd_clamp(rl.rlim_cur);
}

long kc_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl)) return 1024;
    return fd_clamp(rl.rlim_cur);
}

long kc_fd_original(void)
{
    return fd_orig ? fd_clamp(fd_orig) : kc_fd_limit();
}

static rlim_t fd_raised = 0;

void kc_fd_child_begin(void)
{
    struct rlimit rl;
    fd_raised = 0;
    if (!fd_orig || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == fd_orig) return;
    fd_raised = rl.rlim_cur;
    rl.rlim_cur = fd_orig;
    if (setrlimit(RLIMIT_NOFILE, &rl)) fd_raised = 0;
}

void kc_fd_child_end(void)
{
    struct rlimit rl;
    if (!fd_raised || getrlimit(RLIMIT_NOFILE, &rl)) return;
    rl.rlim_cur = fd_raised;
    setrlimit(RLIMIT_NOFILE, &rl);
    fd_raised = 0;
}

void kc_fd_child_restore(void)
{
    struct rlimit rl;
    if (!fd_orig || getrlimit(RLIMIT_NOFILE, &rl)) return;
    rl.rlim_cur = fd_orig;
    setrlimit(RLIMIT_NOFILE, &rl);
}

int kc_fd_exhausted(int err)
{
    return err == EMFILE || err == ENFILE;
}

unsigned kc_fd_context_cost(const char *server)
{
    return server && !strncasecmp(server, "https://", 8) ? FD_H2_CONNS : FD_H1_TRANSFERS;
}

unsigned kc_fd_serve_conns(long limit)
{
    /* a quarter of what is left after the reserve, between 16 and 1024: 240 at 1024 */
    long v = (limit - KC_FD_RESERVE) / 4;
    return v < 16 ? 16 : v > 1024 ? 1024 : (unsigned)v;
}

size_t kc_fd_contexts_fit(long limit, unsigned serve_conns, const unsigned *cost, size_t n)
{
    long left = limit - KC_FD_RESERVE - (long)serve_conns;
    size_t k = 0;
    while (k < n && left >= (long)cost[k]) left -= cost[k++];
    return k;
}
