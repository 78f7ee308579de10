/* test_sanitize.c: text from the cluster never reaches the terminal with control characters,
 * escape sequences or invalid UTF-8, and valid text (multibyte included) is kept. */
#include <check.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"
#include "testutil.h"

static void check_san(const char *in, const char *want)
{
    char *s = san_str(in);
    ck_assert_str_eq(s, want);
    free(s);
}

START_TEST(esc_and_csi_become_caret_notation)
{
    san_set_ascii(0);
    check_san("\x1b[31mred\x1b[0m", "^[[31mred^[[0m");
    check_san("a\x1b"
              "c",
              "a^[c"); /* RIS, full reset */
    check_san("\x1b[2J\x1b[H", "^[[2J^[[H");
}
END_TEST

START_TEST(osc_title_and_hyperlink_are_neutralised)
{
    san_set_ascii(0);
    check_san("\x1b]0;pwned\x07x", "^[]0;pwned^Gx");
    check_san("\x1b]8;;http://e\x1b\\l\x1b]8;;\x1b\\", "^[]8;;http://e^[\\l^[]8;;^[\\");
}
END_TEST

START_TEST(c0_del_and_c1_controls_are_replaced)
{
    san_set_ascii(0);
    check_san("a\rb\nc\td\x7f", "a^Mb^Jc d^?");
    /* U+009B (single-byte CSI in UTF-8 form) and U+0085 NEL */
    check_san("x\xc2\x9b"
              "31my\xc2\x85",
              "x\xef\xbf\xbd"
              "31my\xef\xbf\xbd");
    /* a bidi override that would reorder what follows */
    check_san("a\xe2\x80\xae"
              "b",
              "a\xef\xbf\xbd"
              "b");
}
END_TEST

