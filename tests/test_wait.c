/* test_wait.c: --wait targets: backup/NAME and restore/NAME (plural forms too); anything else is
 * a usage error that says what is expected. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"
#include "testutil.h"

START_TEST(targets_parse)
{
    vl_kind k;
    char name[300], err[300];
    ck_assert_int_eq(wait_parse("backup/nightly-1", &k, name, sizeof name, err, sizeof err), 0);
    ck_assert_int_eq(k, VL_BACKUP);
    ck_assert_str_eq(name, "nightly-1");
    ck_assert_int_eq(wait_parse("restores/r-1", &k, name, sizeof name, err, sizeof err), 0);
    ck_assert_int_eq(k, VL_RESTORE);
    ck_assert_str_eq(name, "r-1");
    static const char *bad[] = {"nightly-1", "backup/", "backup/a/b", "schedule/x", "Backup/x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(wait_parse(bad[i], &k, name, sizeof name, err, sizeof err), -1);
        char want[300];
        snprintf(want, sizeof want, "invalid --wait '%s': expected backup/NAME or restore/NAME",
                 bad[i]);
        ck_assert_str_eq(err, want);
    }
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    memcpy(longname, "backup/", 7);
    ck_assert_int_eq(wait_parse(longname, &k, name, sizeof name, err, sizeof err), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wait");
    TCase *tc = tcase_create("wait");
    tcase_add_test(tc, targets_parse);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
