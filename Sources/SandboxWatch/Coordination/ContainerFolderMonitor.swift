import Sandbox
import Synchronization

/// A ``FolderMonitor`` on a folder of an app's data container that follows the container through
/// the app's lifecycle operations: it registers as a watcher (``/Sandbox/PresenterKind/watch``,
/// told of every operation, never waited for), and
///
/// - after a completed restore (the data container replaced by a new directory) reports
///   ``FolderEvent/containerReplaced(_:)`` and goes on watching the folder in the new container
///   (what happens there afterwards is reported; what the folder holds is the restored one's:
///   read it again);
/// - after a completed uninstall reports ``FolderEvent/containerRemoved(_:)`` as its last event.
///
/// While a restore or uninstall is under way, the events of the container about to go (its
/// files removed with it) are held back: dropped once it has gone, delivered when the operation
/// failed and the container stayed.
///
/// ```swift
/// let monitor = try ContainerFolderMonitor(watching: ContainerPath(constant: "Documents"), of: container)
/// for await event in monitor.events {
///     if case .containerReplaced = event { reload() }
/// }
/// ```
public final class ContainerFolderMonitor: Sendable {
    /// The watched folder, relative to the container's home.
    public let folder: ContainerPath
    /// The events, in order. Iterate it once: it has a single consumer.
    public let events: AsyncStream<FolderEvent>
    private let follower: Task<Void, Never>

    /// Starts watching `folder` of `container` and registers as its watcher.
    ///
    /// - Parameters:
    ///   - folder: the folder to watch, relative to the container's home (`Documents`).
    ///   - container: the app's data container; a restore replaces it, and the monitor follows.
    ///   - configuration: how the folder is watched (``WatchConfiguration``).
    ///   - description: what the watcher is, as operations name it ("sandbox watch Documents").
    /// - Throws: the errors of ``FolderMonitor/init(watching:in:configuration:logger:)`` and of
    ///   ``/Sandbox/ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)``.
    public init(
        watching folder: ContainerPath, of container: Container, configuration: WatchConfiguration = .init(),
        description: String? = nil
    ) throws(SandboxError) {
        let presenter = try ContainerPresenter(
            home: container.home, app: container.identifier, kind: .watch,
            description: description ?? "a watcher of \(folder)")
        let first = try FolderMonitor(watching: folder, in: container.root, configuration: configuration)
        let (events, output) = AsyncStream.makeStream(
            of: FolderEvent.self, bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        let (inputs, input) = AsyncStream.makeStream(
            of: Input.self, bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        self.folder = folder
        self.events = events
        let follow = Following(
            folder: folder, home: container.home, app: container.identifier, configuration: configuration,
            input: input, output: output)
        follower = Task {
            let notices = Task {
                for await notice in presenter.notices { input.yield(.notice(notice)) }
            }
            await follow.run(first: first, inputs: inputs)
            notices.cancel()
            presenter.close()
        }
        output.onTermination = { [follower] _ in follower.cancel() }
    }

    deinit { follower.cancel() }

    /// Stops watching and unregisters; ``events`` then finishes.
    public func cancel() { follower.cancel() }
}

/// What the following task reads: the current monitor's events (numbered by the monitor they
/// come from) and the presenter's notices.
private enum Input: Sendable {
    case event(FolderEvent, generation: Int)
    case ended(generation: Int)
    /// No operation explained the folder's removal in time: it was removed on its own.
    case removalUnexplained(generation: Int)
    case notice(ContainerPresenter.Notice)
}

/// The following task's state and its steps.
private struct Following: Sendable {
    let folder: ContainerPath
    let home: SandboxHome
    let app: AppIdentifier
    let configuration: WatchConfiguration
    let input: AsyncStream<Input>.Continuation
    let output: AsyncStream<FolderEvent>.Continuation

    func run(first: FolderMonitor, inputs: AsyncStream<Input>) async {
        var monitor = first
        var generation = 0
        var forwarding = forward(monitor, generation: generation)
        var held: [FolderEvent]? = nil  // events held back while the container may go
        defer {
            forwarding.cancel()
            output.finish()
        }
        for await next in inputs {
            guard !Task.isCancelled else { return }
            switch next {
            case .event(.folderRemoved, let from) where from == generation && held == nil:
                // Operations tell watchers without waiting: the folder's removal by a restore or
                // uninstall can come before the presenter has read its notice. Hold it back until
                // a notice explains it, or a grace period has passed.
                held = [.folderRemoved(folder)]
                explainRemoval(generation: generation)
            case .removalUnexplained(let from) where from == generation:
                for event in held ?? [] where !deliver(event) { return }
                held = nil
            case .event(let event, let from) where from == generation:
                if var holding = held {
                    if holding.count < configuration.bufferLimit { holding.append(event) }
                    held = holding
                } else if !deliver(event) {
                    return
                }
            case .ended(let from) where from == generation && held == nil:
                return  // the monitor ended on its own (folder removed, cancelled)
            case .notice(let notice) where notice.operation.replacesContainer:
                if notice.phase == .will {
                    held = held ?? []
                    continue
                }
                let kept = held ?? []
                held = nil
                guard notice.outcome == .completed else {
                    for event in kept where !deliver(event) { return }
                    continue
                }
                forwarding.cancel()
                await stop(monitor)
                if notice.operation == .uninstall {
                    output.yield(.containerRemoved(folder))
                    return
                }
                do throws(SandboxError) {
                    let container = try home.container(for: app)
                    monitor = try FolderMonitor(watching: folder, in: container.root, configuration: configuration)
                } catch {
                    output.yield(.failed(error))
                    output.yield(.folderRemoved(folder))
                    return
                }
                generation += 1
                output.yield(.containerReplaced(folder))
                forwarding = forward(monitor, generation: generation)
            default:
                continue  // an earlier monitor's, or an operation that leaves the container
            }
        }
    }

    /// Delivers `event`; whether the monitor goes on (not after the folder's removal).
    private func deliver(_ event: FolderEvent) -> Bool {
        output.yield(event)
        if case .folderRemoved = event { return false }
        return true
    }

    /// How long a removed folder waits for a notice that explains it (the presenter looks every
    /// 50 ms; a loaded machine may be slower).
    static let removalGrace: Duration = .seconds(2)

    private func explainRemoval(generation: Int) {
        Task { [input] in
            try? await Task.sleep(for: Self.removalGrace)  // a timer, not a synchronisation: cancelled only at teardown
            input.yield(.removalUnexplained(generation: generation))
        }
    }

    private func forward(_ monitor: FolderMonitor, generation: Int) -> Task<Void, Never> {
        Task { [input] in
            for await event in monitor.events { input.yield(.event(event, generation: generation)) }
            input.yield(.ended(generation: generation))
        }
    }

    /// Cancels `monitor` on a thread of its own (cancelling waits for its reader to exit).
    private func stop(_ monitor: FolderMonitor) async {
        do {
            try await OwnedThread.run(name: "watch-stop") { monitor.cancel() }
        } catch {
            monitor.cancel()  // no thread could be started: wait here, briefly, rather than leak it
        }
    }
}
