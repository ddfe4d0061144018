import Glibc
import SystemPackage

/// Writes a whole file in one call and publishes it through ``PendingFile``: its name appears only
/// once the contents are complete.
///
/// If `body` throws, or publishing fails, nothing is published and a named temporary is removed;
/// if the process dies, no name appears at the target (see ``PendingFile``).
enum AtomicFile {
    /// Creates or replaces `name` in `parent` with the bytes `body` writes to the descriptor it is
    /// given.
    ///
    /// - Parameters:
    ///   - parent: the target's directory; the caller keeps it open until this returns.
    ///   - options: ``WriteOptions/atomic`` is implied.
    ///   - staging: where a replacing write puts its temporary name; `nil`: beside the target.
    /// - Throws: what `body` throws, and the errors of ``PendingFile/atomic(in:named:path:options:permissions:staging:)``
    ///   and ``PendingFile/publish(_:)``.
    static func create(
        in parent: CInt,
        named name: FileName,
        path: ContainerPath,
        options: WriteOptions,
        permissions: mode_t = FilePermissions.privateFile.rawValue,
        staging: HeldDirectory? = nil,
        _ body: (CInt) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let opened = try PendingFile.atomic(
            in: HeldDirectory(borrowing: parent), named: name, path: path, options: options.union(.atomic),
            permissions: permissions, staging: staging
        )
        try opened.write(body)
    }
}
