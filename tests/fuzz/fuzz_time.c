/* fuzz_time.c: RFC3339 timestamps (from the cluster, logs, exec plugins) and their printing. */
#include <stdlib.h>

#include "format.h"
#include "fuzz.h"
#include "kubeclient/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    double t;
    char buf[64];
    if (kc_parse_time(s, &t) == 0) {
        kc_format_time(t, buf, sizeof buf);
        fmt_clock(buf, sizeof buf, t, 1);
        fmt_started(buf, sizeof buf, t, 1e9);
    }
    free(s);
    return 0;
}
