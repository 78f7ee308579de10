/* queueview.h: a waiting backup's queue (core/queue.h) drawn on the detail screen: its position
 * and the runs ahead, why it is not running, and when it may start. */
#pragma once
#include "answer.h"
#include "ui.h"

/* The queue lines of a (nothing when a->queue.waiting is 0) from line y, wrapped in at most
 * max_rows lines; returns the next free line. */
int queueview_lines(ui *u, WINDOW *w, int y, int cols, const run_answer *a, int max_rows);
