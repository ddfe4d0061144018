import CSandboxShims
import Glibc
import SystemPackage

/// `f*xattr` calls on open descriptors.
package enum ExtendedAttributes {
    /// The attribute that marks an item as excluded from backup (iOS `isExcludedFromBackup`).
    /// In the `user.` namespace, the only one an unprivileged process may write on Linux.
    static let excludedFromBackup = "user.sandbox.excluded-from-backup"

    /// The value of the attribute `name` of the open file `fd`, or `nil` if it has none.
    package static func value(of name: UnsafePointer<CChar>, fd: CInt, path: String) throws(SandboxError) -> [UInt8]? {
        while true {
            let size = csb_fgetxattr(fd, name, nil, 0)
            if size < 0 { return try absentOrThrow("fgetxattr", path) }
            var value = [UInt8](repeating: 0, count: Int(size))
            let read = value.withUnsafeMutableBytes { csb_fgetxattr(fd, name, $0.baseAddress, $0.count) }
            if read < 0 {
                if errno == ERANGE { continue }  // grew between the two calls
                return try absentOrThrow("fgetxattr", path)
            }
            return Array(value[0..<Int(read)])
        }
    }

    /// Sets the attribute `name` of the open file `fd` to `value`.
    package static func setValue(
        _ value: [UInt8], of name: UnsafePointer<CChar>, fd: CInt, path: String
    ) throws(SandboxError) {
        let result = value.withUnsafeBytes { csb_fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
        if result != 0 { throw failure("fsetxattr", path) }
    }

    static func remove(_ name: String, fd: CInt, path: String) throws(SandboxError) {
        if csb_fremovexattr(fd, name) != 0 {
            guard errno == ENODATA else { throw failure("fremovexattr", path) }
        }
    }

    /// The names of the attributes of the open file `fd` (not `O_PATH`), as text.
    package static func names(fd: CInt, path: String) throws(SandboxError) -> [String] {
        try rawNames(fd: fd, path: path).map {
            String(decoding: $0.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The attribute names byte for byte, each NUL-terminated: a name that is not valid UTF-8
    /// must reach `fgetxattr` as listed, not repaired.
    static func rawNames(fd: CInt, path: String) throws(SandboxError) -> [[CChar]] {
        while true {
            let size = csb_flistxattr(fd, nil, 0)
            if size < 0 { throw failure("flistxattr", path) }
            if size == 0 { return [] }
            var list = [CChar](repeating: 0, count: size)
            let read = csb_flistxattr(fd, &list, list.count)
            if read < 0 {
                if errno == ERANGE { continue }
                throw failure("flistxattr", path)
            }
            return list[0..<read].split(separator: 0).map { Array($0) + [0] }
        }
    }

    /// Copies every `user.` attribute; a destination without xattr support is not an error.
    package static func copyUserAttributes(from source: CInt, to destination: CInt, path: String) throws(SandboxError) {
        let names: [[CChar]]
        do throws(SandboxError) {
            names = try rawNames(fd: source, path: path)
        } catch  where error.code == .unsupported {
            return
        }
        let user = Array("user.".utf8).map { CChar(bitPattern: $0) }
        for name in names where name.starts(with: user) {
            guard let value = try value(of: name, fd: source, path: path) else { continue }
            do throws(SandboxError) {
                try setValue(value, of: name, fd: destination, path: path)
            } catch  where error.code == .unsupported {
                return
            }
        }
    }

    private static func absentOrThrow(_ call: String, _ path: String) throws(SandboxError) -> [UInt8]? {
        if errno == ENODATA { return nil }
        throw failure(call, path)
    }

    private static func failure(
        _ call: String, _ path: String, file: String = #fileID, line: Int = #line
    ) -> SandboxError {
        let error = Errno(rawValue: errno)
        guard error == .notSupported else { return .systemCall(call, errno: error, path: path, file: file, line: line) }
        return SandboxError(
            code: .unsupported,
            message:
                "The file system holding '\(path)' has no extended attributes (some FUSE and NFS mounts, tmpfs before Linux 6.6), so flags such as \"excluded from backup\" cannot be stored on it. Keep the item on a file system with user xattrs (ext4, xfs, btrfs).",
            path: path,
            cause: SystemCallFailure(systemCall: call, errno: error),
            location: .init(file: file, line: line)
        )
    }
}
