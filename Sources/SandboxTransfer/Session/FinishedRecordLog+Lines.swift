import Sandbox
import SandboxCore

extension FinishedRecordLog {
    /// The longest line the log holds (a record is ~0.5 KiB; its URL and headers are the app's,
    /// and a request sent to `sandboxd` fits in one 1 MiB frame). ``append(_:durable:)`` refuses a
    /// longer record, and a reader a longer line: the session's folder is the app's to write.
    static let maximumLineLength = 1 << 20
    /// The longest log read (~2 million records).
    static let maximumSize: Int64 = 1 << 30
    /// How much of the log is read at once.
    private static let chunkSize = 64 << 10

    /// Calls `body` with each whole line of the log at `path` (without its newline) and its number
    /// from 1, reading the file a chunk at a time: memory holds one line, however long the log. A
    /// last line without its newline (a kill cut it short) is not passed, however long it is.
    ///
    /// - Returns: the length of the whole lines (`0` when the log is missing).
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a whole line longer than
    ///   ``maximumLineLength`` (naming the log and the line), ``/SandboxCore/SandboxError/Code/fileTooLarge``
    ///   past ``maximumSize``, the core's code when the log cannot be read, and what `body` throws.
    static func forEachLine(
        root: ConfinedRoot, path: ContainerPath, _ body: (_ line: [UInt8], _ number: Int) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        var reader = LineReader(path: path)
        var failure: SandboxError?  // thrown by the reader or `body`: not a file failure
        do throws(SandboxError) {
            try root.forEachChunk(of: path, chunkSize: chunkSize) { chunk throws(SandboxError) in
                do throws(SandboxError) { try reader.take(chunk, body) } catch {
                    failure = error
                    throw error
                }
            }
        } catch {
            if let failure { throw failure }
            if error.code == .notFound { return 0 }
            throw .fileSystem(error, doing: "read the checkpoint '\(path)'")
        }
        return reader.wholeLength
    }

    /// Splits chunks of the log into lines, holding at most one line of ``maximumLineLength``.
    private struct LineReader {
        let path: ContainerPath
        /// The current line's bytes so far (none once it is too long).
        var line: [UInt8] = []
        /// Whether the current line has passed ``maximumLineLength``.
        var overlong = false
        var number = 1
        /// The bytes read, and those of the whole lines among them.
        var readLength: Int64 = 0
        var wholeLength: Int64 = 0

        init(path: ContainerPath) { self.path = path }

        mutating func take(
            _ chunk: UnsafeRawBufferPointer, _ body: (_ line: [UInt8], _ number: Int) throws(SandboxError) -> Void
        ) throws(SandboxError) {
            let chunkStart = readLength
            readLength += Int64(chunk.count)
            guard readLength <= maximumSize else {
                throw SandboxError(
                    .fileTooLarge,
                    "The checkpoint '\(path)' is longer than \(maximumSize) bytes; remove it to forget those downloads.",
                    path: path.description)
            }
            var start = 0
            while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                append(chunk[start..<newline])
                guard !overlong else {
                    let named = "\(path) line \(number)"
                    throw SandboxError(
                        .corrupt,
                        "The checkpoint '\(named)' is damaged: it is longer than \(maximumLineLength) bytes; remove it to forget that download.",
                        path: named)
                }
                try body(line, number)
                line.removeAll(keepingCapacity: true)
                number += 1
                start = newline + 1
                wholeLength = chunkStart + Int64(start)
            }
            append(chunk[start...])
        }

        /// Adds `bytes` to the current line, unless that makes it too long (then it is dropped).
        private mutating func append(_ bytes: Slice<UnsafeRawBufferPointer>) {
            guard !overlong else { return }
            if line.count + bytes.count > maximumLineLength {
                overlong = true
                line = []
            } else {
                line.append(contentsOf: bytes)
            }
        }
    }
}
