import Foundation
import SandboxCore

/// The files through which an app's lifecycle operations and the live users of its containers
/// coordinate, in `Device/Coordination/<app>/` (the device's own folder: no program confined to
/// a container can reach it, so nothing there comes from an app):
///
/// - `lock`: held exclusively (`flock`) by the operation under way, so operations on one app
///   run one at a time; its contents name the operation and its pid.
/// - `state`: the latest ``CoordinationState``, replaced atomically.
/// - `presenters/<token>`: one ``PresenterRecord`` a live user, held with an exclusive `flock`
///   for as long as the user lives. Liveness is that lock: the kernel lets go of it when the
///   process dies however it dies, so a killed user never blocks an operation and a reused pid
///   never looks alive.
/// - `acks/<token>`: the last epoch the presenter `<token>` relinquished for.
struct CoordinationFolder: Sendable {
    let root: ConfinedRoot
    let app: AppIdentifier

    static let base = ContainerPath(constant: "Device/Coordination")

    /// The read failures that mean a file is not what coordination writes (too large, a folder, a
    /// link): it is treated as absent or damaged, never as a reason to stop an operation.
    static let unreadable: Set<SandboxError.Code> = [.fileTooLarge, .notARegularFile, .isADirectory, .symlinkLoop]

    var path: ContainerPath { Self.base.appendingName(app.rawValue) }
    var lockPath: ContainerPath { path.appendingName("lock") }
    var statePath: ContainerPath { path.appendingName("state") }
    var presenters: ContainerPath { path.appendingName("presenters") }
    var acks: ContainerPath { path.appendingName("acks") }

    /// Creates the folder and its subfolders where missing.
    func prepare() throws(SandboxError) {
        for folder in [presenters, acks] {
            try root.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// The current state; `nil` before the app's first operation.
    func state() throws(SandboxError) -> CoordinationState? {
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try root.readContents(of: statePath, maximumSize: 4 << 10)
        } catch  where error.code == .notFound {
            return nil
        } catch  where Self.unreadable.contains(error.code) {
            throw SandboxError(
                .corrupt, "The coordination state of \(app) is no state file; it is replaced by the next operation.",
                path: statePath.description, underlying: .wrapping(error))
        }
        do {
            return try JSONDecoder().decode(CoordinationState.self, from: Data(bytes))
        } catch {
            throw SandboxError(
                .corrupt,
                "The coordination state of \(app) cannot be read (\(error)); it is replaced by the next operation.",
                path: statePath.description)
        }
    }

    func write(_ state: CoordinationState) throws(SandboxError) {
        try root.writeContents(try encode(state), to: statePath)
    }

    func encode(_ value: some Encodable) throws(SandboxError) -> [UInt8] {
        do {
            return Array(try JSONEncoder.coordination().encode(value))
        } catch {
            throw SandboxError(.corrupt, "Could not encode a coordination record: \(error).")
        }
    }

    /// A registered user that still lives, with its token (the name of its file).
    struct LivePresenter: Sendable {
        var token: String
        var record: PresenterRecord
    }

    /// The users that live, oldest registration first; the files of dead ones are removed on the
    /// way (their lock is free).
    func livePresenters() throws(SandboxError) -> [LivePresenter] {
        let entries: [DirectoryEntry]
        do throws(SandboxError) {
            entries = try root.contentsOfDirectory(at: presenters)
        } catch  where error.code == .notFound {
            return []
        }
        var live: [LivePresenter] = []
        for entry in entries where entry.type == .regular && !entry.name.hasPrefix(".") {
            let file = presenters.appendingName(entry.name)
            let lock: FileLock
            do throws(SandboxError) {
                lock = try FileLock(root: root, path: file)
            } catch  where error.code == .notFound {
                continue  // unregistered since the listing
            }
            if try lock.tryLock(.shared) {
                // Nobody holds it: the user died. Remove its files (another operation may be
                // removing them too: a missing file is fine).
                lock.unlock()
                for stale in [file, acks.appendingName(entry.name), reacquisition(of: entry.name)] {
                    do throws(SandboxError) {
                        try root.removeItem(at: stale)
                    } catch  where error.code == .notFound {}
                }
                continue
            }
            let bytes: [UInt8]
            do throws(SandboxError) {
                bytes = try root.readContents(of: file, maximumSize: 64 << 10)
            } catch  where error.code == .notFound {
                continue  // unregistered since the lock was tried
            } catch  where Self.unreadable.contains(error.code) {
                bytes = []  // not a record: read as an unreadable one below
            }
            // Records are written whole before they are published; one that does not decode
            // still names a live user, which counts as the most demanding kind.
            let record: PresenterRecord
            do {
                record = try JSONDecoder().decode(PresenterRecord.self, from: Data(bytes))
            } catch {
                record = PresenterRecord(kind: .app, pid: 0, description: "an unreadable registration '\(entry.name)'")
            }
            live.append(LivePresenter(token: entry.name, record: record))
        }
        return live
    }

    /// Where `token` says which operation's outcome it has taken in (reopened the container).
    func reacquisition(of token: String) -> ContainerPath {
        acks.appendingName(token + ".reacquired")
    }

    /// The epoch `token` last reacquired after (0: none).
    func reacquiredEpoch(of token: String) throws(SandboxError) -> Int {
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try root.readContents(of: reacquisition(of: token), maximumSize: 64)
        } catch  where error.code == .notFound || Self.unreadable.contains(error.code) {
            return 0  // no answer, or none that reads: not this epoch's
        }
        return Int(String(decoding: bytes, as: UTF8.self)) ?? 0
    }

    /// The epoch `token` last relinquished for (0: none, or an answer that does not read).
    func acknowledgedEpoch(of token: String) throws(SandboxError) -> Int {
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try root.readContents(of: acks.appendingName(token), maximumSize: 64)
        } catch  where error.code == .notFound || Self.unreadable.contains(error.code) {
            return 0  // no answer, or none that reads: not this epoch's
        }
        return Int(String(decoding: bytes, as: UTF8.self)) ?? 0
    }
}
