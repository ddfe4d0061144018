import Sandbox
import SystemPackage

/// Standard output and standard error, written with `write(2)` through swift-system (which retries
/// `EINTR`). Foundation's `FileHandle.write` traps when a write fails, and `print` hides the
/// failure; here a failed write of standard output is an error the command ends with.
///
/// `main` ignores `SIGPIPE`, so a reader that went away (`sandbox ls --json | head -c1`) makes the
/// next write fail with `EPIPE` instead of killing the process; ``isClosedOutput(_:)`` tells that
/// case apart, which ends the command quietly with status 0 (the reader took what it wanted).
package enum StandardStreams {
    /// What standard output is called in errors.
    package static let outputName = "standard output"

    /// Writes all of `bytes` to standard output.
    ///
    /// - Throws: the core's error for `write` on "standard output": `EPIPE` when the reader went
    ///   away (``isClosedOutput(_:)``), ``SandboxError/Code/noSpace``, ``SandboxError/Code/io``, …
    package static func output(_ bytes: some Sequence<UInt8>) throws(SandboxError) {
        do {
            _ = try FileDescriptor.standardOutput.writeAll(bytes)
        } catch {
            throw .systemCall("write", errno: error as? Errno ?? .ioError, path: outputName)
        }
    }

    /// Writes `text` to standard error. A failure is dropped: standard error is where failures are
    /// reported, so there is nowhere left to report it.
    package static func error(_ text: String) {
        do {
            _ = try FileDescriptor.standardError.writeAll(text.utf8)
        } catch {}  // nowhere to report it: see above
    }

    /// Whether `error` is a write to standard output whose reader went away (`EPIPE`).
    package static func isClosedOutput(_ error: any Error) -> Bool {
        guard let error = error as? SandboxError else { return false }
        return (error.cause ?? error.underlying?.sandboxError?.cause)?.errno == .brokenPipe
    }
}
