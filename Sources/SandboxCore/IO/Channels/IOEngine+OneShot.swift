import Glibc
import SystemPackage

extension IOEngine {
    /// Reads up to `length` bytes from `descriptor` at its current position, in one operation
    /// without a channel (`dispatch_read`): it returns when `length` bytes have been read or the
    /// input ends.
    ///
    /// The descriptor is not owned: keep it open until this returns. For several operations on
    /// one file, an ``IOChannel`` is cheaper.
    ///
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative length or a descriptor that is
    ///   not open for reading; read errors such as ``SandboxError/Code/io``.
    public func read(from descriptor: FileDescriptor, length: Int) async throws(SandboxError) -> DataRegions {
        let descriptor = descriptor.rawValue
        guard length >= 0 else { throw .negative("length", Int64(length), path: "descriptor \(descriptor)") }
        let buffers = self.buffers
        return try await perform { () throws(SandboxError) -> DataRegions in
            let path = "descriptor \(descriptor)"
            var data = DataRegions()
            while data.count < length {
                let storage = buffers.take(minimumCapacity: Swift.min(length - data.count, IOEngine.defaultChunkSize))
                let want = Swift.min(storage.capacity, length - data.count)
                let count = try syscall("read", path: path) { Glibc.read(descriptor, storage.base, want) }
                if count == 0 { break }
                data.append(DataRegions(storage: storage, count: count))
            }
            return data
        }
    }

    /// Writes all of `data` to `descriptor` at its current position, in one operation without a
    /// channel (`dispatch_write`), with `writev`.
    ///
    /// The descriptor is not owned: keep it open until this returns.
    ///
    /// - Throws: ``SandboxError/Code/noSpace``, ``SandboxError/Code/io`` and other write errors.
    public func write(_ data: DataRegions, to descriptor: FileDescriptor) async throws(SandboxError) {
        try await perform { () throws(SandboxError) in
            let fd = descriptor.rawValue
            try VectoredIO.writeAll(data, to: fd, atOffset: nil, path: "descriptor \(fd)")
        }
    }
}
