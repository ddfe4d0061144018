import Glibc
import SandboxCore

extension SandboxError.Code {
    /// A lifecycle operation did not start because a live user of the container refused it or
    /// did not let go in time (the message names it).
    public static let containerInUse = Self("container-in-use")
}

extension SandboxHome {
    /// How long an operation waits for the app's other operation to end, and for the users asked
    /// to relinquish to answer, unless told otherwise.
    public static let defaultCoordinationTimeout: Duration = .seconds(10)

    /// Runs `body`, a lifecycle operation on `app`'s containers, coordinated with the live users
    /// of those containers (``ContainerPresenter``), as ``CoordinationPolicy`` says for each:
    ///
    /// 1. Waits (up to `timeout`) for any other operation on the app to end.
    /// 2. Refuses when a user the policy refuses for lives, naming it.
    /// 3. Tells every user the operation is about to happen, and waits (up to `timeout`) for
    ///    those asked to relinquish to answer; a user that dies meanwhile is not waited for.
    /// 4. Runs `body`, then tells every user the outcome, after which they reopen the container.
    ///
    /// Blocks the calling thread while it waits: call it from a thread you own (the lifecycle
    /// operations of this library are synchronous for that reason).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/containerInUse`` naming the users or the
    ///   operation in the way (nothing was done); `body`'s error (the users are told it failed);
    ///   file-system errors of the coordination folder.
    public func coordinating<T>(
        _ operation: CoordinatedOperation, of app: AppIdentifier, timeout: Duration = defaultCoordinationTimeout,
        _ body: () throws(SandboxError) -> T
    ) throws(SandboxError) -> T {
        let folder = CoordinationFolder(root: root, app: app)
        try folder.prepare()
        let lock = try FileLock(root: root, path: folder.lockPath)
        let deadline = ContinuousClock.now + timeout
        guard try lock.lock(.exclusive, until: deadline) else {
            let holder = (try? root.readContents(of: folder.lockPath, maximumSize: 256)).map {
                String(decoding: $0, as: UTF8.self)
            }
            throw SandboxError(
                .containerInUse,
                "Another operation on \(app) (\(holder ?? "unknown")) did not end within \(timeout); try again when it has.",
                path: app.rawValue)
        }
        defer { lock.unlock() }
        lock.replaceContents(with: Array("\(operation.rawValue) by pid \(getpid())".utf8))

        let presenters = try folder.livePresenters()
        let refusing = presenters.filter { CoordinationPolicy.response(to: operation, from: $0.record.kind) == .refuse }
        guard refusing.isEmpty else {
            throw SandboxError(
                .containerInUse,
                "Cannot \(operation.rawValue) \(app) while \(Self.list(refusing)) uses it; stop it, then try again.",
                path: app.rawValue)
        }
        let epoch = (try folder.state()?.epoch ?? 0) + 1
        let pid = getpid()
        try folder.write(CoordinationState(epoch: epoch, phase: .will, operation: operation, outcome: nil, pid: pid))
        let waiting = presenters.filter {
            CoordinationPolicy.response(to: operation, from: $0.record.kind) == .relinquish
        }
        let silent = try waitForRelinquish(waiting, epoch: epoch, in: folder, until: ContinuousClock.now + timeout)
        guard silent.isEmpty else {
            try folder.write(
                CoordinationState(epoch: epoch, phase: .did, operation: operation, outcome: .failed, pid: pid))
            throw SandboxError(
                .containerInUse,
                "Cannot \(operation.rawValue) \(app): \(Self.list(silent)) did not let go of it within \(timeout); "
                    + "stop it or try again.",
                path: app.rawValue)
        }
        let result: T
        do throws(SandboxError) {
            result = try body()
        } catch {
            try? folder.write(  // the body's error is the one to report; users reopen on their own too
                CoordinationState(epoch: epoch, phase: .did, operation: operation, outcome: .failed, pid: pid))
            throw error
        }
        try folder.write(
            CoordinationState(epoch: epoch, phase: .did, operation: operation, outcome: .completed, pid: pid))
        return result
    }

    /// The container paths of `app` that its live users declared held (``ContainerPresenter/hold(_:)``).
    package func heldPaths(of app: AppIdentifier) throws(SandboxError) -> Set<String> {
        let folder = CoordinationFolder(root: root, app: app)
        return Set(try folder.livePresenters().flatMap(\.record.held))
    }

    /// The live users of `app`'s containers.
    public func presenters(of app: AppIdentifier) throws(SandboxError) -> [PresenterRecord] {
        try CoordinationFolder(root: root, app: app).livePresenters().map(\.record)
    }

    /// Waits until each of `presenters` has acknowledged `epoch` or died; returns those that did
    /// neither by `deadline`.
    private func waitForRelinquish(
        _ presenters: [CoordinationFolder.LivePresenter], epoch: Int, in folder: CoordinationFolder,
        until deadline: ContinuousClock.Instant
    ) throws(SandboxError) -> [CoordinationFolder.LivePresenter] {
        var pending = presenters
        _ = try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in
            let alive = Set(try folder.livePresenters().map(\.token))
            var still: [CoordinationFolder.LivePresenter] = []
            for presenter in pending where alive.contains(presenter.token) {
                if try folder.acknowledgedEpoch(of: presenter.token) < epoch { still.append(presenter) }
            }
            pending = still
            return pending.isEmpty
        }
        return pending
    }

    private static func list(_ presenters: [CoordinationFolder.LivePresenter]) -> String {
        presenters.map(\.record.named).joined(separator: ", ")
    }
}
