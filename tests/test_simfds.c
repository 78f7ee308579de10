/* test_simfds.c: the sim serves when its descriptors are numbered past 1024 (FD_SETSIZE), as in
 * a process serving hundreds of contexts (bench_fleet300): libmicrohttpd's default select()
 * loop cannot take such a descriptor, its poll() loop can. */
#include <check.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "vsim.h"
#include "testutil.h"

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    kc_buf_append(ud, p, sz * n);
    return sz * n;
}

static long get(const char *url, kc_buf *out)
{
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    return code;
}

START_TEST(serves_on_descriptors_past_fd_setsize)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rlim_t want = FD_SETSIZE + 200;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
        /* nothing to show under this hard limit: the sim never gets such a descriptor */
        fprintf(stderr, "test_simfds: hard open-file limit %ld < %ld, not tested\n",
                (long)rl.rlim_max, (long)want);
        return;
    }
    if (rl.rlim_cur < want) {
        rl.rlim_cur = want;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    /* take every descriptor below FD_SETSIZE + 8: the sim's sockets come after them */
    int *held = calloc(FD_SETSIZE + 8, sizeof *held);
    size_t n = 0;
    for (;;) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        held[n++] = fd;
        if (fd >= FD_SETSIZE + 8) break;
    }
    char err[512] = "";
    vsim_opts o = {.scenario = "empty", .quiet = 1};
    vsim *sim = vsim_start(&o, err, sizeof err);
    ck_assert_msg(sim != NULL, "the sim did not start: %s", err);
    char url[256];
    kc_buf out = {0};
    snprintf(url, sizeof url, "%s/apis/velero.io/v1/namespaces/velero/backups", vsim_url(sim));
    ck_assert_int_eq(get(url, &out), 200);
    ck_assert_ptr_nonnull(strstr(kc_buf_cstr(&out), "\"kind\":\"BackupList\""));
    kc_buf_free(&out);
    vsim_stop(sim);
    while (n) close(held[--n]);
    free(held);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    Suite *s = suite_create("simfds");
    TCase *tc = tcase_create("simfds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, serves_on_descriptors_past_fd_setsize);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    curl_global_cleanup();
    return rc;
}
