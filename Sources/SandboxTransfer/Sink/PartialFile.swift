import NIOCore
import NIOPosix
import Sandbox

/// The file a download's bytes go into, inside the session's folder: written at explicit offsets
/// (`pwrite`), never appended blindly, so a 200 answer rewrites from zero and a 206 continues exactly
/// at the offset the server confirmed. Optionally hashed as the bytes go by.
///
/// Built on the core's synchronous ``OpenFile``: each write is one `pwrite` into the page cache,
/// on the I/O engine's threads (``BodyPipe``), never on an event loop — which a debug build checks.
final class PartialFile: Sendable {
    let file: OpenFile
    let path: ContainerPath

    /// Opens (creating if needed) the partial file at `path`.
    ///
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause).
    init(root: ConfinedRoot, path: ContainerPath) throws(SandboxError) {
        do throws(SandboxError) {
            file = try root.openFile(forReadingAndWritingAt: path, options: .modifyFile(createIfNecessary: true))
        } catch {
            throw .fileSystem(error, doing: "open the partial download '\(path)'")
        }
        self.path = path
    }

    /// The bytes on disk: where a resumed download continues.
    func length() throws(SandboxError) -> Int64 {
        do throws(SandboxError) { return try file.size() } catch {
            throw .fileSystem(error, doing: "measure '\(path)'")
        }
    }

    /// Cuts the file to `length` bytes (0 to restart).
    func truncate(to length: Int64) throws(SandboxError) {
        assertOffEventLoop()
        do throws(SandboxError) { try file.truncate(to: length) } catch {
            throw .fileSystem(error, doing: "truncate '\(path)'")
        }
    }

    /// Writes `buffer` at `offset`, hashing it into `digest` when given.
    func write(_ buffer: ByteBuffer, atOffset offset: Int64, digest: inout StreamingDigest?) throws(SandboxError) {
        assertOffEventLoop()
        let result: Result<Void, SandboxError> = buffer.withUnsafeReadableBytes { bytes in
            digest?.update(bytes)
            do throws(SandboxError) {
                try file.write(bytes, atOffset: offset)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        do throws(SandboxError) { try result.get() } catch { throw .fileSystem(error, doing: "write to '\(path)'") }
    }

    /// Feeds the first `count` bytes of the file into `digest` (after resuming, so the digest covers
    /// the whole file without keeping hash state across processes).
    func hashPrefix(_ count: Int64, into digest: inout StreamingDigest) throws(SandboxError) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < count {
            let wanted = Int(min(Int64(chunk), count - offset))
            let read: Int
            do throws(SandboxError) {
                read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), atOffset: offset)
            } catch {
                throw .fileSystem(error, doing: "read '\(path)' to check its digest")
            }
            guard read > 0 else {
                throw SandboxError(
                    .corrupt, "'\(path)' is shorter than \(count) bytes; it changed during the download.",
                    path: path.description)
            }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
            offset += Int64(read)
        }
    }

    /// Flushes the file to the device.
    func synchronize() throws(SandboxError) {
        assertOffEventLoop()
        do throws(SandboxError) { try file.synchronize(.data) } catch {
            throw .fileSystem(error, doing: "flush '\(path)'")
        }
    }

    /// Closes the file; a failure here adds nothing to what the caller reports.
    func close() {
        try? file.close()  // the data was flushed (or is being discarded) already
    }

    /// In a debug build, stops the process when called on an event loop: a download's file work
    /// belongs on the engine, where a slow disk holds up no connection.
    private func assertOffEventLoop() {
        assert(MultiThreadedEventLoopGroup.currentEventLoop == nil, "'\(path)' is written on an event loop")
    }
}
