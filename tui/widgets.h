/* widgets.h: drawing helpers shared by every screen: sanitised text, progress bars, phase
 * colours, sparklines, with UTF-8 / ASCII and colour / monochrome variants. */
#pragma once
#include <curses.h>

#include "kubeclient/velero.h"

/* Colour roles (pairs are set up by w_init; attributes fall back to bold/dim/reverse). */
typedef enum {
    W_NORMAL,
    W_GOOD,     /* completed, live */
    W_ACTIVE,   /* in progress */
    W_WARN,     /* partially failed, retrying, stalled, warnings */
    W_BAD,      /* failed, errors, disconnected */
    W_DIM,      /* pending, labels, stale data */
    W_HEADER,   /* the header and footer bars */
    W_SELECTED, /* the selected row */
    W_BAR_FILL, /* the done part of a bar */
    W_BAR_EMPTY
} w_role;

/* Call once after initscr: color = 0 for monochrome (NO_COLOR, no colours); utf8 = block bars. */
void w_init(int color, int utf8);
int w_utf8(void);
attr_t w_attr(w_role role);
w_role w_phase_role(vl_phase p);

/* Draws cluster text (sanitised) at y,x in at most maxcols columns, ending in an ellipsis when it
 * is cut; returns columns used. */
int w_text(WINDOW *w, int y, int x, int maxcols, const char *s, attr_t a);
/* As w_text, cut in the middle when it does not fit (start…end: the end is where names of runs,
 * pods and volumes tell each other apart). */
int w_text_mid(WINDOW *w, int y, int x, int maxcols, const char *s, attr_t a);
/* Draws cluster text (sanitised) wrapped at width columns: its rows skip .. skip+max_rows-1 at
 * y.. (w NULL: draws nothing). Returns the rows the whole text takes (at least 1). */
int w_wrap(WINDOW *w, int y, int x, int width, int skip, int max_rows, const char *s, attr_t a);
/* Draws cluster text (sanitised) from its column `from` on, in at most maxcols columns (sideways
 * scroll). Returns the text's whole width in columns. */
int w_text_from(WINDOW *w, int y, int x, int maxcols, int from, const char *s, attr_t a);
/* Bytes of the safe (already sanitised) string s[0..n) that fit in cols columns; *used (if not
 * NULL) gets the columns they take. Invalid bytes count one column each. */
size_t w_cut(const char *s, size_t n, int cols, int *used);
/* Draws program text (no sanitising needed; plain ASCII or our own UTF-8) likewise. */
int w_print(WINDOW *w, int y, int x, int maxcols, attr_t a, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* A bar of width columns filled to frac (0..1; < 0 = unknown: drawn empty and dim). UTF-8 uses
 * eighth blocks, ASCII uses '#' and '.'. */
void w_bar(WINDOW *w, int y, int x, int width, double frac, w_role fill);
/* As w_bar, in a row drawn with attribute row (the selected row: its highlight continues under
 * the bar, the glyphs tell done from to do); row 0 = w_bar. */
void w_bar_in(WINDOW *w, int y, int x, int width, double frac, w_role fill, attr_t row);
/* A sparkline of n values (>= 0; < 0 = gap), one column each, scaled to their max but at least
 * floor: values that are nothing beside floor (the smallest value its scale can show, e.g. 0.05
 * for a rate shown as "0.1/s") draw the baseline, as zeros do, never full blocks. */
void w_sparkline(WINDOW *w, int y, int x, const double *vals, int n, double floor, attr_t a);
/* As w_sparkline with no floor, column i in each[i] (0: in a). */
void w_sparkline_each(WINDOW *w, int y, int x, const double *vals, int n, attr_t a,
                      const attr_t *each);
/* Fills from x to the end of line y with spaces in attribute a. */
void w_clear_line(WINDOW *w, int y, int x, int cols, attr_t a);
