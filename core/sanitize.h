/* sanitize.h: makes text from the cluster safe for the terminal: control characters, escape
 * sequences (ESC, CSI, OSC), C1 controls, bidi overrides and invalid UTF-8 become visible
 * placeholders; nothing from the cluster reaches the terminal unfiltered. */
#pragma once
#include <stddef.h>

#include "kubeclient/util.h"

/* ASCII mode (non-UTF-8 locale): every non-ASCII character becomes '?'. Set once at start. */
void san_set_ascii(int ascii);
int san_ascii(void);

/* Appends the safe form of s[0..n) to b:
 *   ESC -> "^[", other C0 controls and DEL -> "^X" caret notation, TAB -> one space,
 *   C1 controls, bidi overrides/isolates, U+2028/9 and every invalid UTF-8 byte -> U+FFFD
 *   (or '?' in ASCII mode); valid printable UTF-8 is kept as is. */
void san_append(kc_buf *b, const char *s, size_t n);
/* The safe form of s (NULL -> ""), malloc'd. */
char *san_str(const char *s);
/* Writes the safe form of s cut to at most cols terminal columns into out (NUL-terminated, never
 * more than outsz bytes, never a partial character); returns the columns used. */
int san_fit(char *out, size_t outsz, const char *s, int cols);
/* As san_fit, but text that does not fit ends in an ellipsis ("\u2026", "~" in ASCII mode) in the
 * last column, so a cut name is never mistaken for a whole one. */
int san_fit_ellipsis(char *out, size_t outsz, const char *s, int cols);
/* A message for stderr, "veltop: <text>\n" with the formatted text made safe as above (one line:
 * CR and LF show as ^M ^J), malloc'd. Every message veltop writes to stderr goes through it. */
char *san_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes san_message(fmt, ...) to stderr. */
void san_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For JSON output, not for terminals: the server's exact text (controls, ESC, quotes kept: JSON
 * escaping is its safety), except that every byte of invalid UTF-8 becomes U+FFFD, as Go's
 * encoding/json (and so kube-apiserver) writes it, since JSON text must be UTF-8 (RFC 8259) and
 * cJSON copies bytes >= 0x80 through unchecked. NULL -> NULL; malloc'd. */
char *san_utf8(const char *s);
/* JSON text printed by cJSON (which escapes C0 controls, quotes and backslashes) with what it
 * leaves raw escaped as well: DEL and the C1 controls (U+0080-U+009F, an 8-bit CSI among them)
 * become \u007f, \u0080..., so the JSON carries them exactly and a terminal it is printed to
 * never sees them raw. Only inside strings can they occur. malloc'd. */
char *san_json_text(const char *json);
/* Terminal columns of an already safe string. */
int san_width(const char *safe);
