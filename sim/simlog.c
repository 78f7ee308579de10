/* simlog.c: formats Velero server log lines as logrus' TextFormatter does. */
#include "simlog.h"

#include <stdlib.h>
#include <string.h>

#include "kubeclient/util.h"

/* logrus' needsQuoting: anything outside [A-Za-z0-9-._/@^+] is quoted. */
static int needs_quoting(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("-._/@^+", c)))
            return 1;
    }
    return 0;
}

/* Go's %q for the printable ASCII Velero writes; other bytes are escaped as \xNN. */
static void append_value(kc_buf *b, const char *s)
{
    if (!needs_quoting(s)) {
        kc_buf_append(b, s, strlen(s));
        return;
    }
    kc_buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            kc_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            kc_buf_append(b, "\\n", 2);
        else if (*p == '\t')
            kc_buf_append(b, "\\t", 2);
        else if (*p < 0x20 || *p == 0x7f)
            kc_buf_printf(b, "\\x%02x", *p);
        else
            kc_buf_append(b, p, 1);
    }
    kc_buf_append(b, "\"", 1);
}

static int field_cmp(const void *a, const void *b)
{
    return strcmp(((const simlog_field *)a)->key, ((const simlog_field *)b)->key);
}

char *simlog_line(double when, const char *level, const char *msg, const simlog_field *fields,
                  size_t n)
{
    kc_buf b = {0};
    char ts[40];
    kc_format_time(when, ts, sizeof ts);
    kc_buf_printf(&b, "time=\"%s\" level=%s msg=", ts, level);
    append_value(&b, msg);
    simlog_field sorted[32];
    if (n > 32) n = 32;
    memcpy(sorted, fields, n * sizeof *fields);
    qsort(sorted, n, sizeof *sorted, field_cmp);
    for (size_t i = 0; i < n; i++) {
        kc_buf_printf(&b, " %s=", sorted[i].key);
        if (sorted[i].val) append_value(&b, sorted[i].val);
    }
    return kc_buf_cstr(&b);
}

/* Go's encoding/json string escaping with HTML escaping on (logrus' default). */
static void append_json_string(kc_buf *b, const char *s)
{
    kc_buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            kc_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            kc_buf_append(b, "\\n", 2);
        else if (*p == '\r')
            kc_buf_append(b, "\\r", 2);
        else if (*p == '\t')
            kc_buf_append(b, "\\t", 2);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            kc_buf_printf(b, "\\u%04x", *p);
        else
            kc_buf_append(b, p, 1);
    }
    kc_buf_append(b, "\"", 1);
}

char *simlog_format(int json, double when, const char *level, const char *msg,
                    const simlog_field *fields, size_t n)
{
    if (!json) return simlog_line(when, level, msg, fields, n);
    char ts[40];
    kc_format_time(when, ts, sizeof ts);
    simlog_field all[35];
    if (n > 32) n = 32;
    for (size_t i = 0; i < n; i++) {
        all[i] = fields[i];
        if (!strcmp(all[i].key, "error")) all[i].key = "error.message";
    }
    all[n++] = (simlog_field){"level", level};
    all[n++] = (simlog_field){"msg", msg};
    all[n++] = (simlog_field){"time", ts};
    qsort(all, n, sizeof *all, field_cmp);
    kc_buf b = {0};
    kc_buf_append(&b, "{", 1);
    for (size_t i = 0; i < n; i++) {
        if (i) kc_buf_append(&b, ",", 1);
        append_json_string(&b, all[i].key);
        kc_buf_append(&b, ":", 1);
        append_json_string(&b, all[i].val ? all[i].val : "");
    }
    kc_buf_append(&b, "}", 1);
    return kc_buf_cstr(&b);
}
