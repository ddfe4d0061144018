// The declarations in include/CLibFuzzer.h are defined by the libFuzzer runtime; SwiftPM needs
// one source file for a C target.
#include "CLibFuzzer.h"
