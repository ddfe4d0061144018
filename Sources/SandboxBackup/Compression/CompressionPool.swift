import Synchronization

/// The ``BlobCompression`` values of one repository, lent one at a time to the threads that pack
/// or unpack blobs (a backup's writers, a restore's readers, a check's pack readers): a thread
/// borrows one for a blob and gives it back, so zstd's contexts are made once per thread that
/// runs at the same time, not once per blob, and no two threads ever use one context at once.
final class CompressionPool: Sendable {
    /// A value lent out: while a thread holds it, no other can reach it.
    private final class Lent: @unchecked Sendable {
        var compression = BlobCompression()
    }

    /// At most this many idle values are kept (each holds a few MiB of zstd state once used).
    static let maximumIdle = 8

    private let idle = Mutex<[Lent]>([])

    init() {}

    /// Calls `body` with a value no other thread holds until `body` returns.
    func withCompression<Result, Failure: Error>(
        _ body: (inout BlobCompression) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let lent = idle.withLock { $0.popLast() } ?? Lent()
        defer {
            idle.withLock { values in
                if values.count < Self.maximumIdle { values.append(lent) }
            }
        }
        return try body(&lent.compression)
    }
}
