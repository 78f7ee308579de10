/* fuzz.h: the libFuzzer entry point every tests/fuzz/fuzz_*.c defines. Built two ways: with clang
 * and -fsanitize=fuzzer for `make fuzz`, and with replay.c's main() (any compiler) so `make test`
 * replays each seed corpus (and every crash kept in it) as a regression test. */
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (malloc'd). */
char *fuzz_cstr(const uint8_t *data, size_t size);
