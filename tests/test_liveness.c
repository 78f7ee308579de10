/* test_liveness.c: the liveness probe (liveness.h): against a server that answers, it costs a
 * probe only when nothing else was heard and never reports silence; against one that accepts
 * connections but never answers (as a SIGSTOPped apiserver: the kernel still completes the TCP
 * handshake), it reports silence after silent_ms and keeps one probe at a time. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kubeclient/kubeconfig.h"
#include "kubeclient/liveness.h"
#include "testutil.h"
#include "vsim.h"

static int never(void *arg)
{
    (void)arg;
    return 0;
}

static kc_client *client_for(kc_loop *loop, const char *server)
{
    kc_rest_config cfg = {.server = (char *)server};
    kc_err err;
    kc_client *c = kc_client_new(loop, &cfg, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    return c;
}

START_TEST(answering_server_is_never_silent)
{
    tu_sim env;
    tu_sim_start(&env, (vsim_opts){.scenario = "empty"});
    kc_loop *loop = kc_loop_new();
    kc_client *c = client_for(loop, vsim_url(env.sim));
    kc_liveness_opts lo = {.interval_ms = 200, .silent_ms = 600};
    kc_liveness *l = kc_liveness_new(c, &lo);
    for (int i = 0; i < 6; i++) {
        kc_loop_run_until(loop, never, NULL, 250);
        ck_assert_int_eq(kc_liveness_silent_ms(l, kc_now_ms()), 0);
    }
    /* 1.5 s, nothing else asked: a probe every 200-400 ms */
    ck_assert_uint_ge(kc_liveness_probes(l), 3);
    ck_assert_uint_le(kc_liveness_probes(l), 8);
    ck_assert_int_gt(kc_client_last_heard(c), 0);
    kc_liveness_free(l);
    kc_client_free(c);
    kc_loop_free(loop);
    tu_sim_stop(&env);
}
END_TEST

START_TEST(hung_server_is_silent_after_the_threshold)
{
    /* listens, never accepts, never answers */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(s, 16), 0);
    socklen_t len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    char *url = xasprintf("http://127.0.0.1:%d", ntohs(a.sin_port));
    kc_loop *loop = kc_loop_new();
    kc_client *c = client_for(loop, url);
    kc_liveness_opts lo = {.interval_ms = 200, .silent_ms = 600};
    kc_liveness *l = kc_liveness_new(c, &lo);
    kc_loop_run_until(loop, never, NULL, 400);
    ck_assert_int_eq(kc_liveness_silent_ms(l, kc_now_ms()), 0);
    kc_loop_run_until(loop, never, NULL, 700);
    int64_t silent = kc_liveness_silent_ms(l, kc_now_ms());
    ck_assert_msg(silent >= 600 && silent < 1500, "silent %lld", (long long)silent);
    /* one probe at a time, each given 2 x 200 ms: at most 3 in 1.1 s */
    ck_assert_uint_ge(kc_liveness_probes(l), 1);
    ck_assert_uint_le(kc_liveness_probes(l), 3);
    ck_assert_int_eq(kc_client_last_heard(c), 0);
    kc_liveness_free(l);
    kc_client_free(c);
    kc_loop_free(loop);
    close(s);
    free(url);
}
END_TEST

static int count_back(void *arg)
{
    return *(int *)arg > 0;
}

static void on_back(void *arg)
{
    (*(int *)arg)++;
}

START_TEST(refused_server_is_probed_often_and_its_return_is_told_once)
{
    /* a port that refuses: a sim's, stopped */
    tu_sim env;
    tu_sim_start(&env, (vsim_opts){.scenario = "empty"});
    int port = vsim_port(env.sim);
    char *url = xstrdup(vsim_url(env.sim));
    vsim_stop(env.sim);
    env.sim = NULL;
    kc_loop *loop = kc_loop_new();
    kc_client *c = client_for(loop, url);
    int back = 0;
    kc_liveness_opts lo = {
        .interval_ms = 400, .silent_ms = 800, .down_ms = 100, .on_back = on_back, .arg = &back};
    kc_liveness *l = kc_liveness_new(c, &lo);
    kc_loop_run_until(loop, never, NULL, 1000);
    /* the first at 400 ms, then one every 100 ms or so: refused at once, each */
    unsigned long down = kc_liveness_probes(l);
    ck_assert_msg(down >= 4 && down <= 7, "%lu probes in 1 s", down);
    ck_assert_int_eq(back, 0);
    ck_assert_int_gt(kc_liveness_silent_ms(l, kc_now_ms()), 0);

    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    char err[256] = "";
    env.sim = vsim_start(&(vsim_opts){.scenario = "empty", .listen = listen, .quiet = 1}, err,
                         sizeof err);
    ck_assert_msg(env.sim != NULL, "vsim_start again: %s", err);
    int64_t t0 = kc_now_ms();
    kc_loop_run_until(loop, count_back, &back, 2000);
    int64_t took = kc_now_ms() - t0;
    ck_assert_int_eq(back, 1);
    ck_assert_msg(took < 400, "told %lld ms after the server came back", (long long)took);
    ck_assert_int_eq(kc_liveness_silent_ms(l, kc_now_ms()), 0);
    /* answered again and again: told once; back to a probe per interval or two (the tick is
     * every interval, a probe goes when nothing was heard for one: 1 to 4 in 1.3 s, where the
     * down rate would send about 13) */
    unsigned long before = kc_liveness_probes(l);
    kc_loop_run_until(loop, never, NULL, 1300);
    ck_assert_int_eq(back, 1);
    unsigned long up = kc_liveness_probes(l) - before;
    ck_assert_msg(up >= 1 && up <= 4, "%lu probes in 1.3 s", up);
    kc_liveness_free(l);
    kc_client_free(c);
    kc_loop_free(loop);
    free(url);
    tu_sim_stop(&env);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("liveness");
    TCase *tc = tcase_create("liveness");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, answering_server_is_never_silent);
    tcase_add_test(tc, hung_server_is_silent_after_the_threshold);
    tcase_add_test(tc, refused_server_is_probed_often_and_its_return_is_told_once);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
