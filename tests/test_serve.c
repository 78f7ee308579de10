/* test_serve.c: --serve's address: HOST:PORT, [V6]:PORT, a bare port on loopback (never every
 * interface unless asked), :PORT on every interface, and the messages of what is not one. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <string.h>

#include "serve.h"
#include "testutil.h"

static void v4(const struct sockaddr_storage *ss, const char *ip, int port)
{
    ck_assert_int_eq(ss->ss_family, AF_INET);
    const struct sockaddr_in *sa = (const struct sockaddr_in *)ss;
    char b[64];
    inet_ntop(AF_INET, &sa->sin_addr, b, sizeof b);
    ck_assert_str_eq(b, ip);
    ck_assert_int_eq(ntohs(sa->sin_port), port);
}

START_TEST(host_and_port)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256] = "";
    ck_assert_int_eq(serve_parse_addr("127.0.0.1:9368", &ss, &len, err, sizeof err), 0);
    v4(&ss, "127.0.0.1", 9368);
    ck_assert_int_eq(len, sizeof(struct sockaddr_in));
    /* a bare port: loopback */
    ck_assert_int_eq(serve_parse_addr("9368", &ss, &len, err, sizeof err), 0);
    v4(&ss, "127.0.0.1", 9368);
    ck_assert_int_eq(serve_parse_addr("0.0.0.0:0", &ss, &len, err, sizeof err), 0);
    v4(&ss, "0.0.0.0", 0);
}
END_TEST

START_TEST(every_interface_only_when_asked)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256] = "";
    ck_assert_int_eq(serve_parse_addr(":9368", &ss, &len, err, sizeof err), 0);
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *sa = (const struct sockaddr_in6 *)&ss;
        ck_assert(IN6_IS_ADDR_UNSPECIFIED(&sa->sin6_addr));
        ck_assert_int_eq(ntohs(sa->sin6_port), 9368);
    } else {
        v4(&ss, "0.0.0.0", 9368);
    }
    ck_assert_int_eq(serve_parse_addr("[::1]:80", &ss, &len, err, sizeof err), 0);
    ck_assert_int_eq(ss.ss_family, AF_INET6);
    const struct sockaddr_in6 *sa = (const struct sockaddr_in6 *)&ss;
    ck_assert(IN6_IS_ADDR_LOOPBACK(&sa->sin6_addr));
    ck_assert_int_eq(ntohs(sa->sin6_port), 80);
}
END_TEST

START_TEST(what_is_not_an_address)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256];
    static const struct {
        const char *addr, *msg;
    } bad[] = {
        {"", "invalid --serve port in '' (0-65535)"},
        {"127.0.0.1:", "invalid --serve port in '127.0.0.1:' (0-65535)"},
        {"127.0.0.1:65536", "invalid --serve port in '127.0.0.1:65536' (0-65535)"},
        {"127.0.0.1:-1", "invalid --serve port in '127.0.0.1:-1' (0-65535)"},
        {"localhost:http", "invalid --serve port in 'localhost:http' (0-65535)"},
        {"[::1:80", "invalid --serve address '[::1:80' (HOST:PORT, [V6]:PORT or :PORT)"},
        {"[]:80", "invalid --serve address '[]:80' (HOST:PORT, [V6]:PORT or :PORT)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_int_eq(serve_parse_addr(bad[i].addr, &ss, &len, err, sizeof err), -1);
        ck_assert_str_eq(err, bad[i].msg);
    }
    ck_assert_int_eq(serve_parse_addr("no.such.host.invalid:80", &ss, &len, err, sizeof err), -1);
    ck_assert_msg(!strncmp(err, "cannot resolve --serve host 'no.such.host.invalid': ", 52), "%s",
                  err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("serve");
    TCase *tc = tcase_create("serve");
    tcase_add_test(tc, host_and_port);
    tcase_add_test(tc, every_interface_only_when_asked);
    tcase_add_test(tc, what_is_not_an_address);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
