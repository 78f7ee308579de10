/* ndjson.h: a newline-delimited JSON framer: bytes in, complete lines out, bounded buffer. */
#pragma once
#include <stddef.h>

typedef struct kc_ndjson kc_ndjson;
/* on_line gets each complete line (without '\n', not NUL-terminated). Returning nonzero stops. */
typedef int (*kc_ndjson_line_fn)(void *arg, const char *line, size_t n);

kc_ndjson *kc_ndjson_new(size_t max_line, kc_ndjson_line_fn fn, void *arg);
void kc_ndjson_free(kc_ndjson *f);
/* Returns 0, or -1 when a line exceeded max_line (the framer then drops that line and resyncs at
 * the next newline; the caller decides whether that ends the stream). */
int kc_ndjson_feed(kc_ndjson *f, const char *data, size_t n);
size_t kc_ndjson_pending(const kc_ndjson *f); /* bytes of an incomplete line held */
