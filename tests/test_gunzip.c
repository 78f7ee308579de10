/* test_gunzip.c: the streaming gzip decoder gives the same bytes for any split of its input, passes
 * plain text through, and reports corrupt and truncated streams clearly. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kubeclient/caps.h"
#include "kubeclient/gunzip.h"
#include "testutil.h"

static void collect(void *arg, const char *d, size_t n)
{
    kc_buf_append(arg, d, n);
}

/* gzip-compresses src (a real gzip member, as Velero writes its artifacts). */
static unsigned char *gz(const char *src, size_t n, size_t *outlen)
{
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)src;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *outlen = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static char *sample_log(size_t *n)
{
    kc_buf b = {0};
    for (int i = 0; i < 200; i++)
        kc_buf_printf(&b,
                      "time=\"2024-06-03T01:25:%02dZ\" level=info msg=\"Processing item\" "
                      "backup=velero/b1 name=item-%d resource=pods\n",
                      i % 60, i);
    *n = b.len;
    return kc_buf_cstr(&b);
}

START_TEST(split_at_every_byte_boundary)
{
    size_t n, zn;
    char *text = sample_log(&n);
    unsigned char *z = gz(text, n, &zn);
    for (size_t cut = 0; cut <= zn; cut++) {
        kc_buf out = {0};
        kc_err err = {0};
        kc_gunzip *g = kc_gunzip_new(0, collect, &out);
        ck_assert_int_eq(kc_gunzip_feed(g, z, cut, &err), 0);
        ck_assert_int_eq(kc_gunzip_feed(g, z + cut, zn - cut, &err), 0);
        ck_assert_int_eq(kc_gunzip_finish(g, &err), 0);
        ck_assert_int_eq(kc_gunzip_is_gzip(g), 1);
        ck_assert_uint_eq(kc_gunzip_in_bytes(g), zn);
        ck_assert_uint_eq(out.len, n);
        ck_assert_mem_eq(out.data, text, n);
        kc_gunzip_free(g);
        kc_buf_free(&out);
    }
    /* and one byte at a time */
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, collect, &out);
    for (size_t i = 0; i < zn; i++) ck_assert_int_eq(kc_gunzip_feed(g, z + i, 1, &err), 0);
    ck_assert_int_eq(kc_gunzip_finish(g, &err), 0);
    ck_assert_uint_eq(out.len, n);
    ck_assert_mem_eq(out.data, text, n);
    kc_gunzip_free(g);
    kc_buf_free(&out);
    free(z);
    free(text);
}
END_TEST

START_TEST(concatenated_members_decode_in_order)
{
    size_t a, b;
    unsigned char *za = gz("first\n", 6, &a), *zb = gz("second\n", 7, &b);
    unsigned char *both = malloc(a + b);
    memcpy(both, za, a);
    memcpy(both + a, zb, b);
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, collect, &out);
    ck_assert_int_eq(kc_gunzip_feed(g, both, a + b, &err), 0);
    ck_assert_int_eq(kc_gunzip_finish(g, &err), 0);
    ck_assert_str_eq(kc_buf_cstr(&out), "first\nsecond\n");
    kc_gunzip_free(g);
    kc_buf_free(&out);
    free(za);
    free(zb);
    free(both);
}
END_TEST

START_TEST(plain_text_passes_through)
{
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, collect, &out);
    ck_assert_int_eq(kc_gunzip_feed(g, "l", 1, &err), 0);
    ck_assert_int_eq(kc_gunzip_is_gzip(g), -1);
    ck_assert_int_eq(kc_gunzip_feed(g, "evel=info msg=hi\n", 17, &err), 0);
    ck_assert_int_eq(kc_gunzip_finish(g, &err), 0);
    ck_assert_int_eq(kc_gunzip_is_gzip(g), 0);
    ck_assert_str_eq(kc_buf_cstr(&out), "level=info msg=hi\n");
    kc_gunzip_free(g);
    kc_buf_free(&out);
    /* a one-byte body */
    kc_buf one = {0};
    g = kc_gunzip_new(0, collect, &one);
    ck_assert_int_eq(kc_gunzip_feed(g, "x", 1, &err), 0);
    ck_assert_int_eq(kc_gunzip_finish(g, &err), 0);
    ck_assert_str_eq(kc_buf_cstr(&one), "x");
    kc_gunzip_free(g);
    kc_buf_free(&one);
    kc_gunzip_free(NULL);
}
END_TEST

