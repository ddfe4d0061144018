import Glibc
import SandboxCore
import SystemPackage

/// Key files on the host, outside any container: they belong to the developer, not to an app.
enum HostKeyFile {
    /// Key files are a line or two; anything larger is not one.
    static let maximumSize = 4096

    /// Creates `path` with `contents`, refusing to replace anything there (`O_EXCL`, no symlink
    /// followed), with the permission bits `mode` from the start, and flushed to disk.
    static func create(_ path: String, contents: String, mode: mode_t) throws(SandboxError) {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("open", path) }
        defer { Glibc.close(fd) }
        // The umask may have cleared bits of `mode`; never added any, so 0600 stays private.
        guard fchmod(fd, mode) == 0 else { throw failure("fchmod", path) }
        var bytes = Array(contents.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("write", path) }
            bytes = bytes.dropFirst(written)
        }
        guard fsync(fd) == 0 else { throw failure("fsync", path) }
    }

    /// Reads the text of the key file at `path`.
    static func read(_ path: String) throws(SandboxError) -> String {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: maximumSize + 1)
        var count = 0
        while count < buffer.count {
            let got = buffer[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw failure("read", path) }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumSize else {
            throw SandboxError(
                .invalidArgument,
                "'\(path)' is larger than a key file (\(maximumSize) bytes at most); give the file of a key pair made for signing.",
                path: path)
        }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Whether anything (a dangling symlink included) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func failure(_ call: String, _ path: String) -> SandboxError {
        let number = Errno(rawValue: errno)
        let cause = SystemCallFailure(systemCall: call, errno: number)
        switch number {
        case .fileExists:
            return SandboxError(
                .alreadyExists,
                "'\(path)' already exists; a key file is never overwritten. Choose another name or remove the old key first.",
                path: path, cause: cause)
        case .noSuchFileOrDirectory:
            return SandboxError(
                .notFound, "No key file at '\(path)'. Check the path, or make a key pair first.",
                path: path, cause: cause)
        case .permissionDenied, .notPermitted:
            return SandboxError(
                .permissionDenied, "Permission denied for the key file '\(path)'. Check its permissions and owner.",
                path: path, cause: cause)
        case .noSpace, .diskQuotaExceeded:
            return SandboxError(
                .noSpace, "No space left to write the key file '\(path)'. Free space and try again.", path: path,
                cause: cause)
        case .isDirectory:
            return SandboxError(.isADirectory, "'\(path)' is a directory; give a key file.", path: path, cause: cause)
        default:
            return SandboxError(.unknown, "\(call) failed on the key file '\(path)'.", path: path, cause: cause)
        }
    }
}

extension SigningKey {
    /// Writes the key to `path` (0600) and its public key to `path.pub` (0644). Neither file may
    /// exist: a key is never overwritten.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/alreadyExists`` when either file exists (nothing
    ///   is written), ``/SandboxCore/SandboxError/Code/notFound`` for a missing directory,
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied``.
    public func write(toHostPath path: String) throws(SandboxError) {
        for existing in [path, path + ".pub"] where HostKeyFile.exists(existing) {
            throw SandboxError(
                .alreadyExists,
                "'\(existing)' already exists; a key file is never overwritten. Choose another name or remove the old key first.",
                path: existing)
        }
        try HostKeyFile.create(path, contents: fileContents, mode: 0o600)
        do throws(SandboxError) {
            try HostKeyFile.create(path + ".pub", contents: publicKey.fileContents, mode: 0o644)
        } catch {
            unlink(path)  // a private key without its public half is of no use; `error` says why
            throw error
        }
    }

    /// Reads the key file at `path`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound``,
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied``, and
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` when the file holds no private key.
    public init(contentsOfHostPath path: String) throws(SandboxError) {
        try self.init(fileContents: try HostKeyFile.read(path), source: path)
    }
}

extension SigningPublicKey {
    /// Reads the public key file at `path` (`KEYFILE.pub`).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound``,
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied``, and
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` when the file holds no public key.
    public init(contentsOfHostPath path: String) throws(SandboxError) {
        try self.init(fileContents: try HostKeyFile.read(path), source: path)
    }
}
