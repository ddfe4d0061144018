import Foundation
import Logging
import Sandbox
import SandboxWatch
import Synchronization

/// What the page's live view listens to (`GET /.sandbox/events`): one folder monitor on Documents,
/// started with the first listener and stopped with the last, whose events are gathered for
/// ``gatherInterval`` and sent to every listener as the folders that changed — a burst of a
/// thousand new files is one message, not a thousand reloads.
///
/// Each listener gets Server-Sent Events: `event: change` with `data: {"path": "/Folder"}`, and a
/// `: ping` comment every ``pingInterval`` so proxies and browsers keep the connection open.
final class ChangeFeed: Sendable {
    static let gatherInterval: Duration = .milliseconds(250)
    static let pingInterval: Duration = .seconds(15)
    /// Most listeners at once; more get 503 rather than a monitor each.
    static let maximumListeners = 32

    private struct State {
        var listeners: [Int: AsyncStream<String>.Continuation] = [:]
        var nextIdentifier = 0
        var changed: Set<String> = []
        var monitor: FolderMonitor?
        var tasks: [Task<Void, Never>] = []
    }

    private let documents: ConfinedRoot
    private let logger: Logger
    private let state = Mutex(State())

    init(documents: ConfinedRoot, logger: Logger) {
        self.documents = documents
        self.logger = logger
    }

    /// One listener: its messages, and a way to end them (when the server shuts down).
    struct Listener: Sendable {
        let messages: AsyncStream<String>
        let end: @Sendable () -> Void
    }

    /// A new listener; it ends by ending its iteration, or by ``Listener/end``.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/tooManyRequests`` past ``maximumListeners``; the monitor's
    ///   failure to start, as ``/SandboxCore/SandboxError``.
    func listen() throws(SandboxError) -> Listener {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let result = state.withLock { state -> Result<(Int, Bool), SandboxError> in
            guard state.listeners.count < Self.maximumListeners else {
                var error = SandboxError(
                    .tooManyRequests, "\(Self.maximumListeners) pages are already listening; close some.")
                error.retryAfter = .seconds(5)
                return .failure(error)
            }
            let identifier = state.nextIdentifier
            state.nextIdentifier += 1
            state.listeners[identifier] = continuation
            return .success((identifier, state.listeners.count == 1 && state.monitor == nil))
        }
        let (identifier, isFirst) = try result.get()
        continuation.onTermination = { [weak self] _ in self?.stopListening(identifier) }
        if isFirst {
            do throws(SandboxError) {
                try start()
            } catch {
                continuation.finish()
                throw error
            }
        }
        continuation.yield(": listening\n\n")
        return Listener(messages: stream, end: { continuation.finish() })
    }

    /// Ends every listener: the folder this feed watches was replaced (a restore), and each page
    /// reconnects to the feed of the new one (`EventSource` does, on its own).
    func endListeners() {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.finish() }
    }

    private func start() throws(SandboxError) {
        let monitor: FolderMonitor
        do throws(SandboxError) {
            monitor = try FolderMonitor(watching: .root, in: documents)
        } catch {
            throw .fileSystem(error, path: "/", doing: "watch")
        }
        let watch = Task { [weak self] in
            for await event in monitor.events {
                guard let self else { return }
                self.note(event)
            }
        }
        let deliver = Task { [weak self] in
            var sincePing: Duration = .zero
            while !Task.isCancelled {
                do { try await Task.sleep(for: Self.gatherInterval) } catch { return }
                guard let self else { return }
                sincePing += Self.gatherInterval
                self.deliver(ping: sincePing >= Self.pingInterval)
                if sincePing >= Self.pingInterval { sincePing = .zero }
            }
        }
        let stale = state.withLock { state -> (FolderMonitor?, [Task<Void, Never>]) in
            guard !state.listeners.isEmpty else { return (monitor, [watch, deliver]) }  // all left meanwhile
            state.monitor = monitor
            state.tasks = [watch, deliver]
            return (nil, [])
        }
        stale.0?.cancel()
        for task in stale.1 { task.cancel() }
    }

    private func note(_ event: FolderEvent) {
        let folders: [String]
        switch event {
        case .renamed(let from, let to, _): folders = [Self.folder(of: from), Self.folder(of: to)]
        case .overflow, .folderRemoved: folders = ["/"]
        case .failed(let error):
            logger.warning("The page's live view: the folder monitor failed: \(error)")
            folders = ["/"]
        default: folders = event.path.map { [Self.folder(of: $0)] } ?? []
        }
        state.withLock { $0.changed.formUnion(folders) }
    }

    private func deliver(ping: Bool) {
        let (changed, listeners) = state.withLock { state in
            defer { state.changed = [] }
            return (state.changed, Array(state.listeners.values))
        }
        var message = ""
        for folder in changed.sorted() {
            message += "event: change\ndata: \(WebResponses.jsonText(["path": folder]))\n\n"
        }
        if ping { message += ": ping\n\n" }
        guard !message.isEmpty else { return }
        for listener in listeners { listener.yield(message) }
    }

    private func stopListening(_ identifier: Int) {
        let stopped = state.withLock { state -> (FolderMonitor?, [Task<Void, Never>]) in
            state.listeners[identifier] = nil
            guard state.listeners.isEmpty else { return (nil, []) }
            defer {
                state.monitor = nil
                state.tasks = []
                state.changed = []
            }
            return (state.monitor, state.tasks)
        }
        for task in stopped.1 { task.cancel() }
        stopped.0?.cancel()
    }

    /// The share path of the folder holding `path` (relative to Documents).
    private static func folder(of path: ContainerPath) -> String {
        let names = path.description.split(separator: "/").dropLast()
        return "/" + names.joined(separator: "/")
    }
}
