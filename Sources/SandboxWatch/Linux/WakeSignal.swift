import Glibc
import SystemPackage

/// Wakes the reader thread from `poll(2)`: a non-blocking socket pair, one byte per signal.
final class WakeSignal: Sendable {
    private let readEnd: CInt
    private let writeEnd: CInt

    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when no descriptor is left.
    init() throws(SandboxError) {
        var pair: [CInt] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        _ = try syscall("socketpair", path: "wake-up channel") { socketpair(AF_UNIX, type, 0, &pair) }
        readEnd = pair[0]
        writeEnd = pair[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The descriptor to poll.
    var descriptor: CInt { readEnd }

    /// Wakes the reader. Never blocks: a full socket already holds a pending wake-up.
    func signal() {
        var byte: UInt8 = 1
        _ = retryingEINTR { send(writeEnd, &byte, 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Consumes pending wake-ups.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while case .success(let count) = retryingEINTR({ recv(readEnd, &bytes, bytes.count, 0) }), count > 0 {}
    }
}
