/* queueview.c: "why is this backup not running?" on the detail screen (queueview.h). */
#include "queueview.h"

#include <stdio.h>
#include <string.h>

#include "format.h"
#include "queue.h"
#include "widgets.h"

int queueview_lines(ui *u, WINDOW *w, int y, int cols, const run_answer *a, int max_rows)
{
    const queue_wait *q = &a->queue;
    if (!q->waiting || max_rows < 1) return y;
    (void)u;
    int y0 = y;
    char buf[1024], b1[64], b2[64];
    /* the position and the runs ahead, named (raw names: w_wrap sanitises) */
    int k = snprintf(buf, sizeof buf, "position %lld%s, %zu ahead", (long long)q->position,
                     q->position_ours ? " (counted)" : "", q->n_ahead);
    for (size_t i = 0; i < q->n_ahead && i < QUEUE_MAX_AHEAD && k > 0 && (size_t)k < sizeof buf;
         i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s (%s)", i ? ", " : ": ",
                      q->ahead[i]->name, q->ahead[i]->run->phase);
    if (q->n_ahead > QUEUE_MAX_AHEAD && k > 0 && (size_t)k < sizeof buf)
        snprintf(buf + k, sizeof buf - (size_t)k, ", %zu more", q->n_ahead - QUEUE_MAX_AHEAD);
    int x = w_print(w, y, 0, 40, A_DIM, "Queue ");
    y += w_wrap(w, y, x, cols - x, 0, 2, buf, A_BOLD) > 1 ? 2 : 1;
    if (y - y0 >= max_rows) return y;
    /* why it is not running */
    x = w_print(w, y, 0, 40, A_DIM, "Not running ");
    queue_why_text(buf, sizeof buf, q);
    attr_t wa = q->why == QUEUE_WHY_NONE      ? w_attr(W_WARN) | A_BOLD
                : q->why == QUEUE_WHY_UNKNOWN ? A_DIM
                                              : A_BOLD;
    int need = w_wrap(NULL, 0, 0, cols - x, 0, 0, buf, 0);
    int rows = need < 3 ? need : 3;
    w_wrap(w, y, x, cols - x, 0, rows, buf, wa);
    y += rows;
    if (y - y0 >= max_rows) return y;
    /* when it may start: an estimate with its caveat, or unknown and why */
    x = w_print(w, y, 0, 40, A_DIM, "Starts ");
    if (q->start_known) {
        double in = q->start - a->at;
        x += w_print(w, y, x, cols - x, A_BOLD, "%s%s", in > 0.5 ? "~" : "",
                     in > 0.5 ? fmt_clock_since(b1, sizeof b1, q->start, a->at) : "now");
        if (in > 0.5)
            x += w_print(w, y, x, cols - x, 0, " (in %s)", fmt_duration(b2, sizeof b2, in));
        w_print(w, y, x, cols - x, A_DIM, ", %s", QUEUE_START_CAVEAT);
    } else {
        snprintf(buf, sizeof buf, "unknown: %s", q->start_why);
        w_text(w, y, x, cols - x, buf, A_DIM);
    }
    return y + 1;
}
