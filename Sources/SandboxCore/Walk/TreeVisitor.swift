import CSandboxShims
import Glibc
import SystemPackage

/// One entry met by a tree walk, valid only during the call that receives it.
package struct WalkEntry {
    /// The directory holding the entry, open for reading: use it with `*at` calls.
    package let directory: CInt
    /// The entry's NUL-terminated name, byte for byte. It points into the walk's shared buffer:
    /// copy it (``fileName``) to keep it.
    package let name: UnsafePointer<CChar>
    /// The entry's `d_type` (`DT_UNKNOWN` where the file system does not say).
    package let type: UInt8
    /// The descriptor that mirrors ``directory`` in a second tree (a copy's destination), if any.
    package let mirror: CInt?

    /// The name, copied.
    package var fileName: FileName { FileName(listed: name) }
}

/// What a tree walk does at each entry; see ``TreeWalk``.
///
/// Methods have defaults, so a visitor implements only what it needs.
package protocol TreeVisitor {
    /// Called for every entry of a directory while the directory is read (in
    /// ``TreeWalk/Order/byName`` order, once it has been read and sorted); returns whether to
    /// descend into it (the walk descends only into directories, once the whole directory has
    /// been read).
    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool

    /// Called when a directory chosen for descent could not be opened (`errno` is `error`), in
    /// `parent`. The default skips one that vanished or was replaced by a non-directory since it
    /// was listed (`ENOENT`, `ELOOP`, `ENOTDIR`) and throws otherwise.
    mutating func descentFailed(
        named name: FileName, in parent: CInt, errno error: CInt, at location: borrowing WalkLocation)
        throws(SandboxError)

    /// Called when the walk has opened `directory` (named `name`, in `parent`) to descend into it,
    /// before reading it. Returns the descriptor of its mirror in a second tree (the walk owns and
    /// closes it), or `nil`.
    mutating func enter(
        _ directory: CInt, named name: FileName, mirrorParent: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) -> CInt?

    /// Called once everything inside `directory` has been visited, while `parent` (the directory
    /// holding it) is open, so the directory itself can be acted on by name.
    mutating func leave(
        _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation)
        throws(SandboxError)
}

extension TreeVisitor {
    package mutating func descentFailed(
        named name: FileName, in parent: CInt, errno error: CInt, at location: borrowing WalkLocation
    ) throws(SandboxError) {
        guard error == ENOENT || error == ELOOP || error == ENOTDIR else {
            throw .systemCall("openat", errno: .init(rawValue: error), path: location.display(name))
        }
    }

    package mutating func enter(
        _ directory: CInt, named name: FileName, mirrorParent: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) -> CInt? {
        nil
    }

    package mutating func leave(
        _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) {}
}
