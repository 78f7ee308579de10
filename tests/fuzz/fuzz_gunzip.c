/* fuzz_gunzip.c: the streaming gzip decoder of downloaded artifacts, fed in chunks the input
 * chooses, with a small cap. */
#include <stdlib.h>

#include "fuzz.h"
#include "kubeclient/gunzip.h"

static void sink(void *arg, const char *d, size_t n)
{
    (void)arg;
    (void)d;
    (void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t step = (size_t)data[0] * 16 + 1;
    kc_err err = {0};
    kc_gunzip *g = kc_gunzip_new((size_t)1 << 20, sink, NULL);
    int rc = 0;
    for (size_t i = 1; i < size && rc == 0; i += step)
        rc = kc_gunzip_feed(g, data + i, size - i < step ? size - i : step, &err);
    if (rc == 0) kc_gunzip_finish(g, &err);
    kc_gunzip_free(g);
    return 0;
}
