/* diagview.c: the health picture and the "why is it stuck?" findings as the list and detail
 * screens show them: the one-line health summary, a run's marker in the list, its Stuck? lines. */
#include "diagview.h"

#include <string.h>

#include "answer.h"
#include "diagnose.h"
#include "format.h"
#include "health.h"
#include "widgets.h"

int diagview_health_summary(ui *u, WINDOW *w, int y, int cols)
{
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
    /* the one judgement (health_judge): what was read, and what could not be */
    const health *h = ui_health(u);
    char sum[256], unk[512], rest[800];
    health_verdict v = health_judge(h, sum, sizeof sum);
    health_unknown(h, unk, sizeof unk);
    if (v == HEALTH_UNKNOWN)
        snprintf(rest, sizeof rest, ": %s%s%s", unk, sum[0] ? "  " : "", sum);
    else if (unk[0])
        snprintf(rest, sizeof rest, "  %s%sunknown: %s", sum, sum[0] ? "  " : "", unk);
    else
        snprintf(rest, sizeof rest, "  %s", sum);
    int x = w_print(w, y, 0, cols, A_DIM, "health ");
    x += w_print(w, y, x, cols - x,
                 v == HEALTH_ATTENTION ? w_attr(W_BAD) | A_BOLD
                 : v == HEALTH_UNKNOWN ? w_attr(W_WARN) | A_BOLD
                                       : w_attr(W_GOOD),
                 "%s", health_verdict_name(v));
    /* the pointer to the details whole or not at all; the summary cut with an ellipsis */
    const char *more = "  (H: details)";
    int room = cols - x - 1, mw = (int)strlen(more), bw = (int)strlen(rest);
    attr_t a = v == HEALTH_OK ? A_DIM : w_attr(W_WARN);
    if (bw + mw <= room) { /* cluster text (names, a list's error): sanitised */
        x += w_text(w, y, x, room, rest, a);
        w_print(w, y, x, mw, a, "%s", more);
    } else {
        w_text(w, y, x, room, rest, a);
    }
    return y + 1;
}

void diagview_marker(ui *u, WINDOW *w, int y, int x, const run_answer *a)
{
    if (a->n_diag) w_print(w, y, x, 1, w_attr(W_BAD) | A_BOLD, "%s", ui_utf8(u) ? "\u26a0" : "!");
}

int diagview_lines(ui *u, WINDOW *w, int y, int cols, const run_answer *a, int wrap, int hx,
                   int max_rows, int *overflow)
{
    const diag *d = a->diag;
    size_t n = a->n_diag;
    const model_run *r = a->run;
    int y0 = y;
    if (overflow) *overflow = 0;
    for (size_t i = 0; i < n && y - y0 < max_rows; i++, y++) {
        char clock[32];
        /* a finished run is not stuck: what the findings say is why it ended so */
        int x = w_print(w, y, 0, cols, w_attr(W_BAD) | A_BOLD, "%s ",
                        vl_phase_terminal(r->run->phase_id) ? "Why?" : "Stuck?");
        if (d[i].since > 0)
            x += w_print(
                w, y, x, cols - x, A_DIM, "since %s  ",
                fmt_clock(clock, sizeof clock, model_local_time(ui_model(u), d[i].since), 0));
        if (wrap) {
            int left = max_rows - (y - y0);
            int k = w_wrap(w, y, x, cols - x, 0, left, d[i].message, w_attr(W_WARN));
            y += (k < left ? k : left) - 1;
        } else {
            int total = w_text_from(w, y, x, cols - x, hx, d[i].message, w_attr(W_WARN));
            if (hx <= 0 && total > cols - x) /* cut: the ellipsis says there is more */
                w_text(w, y, x, cols - x, d[i].message, w_attr(W_WARN));
            if (overflow && total - (cols - x) > *overflow) *overflow = total - (cols - x);
        }
    }
    return y;
}
