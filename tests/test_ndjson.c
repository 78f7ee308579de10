/* test_ndjson.c: the watch framer yields the same lines however the stream is split, refuses
 * oversize lines without growing, and keeps going after them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/ndjson.h"
#include "kubeclient/util.h"
#include "testutil.h"

typedef struct {
    kc_buf out; /* lines joined with '|' */
    int lines;
    int stop_after;
} sink;

static int on_line(void *arg, const char *line, size_t n)
{
    sink *s = arg;
    kc_buf_append(&s->out, line, n);
    kc_buf_append(&s->out, "|", 1);
    s->lines++;
    return s->stop_after && s->lines >= s->stop_after;
}

static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}}"
    "\r\n"
    "\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"3\"}}}\n"
    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"4\"}}}\n";

static const char expected[] =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}|"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}}|"
    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"3\"}}}|"
    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"4\"}}}|";

START_TEST(split_at_every_byte_gives_the_same_lines)
{
    size_t n = strlen(stream);
    for (size_t cut = 0; cut <= n; cut++) {
        sink s = {0};
        kc_ndjson *f = kc_ndjson_new(1024, on_line, &s);
        ck_assert_int_eq(kc_ndjson_feed(f, stream, cut), 0);
        ck_assert_int_eq(kc_ndjson_feed(f, stream + cut, n - cut), 0);
        ck_assert_uint_eq(kc_ndjson_pending(f), 0);
        ck_assert_int_eq(s.lines, 4);
        ck_assert_str_eq(kc_buf_cstr(&s.out), expected);
        kc_buf_free(&s.out);
        kc_ndjson_free(f);
    }
}
END_TEST

START_TEST(one_byte_at_a_time_and_two_cuts)
{
    size_t n = strlen(stream);
    sink s = {0};
    kc_ndjson *f = kc_ndjson_new(1024, on_line, &s);
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(kc_ndjson_feed(f, stream + i, 1), 0);
    ck_assert_str_eq(kc_buf_cstr(&s.out), expected);
    kc_buf_free(&s.out);
    kc_ndjson_free(f);
    for (size_t a = 0; a <= n; a += 7) {
        for (size_t b = a; b <= n; b += 5) {
            sink t = {0};
            f = kc_ndjson_new(1024, on_line, &t);
            kc_ndjson_feed(f, stream, a);
            kc_ndjson_feed(f, stream + a, b - a);
            kc_ndjson_feed(f, stream + b, n - b);
            ck_assert_str_eq(kc_buf_cstr(&t.out), expected);
            kc_buf_free(&t.out);
            kc_ndjson_free(f);
        }
    }
}
END_TEST

START_TEST(incomplete_tail_is_held_until_its_newline)
{
    sink s = {0};
    kc_ndjson *f = kc_ndjson_new(1024, on_line, &s);
    ck_assert_int_eq(kc_ndjson_feed(f, "{\"a\":1}\n{\"b\"", 12), 0);
    ck_assert_int_eq(s.lines, 1);
    ck_assert_uint_eq(kc_ndjson_pending(f), 4);
    ck_assert_int_eq(kc_ndjson_feed(f, ":2}\n", 4), 0);
    ck_assert_int_eq(s.lines, 2);
    ck_assert_uint_eq(kc_ndjson_pending(f), 0);
    ck_assert_str_eq(kc_buf_cstr(&s.out), "{\"a\":1}|{\"b\":2}|");
    kc_buf_free(&s.out);
    kc_ndjson_free(f);
}
END_TEST

START_TEST(oversize_line_is_refused_and_the_stream_resyncs)
{
    sink s = {0};
    kc_ndjson *f = kc_ndjson_new(16, on_line, &s);
    /* a line of exactly the limit is fine */
    ck_assert_int_eq(kc_ndjson_feed(f, "0123456789abcdef\n", 17), 0);
    /* an oversize line inside one chunk */
    ck_assert_int_eq(kc_ndjson_feed(f, "0123456789abcdefX\nok1\n", 22), -1);
    ck_assert_str_eq(kc_buf_cstr(&s.out), "0123456789abcdef|ok1|");
    /* an oversize line arriving in pieces: refused as soon as it passes the limit, the buffer
     * never holds more than the limit, the rest of that line is dropped */
    ck_assert_int_eq(kc_ndjson_feed(f, "0123456789", 10), 0);
    ck_assert_uint_eq(kc_ndjson_pending(f), 10);
    ck_assert_int_eq(kc_ndjson_feed(f, "abcdefghij", 10), -1);
    ck_assert_uint_eq(kc_ndjson_pending(f), 0);
    for (int i = 0; i < 1000; i++) ck_assert_int_eq(kc_ndjson_feed(f, "xxxxxxxxxx", 10), 0);
    ck_assert_uint_eq(kc_ndjson_pending(f), 0);
    ck_assert_int_eq(kc_ndjson_feed(f, "yy\nok2\nok", 9), 0);
    ck_assert_int_eq(kc_ndjson_feed(f, "3\n", 2), 0);
    ck_assert_str_eq(kc_buf_cstr(&s.out), "0123456789abcdef|ok1|ok2|ok3|");
    kc_buf_free(&s.out);
    kc_ndjson_free(f);
}
END_TEST

START_TEST(garbage_line_is_passed_on_between_good_ones)
{
    /* the framer does not judge JSON: the garbage line comes out as a line of its own and the
     * good lines around it are intact (the reflector counts and skips it) */
    sink s = {0};
    kc_ndjson *f = kc_ndjson_new(1024, on_line, &s);
    const char *in = "{\"type\":\"ADDED\"}\nnot json at all }{\n{\"type\":\"DELETED\"}\n";
    ck_assert_int_eq(kc_ndjson_feed(f, in, strlen(in)), 0);
    ck_assert_int_eq(s.lines, 3);
    ck_assert_str_eq(kc_buf_cstr(&s.out),
                     "{\"type\":\"ADDED\"}|not json at all }{|{\"type\":\"DELETED\"}|");
    kc_buf_free(&s.out);
    kc_ndjson_free(f);
}
END_TEST

START_TEST(callback_can_stop_the_stream)
{
    sink s = {.stop_after = 1};
    kc_ndjson *f = kc_ndjson_new(1024, on_line, &s);
    ck_assert_int_eq(kc_ndjson_feed(f, "a\nb\nc\n", 6), 0);
    ck_assert_int_eq(kc_ndjson_feed(f, "d\n", 2), 0);
    ck_assert_str_eq(kc_buf_cstr(&s.out), "a|");
    kc_buf_free(&s.out);
    kc_ndjson_free(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ndjson");
    TCase *tc = tcase_create("ndjson");
    tcase_add_test(tc, split_at_every_byte_gives_the_same_lines);
    tcase_add_test(tc, one_byte_at_a_time_and_two_cuts);
    tcase_add_test(tc, incomplete_tail_is_held_until_its_newline);
    tcase_add_test(tc, oversize_line_is_refused_and_the_stream_resyncs);
    tcase_add_test(tc, garbage_line_is_passed_on_between_good_ones);
    tcase_add_test(tc, callback_can_stop_the_stream);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
