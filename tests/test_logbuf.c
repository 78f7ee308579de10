/* test_logbuf.c: the pager's line store indexes a million lines, filters them by level, searches
 * forward/backward with wrap and smartcase, drops the oldest lines past its limit, writes a file.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"
#include "kubeclient/caps.h"
#include "logbuf.h"
#include "testutil.h"

#define N 1000000

/* line i: level error every 1000th, warning every 100th, debug every 10th, else info */
static const char *level_for(size_t i)
{
    return i % 1000 == 0 ? "error" : i % 100 == 0 ? "warning" : i % 10 == 0 ? "debug" : "info";
}

static logbuf *big(void)
{
    logbuf *b = logbuf_new(0);
    char line[256];
    kc_buf chunk = {0};
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(line, sizeof line,
                         "time=\"2024-06-03T01:25:53Z\" level=%s msg=\"Processing item\" "
                         "backup=velero/b1 name=item-%zu namespace=ns-%zu resource=pods\n",
                         level_for(i), i, i % 7);
        kc_buf_append(&chunk, line, (size_t)n);
        if (chunk.len > 60000) { /* feed in arbitrary chunks, lines split across them */
            logbuf_append(b, chunk.data, chunk.len - 17);
            logbuf_append(b, chunk.data + chunk.len - 17, 17);
            chunk.len = 0;
        }
    }
    logbuf_append(b, chunk.data, chunk.len);
    kc_buf_free(&chunk);
    return b;
}

START_TEST(million_lines_indexed_filtered_and_searched)
{
    logbuf *b = big();
    ck_assert_uint_eq(logbuf_count(b), N);
    ck_assert_uint_eq(logbuf_view_count(b), N);
    size_t len;
    const char *l = logbuf_line(b, 123456, &len);
    const char *want = "time=\"2024-06-03T01:25:53Z\" level=info msg=\"Processing item\" "
                       "backup=velero/b1 name=item-123456 namespace=ns-4 resource=pods";
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_mem_eq(l, want, len);
    ck_assert_int_eq(logbuf_level(b, 5000), LP_ERROR);
    ck_assert_int_eq(logbuf_level(b, 5100), LP_WARNING);
    ck_assert_int_eq(logbuf_level(b, 5110), LP_DEBUG);

    /* search: exact line, forward from the top, then next with wrap */
    ck_assert_int_eq(logbuf_search(b, "name=item-999999 ", 0, 1, 0), 999999);
    ck_assert_int_eq(logbuf_search(b, "name=item-77777 ", 0, 1, 0), 77777);
    ck_assert_int_eq(logbuf_search(b, "name=item-77777 ", 77777, 1, 1),
                     77777); /* wraps to itself */
    ck_assert_int_eq(logbuf_search(b, "item-4242", 0, 1, 0), 4242);
    ck_assert_int_eq(logbuf_search(b, "item-4242", 4242, 1, 1), 42420);
    ck_assert_int_eq(logbuf_search(b, "item-4242", 42420, -1, 1), 4242);
    ck_assert_int_eq(logbuf_search(b, "item-4242", 4242, -1, 1), 424299); /* wraps backward */
    ck_assert_int_eq(logbuf_search(b, "no such text", 0, 1, 0), -1);
    /* smartcase: lower-case needle matches any case; upper-case needle only itself */
    ck_assert_int_eq(logbuf_search(b, "processing item\" backup=velero/b1 name=item-12 ", 0, 1, 0),
                     12);
    ck_assert_int_eq(logbuf_search(b, "PROCESSING", 0, 1, 0), -1);

    /* level filter: errors only, then warnings and worse */
    logbuf_set_filter(b, LP_ERROR);
    ck_assert_uint_eq(logbuf_view_count(b), N / 1000);
    ck_assert_uint_eq(logbuf_view_line(b, 3), 3000);
    ck_assert_int_eq(logbuf_search(b, "item-77", 0, 1, 0), 77); /* line 77000 is row 77 */
    ck_assert_uint_eq(logbuf_view_line(b, 77), 77000);
    logbuf_set_filter(b, LP_WARNING);
    ck_assert_uint_eq(logbuf_view_count(b), N / 100);
    ck_assert_uint_eq(logbuf_view_find(b, 150), 2);
    ck_assert_int_eq(logbuf_next_level(b, 0, LP_ERROR), 10);
    logbuf_set_filter(b, LP_UNKNOWN);
    ck_assert_uint_eq(logbuf_view_count(b), N);
    ck_assert_int_eq(logbuf_next_level(b, 1000, LP_ERROR), 2000);
    ck_assert_int_eq(logbuf_next_level(b, 999000, LP_ERROR), 0); /* wraps */
    logbuf_free(b);
}
END_TEST

