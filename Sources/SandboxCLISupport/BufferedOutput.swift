import Sandbox

/// Standard output gathered into one `write` per 64 KiB, for a command that prints a line per item
/// of a listing as long as the tree is (`ls --recursive`): not a `write` per line, and never the
/// whole listing in memory.
package struct BufferedOutput {
    /// Bytes gathered before they are written.
    package static let capacity = 64 * 1024

    /// What is gathered and not yet written; append to it, then call ``flushIfFull()``.
    package var bytes: [UInt8] = []

    package init() {
        bytes.reserveCapacity(Self.capacity + 4096)
    }

    /// Writes the gathered bytes once there are ``capacity`` of them.
    ///
    /// - Throws: as ``flush()``.
    package mutating func flushIfFull() throws(SandboxError) {
        if bytes.count >= Self.capacity { try flush() }
    }

    /// Writes what is gathered.
    ///
    /// - Throws: the core's error for `write` on standard output (see ``StandardStreams/output(_:)``).
    package mutating func flush() throws(SandboxError) {
        guard !bytes.isEmpty else { return }
        try StandardStreams.output(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
