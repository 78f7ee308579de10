/* test_webcfg.c: --web-config's file (exporter-toolkit's web configuration): what is read, what
 * is refused with the key named, and basic auth against bcrypt hashes: right, wrong and unknown,
 * a verified pair remembered so bcrypt is paid once. */
#include <check.h>
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kubeclient/util.h"
#include "testutil.h"
#include "webcfg.h"

static char dir[] = "/tmp/test_webcfg.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void setup(void)
{
    strcpy(dir, "/tmp/test_webcfg.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static double ms_of(webcfg *w, const char *u, const char *p, int *ok)
{
    int64_t t0 = kc_now_ms();
    *ok = webcfg_check(w, u, p);
    return (double)(kc_now_ms() - t0);
}

START_TEST(users_are_checked_against_bcrypt_and_remembered)
{
    char salt[64];
    ck_assert_ptr_nonnull(crypt_gensalt_rn("$2b$", 10, NULL, 0, salt, sizeof salt));
    char *hash = xstrdup(crypt("s3cret pass", salt));
    ck_assert(!strncmp(hash, "$2b$10$", 7));
    write_file("cert.pem", "CERT\n");
    write_file("key.pem", "KEY\n");
    char yml[512];
    snprintf(yml, sizeof yml,
             "tls_server_config:\n  cert_file: cert.pem\n  key_file: %s/key.pem\n"
             "basic_auth_users:\n  prometheus: '%s'\n",
             dir, hash);
    char err[600];
    webcfg *w = webcfg_load(write_file("web.yml", yml), err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    ck_assert_str_eq(w->cert_pem, "CERT\n"); /* relative to the file's directory */
    ck_assert_str_eq(w->key_pem, "KEY\n");   /* or absolute */
    ck_assert_uint_eq(w->n_users, 1);
    int ok;
    ck_assert(ms_of(w, "prometheus", "wrong", &ok) >= 0 && !ok);
    ck_assert(ms_of(w, "nobody", "s3cret pass", &ok) >= 0 && !ok);
    ck_assert(ms_of(w, "prometheus", "s3cret pas", &ok) >= 0 && !ok);
    double first = ms_of(w, "prometheus", "s3cret pass", &ok);
    ck_assert(ok);
    double again = ms_of(w, "prometheus", "s3cret pass", &ok);
    ck_assert(ok);
    /* bcrypt at cost 10 takes tens of ms here; the remembered pair a hash and a compare */
    ck_assert_msg(first >= 5 && again <= 1, "first %.0f ms, again %.0f ms", first, again);
    ck_assert_uint_eq(w->n_ok, 1);
    /* a wrong password for a remembered user still costs a bcrypt and fails */
    ck_assert(ms_of(w, "prometheus", "s3cret pass ", &ok) >= 5 && !ok);
    webcfg_free(w);
    free(hash);
}
END_TEST

START_TEST(what_cannot_be_served_is_refused_naming_the_key)
{
    static const struct {
        const char *yml, *want;
    } cases[] = {
        {"tls_server_config:\n  cert_file: cert.pem\n",
         "tls_server_config needs both cert_file and key_file"},
        {"tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca.pem\n",
         "tls_server_config.client_ca_file is not supported"},
        {"basic_auth_users:\n  bob: plaintext\n", "basic_auth_users.bob: not a bcrypt hash"},
        {"tls_config: {}\n", "unknown key tls_config"},
        {"basic_auth_users: [a, b]\n", "basic_auth_users is not a mapping"},
        {"tls_server_config:\n  cert_file: missing.pem\n  key_file: k\n", "cert_file: cannot read"},
        {"a: [\n", "not YAML"},
        {"- a\n", "not a mapping of settings"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[600] = "";
        webcfg *w = webcfg_load(write_file("bad.yml", cases[i].yml), err, sizeof err);
        ck_assert_msg(w == NULL, "case %zu loaded", i);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "case %zu: %s", i, err);
        ck_assert(strstr(err, "--web-config ") == err);
    }
    /* settings veltop does not use and that change nothing it serves: accepted */
    char err[600] = "";
    webcfg *w = webcfg_load(
        write_file("ok.yml", "http_server_config:\n  http2: false\nrate_limit:\n  interval: 1s\n"),
        err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    ck_assert_ptr_null(w->cert_pem);
    ck_assert_uint_eq(w->n_users, 0);
    webcfg_free(w);
    /* an empty file: nothing asked */
    w = webcfg_load(write_file("empty.yml", ""), err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    webcfg_free(w);
    ck_assert_ptr_null(webcfg_load("/nonexistent/web.yml", err, sizeof err));
    ck_assert_str_eq(err, "--web-config /nonexistent/web.yml: cannot read the file");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("webcfg");
    TCase *tc = tcase_create("webcfg");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, users_are_checked_against_bcrypt_and_remembered);
    tcase_add_test(tc, what_cannot_be_served_is_refused_naming_the_key);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
