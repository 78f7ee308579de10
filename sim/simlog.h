/* simlog.h: Velero server log lines in logrus text format (time, level, msg, then the other
 * fields sorted by key; values quoted only when logrus would). */
#pragma once
#include <stddef.h>

typedef struct simlog_field {
    const char *key;
    const char *val; /* NULL or "" prints as key= */
} simlog_field;

/* Returns a malloc'd line without a newline:
 * time="2026-01-01T00:00:00Z" level=info msg="..." backup=velero/b1 logSource="..." ... */
char *simlog_line(double when, const char *level, const char *msg, const simlog_field *fields,
                  size_t n);

/* The line in the server's --log-format: text as simlog_line, or (json != 0) as logrus'
 * JSONFormatter writes it: one object, every key sorted (time, level and msg included), Go's
 * encoding/json escapes (<, > and & as \u003c...), and the error field named "error.message". */
char *simlog_format(int json, double when, const char *level, const char *msg,
                    const simlog_field *fields, size_t n);
