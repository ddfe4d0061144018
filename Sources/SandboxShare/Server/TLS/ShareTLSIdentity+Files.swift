import Foundation
import Glibc
import Sandbox

extension ShareTLSIdentity {
    /// The largest certificate chain or key file read: a chain of a few certificates is a few KiB.
    static let maximumFileSize = 1 << 20

    /// The identity in the PEM files the user brings (`--tls-cert`, `--tls-key`): a certificate
    /// chain from their own CA, or from an ACME client (`fullchain.pem` and `privkey.pem`).
    ///
    /// The files are the user's, not an app's: links are followed (an ACME client's `live/`
    /// folder holds links to its `archive/`).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with the core's ``/SandboxCore/SandboxError/Code/notFound`` for a
    ///   missing file and its permission codes for an unreadable one (each naming the file),
    ///   ``/SandboxCore/SandboxError/Code/fileTooLarge`` past 1 MiB, and the errors of
    ///   ``init(certificatePEM:keyPEM:now:certificateSource:keySource:)``.
    public init(certificateFile: String, keyFile: String, now: Date = Date()) throws(SandboxError) {
        try self.init(
            certificatePEM: Self.readHostFile(certificateFile, kind: "certificate"),
            keyPEM: Self.readHostFile(keyFile, kind: "key"), now: now, certificateSource: certificateFile,
            keySource: keyFile)
    }

    /// The text of the host file at `path`, read through the core's reader from the folder its
    /// real path is in. Errors carry the absolute path: the file is the host's, not a container's.
    private static func readHostFile(_ path: String, kind: String) throws(SandboxError) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard let resolved = realpath(path, nil) else {
            let number = errno
            throw SandboxError(
                number == ENOENT ? .notFound : .permissionDenied,
                "The TLS \(kind) file '\(path)' cannot be opened (\(String(cString: strerror(number)))): "
                    + "give the path of a readable PEM file.",
                path: absolute)
        }
        let real = String(cString: resolved)
        free(resolved)
        let slash = real.lastIndex(of: "/") ?? real.startIndex
        let folder = slash == real.startIndex ? "/" : String(real[..<slash])
        do throws(SandboxError) {
            let root = try ConfinedRoot(openingDirectoryAt: folder)
            let name = try ContainerPath(String(real[real.index(after: slash)...]))
            let bytes = try root.readContents(of: name, maximumSize: maximumFileSize)
            return String(decoding: bytes, as: UTF8.self)
        } catch {
            throw SandboxError(
                error.code,
                "The TLS \(kind) file '\(path)' cannot be read (\(error.message)): give the path of a readable PEM file.",
                path: absolute, underlying: .wrapping(error))
        }
    }
}
