import Glibc
import SandboxCore

/// One app taking part in a coordinated operation: its operation lock held, its live users
/// listed, its next epoch chosen.
struct CoordinatedApp {
    let folder: CoordinationFolder
    let lock: FileLock
    let presenters: [CoordinationFolder.LivePresenter]
    let operation: CoordinatedOperation
    let epoch: Int

    /// Takes `app`'s operation lock (waiting until `deadline` for another operation to end) and
    /// lists its users.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/containerInUse`` naming the operation that held
    ///   the lock at `deadline`; file-system errors of the coordination folder.
    init(
        taking app: AppIdentifier, in root: ConfinedRoot, for operation: CoordinatedOperation,
        until deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(SandboxError) {
        folder = CoordinationFolder(root: root, app: app)
        try folder.prepare()
        lock = try FileLock(root: root, path: folder.lockPath)
        guard try lock.lock(.exclusive, until: deadline) else {
            let holder: String
            do throws(SandboxError) {
                holder = String(decoding: try root.readContents(of: folder.lockPath, maximumSize: 256), as: UTF8.self)
            } catch {
                holder = "an unnamed one"
            }
            throw SandboxError(
                .containerInUse,
                "Another operation on \(app) (\(holder)) did not end within \(timeout); try again when it has.",
                path: app.rawValue)
        }
        lock.replaceContents(with: Array("\(operation.rawValue) by pid \(getpid())".utf8))
        self.operation = operation
        do throws(SandboxError) {
            presenters = try folder.livePresenters()
            epoch = try Self.nextEpoch(after: folder)
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// The epoch after the state's; 1 when there is none, or none that reads (a damaged state
    /// never stops operations: it is replaced, and acknowledgements are cleared before each
    /// `will`, so a reused number is never taken for an answer).
    private static func nextEpoch(after folder: CoordinationFolder) throws(SandboxError) -> Int {
        do throws(SandboxError) {
            return (try folder.state()?.epoch ?? 0) + 1
        } catch  where error.code == .corrupt {
            return 1
        }
    }

    /// Removes every acknowledgement, so that only answers to the coming `will` are found.
    func clearAcknowledgements() throws(SandboxError) {
        try folder.root.removeContents(of: folder.acks)
    }

    /// Writes the app's state: the operation is about to happen (`will`) or has (`did`).
    func announce(_ phase: CoordinationState.Phase, _ outcome: CoordinationState.Outcome?) throws(SandboxError) {
        try folder.write(
            CoordinationState(epoch: epoch, phase: phase, operation: operation, outcome: outcome, pid: getpid()))
    }

    /// Waits until every user the policy asks to relinquish has acknowledged this epoch or died;
    /// returns those that did neither by `deadline`.
    func waitForRelinquish(
        _ operation: CoordinatedOperation, until deadline: ContinuousClock.Instant
    ) throws(SandboxError) -> [CoordinationFolder.LivePresenter] {
        var pending = presenters.filter {
            CoordinationPolicy.response(to: operation, from: $0.record.kind) == .relinquish
        }
        _ = try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in
            let alive = Set(try folder.livePresenters().map(\.token))
            var still: [CoordinationFolder.LivePresenter] = []
            for presenter in pending where alive.contains(presenter.token) {
                if try folder.acknowledgedEpoch(of: presenter.token) != epoch { still.append(presenter) }
            }
            pending = still
            return pending.isEmpty
        }
        return pending
    }

    /// Waits until every user that confirms reacquisition and was asked to relinquish has taken in
    /// the outcome (reopened the container) or died, until `deadline` at most: the operation has
    /// happened either way, so one that does not answer only ends the wait.
    func waitForReacquisition(
        _ operation: CoordinatedOperation, until deadline: ContinuousClock.Instant
    )
        throws(SandboxError)
    {
        var pending = presenters.filter {
            $0.record.confirmsReacquisition
                && CoordinationPolicy.response(to: operation, from: $0.record.kind) == .relinquish
        }
        guard !pending.isEmpty else { return }
        _ = try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in
            let alive = Set(try folder.livePresenters().map(\.token))
            var still: [CoordinationFolder.LivePresenter] = []
            for presenter in pending where alive.contains(presenter.token) {
                if try folder.reacquiredEpoch(of: presenter.token) != epoch { still.append(presenter) }
            }
            pending = still
            return pending.isEmpty
        }
    }
}
