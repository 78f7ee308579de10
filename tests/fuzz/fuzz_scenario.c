/* fuzz_scenario.c: veltop-sim's scenario YAML. */
#include <stdlib.h>

#include "fuzz.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    scenario_free(scenario_parse((const char *)data, size, "fuzz", err, sizeof err));
    return 0;
}
