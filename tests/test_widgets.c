/* test_widgets.c: the sparkline's scale (tui/widgets.c) drawn into a curses window on a terminal
 * that writes nowhere: zeros are the baseline, noise below the scale's floor is the baseline (not
 * full blocks), a real rate draws its shape, a gap is blank. */
#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "widgets.h"

static SCREEN *scr;
static FILE *sink;
static WINDOW *win;

static void setup(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    sink = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(sink);
    scr = newterm("xterm-256color", sink, stdin);
    ck_assert_ptr_nonnull(scr);
    win = newwin(1, 40, 0, 0);
    w_init(0, 1);
}

static void teardown(void)
{
    delwin(win);
    endwin();
    delscreen(scr);
    fclose(sink);
}

/* The first n cells of the window's row, as UTF-8. */
static const char *cells(int n)
{
    static char out[256];
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        cchar_t c;
        wchar_t wc[CCHARW_MAX + 1];
        attr_t a;
        short pair;
        mvwin_wch(win, 0, i, &c);
        getcchar(&c, wc, &a, &pair, NULL);
        o += (size_t)wctomb(out + o, wc[0]);
    }
    out[o] = 0;
    return out;
}

START_TEST(zeros_draw_the_baseline)
{
    double v[6] = {0, 0, 0, 0, 0, 0};
    w_sparkline(win, 0, 0, v, 6, 0.05, 0);
    ck_assert_str_eq(cells(6), "▁▁▁▁▁▁");
    w_sparkline(win, 0, 0, v, 6, 0, 0);
    ck_assert_str_eq(cells(6), "▁▁▁▁▁▁");
}
END_TEST

/* A rate of 1e-9/s, shown as "0.0/s": the baseline, not blocks scaled to it. */
START_TEST(noise_below_the_floor_draws_the_baseline)
{
    double v[6] = {1e-9, 2e-9, 1e-9, 0, 2e-9, 2e-9};
    w_sparkline(win, 0, 0, v, 6, 0.05, 0);
    ck_assert_str_eq(cells(6), "▁▁▁▁▁▁");
    /* a current rate of 0 after real ones: the last column on the baseline */
    double r[4] = {2, 4, 4, 0};
    w_sparkline(win, 0, 0, r, 4, 0.05, 0);
    ck_assert_str_eq(cells(4), "▅██▁");
}
END_TEST

START_TEST(a_rate_draws_its_shape_and_gaps_are_blank)
{
    double v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    w_sparkline(win, 0, 0, v, 8, 0.05, 0);
    ck_assert_str_eq(cells(8), "▁▂▃▄▅▆▇█");
    double g[3] = {7, -1, 7};
    w_sparkline(win, 0, 0, g, 3, 0.05, 0);
    ck_assert_str_eq(cells(3), "█ █");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("widgets");
    TCase *tc = tcase_create("sparkline");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, zeros_draw_the_baseline);
    tcase_add_test(tc, noise_below_the_floor_draws_the_baseline);
    tcase_add_test(tc, a_rate_draws_its_shape_and_gaps_are_blank);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