START_TEST(invalid_utf8_becomes_replacement_per_byte)
{
    san_set_ascii(0);
    check_san("a\xff"
              "b",
              "a\xef\xbf\xbd"
              "b");
    check_san("\xc3", "\xef\xbf\xbd");                                 /* truncated */
    check_san("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");                 /* overlong '/' */
    check_san("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
    check_san("\x9b", "\xef\xbf\xbd");                                 /* raw 8-bit CSI */
}
END_TEST

/* JSON's text (san_utf8): the server's exact bytes, controls, ESC and quotes included (cJSON
 * escapes them); only invalid UTF-8, which JSON cannot carry, becomes U+FFFD per byte. */
START_TEST(json_text_is_exact_but_valid_utf8)
{
    ck_assert_ptr_null(san_utf8(NULL));
    const char *exact =
        "no valid providers\ncaused by: \x1b[31m\"quoted\"\t\x7f \xc3\xa9\xe2\x82\xac";
    char *s = san_utf8(exact);
    ck_assert_str_eq(s, exact);
    free(s);
    /* what cJSON prints raw, escaped: DEL and the C1 controls (an 8-bit CSI), nothing else */
    s = san_json_text("{\"a\":\"x\x7fy\xc2\x9b"
                      "2J\xc2\xa0\xc3\xa9\"}");
    ck_assert_str_eq(s, "{\"a\":\"x\\u007fy\\u009b2J\xc2\xa0\xc3\xa9\"}");
    free(s);
    s = san_utf8("a\xff\xc3(\xe2\x82\xed\xa0\x80z");
    ck_assert_str_eq(
        s,
        "a\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
    free(s);
}
END_TEST

START_TEST(valid_multibyte_is_kept)
{
    san_set_ascii(0);
    check_san("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xa6",
              "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xa6");
    check_san("nightly-20240107", "nightly-20240107");
    check_san(NULL, "");
}
END_TEST

START_TEST(ascii_mode_replaces_every_non_ascii_character)
{
    san_set_ascii(1);
    check_san("caf\xc3\xa9\xff\x1b", "caf??^[");
    san_set_ascii(0);
}
END_TEST

START_TEST(fit_cuts_at_columns_without_splitting_characters)
{
    char out[64];
    san_set_ascii(0);
    ck_assert_int_eq(san_fit(out, sizeof out, "backup-\x1b[1m", 9), 9);
    ck_assert_str_eq(out, "backup-^[");
    /* wide CJK: 2 columns each; a 5-column cut keeps two of them */
    ck_assert_int_eq(san_fit(out, sizeof out, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 5), 4);
    ck_assert_str_eq(out, "\xe6\x97\xa5\xe6\x9c\xac");
    /* small buffer: never a partial character */
    ck_assert_int_eq(san_fit(out, 5, "\xc3\xa9\xc3\xa9\xc3\xa9", 10), 2);
    ck_assert_str_eq(out, "\xc3\xa9\xc3\xa9");
    ck_assert_int_eq(san_width("\xe6\x97\xa5x"), 3);
}
END_TEST

START_TEST(cut_text_ends_in_an_ellipsis)
{
    char out[64];
    san_set_ascii(0);
    /* fits: unchanged, no ellipsis */
    ck_assert_int_eq(san_fit_ellipsis(out, sizeof out, "nightly-1", 9), 9);
    ck_assert_str_eq(out, "nightly-1");
    /* one column too long: eight characters and the ellipsis in the ninth column */
    ck_assert_int_eq(san_fit_ellipsis(out, sizeof out, "nightly-12", 9), 9);
    ck_assert_str_eq(out, "nightly-\xe2\x80\xa6");
    /* escape sequences are counted in their visible form before the cut */
    ck_assert_int_eq(san_fit_ellipsis(out, sizeof out, "ab\x1b[2Jcd", 5), 5);
    ck_assert_str_eq(out, "ab^[\xe2\x80\xa6");
    /* a wide character that would straddle the cut is dropped whole */
    ck_assert_int_eq(san_fit_ellipsis(out, sizeof out, "a\xe6\x97\xa5\xe6\x9c\xac", 4), 4);
    ck_assert_str_eq(out, "a\xe6\x97\xa5\xe2\x80\xa6");
    /* ASCII mode: '~' */
    san_set_ascii(1);
    ck_assert_int_eq(san_fit_ellipsis(out, sizeof out, "restore-2026112701", 10), 10);
    ck_assert_str_eq(out, "restore-2~");
    san_set_ascii(0);
    /* a buffer too small for the whole text also gets the ellipsis, never a partial character */
    ck_assert_int_eq(san_fit_ellipsis(out, 8, "abcdefghij", 20), 5);
    ck_assert_str_eq(out, "abcd\xe2\x80\xa6");
}
END_TEST

/* Messages for stderr go through the same sanitiser as the screen: one line, no escape sequence,
 * no C1 control, no bidi override or line separator from a server's Status or a kubeconfig. */
START_TEST(messages_for_stderr_are_one_safe_line)
{
    char *m = san_message("cannot connect to %s: %s", "http://h/\x1b]0;pwned\x07x",
                          "a\xc2\x9b"
                          "31m \xe2\x80\xae"
                          "evil \xe2\x80\xa8"
                          "b\r\nveltop: fake");
    ck_assert_str_eq(m, "veltop: cannot connect to http://h/^[]0;pwned^Gx: a\xef\xbf\xbd"
                        "31m "
                        "\xef\xbf\xbd"
                        "evil \xef\xbf\xbd"
                        "b^M^Jveltop: fake\n");
    free(m);
    san_set_ascii(1);
    m = san_message("%s", "caf\xc3\xa9 \x1b[2J");
    ck_assert_str_eq(m, "veltop: caf? ^[[2J\n");
    free(m);
    san_set_ascii(0);
}
END_TEST

int main(void)
{
    setlocale(LC_CTYPE, "C.UTF-8");
    Suite *s = suite_create("sanitize");
    TCase *tc = tcase_create("sanitize");
    tcase_add_test(tc, esc_and_csi_become_caret_notation);
    tcase_add_test(tc, osc_title_and_hyperlink_are_neutralised);
    tcase_add_test(tc, c0_del_and_c1_controls_are_replaced);
    tcase_add_test(tc, invalid_utf8_becomes_replacement_per_byte);
    tcase_add_test(tc, valid_multibyte_is_kept);
    tcase_add_test(tc, json_text_is_exact_but_valid_utf8);
    tcase_add_test(tc, ascii_mode_replaces_every_non_ascii_character);
    tcase_add_test(tc, fit_cuts_at_columns_without_splitting_characters);
    tcase_add_test(tc, cut_text_ends_in_an_ellipsis);
    tcase_add_test(tc, messages_for_stderr_are_one_safe_line);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
