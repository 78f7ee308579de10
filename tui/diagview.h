/* diagview.h: the health summary line and the "why is it stuck?" findings drawn for the list and
 * detail screens (the health screen draws the whole picture). */
#pragma once
#include "answer.h"
#include "ui.h"

/* Draws the one-line health summary at line y of w; returns the next free line. */
int diagview_health_summary(ui *u, WINDOW *w, int y, int cols);
/* A marker at y,x of the list's row when a rule fires for the run. */
void diagview_marker(ui *u, WINDOW *w, int y, int x, const run_answer *a);
/* The findings as lines from y on the detail screen; returns the next free line. A message that
 * does not fit is cut with an ellipsis, shown from its column hx on (sideways scroll), or with
 * wrap, wrapped in full (at most max_rows lines in all). *overflow (if not NULL) gets the columns
 * the longest message runs past the edge (how far scrolling right is worth it), 0 none. */
int diagview_lines(ui *u, WINDOW *w, int y, int cols, const run_answer *a, int wrap, int hx,
                   int max_rows, int *overflow);
