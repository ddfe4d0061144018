import Logging
import Sandbox
import SandboxCore
import SandboxStore

/// The commit step of a restore, one container at a time: each staged container is put in place
/// with one atomic `renameat2` — an exchange with the live container, or a rename where there is
/// none yet (an App Group no member used) — its keychain written just before with a record to
/// roll it back by (``KeychainRollback``). What was done is kept, so that a failure puts back
/// every container and keychain already changed.
///
/// Each container is the old one or the new one, never a mix, whatever moment a kill comes; the
/// exchanges of several containers are separate system calls, so a kill between two of them (the
/// app's restore and its group's, microseconds apart, inside one coordination) leaves one
/// restored and the other not, until the restore is run again.
struct RestoreExchanges {
    let home: SandboxHome
    /// How long the exchange of a group waits for a writer of its suite to finish.
    static let suiteLockTimeout: Duration = .seconds(10)
    /// The containers put in place, in order, and whether each was new (renamed, not exchanged).
    private var done: [(part: RestorePart, created: Bool)] = []
    /// The keychains' rollback records written, by stage.
    private var records: [String: (target: RestoreTarget, path: ContainerPath, record: KeychainRollback)] = [:]

    init(home: SandboxHome) {
        self.home = home
    }

    /// Writes `part`'s keychain (with its rollback record), then puts its staged container in place.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notADirectory`` when something else than a
    ///   directory is where the container goes (never followed nor replaced); `container-in-use`
    ///   when a member keeps a group's suite locked; keychain and file-system errors.
    mutating func exchange(_ part: RestorePart) throws(SandboxError) {
        let target = part.target
        if let items = part.keychainItems {
            let (path, record) = try KeychainRollback.record(target, stageNamed: part.stageName, in: home)
            records[part.stageName] = (target, path, record)
            try target.replaceKeychain(items, home: home)
        }
        switch try home.root.attributes(at: target.live, followingSymlink: false)?.type {
        case .directory?:
            if case .group(let group, _) = target {
                // No member is half-way through writing the group's suite when it is replaced.
                let live = try home.root.openSubroot(at: target.live, refusingSymlinks: true)
                let exchanged: Bool? = try PreferencesBackupAccess.withFileLocked(
                    root: live, name: group.rawValue, waitingUntil: .now + Self.suiteLockTimeout
                ) { (_) throws(SandboxError) in
                    try home.root.exchangeItems(at: target.live, with: part.stage)
                    return true
                }
                guard exchanged != nil else {
                    throw SandboxError(
                        .containerInUse,
                        "Cannot restore \(target): a member kept its preferences suite locked for \(Self.suiteLockTimeout); nothing was restored. Stop the member, then try again.",
                        path: group.rawValue)
                }
            } else {
                try home.root.exchangeItems(at: target.live, with: part.stage)
            }
            done.append((part, false))
        case nil:
            try home.root.moveItem(from: part.stage, to: target.live)
            done.append((part, true))
        case let other?:
            throw SandboxError(
                .notADirectory,
                "The container of \(target) is a \(other), not a directory; it was neither followed nor replaced, and nothing was restored. Remove '\(home.root.displayPath(of: target.live))', then restore again.",
                path: target.live.description)
        }
    }

    /// Removes `part`'s rollback record: its container is in place.
    func removeRecord(of part: RestorePart) throws(SandboxError) {
        if let path = records[part.stageName]?.path { try home.root.removeItem(at: path) }
    }

    /// Puts back what a failed restore changed, the last change first: each container exchanged
    /// back (a new one moved back to its stage), then each keychain rolled back by its record.
    /// A step that fails is logged, and finished by the next restore or backup of the app.
    mutating func rollBack(_ logger: Logger) {
        var failed: Set<String> = []
        for (part, created) in done.reversed() {
            do throws(SandboxError) {
                if created {
                    try home.root.moveItem(from: part.target.live, to: part.stage)
                } else {
                    try home.root.exchangeItems(at: part.target.live, with: part.stage)
                }
            } catch {
                // The restored container stays: so does its keychain (its record says so).
                failed.insert(part.stageName)
                Restore.logRollbackFailure(error, removing: home.root.displayPath(of: part.target.live), logger)
            }
        }
        done = []
        for (stageName, (target, path, record)) in records.sorted(by: { $0.key < $1.key })
        where !failed.contains(stageName) {
            do throws(SandboxError) {
                try record.rollBack(target, in: home)
                try home.root.removeItem(at: path)
            } catch {
                Restore.logRollbackFailure(error, removing: home.root.displayPath(of: path), logger)
            }
        }
        records = [:]
    }
}
