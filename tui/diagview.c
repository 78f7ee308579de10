/* diagview.c: the health picture and the "why is it stuck?" findings as the list and detail
 * screens show them: the one-line health summary, a run's marker in the list, its Stuck? lines. */
#include "diagview.h"

#include "answer.h"
#include "diagnose.h"
#include "format.h"
#include "health.h"
#include "widgets.h"

int diagview_health_summary(ui *u, WINDOW *w, int y, int cols)
{
    double wall = ui_wall(u);
    char buf[256];
    if (ui_stale(u)) {
        /* nothing current to judge by: not "OK" on what may no longer hold */
        const ans_ctx *c = ui_answer_ctx(u);
        int x = w_print(w, y, 0, cols, A_DIM, "health ");
        x += w_print(w, y, x, cols - x, w_attr(W_WARN) | A_BOLD, "unknown");
        w_print(w, y, x, cols - x - 1, A_DIM, "  no current data since %s  (H: details)",
                fmt_clock(buf, sizeof buf, c->wall, 0));
        return y + 1;
    }
    int bad;
    health_summary(ui_health(u), wall, buf, sizeof buf, &bad);
    int x = w_print(w, y, 0, cols, A_DIM, "health ");
    x += w_print(w, y, x, cols - x, bad ? w_attr(W_BAD) | A_BOLD : w_attr(W_GOOD), "%s",
                 bad ? "ATTENTION" : "OK");
    w_print(w, y, x, cols - x - 1, bad ? w_attr(W_WARN) : A_DIM, "  %s  (H: details)", buf);
    return y + 1;
}

void diagview_marker(ui *u, WINDOW *w, int y, int x, const run_answer *a)
{
    if (a->n_diag) w_print(w, y, x, 1, w_attr(W_BAD) | A_BOLD, "%s", ui_utf8(u) ? "\u26a0" : "!");
}

int diagview_lines(ui *u, WINDOW *w, int y, int cols, const run_answer *a)
{
    (void)u;
    const diag *d = a->diag;
    for (size_t i = 0; i < a->n_diag; i++, y++) {
        char clock[32];
        int x = w_print(w, y, 0, cols, w_attr(W_BAD) | A_BOLD, "Stuck? ");
        if (d[i].since > 0)
            x += w_print(
                w, y, x, cols - x, A_DIM, "since %s  ",
                fmt_clock(clock, sizeof clock, model_local_time(ui_model(u), d[i].since), 0));
        w_text(w, y, x, cols - x, d[i].message, w_attr(W_WARN));
    }
    return y;
}
