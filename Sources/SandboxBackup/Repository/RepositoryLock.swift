import Foundation
import Glibc
import SandboxCore

/// The repository's exclusive lock, `locks/exclusive`, held by a backup or a prune so that two of
/// them never interleave (a prune that ran during a backup could remove blobs the backup is about
/// to reference). Checks and restores only read and take no lock.
///
/// A lock is stale — taken over — when it was made on this host by a process that no longer runs
/// (its pid is gone, or the machine has rebooted since: another boot id).
struct LockRecord: Codable, Sendable {
    var pid: Int32
    var bootID: String
    var hostname: String
    var operation: String
    var time: Date

    static let name = ObjectName(.lock, "exclusive")

    static func current(operation: String) -> LockRecord {
        LockRecord(
            pid: getpid(), bootID: bootID(), hostname: ProcessInfo.processInfo.hostName, operation: operation,
            time: Date())
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`), or "" where it cannot be read.
    static func bootID() -> String {
        do {
            let root = try ConfinedRoot(openingDirectoryAt: "/proc/sys/kernel/random")
            let bytes = try root.readContents(of: ContainerPath(constant: "boot_id"), maximumSize: 256)
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            return ""  // no /proc: the lock is then judged by its pid alone
        }
    }

    /// Whether the process that made this lock is certainly gone.
    var isStale: Bool {
        guard hostname == ProcessInfo.processInfo.hostName else { return false }
        let boot = Self.bootID()
        if !boot.isEmpty && !bootID.isEmpty && boot != bootID { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}

/// A held repository lock; releasing it removes it.
public struct RepositoryLock: Sendable {
    let storage: any RepositoryStorage

    /// Takes the exclusive lock of `storage` for `operation`, taking over a stale one.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` naming the holder.
    static func acquire(_ storage: any RepositoryStorage, operation: String) throws(SandboxError) -> RepositoryLock {
        let mine = RepositoryJSON.encode(LockRecord.current(operation: operation))
        for _ in 0..<3 {
            if try storage.putIfAbsent(mine, as: LockRecord.name) { return RepositoryLock(storage: storage) }
            let existing: [UInt8]
            do {
                existing = try storage.get(LockRecord.name)
            } catch  where error.code == .notFound {
                continue  // released meanwhile
            }
            guard let holder = try? RepositoryJSON.decode(LockRecord.self, from: existing, name: "lock") else {
                // An unreadable lock (a foreign file): refuse rather than guess.
                throw SandboxError(
                    .repositoryLocked,
                    "The repository '\(storage.location)' has a lock file that cannot be read ('locks/exclusive'). If no backup or prune is running, remove it.",
                    path: storage.location)
            }
            guard holder.isStale else {
                throw SandboxError(
                    .repositoryLocked,
                    "The repository '\(storage.location)' is locked by a \(holder.operation) (pid \(holder.pid) on \(holder.hostname), since \(holder.time)). Wait for it to finish; if that process is gone, remove 'locks/exclusive'.",
                    path: storage.location)
            }
            try storage.delete(LockRecord.name)
        }
        throw SandboxError(
            .repositoryLocked, "The repository '\(storage.location)' lock keeps changing hands; try again.",
            path: storage.location)
    }

    /// Removes the lock.
    func release() throws(SandboxError) {
        try storage.delete(LockRecord.name)
    }
}
