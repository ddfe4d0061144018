extension ConfinedRoot {
    /// Reads the whole file at `path` into memory, on `engine`: ``readContents(of:maximumSize:)``
    /// off the caller's thread, for async callers.
    ///
    /// The engine is named, not defaulted, so that this call and the synchronous one read the same
    /// and the synchronous one is never taken for it (nor it for the synchronous one) in async code.
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - maximumSize: refuse files larger than this many bytes (64 MiB by default).
    ///   - engine: whose threads run the read, e.g. ``IOEngine/shared``.
    /// - Throws: as ``readContents(of:maximumSize:)``: ``SandboxError/Code/fileTooLarge`` past
    ///   `maximumSize` (stream the file with ``readChunks(of:chunkSize:range:engine:)`` instead),
    ///   ``SandboxError/Code/isADirectory``, ``SandboxError/Code/notARegularFile``,
    ///   ``SandboxError/Code/notFound``, resolution errors.
    public func readContents(
        of path: ContainerPath, maximumSize: Int = defaultMaximumReadSize, engine: IOEngine
    ) async throws(SandboxError) -> [UInt8] {
        try await engine.perform { () throws(SandboxError) -> [UInt8] in
            try self.readContents(of: path, maximumSize: maximumSize)
        }
    }

    /// Writes `data` as the contents of the file at `path`, on `engine`, with `writev` (no copy into
    /// one buffer): ``writeContents(_:to:options:)`` for async callers.
    ///
    /// - Parameters:
    ///   - data: the new contents, written region by region.
    ///   - path: the file to create or replace, relative to the root.
    ///   - options: ``WriteOptions/atomic`` by default, as ``writeContents(_:to:options:)``.
    ///   - engine: whose threads run the write, e.g. ``IOEngine/shared``.
    /// - Throws: as ``writeContents(_:to:options:)``.
    public func writeContents(
        _ data: DataRegions, to path: ContainerPath, options: WriteOptions = .atomic, engine: IOEngine
    ) async throws(SandboxError) {
        try await engine.perform { () throws(SandboxError) in
            try self.writeFile(at: path, options: options) { fd throws(SandboxError) in
                try VectoredIO.writeAll(data, to: fd, atOffset: nil, path: path.description)
            }
        }
    }
}
