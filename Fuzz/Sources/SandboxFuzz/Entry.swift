import Foundation

// libFuzzer's two hooks. libFuzzer owns `main`; `SANDBOX_FUZZ_TARGET` picks the target.

/// Called once, before the first input: picks the target and, when `SANDBOX_FUZZ_WRITE_SEEDS`
/// names a folder, writes the target's code-made seeds there and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let target = FuzzTarget.selected
    if let folder = ProcessInfo.processInfo.environment["SANDBOX_FUZZ_WRITE_SEEDS"], !folder.isEmpty {
        target.writeSeeds(to: folder)
        exit(0)
    }
    target.prepare()
    return 0
}

/// Called for every input. A trap (a failed invariant, an overflow, an out-of-range index) or an
/// AddressSanitizer report is a crash; thrown errors are checked by the target, then ignored.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.selected.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
