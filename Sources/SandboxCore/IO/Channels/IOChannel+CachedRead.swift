import CSandboxShims
import Glibc
import Synchronization

extension IOChannel {
    /// The largest read tried on the caller's thread before going to the engine.
    static let cachedReadLimit = 128 << 10

    /// Whether the kernel and file systems seen so far accept `RWF_NOWAIT`; cleared, for the whole
    /// process, the first time one refuses it.
    private static let nowaitSupported = Atomic<Bool>(true)

    /// A small positional read served on the calling thread, when the page cache holds every byte.
    ///
    /// Handing a read to an engine thread costs two thread wake-ups, far more than copying 4 KiB out
    /// of the page cache. `preadv2(RWF_NOWAIT)` never waits for the disk: it fails with `EAGAIN`
    /// instead, so it is safe on a thread of the cooperative pool. Anything short of the whole
    /// range (not all cached, the end of the file, an error, a closed channel) returns `nil`, and
    /// the caller takes the engine's path, which reports errors and handles the file's end.
    func readCached(atOffset offset: Int64, length: Int) -> ChannelReadPart? {
        guard length > 0, length <= Self.cachedReadLimit else { return nil }
        let storage = engine.buffers.take(minimumCapacity: length)
        let target = UnsafeMutableRawBufferPointer(rebasing: storage.mutableBytes[0..<length])
        guard let read = readCached(into: target, atOffset: offset), read == length else { return nil }
        return ChannelReadPart(data: DataRegions(storage: storage, count: read), isDone: true)
    }

    /// One `preadv2(RWF_NOWAIT)` into `buffer` on the calling thread: the bytes read (fewer than
    /// asked when only some are cached or the file ends, 0 at or past the end), or `nil` when none
    /// could be read without waiting, the kernel refuses the flag, the read failed or the channel
    /// is closed. Never blocks on the disk; the caller goes to the engine for anything not read.
    func readCached(into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64) -> Int? {
        guard kind == .randomAccess, access.canRead, offset >= 0, !buffer.isEmpty,
            buffer.count <= Self.cachedReadLimit, Self.nowaitSupported.load(ordering: .relaxed), !isClosed
        else { return nil }
        let outcome = try? descriptor.use { fd throws(SandboxError) -> (read: Int, error: CInt) in
            let read = csb_pread_nowait(fd, buffer.baseAddress, buffer.count, off_t(offset))
            return (read, read < 0 ? errno : 0)  // before the lease's release can touch errno
        }
        guard let (read, error) = outcome else { return nil }  // closed: the engine's path says so
        if read < 0 {
            if error == EOPNOTSUPP || error == ENOSYS || error == EINVAL {
                Self.nowaitSupported.store(false, ordering: .relaxed)
            }
            return nil
        }
        return read
    }
}
