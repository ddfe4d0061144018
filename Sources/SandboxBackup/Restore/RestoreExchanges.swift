import Logging
import Sandbox
import SandboxCore
import SandboxStore

/// A container staged beside its live one, for ``RestoreExchanges``: a restore's ``RestorePart``,
/// or an import's tree (``ImportedContainer``).
protocol StagedContainer {
    var target: RestoreTarget { get }
    /// The staging directory's name in the target's folder.
    var stageName: String { get }
    /// The keychain to write with it, or `nil` to leave it as it is.
    var keychainItems: [KeychainItem]? { get }
}

extension StagedContainer {
    /// The staging directory.
    var stagePath: ContainerPath { target.folder.appendingTrusted(stageName) }
}

extension RestorePart: StagedContainer {}

/// An imported tree staged in place of a container: no keychain goes with it (iOS never carries
/// one in a backup, nor Xcode in a container package).
struct ImportedContainer: StagedContainer {
    let target: RestoreTarget
    let stageName: String
    var keychainItems: [KeychainItem]? { nil }

    init(_ target: RestoreTarget) {
        self.target = target
        stageName = target.makeStageName()
    }
}

/// The commit step of a restore (or an import), one container at a time: each staged container is put in place
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
    private var done: [(part: any StagedContainer, created: Bool)] = []
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
    mutating func exchange(_ part: any StagedContainer) throws(SandboxError) {
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
                    try home.root.exchangeItems(at: target.live, with: part.stagePath)
                    return true
                }
                guard exchanged != nil else {
                    throw SandboxError(
                        .containerInUse,
                        "Cannot restore \(target): a member kept its preferences suite locked for \(Self.suiteLockTimeout); nothing was restored. Stop the member, then try again.",
                        path: group.rawValue)
                }
            } else {
                try home.root.exchangeItems(at: target.live, with: part.stagePath)
            }
            done.append((part, false))
        case nil:
            try home.root.moveItem(from: part.stagePath, to: target.live)
            done.append((part, true))
        case let other?:
            throw SandboxError(
                .notADirectory,
                "The container of \(target) is a \(other), not a directory; it was neither followed nor replaced, and nothing was restored. Remove '\(home.root.displayPath(of: target.live))', then restore again.",
                path: target.live.description)
        }
    }

    /// Removes `part`'s rollback record: its container is in place.
    func removeRecord(of part: any StagedContainer) throws(SandboxError) {
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
                    try home.root.moveItem(from: part.target.live, to: part.stagePath)
                } else {
                    try home.root.exchangeItems(at: part.target.live, with: part.stagePath)
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
