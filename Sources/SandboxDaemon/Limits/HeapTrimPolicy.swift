/// When `sandboxd` gives memory back to the system after a burst of connections.
///
/// glibc keeps freed heap for reuse: after a flood of clients is dropped, the daemon's resident
/// size would stay at its peak, and the next flood would build on the fragments of the last one
/// (the high-water mark crept from 64 to 73 MiB over three rounds). The server samples the number
/// of open connections and calls `malloc_trim` when this policy says so: once the connections fall
/// to a quarter of a peak of at least ``minimumPeak``. A pure value (no clock, no I/O).
struct HeapTrimPolicy: Sendable, Equatable {
    /// Peaks below this are ordinary use, not worth a trim.
    static let minimumPeak = 32

    private var peak = 0

    /// Records `openConnections`; `true` when the heap should be trimmed now.
    mutating func observe(openConnections: Int) -> Bool {
        peak = max(peak, openConnections)
        guard peak >= Self.minimumPeak, openConnections <= peak / 4 else { return false }
        peak = 0  // the next peak is measured from here
        return true
    }
}
