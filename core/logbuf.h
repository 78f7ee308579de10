/* logbuf.h: the log pager's line store: all lines in one big buffer with an offset index (no
 * allocation per line), a level per line, a level-filtered view, and search. Holds at most
 * max_lines lines; beyond that the oldest are dropped. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "logparse.h"

typedef struct logbuf logbuf;

/* Lines longer than KC_CAP_LOG_LINE_BYTES (caps.h) are cut there. */
logbuf *logbuf_new(size_t max_lines); /* 0 = KC_CAP_LOG_LINES */
void logbuf_free(logbuf *b);
void logbuf_clear(logbuf *b);

/* Appends bytes: complete lines are indexed at once, a partial last line waits for its end. */
void logbuf_append(logbuf *b, const char *data, size_t n);
void logbuf_append_line(logbuf *b, const char *line, size_t n); /* one whole line (no '\n') */
void logbuf_flush(logbuf *b); /* the input ended: index a last line without '\n' */

size_t logbuf_count(const logbuf *b);   /* lines held */
size_t logbuf_dropped(const logbuf *b); /* oldest lines dropped so far (over max_lines) */
size_t logbuf_cut(const logbuf *b);     /* lines cut at KC_CAP_LOG_LINE_BYTES so far */
size_t logbuf_bytes(const logbuf *b);   /* text bytes held */
const char *logbuf_line(const logbuf *b, size_t i, size_t *len); /* not NUL-terminated */
lp_level logbuf_level(const logbuf *b, size_t i);

/* Level filter: the view holds the lines at min_level or more severe; LP_UNKNOWN shows all (lines
 * without a level are shown only then). View rows map to line indices. */
void logbuf_set_filter(logbuf *b, lp_level min_level);
lp_level logbuf_filter(const logbuf *b);
size_t logbuf_view_count(const logbuf *b);
size_t logbuf_view_line(const logbuf *b, size_t vi); /* line index of view row vi */
/* View row of the first line at or after line index li (view count if none). */
size_t logbuf_view_find(const logbuf *b, size_t li);

/* Searches the view for needle from view row `from` (exclusive of `from` itself when
 * skip_current) forward (dir > 0) or backward (dir < 0), wrapping around. Case-insensitive when
 * needle has no upper-case letter (vim's smartcase). Returns the view row, or -1. */
long logbuf_search(const logbuf *b, const char *needle, size_t from, int dir, int skip_current);
/* The view rows in [from, to) whose line holds needle (smartcase, as logbuf_search). */
size_t logbuf_count_matches(const logbuf *b, const char *needle, size_t from, size_t to);
/* Next line of at least LP_ERROR severity in the view after row `from`, wrapping; -1 if none. */
long logbuf_next_level(const logbuf *b, size_t from, lp_level at_least);

/* Writes the lines of the view (what the level filter shows, each with '\n') to a new file at
 * path; never overwrites: an existing path fails with EEXIST. Returns 0 (*lines = lines written)
 * or -1 with errno set. */
int logbuf_write(const logbuf *b, const char *path, size_t *lines);
