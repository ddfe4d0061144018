import Foundation
import SandboxTesting
import SandboxWatch

/// Collects a monitor's events on a task of its own, each with the instant it was received.
final class EventRecorder: Sendable {
    struct Received: Sendable {
        var event: FolderEvent
        var at: ContinuousClock.Instant
    }

    private let storage = Locked<[Received]>([])
    private let ended = Locked(false)

    convenience init(_ monitor: FolderMonitor) { self.init(events: monitor.events) }

    init(events: AsyncStream<FolderEvent>) {
        let storage = storage
        let ended = ended
        Task.detached {
            for await event in events {
                let now = ContinuousClock.now
                storage.update { $0.append(Received(event: event, at: now)) }
            }
            ended.update { $0 = true }
        }
    }

    var received: [Received] { storage.value }
    var events: [FolderEvent] { received.map(\.event) }
    /// Whether the event sequence has finished.
    var hasEnded: Bool { ended.value }

    func count(_ matching: (FolderEvent) -> Bool) -> Int { events.filter(matching).count }

    /// Waits until the events satisfy `condition`.
    func wait(timeout: Duration = .seconds(10), until condition: ([FolderEvent]) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { condition(events) }
    }

    /// Waits until `event` was received.
    func wait(for event: FolderEvent, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.contains(event) }
    }
}

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}
