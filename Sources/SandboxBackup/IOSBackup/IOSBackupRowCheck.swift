import Glibc
import SandboxCore
import SandboxStore

/// Checks a `Manifest.db` row of a backup taken in by an import: what a hostile backup could put
/// there is refused before anything is staged.
enum IOSBackupRowCheck {
    /// The item of `row`, checked: its relative path (UTF-8, not empty, not absolute, no empty,
    /// `.` or `..` part), its fileID (the SHA-1 of its domain and path), its flags (file, folder or
    /// link), its `MBFile` archive (within `limits`; a mode of the row's kind, never a FIFO, socket
    /// or device) and, for a link, a relative target that stays inside the domain.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidIOSBackup`` naming the row (`database`
    ///   names the manifest); `too-large` for an archive past `limits`.
    static func item(
        of row: IOSBackupManifestDatabase.Row, in database: String, limits: IOSBackupLimits
    ) throws(SandboxError) -> IOSBackupItem {
        let printable = String(decoding: row.relativePath, as: UTF8.self)
        let shown = "\(database): \(row.domain) '\(printable)'"
        guard let path = String(validating: row.relativePath, as: UTF8.self) else {
            throw IOSBackupProblem.refusal(shown, "has a relative path that is not UTF-8")
        }
        guard !path.isEmpty else { throw IOSBackupProblem.refusal(shown, "has an empty relative path") }
        guard !path.hasPrefix("/") else { throw IOSBackupProblem.refusal(shown, "has an absolute relative path") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty, part != ".", part != "..", !part.utf8.contains(0) else {
                throw IOSBackupProblem.refusal(
                    shown, "has a relative path with an empty, '.' or '..' part, or a NUL byte")
            }
        }
        do {
            _ = try ContainerPath(path)
        } catch {
            throw IOSBackupProblem.refusal(shown, "has a relative path no container can hold (\(error.message))")
        }
        let expected = ManifestDatabase.fileID(domain: row.domain, relativePath: path)
        guard row.fileID == expected else {
            throw IOSBackupProblem.refusal(
                shown, "has the fileID '\(row.fileID ?? "")', not '\(expected)' (the SHA-1 of its domain and path)")
        }
        guard let flags = row.flags, let kind = IOSBackupItem.Kind(rawValue: Int(flags)) else {
            throw IOSBackupProblem.refusal(
                shown,
                "has the flags \(row.flags.map(String.init) ?? "NULL"), neither a file (1), a folder (2) nor a link (4)"
            )
        }
        guard let archive = row.file else { throw IOSBackupProblem.refusal(shown, "has no MBFile archive") }
        let item = try IOSBackupItem(
            archive: archive, domain: row.domain, relativePath: path, kind: kind, limits: limits.archive, shown: shown)
        let type = mode_t(item.mode) & S_IFMT
        switch type {
        case S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK:
            throw IOSBackupProblem.refusal(shown, "is a FIFO, socket or device (mode \(String(item.mode, radix: 8)))")
        default:
            let expectedType: mode_t =
                switch kind {
                case .file: S_IFREG
                case .directory: S_IFDIR
                case .symlink: S_IFLNK
                }
            guard type == expectedType || type == 0 else {
                throw IOSBackupProblem.refusal(
                    shown, "has a mode (\(String(item.mode, radix: 8))) of another kind than its flags (\(flags))")
            }
        }
        if kind == .symlink {
            guard let target = item.target,
                AppDataCopier.staysInside(Array(target.utf8), fromDepth: parts.count - 1)
            else {
                throw IOSBackupProblem.refusal(
                    shown, "is a symlink to '\(item.target ?? "")', which leads out of its domain (or has no target)")
            }
        }
        return item
    }
}
