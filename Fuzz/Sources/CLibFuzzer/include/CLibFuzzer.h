#ifndef C_LIB_FUZZER_H
#define C_LIB_FUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that have their own `main` (as every SwiftPM executable
/// does): parses libFuzzer's flags from argv and runs `callback` on each input.
/// Defined by the libFuzzer runtime that `-sanitize=fuzzer` links.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
