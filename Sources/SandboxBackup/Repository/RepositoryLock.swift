import Foundation
import Glibc
import SandboxCore
import Synchronization

/// Who holds a repository lock, as stored in `locks/…`.
///
/// A lock is stale — taken over — when it was made on this host by a process that no longer runs
/// (its pid is gone, or the machine has rebooted since: another boot id), or, made on another host
/// (a repository in S3 is shared by machines), when its expiry has passed: the holder refreshes it
/// every ``RepositoryLock/refreshInterval`` while it works, so a lock not refreshed for
/// ``RepositoryLock/lifetime`` belongs to a process that died.
struct LockRecord: Codable, Sendable {
    var pid: Int32
    var bootID: String
    var hostname: String
    var operation: String
    var time: Date
    /// A random id of this holder (absent in locks written before expiry existed).
    var owner: String?
    /// When the lock is stale unless refreshed (absent: never, on another host).
    var expires: Date?

    static let name = ObjectName(.lock, "exclusive")

    static func current(operation: String) -> LockRecord {
        let now = Date()
        return LockRecord(
            pid: getpid(), bootID: bootID(), hostname: ProcessInfo.processInfo.hostName, operation: operation,
            time: now, owner: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
            expires: now.addingTimeInterval(RepositoryLock.lifetime))
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

    /// Whether the process that made this lock is certainly gone (this host), or has not refreshed
    /// it in time (another host).
    var isStale: Bool {
        guard hostname == ProcessInfo.processInfo.hostName else {
            guard let expires else { return false }
            return Date() > expires
        }
        let boot = Self.bootID()
        if !boot.isEmpty && !bootID.isEmpty && boot != bootID { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    var holder: String { "a \(operation) (pid \(pid) on \(hostname), since \(time))" }
}

/// A held repository lock; `release()` removes it.
///
/// Two kinds, as restic has them:
/// - **exclusive** (`locks/exclusive`): a prune, which may remove blobs and snapshots. It is
///   refused while another holds the exclusive lock or any shared lock is held.
/// - **shared** (`locks/shared-<owner>`): a backup, a `backup copy` into the repository, a check,
///   a restore, a listing. Any number at once — a fleet of devices backs up into one bucket
///   together — never alongside a prune. A backup only adds: write-once packs named by their
///   contents, index and snapshot records named by theirs (sealed with a random nonce when
///   encrypted), a `config` raise that writes the same bytes whoever makes it
///   (`Repository.requireFormat(_:)`). Two backups at once may each store a blob the other
///   also stored (neither saw the other's index): a check accepts a blob in two packs, a restore
///   reads either, and a prune keeps one copy.
///
/// Taking a lock is a put-if-absent of the lock object (a local `linkat`, an S3 `If-None-Match: *`
/// PUT), then a look at the other kind: an exclusive taker reads the shared locks after writing
/// its own, a shared taker reads the exclusive lock after writing its own, so of two that race at
/// least one sees the other (both may, and both back off). A shared taker is held back by a prune
/// only: an exclusive lock with another operation is one a version before shared backups wrote
/// for its backup, which adds only, as this one does. What it does not guarantee: on object
/// storage the lock is advisory and rests on read-after-write consistency (AWS S3 and Ceph give
/// it) and on clocks that roughly agree (a lock on another host is judged by its expiry); a holder
/// paused for longer than `lifetime` (a suspended laptop) can lose its lock to another host
/// without knowing.
public final class RepositoryLock: Sendable {
    /// How long a lock holds without a refresh before another host may take it over.
    static let lifetime: TimeInterval = 30 * 60
    /// How often a holder refreshes its lock's expiry while it works.
    static let refreshInterval: TimeInterval = 5 * 60

    let storage: any RepositoryStorage
    let name: ObjectName
    private let record: Mutex<LockRecord>

    private init(storage: any RepositoryStorage, name: ObjectName, record: LockRecord) {
        self.storage = storage
        self.name = name
        self.record = Mutex(record)
    }

    /// Takes the exclusive lock of `storage`, taking over a stale one (a prune takes it through
    /// ``acquireForPrune(_:)``, which also waits for no shared holder).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` naming the holder.
    static func acquire(_ storage: any RepositoryStorage, operation: String) throws(SandboxError) -> RepositoryLock {
        let mine = LockRecord.current(operation: operation)
        let bytes = RepositoryJSON.encode(mine)
        for _ in 0..<3 {
            if try storage.putIfAbsent(bytes, as: LockRecord.name) {
                return RepositoryLock(storage: storage, name: LockRecord.name, record: mine)
            }
            guard let holder = try holder(of: LockRecord.name, in: storage) else { continue }  // released meanwhile
            guard holder.isStale else {
                throw SandboxError(
                    .repositoryLocked,
                    "The repository '\(storage.location)' is locked by \(holder.holder). Wait for it to finish; if that process is gone, remove 'locks/exclusive'.",
                    path: storage.location)
            }
            try storage.delete(LockRecord.name)
        }
        throw SandboxError(
            .repositoryLocked, "The repository '\(storage.location)' lock keeps changing hands; try again.",
            path: storage.location)
    }

    /// Takes the exclusive lock for a prune: as ``acquire(_:operation:)``, and then refused while
    /// a backup, a copy, a check or a restore holds a shared lock.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` naming the holder.
    static func acquireForPrune(_ storage: any RepositoryStorage) throws(SandboxError) -> RepositoryLock {
        let lock = try acquire(storage, operation: "prune")
        do throws(SandboxError) {
            for name in try storage.list(.lock) where name.name.hasPrefix(sharedPrefix) {
                guard let reader = try holder(of: name, in: storage) else { continue }
                if reader.isStale {
                    try storage.delete(name)
                    continue
                }
                throw SandboxError(
                    .repositoryLocked,
                    "The repository '\(storage.location)' is in use by \(reader.holder); a prune now could remove what it reads or is about to refer to. Run the prune when it has finished; if that process is gone, remove 'locks/\(name.name)'.",
                    path: storage.location)
            }
        } catch {
            _ = try? lock.release()  // a failed release leaves a lock the next run takes over; `error` propagates
            throw error
        }
        return lock
    }

    static let sharedPrefix = "shared-"

    /// Takes a shared lock for a backup, a copy, a check or a restore: refused while a prune holds
    /// the exclusive lock (other shared holders, and the exclusive lock of an older version's
    /// backup, are no obstacle).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` naming the prune.
    static func acquireShared(
        _ storage: any RepositoryStorage, operation: String
    ) throws(SandboxError) -> RepositoryLock {
        let mine = LockRecord.current(operation: operation)
        let name = ObjectName(.lock, sharedPrefix + (mine.owner ?? "\(mine.pid)"))
        _ = try storage.putIfAbsent(RepositoryJSON.encode(mine), as: name)
        let lock = RepositoryLock(storage: storage, name: name, record: mine)
        let writer: LockRecord?
        do {
            writer = try holder(of: LockRecord.name, in: storage)
        } catch {
            _ = try? lock.release()  // best effort; `error` propagates
            throw error
        }
        if let writer, writer.operation == "prune", !writer.isStale {
            _ = try? lock.release()  // best effort; the refusal propagates
            throw SandboxError(
                .repositoryLocked,
                "The repository '\(storage.location)' is being pruned by \(writer.holder). Wait for it to finish; if that process is gone, remove 'locks/exclusive'.",
                path: storage.location)
        }
        return lock
    }

    /// The record of lock `name`, or `nil` when there is none.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` for a lock that cannot be read
    ///   (a foreign file: refused rather than guessed at).
    static func holder(of name: ObjectName, in storage: any RepositoryStorage) throws(SandboxError) -> LockRecord? {
        let bytes: [UInt8]
        do {
            bytes = try storage.get(name)
        } catch  where error.code == .notFound {
            return nil
        }
        do {
            return try RepositoryJSON.decode(LockRecord.self, from: bytes, name: "lock")
        } catch {
            throw SandboxError(
                .repositoryLocked,
                "The repository '\(storage.location)' has a lock file that cannot be read ('locks/\(name.name)'). If no backup, prune, check or restore is running, remove it.",
                path: storage.location)
        }
    }

    /// Pushes the lock's expiry forward when ``refreshInterval`` has passed since the last time;
    /// the work holding it calls this as it goes.
    ///
    /// - Throws: the storage's errors.
    func refreshIfDue() throws(SandboxError) {
        let now = Date()
        let due: LockRecord? = record.withLock { record in
            guard let expires = record.expires,
                now >= expires.addingTimeInterval(-Self.lifetime + Self.refreshInterval)
            else { return nil }
            record.expires = now.addingTimeInterval(Self.lifetime)
            return record
        }
        if let due { try storage.replace(RepositoryJSON.encode(due), as: name) }
    }

    /// Removes the lock.
    func release() throws(SandboxError) {
        try storage.delete(name)
    }
}
