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

int main(void)
{
    Suite *s = suite_create("liveness");
    TCase *tc = tcase_create("liveness");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, answering_server_is_never_silent);
    tcase_add_test(tc, hung_server_is_silent_after_the_threshold);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
