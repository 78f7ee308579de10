/* test_fdbudget.c: the open-file limit as a budget: raised to the hard limit at start and given
 * back to children as it was, what a context costs over HTTP/2 and HTTP/1.1, how many contexts fit,
 * and running out of descriptors reported as the limit, not as an unreachable server. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kubeclient/caps.h"
#include "kubeclient/client.h"
#include "kubeclient/fdbudget.h"
#include "kubeclient/util.h"
#include "testutil.h"

extern char **environ;

/* Starts veltop's soft limit at soft (the hard one unchanged); 0 when the hard one is lower. */
static int start_at(rlim_t soft)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= soft) return 0;
    rl.rlim_cur = soft;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    return 1;
}

/* What `sh -c 'ulimit -Sn'` says when started with posix_spawn between child_begin and _end. */
static long spawned_limit(void)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    char *argv[] = {"sh", "-c", "ulimit -Sn", NULL};
    pid_t pid;
    kc_fd_child_begin();
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    kc_fd_child_end();
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    ck_assert_int_eq(rc, 0);
    char buf[64] = "";
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    waitpid(pid, NULL, 0);
    return n > 0 ? atol(buf) : -1;
}

START_TEST(the_soft_limit_is_raised_and_children_get_the_original)
{
    if (!start_at(256)) return; /* a hard limit of 256 or less: nothing to raise */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    long hard = rl.rlim_max == RLIM_INFINITY ? -1 : (long)rl.rlim_max;
    long now = kc_fd_raise();
    if (hard > 0) ck_assert_int_eq(now, hard);
    ck_assert_int_gt(now, 256);
    ck_assert_int_eq(kc_fd_limit(), now);
    ck_assert_int_eq(kc_fd_original(), 256);
    /* a program started with posix_spawn (the exec plugins) gets 256, and veltop keeps its own */
    ck_assert_int_eq(spawned_limit(), 256);
    ck_assert_int_eq(kc_fd_limit(), now);
    /* a forked child (--notify) puts it back itself */
    pid_t pid = fork();
    if (pid == 0) {
        kc_fd_child_restore();
        _exit(kc_fd_limit() == 256 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

START_TEST(what_a_context_costs_and_how_many_fit)
{
    /* HTTP/2 over TLS: every list and watch on one connection; plain http: one per watch */
    ck_assert_uint_eq(kc_fd_context_cost("https://10.0.0.1:6443"), 3);
    ck_assert_uint_eq(kc_fd_context_cost("HTTPS://api.example.com"), 3);
    ck_assert_uint_eq(kc_fd_context_cost("http://127.0.0.1:8001"), 17);
    /* --serve: a quarter of what the reserve leaves, between 16 and 1024 */
    ck_assert_uint_eq(kc_fd_serve_conns(1024), 240);
    ck_assert_uint_eq(kc_fd_serve_conns(64), 16);
    ck_assert_uint_eq(kc_fd_serve_conns(524288), 1024);
    unsigned cost[100];
    for (int i = 0; i < 100; i++) cost[i] = 16;
    /* 1024 - 64 reserve = 960 = 60 plain-http contexts; with --serve's 240 kept, 45 */
    ck_assert_uint_eq(kc_fd_contexts_fit(1024, 0, cost, 100), 60);
    ck_assert_uint_eq(kc_fd_contexts_fit(1024, 240, cost, 100), 45);
    ck_assert_uint_eq(kc_fd_contexts_fit(1024, 0, cost, 10), 10);
    ck_assert_uint_eq(kc_fd_contexts_fit(40, 0, cost, 10), 0);
    /* in order: a cheap one after an expensive one that does not fit is not watched either */
    unsigned mixed[] = {3, 16, 3};
    ck_assert_uint_eq(kc_fd_contexts_fit(64 + 3 + 15, 0, mixed, 3), 1);
    ck_assert_uint_eq(kc_fd_contexts_fit(64 + 22, 0, mixed, 3), 3);
    ck_assert(kc_fd_exhausted(EMFILE) && kc_fd_exhausted(ENFILE) && !kc_fd_exhausted(ECONNREFUSED));
}
END_TEST

typedef struct {
    int done;
    kc_err err;
} result;

static void on_done(void *arg, const kc_response *resp, const kc_err *err)
{
    (void)resp;
    result *r = arg;
    r->done = 1;
    r->err = *err;
}

static int is_done(void *arg)
{
    return ((result *)arg)->done;
}

START_TEST(out_of_descriptors_is_the_limit_not_an_unreachable_server)
{
    /* a listening server: the connection would be accepted if a socket could be had */
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(ls, 4), 0);
    getsockname(ls, (struct sockaddr *)&sa, &sl);
    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", ntohs(sa.sin_port));
    kc_loop *loop = kc_loop_new();
    kc_rest_config cfg = {.server = server, .user = "alice", .context = "test"};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_ptr_nonnull(c);
    /* every descriptor taken */
    start_at(128);
    int held[256], n = 0;
    while (n < 256 && (held[n] = dup(0)) >= 0) n++;
    ck_assert_int_lt(n, 256);
    result r = {0};
    kc_request_opts o = {.path = "/apis/velero.io/v1/namespaces/velero/backups"};
    kc_client_request(c, &o, NULL, on_done, &r);
    ck_assert(kc_loop_run_until(loop, is_done, &r, 10000));
    for (int i = 0; i < n; i++) close(held[i]);
    ck_assert_int_eq(r.err.code, KC_ERR_NOFILE);
    char want[256];
    snprintf(want, sizeof want,
             "open-file limit 128 reached: cannot open a connection to %s; raise it with ulimit -n",
             server);
    ck_assert_str_eq(r.err.msg, want);
    kc_client_free(c);
    kc_loop_free(loop);
    close(ls);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fdbudget");
    TCase *tc = tcase_create("fdbudget");
    /* not under valgrind: it keeps RLIMIT_NOFILE to itself (its own descriptors above the
     * client's), so the children it starts get its limit, not the one the program set; the
     * ASan run checks it */
    if (!getenv("VELTOP_UNDER_VALGRIND"))
        tcase_add_test(tc, the_soft_limit_is_raised_and_children_get_the_original);
    tcase_add_test(tc, what_a_context_costs_and_how_many_fit);
    tcase_add_test(tc, out_of_descriptors_is_the_limit_not_an_unreachable_server);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
