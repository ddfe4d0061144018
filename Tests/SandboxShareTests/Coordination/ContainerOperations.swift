import Foundation
import Sandbox
import SandboxTesting

/// Lifecycle operations on the app of a running `sandbox share`, done through the coordination
/// (``/Sandbox/SandboxHome/coordinating(_:of:timeout:_:)``) as the library's own do them, from
/// this process: the share, another process, learns of them only through the coordination.
struct ContainerOperations: Sendable {
    let home: SandboxHome
    let app: AppIdentifier

    init(_ server: ShareServerProcess) throws {
        home = try SandboxHome(location: server.home)
        app = try AppIdentifier(server.app)
    }

    /// How the restored container's Documents is made.
    enum RestoredDocuments: Sendable {
        /// A folder with these files (name: text).
        case files([String: String])
        /// A symbolic link to the container's Library, which the share must refuse.
        case link
    }

    /// Restores the app's data container as `Restore` does: a new container, staged beside the
    /// live one, exchanged with it in one step, the old one then removed. `inside` runs first, on
    /// the operation's thread, once every presenter asked has let go; `failing` makes the
    /// operation fail there (nothing is exchanged).
    ///
    /// - Returns: the operation's error, if any.
    func restore(
        _ documents: RestoredDocuments, failing: Bool = false,
        timeout: Duration = SandboxHome.defaultCoordinationTimeout,
        inside: @escaping @Sendable () -> Void = {}
    ) async -> SandboxError? {
        let (home, app) = (home, app)
        return await operate(.restore, timeout: timeout) { () throws(SandboxError) in
            inside()
            if failing { throw SandboxError(.corrupt, "The test's restore fails on purpose.") }
            let live = try ContainerPath("Containers/Data/\(app.rawValue)")
            let stage = try ContainerPath("Containers/Data/.restoring-\(app.rawValue)")
            for folder in ["Library", "tmp"] {
                try home.root.createDirectory(at: try stage.appending(folder), withIntermediateDirectories: true)
            }
            switch documents {
            case .files(let files):
                try home.root.createDirectory(at: try stage.appending("Documents"))
                for (name, text) in files {
                    try home.root.writeContents(Array(text.utf8), to: try stage.appending("Documents").appending(name))
                }
            case .link:
                let link = home.root.hostPath + "/" + stage.description + "/Documents"
                guard symlink("Library", link) == 0 else {
                    throw SandboxError(.corrupt, "symlink \(link): errno \(errno)")
                }
            }
            try home.root.exchangeItems(at: live, with: stage)
            _ = try home.root.removeItem(at: stage, recursively: true)
        }
    }

    /// Uninstalls the app as `SandboxHome.uninstall` does (each container renamed away, then
    /// removed), through the coordination.
    func uninstall() async -> SandboxError? {
        let (home, app) = (home, app)
        return await operate(.uninstall) { () throws(SandboxError) in
            for kind in ["Data", "Bundle"] {
                let container = try ContainerPath("Containers/\(kind)/\(app.rawValue)")
                let trash = try ContainerPath("Containers/\(kind)/.removing-\(app.rawValue)")
                try home.root.moveItem(from: container, to: trash)
                _ = try home.root.removeItem(at: trash, recursively: true)
            }
        }
    }

    /// Runs `operation` with `body` on a thread of its own; its error, if any.
    func operate(
        _ operation: CoordinatedOperation, timeout: Duration = SandboxHome.defaultCoordinationTimeout,
        _ body: @escaping @Sendable () throws(SandboxError) -> Void
    ) async -> SandboxError? {
        let (home, app) = (home, app)
        do {
            try await OwnedThread.run(name: "operation") { () throws(SandboxError) in
                try home.coordinating(operation, of: app, timeout: timeout, body)
            }
            return nil
        } catch {
            return error
        }
    }
}

extension ShareServerProcess {
    /// Sends a request and reads its response on the calling thread: for a thread of one's own,
    /// such as an operation's body (see ``send(_:_:headers:body:credentials:host:timeout:)``).
    func sendNow(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        credentials: Credentials = .valid
    ) throws -> RawResponse {
        let connection = try RawConnection(port: port, timeout: 30)
        defer { connection.close() }
        try connection.send(rawRequest(method, target, headers: headers, body: body, credentials: credentials))
        return try connection.receiveResponse(toHead: method == "HEAD")
    }

    /// Sends `request` until it is answered otherwise than 503 (the share takes changes again once
    /// it has seen an operation end), for 60 s at most; the last answer.
    func sendUntilTaken(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        credentials: Credentials = .valid
    ) async throws -> RawResponse {
        let deadline = ContinuousClock.now + .seconds(60)
        var response = try await send(method, target, headers: headers, body: body, credentials: credentials)
        while response.status == 503, ContinuousClock.now < deadline {
            response = try await send(method, target, headers: headers, body: body, credentials: credentials)
        }
        return response
    }

    /// Whether the server has a file open in Documents (an upload being written), within 60 s.
    func isWritingInDocuments() async -> Bool {
        let (pid, documents) = (process.pid, documents)
        return await eventually(timeout: .seconds(60)) {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return descriptors.contains { descriptor in
                // Closed since the listing: not the upload's.
                let target =
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"))
                return target?.hasPrefix(documents + "/") == true
            }
        }
    }
}
