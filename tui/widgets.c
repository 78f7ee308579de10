/* widgets.c: drawing helpers shared by the screens: sanitised text, bars, phase colours and
 * sparklines, each with a UTF-8 and an ASCII form and a monochrome fallback. */
#include "widgets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sanitize.h"

static int w_color_on, w_utf8_on;

void w_init(int color, int utf8)
{
    w_color_on = color;
    w_utf8_on = utf8;
    if (!color) return;
    start_color();
    use_default_colors();
    init_pair(W_GOOD, COLOR_GREEN, -1);
    init_pair(W_ACTIVE, COLOR_CYAN, -1);
    init_pair(W_WARN, COLOR_YELLOW, -1);
    init_pair(W_BAD, COLOR_RED, -1);
    init_pair(W_DIM, COLOR_BLUE, -1);
    init_pair(W_HEADER, COLOR_BLACK, COLOR_CYAN);
    init_pair(W_SELECTED, COLOR_BLACK, COLOR_WHITE);
    init_pair(W_BAR_FILL, COLOR_GREEN, -1);
    init_pair(W_BAR_EMPTY, COLOR_WHITE, -1);
}

int w_utf8(void)
{
    return w_utf8_on;
}

attr_t w_attr(w_role role)
{
    if (!w_color_on) {
        switch (role) {
        case W_BAD:
            return A_BOLD | A_UNDERLINE;
        case W_WARN:
            return A_BOLD;
        case W_ACTIVE:
            return A_BOLD;
        case W_DIM:
            return A_DIM;
        case W_HEADER:
            return A_REVERSE;
        case W_SELECTED:
            return A_REVERSE;
        case W_BAR_EMPTY:
            return A_DIM;
        default:
            return A_NORMAL;
        }
    }
    switch (role) {
    case W_NORMAL:
        return A_NORMAL;
    case W_DIM:
        return A_DIM;
    case W_BAR_EMPTY:
        return COLOR_PAIR(W_BAR_EMPTY) | A_DIM;
    case W_ACTIVE:
        return COLOR_PAIR(role) | A_BOLD;
    case W_BAD:
        return COLOR_PAIR(role) | A_BOLD;
    default:
        return COLOR_PAIR(role);
    }
}

w_role w_phase_role(vl_phase p)
{
    switch (p) {
    case VL_PH_COMPLETED:
        return W_GOOD;
    case VL_PH_FAILED:
    case VL_PH_FAILED_VALIDATION:
    case VL_PH_CANCELED:
        return W_BAD;
    case VL_PH_PARTIALLY_FAILED:
    case VL_PH_WAITING_PLUGIN_OPS_PARTIALLY_FAILED:
    case VL_PH_FINALIZING_PARTIALLY_FAILED:
    case VL_PH_DELETING:
    case VL_PH_CANCELING:
        return W_WARN;
    case VL_PH_IN_PROGRESS:
    case VL_PH_WAITING_PLUGIN_OPS:
    case VL_PH_FINALIZING:
    case VL_PH_ACCEPTED:
    case VL_PH_PREPARED:
        return W_ACTIVE;
    default:
        return W_DIM;
    }
}

static int w_put(WINDOW *w, int y, int x, int maxcols, const char *s, attr_t a, int ellipsis)
{
    char buf[1024];
    /* never past the window's right edge: curses would wrap the rest onto the next row */
    if (maxcols > getmaxx(w) - x) maxcols = getmaxx(w) - x;
    if (maxcols <= 0) return 0;
    int used = ellipsis ? san_fit_ellipsis(buf, sizeof buf, s ? s : "", maxcols)
                        : san_fit(buf, sizeof buf, s ? s : "", maxcols);
    wattrset(w, a);
    mvwaddstr(w, y, x, buf);
    wattrset(w, A_NORMAL);
    return used;
}

int w_text(WINDOW *w, int y, int x, int maxcols, const char *s, attr_t a)
{
    return w_put(w, y, x, maxcols, s, a, 1);
}

int w_text_mid(WINDOW *w, int y, int x, int maxcols, const char *s, attr_t a)
{
    if (maxcols > getmaxx(w) - x) maxcols = getmaxx(w) - x;
    if (maxcols <= 0) return 0;
    char *safe = san_str(s ? s : "");
    int total = san_width(safe);
    if (total <= maxcols || maxcols < 5) {
        free(safe);
        return w_text(w, y, x, maxcols, s, a);
    }
    /* a third of the room for the start, the rest for the end (where runs and pods differ: the
     * timestamp, the ordinal, the volume), an ellipsis between */
    int head = (maxcols - 1) / 3, used, tail_w;
    size_t n = strlen(safe), hb = w_cut(safe, n, head, &used);
    size_t tb = n;
    for (size_t i = hb; i < n; i++) {
        if (((unsigned char)safe[i] & 0xc0) == 0x80) continue; /* inside a character */
        w_cut(safe + i, n - i, 1 << 30, &tail_w);
        if (tail_w <= maxcols - 1 - used) {
            tb = i;
            break;
        }
    }
    char *out = xasprintf("%.*s%s%s", (int)hb, safe, w_utf8_on ? "\u2026" : "~", safe + tb);
    wattrset(w, a);
    mvwaddstr(w, y, x, out);
    wattrset(w, A_NORMAL);
    int shown = san_width(out);
    free(out);
    free(safe);
    return shown;
}

int w_print(WINDOW *w, int y, int x, int maxcols, attr_t a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* our own text: already safe, but cut to the width like cluster text (no ellipsis: the
     * layouts size their columns for it) */
    return w_put(w, y, x, maxcols, buf, a, 0);
}

