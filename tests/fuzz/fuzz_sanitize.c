/* fuzz_sanitize.c: the sanitiser every human-facing output goes through, in UTF-8 and ASCII
 * modes: its output never holds a control byte but LF-free text, and fits what it was given. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sanitize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    for (int ascii = 0; ascii < 2; ascii++) {
        san_set_ascii(ascii);
        char *safe = san_str(s);
        for (const unsigned char *p = (const unsigned char *)safe; *p; p++)
            if (*p < 0x20 || *p == 0x7f || (ascii && *p >= 0x80)) abort();
        (void)san_width(safe);
        free(safe);
        char out[64];
        int used = san_fit_ellipsis(out, sizeof out, s, 20);
        if (used > 20 || strlen(out) >= sizeof out) abort();
        free(san_message("%s", s));
    }
    san_set_ascii(0);
    free(s);
    return 0;
}
