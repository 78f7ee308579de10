/* fuzzlib.c: helpers for the libFuzzer builds (replay.c has its own copy of fuzz_cstr). */
#include "fuzz.h"
#include "kubeclient/util.h"

char *fuzz_cstr(const uint8_t *data, size_t size)
{
    return xstrndup((const char *)data, size);
}