void w_bar(WINDOW *w, int y, int x, int width, double frac, w_role fill)
{
    w_bar_in(w, y, x, width, frac, fill, 0);
}

void w_bar_in(WINDOW *w, int y, int x, int width, double frac, w_role fill, attr_t row)
{
    if (width > getmaxx(w) - x) width = getmaxx(w) - x;
    static const char *eighths[] = {"",       "\u258f", "\u258e", "\u258d",
                                    "\u258c", "\u258b", "\u258a", "\u2589"};
    if (width <= 0) return;
    int unknown = frac < 0;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int cells8 = (int)(frac * width * 8 + 0.5);
    int full = cells8 / 8, part = cells8 % 8;
    wmove(w, y, x);
    wattrset(w, row ? row : w_attr(fill));
    for (int i = 0; i < full; i++) waddstr(w, w_utf8_on ? "\u2588" : "#");
    int used = full;
    if (part && used < width) {
        waddstr(w, w_utf8_on ? eighths[part] : (part >= 4 ? "#" : "-"));
        used++;
    }
    wattrset(w, row ? row : w_attr(W_BAR_EMPTY) | (unknown ? A_DIM : 0));
    for (int i = used; i < width; i++) waddstr(w, w_utf8_on ? "\u2591" : ".");
    wattrset(w, A_NORMAL);
}

/* Columns scaled to top, the largest value but at least floor (a history of noise, or of
 * zeros, is not magnified into full blocks: it stays at the baseline). */
static void w_spark(WINDOW *w, int y, int x, const double *vals, int n, double floor, attr_t a,
                    const attr_t *each)
{
    static const char *levels[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                   "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = "_.-~=*#@";
    double top = floor > 0 ? floor : 0;
    for (int i = 0; i < n; i++)
        if (vals[i] > top) top = vals[i];
    wmove(w, y, x);
    wattrset(w, a);
    for (int i = 0; i < n; i++) {
        if (each) wattrset(w, each[i] ? each[i] : a);
        if (vals[i] < 0) {
            waddstr(w, " ");
            continue;
        }
        int l = top > 0 ? (int)(vals[i] / top * 7 + 0.5) : 0;
        if (l > 7) l = 7;
        if (w_utf8_on)
            waddstr(w, levels[l]);
        else
            waddch(w, (chtype)ascii[l]);
    }
    wattrset(w, A_NORMAL);
}

void w_sparkline(WINDOW *w, int y, int x, const double *vals, int n, double floor, attr_t a)
{
    w_spark(w, y, x, vals, n, floor, a, NULL);
}

void w_sparkline_each(WINDOW *w, int y, int x, const double *vals, int n, attr_t a,
                      const attr_t *each)
{
    w_spark(w, y, x, vals, n, 0, a, each);
}

void w_clear_line(WINDOW *w, int y, int x, int cols, attr_t a)
{
    wattrset(w, a);
    for (int i = x; i < cols; i++) mvwaddch(w, y, i, ' ');
    wattrset(w, A_NORMAL);
}

size_t w_cut(const char *s, size_t n, int cols, int *used)
{
    mbstate_t ps;
    memset(&ps, 0, sizeof ps);
    size_t i = 0;
    int c = 0;
    while (i < n) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &ps);
        int wd = 1;
        if (k == (size_t)-1 || k == (size_t)-2) {
            memset(&ps, 0, sizeof ps);
            k = 1;
        } else {
            if (k == 0) k = 1;
            wd = wcwidth(wc);
            if (wd < 0) wd = 1;
        }
        if (c + wd > cols) break;
        c += wd;
        i += k;
    }
    if (used) *used = c;
    return i;
}

int w_wrap(WINDOW *w, int y, int x, int width, int skip, int max_rows, const char *s, attr_t a)
{
    if (w && width > getmaxx(w) - x) width = getmaxx(w) - x;
    if (width < 1) width = 1;
    char *safe = san_str(s);
    const char *p = safe;
    size_t n = strlen(safe);
    int row = 0;
    do {
        size_t k = w_cut(p, n, width, NULL);
        if (k == 0) k = n < 4 ? n : 1; /* a character wider than the width: one byte on */
        if (k < n && p[k] != ' ') {    /* break after the last space of the row, if it has one */
            size_t sp = k;
            while (sp > 0 && p[sp - 1] != ' ') sp--;
            if (sp > 0) k = sp;
        }
        if (w && row >= skip && row < skip + max_rows) {
            wattrset(w, a);
            mvwaddnstr(w, y + row - skip, x, p, (int)k);
            wattrset(w, A_NORMAL);
        }
        p += k;
        n -= k;
        row++;
    } while (n > 0);
    free(safe);
    return row;
}

int w_text_from(WINDOW *w, int y, int x, int maxcols, int from, const char *s, attr_t a)
{
    char *safe = san_str(s);
    size_t n = strlen(safe);
    int total = 0;
    w_cut(safe, n, 1 << 30, &total);
    size_t skip = from > 0 ? w_cut(safe, n, from, NULL) : 0;
    if (maxcols > getmaxx(w) - x) maxcols = getmaxx(w) - x;
    size_t k = maxcols > 0 ? w_cut(safe + skip, n - skip, maxcols, NULL) : 0;
    if (k) {
        wattrset(w, a);
        mvwaddnstr(w, y, x, safe + skip, (int)k);
        wattrset(w, A_NORMAL);
    }
    free(safe);
    return total;
}
