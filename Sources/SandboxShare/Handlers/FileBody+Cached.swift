import CSandboxShims
import Glibc
import NIOCore
import Sandbox
import Synchronization
import SystemPackage

extension FileBody {
    /// Whether the kernel accepts `RWF_NOWAIT`; cleared, for the whole process, the first time it
    /// refuses it.
    private static let nowaitSupported = Atomic<Bool>(true)

    /// Reads `count` bytes at `offset` of `file` into `buffer` on the caller's thread if the page
    /// cache holds all of them (`preadv2(RWF_NOWAIT)`, which never waits for the disk), so that a
    /// connection's event loop is never held up by a disk.
    ///
    /// - Returns: whether all `count` bytes were read; when not (not all cached, the file's end,
    ///   an error), `buffer` may hold some of them, and the caller reads again on the engine
    ///   (``readOnEngine(_:at:of:into:_:)``), which reports errors and short files.
    static func readCached(_ count: Int, at offset: Int64, of file: OpenFile, into buffer: inout ByteBuffer) -> Bool {
        guard count > 0, nowaitSupported.load(ordering: .relaxed) else { return false }
        let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target -> Int in
            let outcome: Int
            do throws(SandboxError) {
                outcome = try file.withUnsafeDescriptor { fd throws(SandboxError) -> Int in
                    csb_pread_nowait(fd.rawValue, target.baseAddress, count, off_t(offset))
                }
            } catch {
                return 0  // closed: the engine's read says so
            }
            if outcome < 0 {
                let error = errno
                if error == EOPNOTSUPP || error == ENOSYS || error == EINVAL {
                    nowaitSupported.store(false, ordering: .relaxed)
                }
                return 0
            }
            return outcome
        }
        return read == count
    }

    /// Reads up to `count` bytes at `offset` of `contents` into `buffer` on one of the engine's
    /// threads (a read that may wait for the disk, or decrypts).
    ///
    /// - Returns: `buffer` with the bytes read: fewer than `count` only at the end of the file.
    /// - Throws: ``/SandboxCore/SandboxError`` with the file system's failure, or the engine's (stopped, or the
    ///   request cancelled while the read waited).
    static func readOnEngine(
        _ count: Int, at offset: Int64, of contents: FileContents, into buffer: ByteBuffer, _ path: SharePath
    ) async throws(SandboxError) -> ByteBuffer {
        do {
            return try await IOEngine.shared.run { () throws(SandboxError) -> ByteBuffer in
                var buffer = buffer
                _ = try contents.read(count, at: offset, into: &buffer, path)
                return buffer
            }
        } catch let error as SandboxError where error.code == .interrupted {
            throw .fileSystem(error, path: path, doing: "read")  // the engine stopped, or the request was cancelled
        } catch let error as SandboxError {
            throw error  // the handler's own, already answered
        } catch {
            throw SandboxError(
                .internalError, "Could not read '\(path)': \(error); ask for it again.", path: path.description)
        }
    }
}
