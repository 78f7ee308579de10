/* logparse.h: parses one Velero log line, logrus text (`key=value`, quoted values) or JSON, into
 * its level, time, message and fields. */
#pragma once
#include <stddef.h>

typedef enum {
    LP_UNKNOWN = 0, /* not a logrus line, or no level */
    LP_TRACE,
    LP_DEBUG,
    LP_INFO,
    LP_WARNING,
    LP_ERROR,
    LP_FATAL,
    LP_PANIC
} lp_level;

typedef struct lp_field {
    const char *key, *value; /* NUL-terminated, unescaped; point into the line's own storage */
} lp_field;

typedef struct lp_line {
    lp_level level;
    const char *time, *msg; /* "" when absent */
    lp_field *fields;       /* every key=value in order, time/level/msg included */
    size_t nfields, cap;
    char *store; /* unescaped text of all fields */
    size_t store_cap;
} lp_line;

/* An lp_line is reusable: zero it once, parse many times, lp_line_free at the end. Returns 0 when
 * the line is a logrus line (text with at least one of level=, msg=, time=; or a JSON object),
 * -1 otherwise (the line then has no fields and LP_UNKNOWN). */
int lp_parse(lp_line *l, const char *line, size_t len);
void lp_line_free(lp_line *l);
const char *lp_get(const lp_line *l, const char *key); /* NULL when absent */

/* The level of a raw line without a full parse (`level=error`, `"level":"error"`); fast enough for
 * a million lines. */
lp_level lp_level_of(const char *line, size_t len);
lp_level lp_level_parse(const char *s, size_t n); /* "warning"/"warn", "error", ... */
const char *lp_level_name(lp_level l);            /* "error", ... ; "" for LP_UNKNOWN */
