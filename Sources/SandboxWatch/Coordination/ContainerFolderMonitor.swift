import Sandbox
import Synchronization

/// A ``FolderMonitor`` on a folder of an app's data container that follows the container through
/// the app's lifecycle operations: it registers as a watcher (``/Sandbox/PresenterKind/watch``),
/// and
///
/// - after a completed restore (the data container replaced by a new directory) reports
///   ``FolderEvent/containerReplaced(_:)`` and goes on watching the folder in the new container
///   (what happens there afterwards is reported; what the folder holds is the restored one's:
///   read it again). The restore returns once the monitor watches the new container;
/// - after a completed uninstall reports ``FolderEvent/containerRemoved(_:)`` as its last event.
///
/// A restore or uninstall asks it to let go and waits for its answer, given on the presenter's
/// own thread before the operation touches the container: from then on the events of the
/// container about to go (its files removed with it) are held back, dropped once it has gone,
/// delivered when the operation failed and the container stayed. A removal of the folder that no
/// operation announced is the folder's own, and reported at once.
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
        let (events, output) = AsyncStream.makeStream(
            of: FolderEvent.self, bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        let (inputs, input) = AsyncStream.makeStream(
            of: Input.self, bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        let monitors = Monitors(folder: folder, configuration: configuration, input: input)
        let presenter = try ContainerFollower.register(
            following: container, description: description ?? "a watcher of \(folder)"
        ) { step in monitors.take(step) }
        do throws(SandboxError) {
            try monitors.start(in: container, generation: 0)
        } catch {
            monitors.close()
            presenter.close()
            throw error
        }
        self.folder = folder
        self.events = events
        let follow = Following(folder: folder, configuration: configuration, output: output)
        follower = Task {
            await follow.run(inputs: inputs)
            monitors.close()
            presenter.close()
        }
        output.onTermination = { [follower] _ in follower.cancel() }
    }

    deinit { follower.cancel() }

    /// Stops watching and unregisters; ``events`` then finishes.
    public func cancel() { follower.cancel() }
}

/// What the following task reads, in the order it happened: the current monitor's events
/// (numbered by the monitor they come from) and the steps of the operations on the container.
private enum Input: Sendable {
    case event(FolderEvent, generation: Int)
    case ended(generation: Int)
    case step(ContainerStep, generation: Int)
}

/// The monitor of each container in turn, replaced on the presenter's thread.
private final class Monitors: Sendable {
    let folder: ContainerPath
    let configuration: WatchConfiguration
    let input: AsyncStream<Input>.Continuation

    private struct Current {
        var monitor: FolderMonitor?
        var forwarding: Task<Void, Never>?
        var generation = 0
        var closed = false
    }

    private let current = Mutex(Current())

    init(folder: ContainerPath, configuration: WatchConfiguration, input: AsyncStream<Input>.Continuation) {
        self.folder = folder
        self.configuration = configuration
        self.input = input
    }

    /// Watches the folder in `container` as generation `generation`, unless a later container
    /// is watched already (a restore completed while the first monitor was being made).
    func start(in container: Container, generation: Int) throws(SandboxError) {
        let monitor = try FolderMonitor(watching: folder, in: container.root, configuration: configuration)
        let started = current.withLock { current -> Bool in
            guard !current.closed, current.generation == generation, current.monitor == nil else { return false }
            current.monitor = monitor
            current.forwarding = Self.forward(monitor, generation: current.generation, to: input)
            return true
        }
        if !started { monitor.cancel() }
    }

    /// Does what `step` asks, on the presenter's thread: when it returns, the operation goes on.
    func take(_ step: ContainerStep) {
        switch step {
        case .willChange, .stayed:
            input.yield(.step(step, generation: generation))
        case .removed, .unreadable:
            stop()
            input.yield(.step(step, generation: generation))
        case .replaced(let container):
            stop()
            let next = current.withLock { current in
                current.generation += 1
                return current.generation
            }
            // Announced before the new monitor's events, which are forwarded only after it.
            input.yield(.step(step, generation: next))
            do throws(SandboxError) {
                try start(in: container, generation: next)
            } catch {
                input.yield(.step(.unreadable(error), generation: next))
            }
        }
    }

    /// Stops the current monitor for good; the following task has ended.
    func close() {
        current.withLock { $0.closed = true }
        stop()
    }

    private var generation: Int { current.withLock(\.generation) }

    /// Stops the current monitor (cancelling waits for its reader to exit: call it on a thread of
    /// your own).
    private func stop() {
        let (monitor, forwarding) = current.withLock { current in
            defer { (current.monitor, current.forwarding) = (nil, nil) }
            return (current.monitor, current.forwarding)
        }
        forwarding?.cancel()
        monitor?.cancel()
    }

    private static func forward(
        _ monitor: FolderMonitor, generation: Int, to input: AsyncStream<Input>.Continuation
    ) -> Task<Void, Never> {
        Task {
            for await event in monitor.events { input.yield(.event(event, generation: generation)) }
            input.yield(.ended(generation: generation))
        }
    }
}

/// The following task's state and its steps.
private struct Following: Sendable {
    let folder: ContainerPath
    let configuration: WatchConfiguration
    let output: AsyncStream<FolderEvent>.Continuation

    func run(inputs: AsyncStream<Input>) async {
        var generation = 0
        var held: [FolderEvent]? = nil  // events held back while the container may go
        var endedWhileHeld = false
        defer { output.finish() }
        for await next in inputs {
            guard !Task.isCancelled else { return }
            switch next {
            case .event(let event, let from) where from == generation:
                if var holding = held {
                    if holding.count < configuration.bufferLimit { holding.append(event) }
                    held = holding
                } else if !deliver(event) {
                    return
                }
            case .ended(let from) where from == generation:
                guard held != nil else { return }  // the monitor ended on its own (folder removed)
                endedWhileHeld = true
            case .step(.willChange, _):
                held = held ?? []
            case .step(.stayed, _):
                for event in held ?? [] where !deliver(event) { return }
                held = nil
                if endedWhileHeld { return }
            case .step(.replaced, let next):
                (held, endedWhileHeld, generation) = (nil, false, next)
                output.yield(.containerReplaced(folder))
            case .step(.unreadable(let error), _):
                output.yield(.failed(error))
                output.yield(.folderRemoved(folder))
                return
            case .step(.removed, _):
                output.yield(.containerRemoved(folder))
                return
            default:
                continue  // an earlier monitor's
            }
        }
    }

    /// Delivers `event`; whether the monitor goes on (not after the folder's removal).
    private func deliver(_ event: FolderEvent) -> Bool {
        output.yield(event)
        if case .folderRemoved = event { return false }
        return true
    }
}
