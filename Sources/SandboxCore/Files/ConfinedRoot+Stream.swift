import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// The default buffer of ``readChunks(of:chunkSize:_:)``: 1 MiB, large enough that the system
    /// calls cost little next to the work done on the bytes.
    public static let defaultChunkSize = 1 << 20

    /// Streams the file at `path` through `body`, one buffer at a time, without holding the file in
    /// memory (for hashing, say).
    ///
    /// The buffer passed to `body` is valid only during the call and is reused for the next chunk.
    ///
    /// - Parameter chunkSize: the most bytes handed to `body` at once.
    /// - Returns: the number of bytes read.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notARegularFile``, resolution errors, and what `body` throws.
    @discardableResult
    public func readChunks(
        of path: ContainerPath,
        chunkSize: Int = defaultChunkSize,
        _ body: (UnsafeRawBufferPointer) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        let file = try openRegularFile(path)
        _ = posix_fadvise(file.rawValue, 0, 0, POSIX_FADV_SEQUENTIAL)  // advice only: no error to report
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try syscall("read", path: path.description) { read(file.rawValue, buffer.baseAddress, buffer.count) }
            if count == 0 { return total }
            total += Int64(count)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
