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

    /// How long a completed operation waits for the users that confirm reacquisition
    /// (``PresenterRecord/confirmsReacquisition``) to reopen the container before it returns.
    public static let reacquisitionTimeout: Duration = .seconds(5)

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
    /// - Throws: ``SandboxCore/SandboxError/Code/containerInUse`` naming the users or the
    ///   operation in the way (nothing was done); `body`'s error (the users are told it failed);
    ///   file-system errors of the coordination folder.
    public func coordinating<T>(
        _ operation: CoordinatedOperation, of app: AppIdentifier, timeout: Duration = defaultCoordinationTimeout,
        _ body: () throws(SandboxError) -> T
    ) throws(SandboxError) -> T {
        try coordinating(operation, apps: [app], timeout: timeout, body)
    }

    /// ``coordinating(_:of:timeout:_:)`` for an operation on several apps at
    /// once (a restart empties every `tmp/`, a lock protects every app's files): the apps' locks
    /// are taken in the order of their identifiers, so two such operations never wait for each
    /// other in a circle, and every app's users are told and waited for before `body` runs.
    ///
    /// - Throws: as the single-app form.
    public func coordinating<T>(
        _ operation: CoordinatedOperation, apps: [AppIdentifier], timeout: Duration = defaultCoordinationTimeout,
        _ body: () throws(SandboxError) -> T
    ) throws(SandboxError) -> T {
        let deadline = ContinuousClock.now + timeout
        var parties: [CoordinatedApp] = []
        defer { for party in parties { party.lock.unlock() } }
        for app in Set(apps).sorted() {
            parties.append(try CoordinatedApp(taking: app, in: root, for: operation, until: deadline, timeout: timeout))
        }
        let refusing = parties.flatMap { party in
            party.presenters.filter { CoordinationPolicy.response(to: operation, from: $0.record.kind) == .refuse }
        }
        guard refusing.isEmpty else {
            throw SandboxError(
                .containerInUse,
                "Cannot \(operation.rawValue) \(Self.list(apps: parties)) while \(Self.list(refusing)) uses it; "
                    + "stop it, then try again.",
                path: parties.first?.folder.app.rawValue)
        }
        for party in parties {
            try party.clearAcknowledgements()
            try party.announce(.will, nil)
        }
        var silent: [CoordinationFolder.LivePresenter] = []
        for party in parties {
            silent += try party.waitForRelinquish(operation, until: ContinuousClock.now + timeout)
        }
        guard silent.isEmpty else {
            for party in parties { try party.announce(.did, .failed) }
            throw SandboxError(
                .containerInUse,
                "Cannot \(operation.rawValue) \(Self.list(apps: parties)): \(Self.list(silent)) did not let go of it "
                    + "within \(timeout); stop it or try again.",
                path: parties.first?.folder.app.rawValue)
        }
        let result: T
        do throws(SandboxError) {
            result = try body()
        } catch {
            for party in parties {
                try? party.announce(.did, .failed)  // the body's error is the one to report
            }
            throw error
        }
        for party in parties { try party.announce(.did, .completed) }
        // Those that confirm it have reopened the container when the operation returns (bounded:
        // the operation has happened either way).
        let reacquisition = ContinuousClock.now + Self.reacquisitionTimeout
        for party in parties { try party.waitForReacquisition(operation, until: reacquisition) }
        return result
    }

    /// Throws what ``coordinating(_:of:timeout:_:)`` would for a user that refuses `operation`,
    /// without taking part in any: for an operation that prepares at length (a restore writes the
    /// whole container first) to fail before its work, not after.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/containerInUse`` naming the refusing users.
    package func requireNoRefusal(of operation: CoordinatedOperation, for app: AppIdentifier) throws(SandboxError) {
        let refusing = try CoordinationFolder(root: root, app: app).livePresenters().filter {
            CoordinationPolicy.response(to: operation, from: $0.record.kind) == .refuse
        }
        guard refusing.isEmpty else {
            throw SandboxError(
                .containerInUse,
                "Cannot \(operation.rawValue) \(app) while \(Self.list(refusing)) uses it; stop it, then try again.",
                path: app.rawValue)
        }
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

    private static func list(_ presenters: [CoordinationFolder.LivePresenter]) -> String {
        presenters.map(\.record.named).joined(separator: ", ")
    }

    private static func list(apps parties: [CoordinatedApp]) -> String {
        parties.map(\.folder.app.rawValue).joined(separator: ", ")
    }
}