START_TEST(oldest_lines_dropped_past_the_limit)
{
    logbuf *b = logbuf_new(80);
    char line[64];
    for (int i = 0; i < 100; i++) {
        int n = snprintf(line, sizeof line, "level=%s msg=m%d", i == 95 ? "error" : "info", i);
        logbuf_append_line(b, line, (size_t)n);
    }
    /* 81st line drops 10, so 90 appended after 80 -> 80 + (20 - 10) ... held never exceeds 80 */
    ck_assert_uint_le(logbuf_count(b), 80);
    size_t held = logbuf_count(b), dropped = logbuf_dropped(b);
    ck_assert_uint_eq(held + dropped, 100);
    size_t len;
    const char *l = logbuf_line(b, 0, &len);
    snprintf(line, sizeof line, "level=info msg=m%zu", dropped);
    ck_assert_uint_eq(len, strlen(line));
    ck_assert_mem_eq(l, line, len);
    logbuf_set_filter(b, LP_ERROR);
    ck_assert_uint_eq(logbuf_view_count(b), 1);
    ck_assert_uint_eq(logbuf_view_line(b, 0), 95 - dropped);
    logbuf_free(b);
}
END_TEST

/* The pager's match counter: matching view rows in a range, smartcase, within the level filter. */
START_TEST(matches_are_counted_in_the_view)
{
    logbuf *b = logbuf_new(0);
    static const char *lines[] = {
        "level=info msg=\"running hook\"",
        "level=error msg=\"Hook failed\"",
        "level=info msg=other",
        "level=warning msg=\"hook slow, hook again\"",
        "no level hook here",
    };
    for (size_t i = 0; i < 5; i++) logbuf_append_line(b, lines[i], strlen(lines[i]));
    ck_assert_uint_eq(logbuf_count_matches(b, "hook", 0, 5), 4); /* a line counts once */
    ck_assert_uint_eq(logbuf_count_matches(b, "Hook", 0, 5), 1); /* upper case: exact */
    ck_assert_uint_eq(logbuf_count_matches(b, "hook", 2, 4), 1);
    ck_assert_uint_eq(logbuf_count_matches(b, "hook", 0, 99), 4); /* clamped to the view */
    ck_assert_uint_eq(logbuf_count_matches(b, "", 0, 5), 0);
    logbuf_set_filter(b, LP_WARNING); /* rows 0 and 1 of the view: the error and the warning */
    ck_assert_uint_eq(logbuf_count_matches(b, "hook", 0, 2), 2);
    ck_assert_uint_eq(logbuf_count_matches(b, "hook", 1, 2), 1);
    logbuf_free(b);
}
END_TEST

