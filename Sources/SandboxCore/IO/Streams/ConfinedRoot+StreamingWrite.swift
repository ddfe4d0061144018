import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Writes everything that can be read from `source` (standard input, a pipe, a socket, a host
    /// file) as the contents of the file at `path`, streaming it: in-kernel (`copy_file_range`,
    /// `sendfile`) where possible, otherwise through one reused 1 MiB buffer, so memory stays flat
    /// whatever the size. For `sandbox put`.
    ///
    /// - Parameters:
    ///   - source: an open descriptor, read from its current position to its end; not closed.
    ///   - path: the file to create or replace, relative to the root.
    ///   - options: ``WriteOptions/atomic`` by default, as ``writeContents(_:to:options:)``: the
    ///     file appears complete or not at all; add ``WriteOptions/durable`` to survive a power
    ///     cut.
    /// - Returns: the number of bytes written.
    /// - Throws: ``SandboxError/Code/isADirectory`` when `source` is a directory or a directory is at
    ///   `path`; ``SandboxError/Code/noSpace`` (nothing is published, a previous file is intact);
    ///   ``SandboxError/Code/alreadyExists`` with ``WriteOptions/withoutOverwriting``; read errors of
    ///   `source`; resolution errors such as ``SandboxError/Code/escapesContainer``.
    @discardableResult
    public func writeContents(
        readingFrom source: FileDescriptor, to path: ContainerPath, options: WriteOptions = .atomic
    ) throws(SandboxError) -> Int64 {
        var info = stat()
        _ = try syscall("fstat", path: "descriptor \(source.rawValue)") { fstat(source.rawValue, &info) }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw .rule(
                .isADirectory, "The source of '\(path)' is a directory; give a file or a stream.",
                path: path.description)
        }
        var copied: Int64 = 0
        try writeFile(at: path, options: options) { fd throws(SandboxError) in
            copied = try ByteCopier.copy(from: source.rawValue, to: fd, wholeFile: false, path: path.description)
        }
        return copied
    }
}
