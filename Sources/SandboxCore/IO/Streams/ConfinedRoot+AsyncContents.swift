import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Reads the whole file at `path` into memory, on the ``IOEngine``.
    ///
    /// The bytes are read with `pread` into one buffer sized from `fstat`; a file that grew meanwhile
    /// is read on, within the limit.
    ///
    /// - Parameter maximumSize: refuse files larger than this many bytes (64 MiB by default).
    /// - Throws: ``SandboxError/Code/fileTooLarge`` past `maximumSize` (stream the file with
    ///   ``readChunks(of:chunkSize:range:engine:)`` instead), ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notARegularFile``, ``SandboxError/Code/notFound``, resolution errors.
    public func contents(of path: ContainerPath, maximumSize: Int = defaultMaximumReadSize, engine: IOEngine = .shared) async throws(SandboxError) -> DataRegions {
        try await engine.perform { () throws(SandboxError) -> DataRegions in
            let file = try self.openFile(forReadingAt: path, engine: engine)
            defer { _ = try? file.close() }  // read-only: a close error cannot lose data
            return try file.readWhole(maximumSize: maximumSize)
        }
    }

    /// Writes `data` as the contents of the file at `path`, on the ``IOEngine``, with `writev`
    /// (no copy into one buffer).
    ///
    /// - Parameter options: ``WriteOptions/atomic`` by default (see
    ///   ``writeContents(_:to:options:)``).
    /// - Throws: as ``writeContents(_:to:options:)``.
    public func write(_ data: DataRegions, to path: ContainerPath, options: WriteOptions = .atomic, engine: IOEngine = .shared) async throws(SandboxError) {
        try await engine.perform { () throws(SandboxError) in
            try self.writeFile(at: path, options: options) { fd throws(SandboxError) in
                try VectoredIO.writeAll(data, to: fd, atOffset: nil, path: path.description)
            }
        }
    }
}

extension OpenFile {
    /// The whole file from offset 0, in one buffer sized from `fstat`.
    func readWhole(maximumSize: Int) throws(SandboxError) -> DataRegions {
        try requireAccess(writing: false)
        return try descriptor.use { fd throws(SandboxError) -> DataRegions in
            let size = try Self.size(of: fd, path: path)
            guard size <= maximumSize else {
                throw .rule(.fileTooLarge, "'\(path)' is \(size) bytes, more than the \(maximumSize)-byte limit for reading a whole file into memory. Stream it instead (readChunks).", path: path)
            }
            // One byte more than the size, to see whether the file grew.
            let storage = ByteStorage(allocating: Int(size) + 1)
            let count = try VectoredIO.fill(storage.mutableBytes, from: fd, atOffset: 0, path: path)
            var data = DataRegions(storage: storage, count: count)
            guard count > Int(size) else { return data }
            // The file grew since fstat: read on, still within the limit.
            while true {
                let chunk = buffers.take(minimumCapacity: IOEngine.defaultChunkSize)
                let read = try VectoredIO.fill(chunk.mutableBytes, from: fd, atOffset: Int64(data.count), path: path)
                data.append(DataRegions(storage: chunk, count: read))
                guard data.count <= maximumSize else {
                    throw .rule(.fileTooLarge, "'\(path)' grew past the \(maximumSize)-byte limit while being read. Stream it instead (readChunks).", path: path)
                }
                if read < chunk.capacity { return data }
            }
        }
    }
}
