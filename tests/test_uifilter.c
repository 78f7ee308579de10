/* test_uifilter.c: a screen's `/` filter (ui_filter, tui/ui.h), as k9s': a regular expression of
 * any case matching one of an object's fields, "!RE" the others, "-l" a label selector
 * (key=value, key==value, key!=value, key), a bad expression matching nothing with why. */
#include <check.h>
#include <string.h>

#include "ui.h"

static char *lk[] = {"name", "component"}, *lv[] = {"node-agent", "velero"};

static int keeps(const char *filter, const char *a, const char *b)
{
    ui_filter f;
    ui_filter_compile(&f, filter);
    const char *fields[] = {a, b};
    int r = ui_filter_match(&f, fields, 2, lk, lv, 2);
    ui_filter_free(&f);
    return r;
}

START_TEST(regular_expressions_any_case_and_inverted)
{
    ck_assert_int_eq(keeps("", "worker-2", NULL), 1);   /* no filter: everything */
    ck_assert_int_eq(keeps("  ", "worker-2", NULL), 1); /* blanks are none */
    ck_assert_int_eq(keeps("WoRkEr-2", "worker-2", NULL), 1);
    ck_assert_int_eq(keeps("worker-[13]", "worker-2", "node-agent-x"), 0);
    ck_assert_int_eq(keeps("^node", "worker-2", "node-agent-x"), 1); /* any field */
    ck_assert_int_eq(keeps("^node", "worker-2", NULL), 0);           /* NULL fields skipped */
    ck_assert_int_eq(keeps("!hour", "hourly", NULL), 0);
    ck_assert_int_eq(keeps("!hour", "nightly", NULL), 1);
    ck_assert_int_eq(keeps("!", "nightly", NULL), 1); /* "!" alone: nothing to leave out yet */
}
END_TEST

START_TEST(label_selectors)
{
    ck_assert_int_eq(keeps("-l name=node-agent", "x", NULL), 1);
    ck_assert_int_eq(keeps("-l name==node-agent", "x", NULL), 1);
    ck_assert_int_eq(keeps("-l name=velero", "x", NULL), 0);
    ck_assert_int_eq(keeps("-l name!=velero", "x", NULL), 1);
    ck_assert_int_eq(keeps("-l name!=node-agent", "x", NULL), 0);
    ck_assert_int_eq(keeps("-l component", "x", NULL), 1); /* the key, any value */
    ck_assert_int_eq(keeps("-l deploy", "x", NULL), 0);
    ck_assert_int_eq(keeps("-l name=node-agent,component=velero", "x", NULL), 1); /* all of them */
    ck_assert_int_eq(keeps("-l name=node-agent, component=other", "x", NULL), 0);
    ck_assert_int_eq(keeps("-l name=node", "x", NULL), 0);      /* a value whole, not a prefix */
    ck_assert_int_eq(keeps("-l nam=node-agent", "x", NULL), 0); /* a key whole */
    ck_assert_int_eq(keeps("-lname=x", "-lname=x", NULL), 1);   /* no blank after -l: an RE */
}
END_TEST

START_TEST(a_bad_expression_matches_nothing_and_says_why)
{
    ui_filter f;
    ck_assert_int_eq(ui_filter_compile(&f, "("), -1);
    ck_assert_msg(!strncmp(f.error, "not a regular expression: ( (", 29), "%s", f.error);
    const char *fields[] = {"("};
    ck_assert_int_eq(ui_filter_match(&f, fields, 1, NULL, NULL, 0), 0);
    ui_filter_free(&f);
    ui_filter_free(&f); /* twice: nothing to free the second time */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("uifilter");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, regular_expressions_any_case_and_inverted);
    tcase_add_test(tc, label_selectors);
    tcase_add_test(tc, a_bad_expression_matches_nothing_and_says_why);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
