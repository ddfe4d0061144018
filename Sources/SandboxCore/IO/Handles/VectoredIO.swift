import Glibc
import SystemPackage

/// Scatter/gather system calls over ``DataRegions`` and buffer lists, continuing after short
/// transfers.
enum VectoredIO {
    /// Linux's `IOV_MAX`: the most regions one `writev`/`readv` takes.
    static let maximumVectors = 1024

    /// Writes all of `data` with `pwritev` at `offset`, or with `writev` at the current position
    /// when `offset` is `nil`.
    static func writeAll(_ data: DataRegions, to fd: CInt, atOffset offset: Int64?, path: String) throws(SandboxError) {
        var remaining = data
        var position = offset
        while !remaining.isEmpty {
            let written = try writeOnce(remaining, to: fd, atOffset: position, path: path)
            remaining = remaining.slice(written..<remaining.count)
            position = position.map { $0 + Int64(written) }
        }
    }

    /// One `writev`/`pwritev` of up to ``maximumVectors`` regions; returns the bytes written.
    static func writeOnce(
        _ data: DataRegions, to fd: CInt, atOffset offset: Int64?, path: String
    ) throws(SandboxError) -> Int {
        let regions = data.regions.prefix(maximumVectors)
        var vectors = regions.map { region in
            iovec(iov_base: region.storage.base + region.range.lowerBound, iov_len: region.count)
        }
        let written = try withExtendedLifetime(data) { () throws(SandboxError) -> Int in
            if let offset {
                return try syscall("pwritev", path: path) { pwritev(fd, &vectors, CInt(vectors.count), off_t(offset)) }
            }
            return try syscall("writev", path: path) { writev(fd, &vectors, CInt(vectors.count)) }
        }
        if written == 0 {
            // A regular file only writes nothing when it cannot grow: report it as the kernel would.
            throw .systemCall(offset == nil ? "writev" : "pwritev", errno: .noSpace, path: path)
        }
        return written
    }

    /// One `readv`/`preadv` into `buffers`; returns the bytes read (0 at the end of the file).
    static func read(
        into buffers: [UnsafeMutableRawBufferPointer], from fd: CInt, atOffset offset: Int64?, path: String
    ) throws(SandboxError) -> Int {
        var vectors = buffers.prefix(maximumVectors).map { iovec(iov_base: $0.baseAddress, iov_len: $0.count) }
        if let offset {
            return try syscall("preadv", path: path) { preadv(fd, &vectors, CInt(vectors.count), off_t(offset)) }
        }
        return try syscall("readv", path: path) { readv(fd, &vectors, CInt(vectors.count)) }
    }

    /// Fills `buffer` from `offset` (or the current position) until it is full or the file ends.
    /// Returns the bytes read.
    static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, from fd: CInt, atOffset offset: Int64?, path: String
    ) throws(SandboxError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let target = buffer.baseAddress.map { $0 + filled }
            let count = buffer.count - filled
            let read: Int
            if let offset {
                read = try syscall("pread", path: path) { pread(fd, target, count, off_t(offset + Int64(filled))) }
            } else {
                read = try syscall("read", path: path) { Glibc.read(fd, target, count) }
            }
            if read == 0 { break }
            filled += read
        }
        return filled
    }

    /// Reads up to `count` chunks of `chunkSize` bytes (no more than `limit` bytes in all) from
    /// `offset` into buffers from `pool`, with `preadv`: one system call for several chunks, repeated
    /// only after a short read. Every chunk but the last is full; fewer chunks come back at the end
    /// of the file, none past it.
    static func readChunks(
        from fd: CInt,
        atOffset offset: Int64,
        limit: Int64,
        chunkSize: Int,
        count: Int,
        pool: BufferPool,
        path: String
    ) throws(SandboxError) -> [DataRegions] {
        var left = Int(Swift.min(Int64(chunkSize) * Int64(Swift.max(count, 1)), limit))
        var storages: [ByteStorage] = []
        var targets: [UnsafeMutableRawBufferPointer] = []
        while left > 0 {
            let want = Swift.min(chunkSize, left)
            let storage = pool.take(minimumCapacity: want)
            storages.append(storage)
            targets.append(UnsafeMutableRawBufferPointer(rebasing: storage.mutableBytes[0..<want]))
            left -= want
        }
        let wanted = targets.reduce(0) { $0 + $1.count }
        var filled = 0
        while filled < wanted {
            // The targets not yet filled, the first one from where the last read stopped.
            var skip = filled
            var pending: [UnsafeMutableRawBufferPointer] = []
            for target in targets {
                if skip >= target.count {
                    skip -= target.count
                    continue
                }
                pending.append(UnsafeMutableRawBufferPointer(rebasing: target[skip...]))
                skip = 0
            }
            let read = try withExtendedLifetime(storages) { () throws(SandboxError) -> Int in
                try self.read(into: pending, from: fd, atOffset: offset + Int64(filled), path: path)
            }
            if read == 0 { break }
            filled += read
        }
        var chunks: [DataRegions] = []
        var remaining = filled
        for (storage, target) in zip(storages, targets) where remaining > 0 {
            let size = Swift.min(target.count, remaining)
            chunks.append(DataRegions(storage: storage, count: size))
            remaining -= size
        }
        return chunks
    }
}