START_TEST(corrupt_gzip_gives_a_clear_error)
{
    size_t n, zn;
    char *text = sample_log(&n);
    unsigned char *z = gz(text, n, &zn);
    z[20] ^= 0xff;
    z[21] ^= 0x55;
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, collect, &out);
    int rc = kc_gunzip_feed(g, z, zn, &err);
    if (rc == 0) rc = kc_gunzip_finish(g, &err);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(!strncmp(err.msg, "corrupt gzip data: ", 19), "message: %s", err.msg);
    ck_assert_int_eq(kc_gunzip_feed(g, "x", 1, &err), -1);
    kc_gunzip_free(g);
    kc_buf_free(&out);
    free(z);
    free(text);
}
END_TEST

START_TEST(truncated_gzip_and_size_cap)
{
    size_t n, zn;
    char *text = sample_log(&n);
    unsigned char *z = gz(text, n, &zn);
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new(0, collect, &out);
    ck_assert_int_eq(kc_gunzip_feed(g, z, zn - 10, &err), 0);
    ck_assert_int_eq(kc_gunzip_finish(g, &err), -1);
    ck_assert_str_eq(err.msg, "corrupt gzip data: the stream is truncated");
    kc_gunzip_free(g);
    out.len = 0;
    g = kc_gunzip_new(100, collect, &out);
    ck_assert_int_eq(kc_gunzip_feed(g, z, zn, &err), -1);
    ck_assert_str_eq(err.msg, "download is larger than 100 bytes once decompressed");
    ck_assert_int_eq(err.code, KC_ERR_CAPPED);
    /* what fits is delivered (the pager shows a truncated log) */
    ck_assert_uint_eq(out.len, 100);
    ck_assert_mem_eq(out.data, text, 100);
    kc_gunzip_free(g);
    kc_buf_free(&out);
    free(z);
    free(text);
}
END_TEST

/* A gzip bomb (64 MiB of zeros in ~64 KB) stops at the cap with exactly the cap's bytes out, on
 * the chunk that crosses it, and every later feed fails at once (no inflating on). */
START_TEST(gzip_bomb_stops_at_the_cap)
{
    size_t n = (size_t)64 << 20, zn;
    char *zeros = calloc(1, n);
    unsigned char *z = gz(zeros, n, &zn);
    free(zeros);
    ck_assert_uint_lt(zn, 128 << 10);
    kc_buf out = {0};
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new((size_t)1 << 20, collect, &out);
    size_t fed = 0;
    int rc = 0;
    while (fed < zn && rc == 0) {
        size_t k = zn - fed < 16384 ? zn - fed : 16384; /* as curl hands it over */
        rc = kc_gunzip_feed(g, z + fed, k, &err);
        fed += k;
    }
    ck_assert_int_eq(rc, -1);
    ck_assert_uint_le(fed, 16384 * 2);
    ck_assert_uint_eq(out.len, (size_t)1 << 20);
    ck_assert_int_eq(err.code, KC_ERR_CAPPED);
    ck_assert_str_eq(err.msg, "download is larger than 1 MiB once decompressed");
    ck_assert_int_eq(kc_gunzip_feed(g, z, 10, &err), -1);
    ck_assert_uint_eq(out.len, (size_t)1 << 20);
    kc_gunzip_free(g);
    kc_buf_free(&out);
    free(z);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gunzip");
    TCase *tc = tcase_create("gunzip");
    tcase_add_test(tc, split_at_every_byte_boundary);
    tcase_add_test(tc, gzip_bomb_stops_at_the_cap);
    tcase_add_test(tc, concatenated_members_decode_in_order);
    tcase_add_test(tc, plain_text_passes_through);
    tcase_add_test(tc, corrupt_gzip_gives_a_clear_error);
    tcase_add_test(tc, truncated_gzip_and_size_cap);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
