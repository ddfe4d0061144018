import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Maps `range` of the file at `path` (all of it by default) into memory.
    ///
    /// The descriptor is closed once the mapping exists (the mapping keeps the file).
    ///
    /// - Parameters:
    ///   - path: the regular file to map, relative to the root.
    ///   - range: the bytes to map; the whole file by default.
    ///   - access: ``MappingAccess/readOnly`` by default.
    ///   - advice: a hint about how the pages will be used.
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative range or one that ends past the
    ///   end of the file (touching it would raise `SIGBUS`); the errors of
    ///   ``openFile(forReadingAt:engine:)`` (``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notFound``, ``SandboxError/Code/escapesContainer``, …);
    ///   ``SandboxError/Code/noSpace`` (out of address space) from `mmap`.
    public func mapFile(
        at path: ContainerPath,
        range: Range<Int64>? = nil,
        access: MappingAccess = .readOnly,
        advice: MappingAdvice = .normal
    ) throws(SandboxError) -> MappedFile {
        let file =
            access == .readOnly
            ? try openRegularFile(path)
            : try openRegularFile(path, flags: O_RDWR, mode: FilePermissions.privateFile.rawValue)
        let rendered = path.description
        let size = try OpenFile.size(of: file.rawValue, path: rendered)
        let wanted = range ?? 0..<size
        guard wanted.lowerBound >= 0 else { throw .negative("offset", wanted.lowerBound, path: rendered) }
        guard wanted.upperBound <= size else {
            throw .rule(
                .invalidArgument,
                "The range \(wanted.lowerBound)..<\(wanted.upperBound) ends past the end of '\(path)', which is \(size) bytes long; a mapping cannot reach beyond the file.",
                path: rendered)
        }
        let mapped = try MappedFile(descriptor: file.rawValue, range: wanted, access: access, path: rendered)
        if advice != .normal { try mapped.advise(advice) }
        return mapped
    }

    /// Maps `range` of the file at `path`, calls `body` with the bytes, and unmaps.
    ///
    /// - Throws: the errors of ``mapFile(at:range:access:advice:)`` and what `body` throws.
    public func withMappedFile<R>(
        at path: ContainerPath,
        range: Range<Int64>? = nil,
        advice: MappingAdvice = .normal,
        _ body: (UnsafeRawBufferPointer) throws(SandboxError) -> R
    ) throws(SandboxError) -> R {
        let mapped = try mapFile(at: path, range: range, access: .readOnly, advice: advice)
        return try mapped.withUnsafeBytes(body)
    }
}