START_TEST(partial_lines_crlf_and_write)
{
    logbuf *b = logbuf_new(0);
    logbuf_append(b, "level=info msg=a\r\nlevel=err", 27);
    ck_assert_uint_eq(logbuf_count(b), 1);
    logbuf_append(b, "or msg=b\nplain text", 19);
    ck_assert_uint_eq(logbuf_count(b), 2);
    logbuf_flush(b);
    ck_assert_uint_eq(logbuf_count(b), 3);
    ck_assert_int_eq(logbuf_level(b, 1), LP_ERROR);
    ck_assert_int_eq(logbuf_level(b, 2), LP_UNKNOWN);
    logbuf_set_filter(b, LP_INFO);
    ck_assert_uint_eq(logbuf_view_count(b), 2); /* lines without a level hidden by a filter */
    char *dir = tu_mkdtemp();
    char *path = xasprintf("%s/out.log", dir);
    size_t lines = 99, n;
    /* what the view shows: the filter hides the line without a level */
    ck_assert_int_eq(logbuf_write(b, path, &lines), 0);
    ck_assert_uint_eq(lines, 2);
    char *text = tu_read(path, &n);
    ck_assert_str_eq(text, "level=info msg=a\nlevel=error msg=b\n");
    free(text);
    /* an existing file is never overwritten */
    logbuf_set_filter(b, LP_UNKNOWN);
    errno = 0;
    ck_assert_int_eq(logbuf_write(b, path, &lines), -1);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_uint_eq(lines, 0);
    text = tu_read(path, &n);
    ck_assert_str_eq(text, "level=info msg=a\nlevel=error msg=b\n");
    free(text);
    char *all = xasprintf("%s/all.log", dir);
    ck_assert_int_eq(logbuf_write(b, all, &lines), 0);
    ck_assert_uint_eq(lines, 3);
    text = tu_read(all, &n);
    ck_assert_str_eq(text, "level=info msg=a\nlevel=error msg=b\nplain text\n");
    free(text);
    free(all);
    ck_assert_int_eq(logbuf_write(b, "/nonexistent-dir/x.log", &lines), -1);
    free(path);
    tu_rmrf(dir);
    free(dir);
    logbuf_clear(b);
    ck_assert_uint_eq(logbuf_count(b), 0);
    ck_assert_int_eq(logbuf_search(b, "a", 0, 1, 0), -1);
    logbuf_free(b);
    logbuf_free(NULL);
}
END_TEST

/* One line is held up to KC_CAP_LOG_LINE_BYTES, the rest of it up to its newline dropped and
 * counted (a stored log of gigabytes of zeros is not one line in memory, nor drawn whole). */
START_TEST(long_lines_are_cut_at_the_cap)
{
    logbuf *b = logbuf_new(0);
    char *x = malloc(1 << 20);
    memset(x, 'x', 1 << 20);
    for (int i = 0; i < 8; i++) logbuf_append(b, x, 1 << 20); /* 8 MiB, no newline yet */
    ck_assert_uint_eq(logbuf_count(b), 0);
    ck_assert_uint_le(logbuf_bytes(b), KC_CAP_LOG_LINE_BYTES);
    logbuf_append(b, "tail\nlevel=info msg=next\n", 25);
    ck_assert_uint_eq(logbuf_count(b), 2);
    size_t len;
    const char *l = logbuf_line(b, 0, &len);
    ck_assert_uint_eq(len, KC_CAP_LOG_LINE_BYTES);
    ck_assert_int_eq(l[0], 'x');
    l = logbuf_line(b, 1, &len);
    ck_assert_uint_eq(len, 19);
    ck_assert_mem_eq(l, "level=info msg=next", 19);
    ck_assert_uint_eq(logbuf_cut(b), 1);
    logbuf_append_line(b, x, 1 << 20); /* a whole line (live log) */
    l = logbuf_line(b, 2, &len);
    ck_assert_uint_eq(len, KC_CAP_LOG_LINE_BYTES);
    ck_assert_uint_eq(logbuf_cut(b), 2);
    logbuf_append(b, x, 100);
    logbuf_flush(b);
    ck_assert_uint_eq(logbuf_count(b), 4);
    ck_assert_uint_eq(logbuf_cut(b), 2);
    logbuf_clear(b);
    ck_assert_uint_eq(logbuf_cut(b), 0);
    free(x);
    logbuf_free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("logbuf");
    TCase *tc = tcase_create("logbuf");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, million_lines_indexed_filtered_and_searched);
    tcase_add_test(tc, oldest_lines_dropped_past_the_limit);
    tcase_add_test(tc, partial_lines_crlf_and_write);
    tcase_add_test(tc, matches_are_counted_in_the_view);
    tcase_add_test(tc, long_lines_are_cut_at_the_cap);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
