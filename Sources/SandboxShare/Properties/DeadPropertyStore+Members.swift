import CSandboxShims
import Glibc
import Sandbox
import SandboxCore
import Synchronization
import SystemPackage

extension DeadPropertyStore {
    /// How a listing reads the dead properties of the members of an open folder.
    package enum MemberLookup: Sendable, Equatable {
        /// `listxattrat(2)` from the folder's descriptor, then `getxattrat(2)` for the store's
        /// attributes, never following a link (Linux 6.13): one system call for a member without
        /// attributes. Where the kernel lacks them, ``openEach``.
        case fromFolder
        /// The member opened from the folder (`openat`, no link followed, no blocking on a FIFO),
        /// `flistxattr`, `fgetxattr` for the store's attributes, closed: four system calls.
        case openEach
    }

    /// Whether this process learnt that the kernel lacks `listxattrat(2)` (`ENOSYS` once, before
    /// Linux 6.13): it is not asked again.
    private static let lacksListingAt = Atomic<Bool>(false)

    /// Whether the kernel answers `listxattrat(2)` (probed on `path`, a folder), so that
    /// ``MemberLookup/fromFolder`` is what a listing uses here; the `errno` when it does not.
    package static func kernelListsFromFolders(probing path: String) -> (Bool, Int32) {
        let answered = csb_listxattrat(AT_FDCWD, path, 0, nil, 0) >= 0
        return (answered, answered ? 0 : errno)
    }

    /// The dead properties of the member `name` of the open folder `folder`, which is `path`.
    ///
    /// A member without read permission (mode 000, run as a user other than root) answers
    /// `listxattrat` where it refused the open: with no dead properties it is described like any
    /// member; with some, reading them is refused as before (the kernel asks read permission for
    /// `user.` attributes). A member swapped for a link since it was described has none (a link
    /// has no `user.` attributes; the open refused it).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the member's attributes cannot be listed or read
    ///   (it is gone: ``/SandboxCore/SandboxError/Code/notFound``).
    func properties(
        ofMember name: UnsafePointer<CChar>, in folder: CInt, path: SharePath
    ) throws(SandboxError) -> [PropertyName: String] {
        let text = path.description
        if memberLookup == .fromFolder, !Self.lacksListingAt.load(ordering: .relaxed) {
            let attributes: [String]
            do throws(SandboxError) {
                guard let listed = try Self.attributeNames(of: name, in: folder, path: text) else {
                    Self.lacksListingAt.store(true, ordering: .relaxed)
                    return try openingEach(name, in: folder, path: path)
                }
                attributes = listed
            } catch  where error.code == .unsupported {
                return [:]
            } catch {
                throw .fileSystem(error, path: path, doing: "read the properties of")
            }
            return try properties(among: attributes, path: text) { attribute throws(SandboxError) in
                try Self.value(of: attribute, member: name, in: folder, path: text)
            }
        }
        return try openingEach(name, in: folder, path: path)
    }

    /// ``MemberLookup/openEach``.
    private func openingEach(
        _ name: UnsafePointer<CChar>, in folder: CInt, path: SharePath
    ) throws(SandboxError) -> [PropertyName: String] {
        let fd = openat(folder, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard fd >= 0 else {
            throw .fileSystem(
                .systemCall("openat", errno: Errno(rawValue: errno), path: path.description),
                path: path, doing: "read the properties of")
        }
        defer { Glibc.close(fd) }
        return try properties(ofOpen: fd, path: path.description)
    }

    /// The attribute names of `member` in `folder`, as ``ExtendedAttributes/names(fd:path:)``
    /// gives them, or `nil` when the kernel lacks `listxattrat`. Read into a buffer on the stack
    /// first: one call for the usual member with no or few attributes.
    private static func attributeNames(
        of member: UnsafePointer<CChar>, in folder: CInt, path: String
    ) throws(SandboxError) -> [String]? {
        let first = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> (Int, [String]) in
            let read = csb_listxattrat(folder, member, CSB_AT_SYMLINK_NOFOLLOW, buffer.baseAddress, buffer.count)
            guard read > 0 else { return (read, []) }
            return (read, names(in: UnsafeBufferPointer(rebasing: buffer[0..<read])))
        }
        if first.0 >= 0 { return first.1 }
        while true {
            switch errno {
            case ENOSYS: return nil
            case ERANGE: break
            default: throw .systemCall("listxattrat", errno: Errno(rawValue: errno), path: path)
            }
            let size = csb_listxattrat(folder, member, CSB_AT_SYMLINK_NOFOLLOW, nil, 0)
            if size < 0 { continue }
            var list = [CChar](repeating: 0, count: size)
            let read = list.withUnsafeMutableBufferPointer {
                csb_listxattrat(folder, member, CSB_AT_SYMLINK_NOFOLLOW, $0.baseAddress, $0.count)
            }
            if read >= 0 {
                return list.withUnsafeBufferPointer { names(in: UnsafeBufferPointer(rebasing: $0[0..<read])) }
            }
        }
    }

    /// The NUL-terminated names of a listing, decoded as ``ExtendedAttributes/names(fd:path:)``
    /// decodes them (a name that is not UTF-8 is repaired, and then found by no look-up).
    private static func names(in list: UnsafeBufferPointer<CChar>) -> [String] {
        list.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// The value of the attribute `attribute` of `member` in `folder` (`getxattrat`, no link
    /// followed), or `nil` when it has none, as ``ExtendedAttributes/value(of:fd:path:)``.
    private static func value(
        of attribute: String, member: UnsafePointer<CChar>, in folder: CInt, path: String
    ) throws(SandboxError) -> [UInt8]? {
        while true {
            let size = csb_getxattrat(folder, member, CSB_AT_SYMLINK_NOFOLLOW, attribute, nil, 0)
            if size < 0 {
                if errno == ENODATA { return nil }
                throw .systemCall("getxattrat", errno: Errno(rawValue: errno), path: path)
            }
            var value = [UInt8](repeating: 0, count: size)
            let read = value.withUnsafeMutableBytes {
                csb_getxattrat(folder, member, CSB_AT_SYMLINK_NOFOLLOW, attribute, $0.baseAddress, $0.count)
            }
            if read >= 0 { return Array(value[0..<read]) }
            if errno == ERANGE { continue }  // grew between the two calls
            if errno == ENODATA { return nil }
            throw .systemCall("getxattrat", errno: Errno(rawValue: errno), path: path)
        }
    }
}
