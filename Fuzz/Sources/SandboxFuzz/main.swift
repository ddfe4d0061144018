import CLibFuzzer
import Foundation

// SwiftPM gives every executable its own `main` (this file), so libFuzzer's is not used: its
// driver runs from here, with the hooks in Entry.swift.
var arguments = CommandLine.argc
var vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &vector) { data, size in fuzzerTestOneInput(data, size) })
