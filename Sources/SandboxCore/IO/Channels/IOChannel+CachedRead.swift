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
        guard length > 0, length <= Self.cachedReadLimit, Self.nowaitSupported.load(ordering: .relaxed), !isClosed
        else { return nil }
        let storage = engine.buffers.take(minimumCapacity: length)
        let outcome = try? descriptor.use { fd throws(SandboxError) -> Int in
            csb_pread_nowait(fd, storage.base, length, off_t(offset))
        }
        guard let read = outcome else { return nil }  // closed: the engine's path says so
        if read < 0 {
            let error = errno
            if error == EOPNOTSUPP || error == ENOSYS || error == EINVAL {
                Self.nowaitSupported.store(false, ordering: .relaxed)
            }
            return nil
        }
        guard read == length else { return nil }
        return ChannelReadPart(data: DataRegions(storage: storage, count: read), isDone: true)
    }
}
