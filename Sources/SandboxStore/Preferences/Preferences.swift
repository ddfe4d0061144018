import Sandbox
import Synchronization

/// An app's preferences (`NSUserDefaults`): typed keys with defaults, stored as a binary property
/// list at `Library/Preferences/<app-id>.plist` — the one sanctioned writer of that directory.
///
/// **Writes.** Every change is written before the call returns, atomically and durably: under an
/// exclusive `flock` on `Library/Preferences/.<app-id>.plist.lock` the file is re-read if another
/// writer changed it, the change is merged in, and the new file replaces the old with a rename.
/// So several processes can write at once and no key is lost. Group many changes into one write
/// with ``update(_:)``.
///
/// **Reads** come from memory and never touch the disk. They see this instance's writes at once;
/// other processes' writes after ``synchronize()``, after this instance's next write, or within the
/// polling interval while someone listens to ``changes(checkingEvery:)``.
///
/// **`synchronize()`** re-reads the file now. Unlike `UserDefaults.synchronize()` it is never
/// needed to save anything: nothing is ever left unsaved.
///
/// Dates keep their sub-second precision (binary property lists store a `Double`). Registered
/// defaults belong to this instance, not to the process.
public final class Preferences: Sendable {
    /// The app whose preferences these are; for a group's suite, the member that opened it.
    public let app: AppIdentifier
    /// The App Group whose suite these are (`UserDefaults(suiteName:)`); `nil` for the app's own.
    public let suite: AppGroupIdentifier?
    let file: PreferencesFile
    /// Serializes this instance's file I/O; held before ``state``, never after.
    let io: Mutex<Synced>
    @usableFromInline let state: Mutex<State>

    /// What this instance last saw of the file.
    struct Synced {
        var generation: UInt64
        var stamp: FileStamp?
    }

    @usableFromInline struct State {
        @usableFromInline var stored: [String: PreferenceValue]
        @usableFromInline var registered: [String: PreferenceValue] = [:]
        var observers: [Int: AsyncStream<PreferenceChange>.Continuation] = [:]
        var nextObserver = 0
        var poller: Task<Void, Never>?
    }

    /// Opens the preferences of `container`'s app, reading the file if there is one.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged file (left as it
    ///   was), and the core's codes.
    public convenience init(container: Container) throws(SandboxError) {
        try self.init(
            app: container.identifier, suite: nil,
            file: try PreferencesFile(root: container.root, name: container.identifier.rawValue))
    }

    /// Opens the preference suite of an App Group (`UserDefaults(suiteName:)`):
    /// `Library/Preferences/<group-id>.plist` in the group's container, written and read by every
    /// member exactly as an app's own preferences are (the same lock, merge and atomic replace).
    ///
    /// - Throws: as ``init(container:)``.
    public convenience init(group: AppGroupContainer) throws(SandboxError) {
        try self.init(
            app: group.app, suite: group.group, file: try PreferencesFile(root: group.root, name: group.group.rawValue))
    }

    private init(app: AppIdentifier, suite: AppGroupIdentifier?, file: PreferencesFile) throws(SandboxError) {
        self.app = app
        self.suite = suite
        let (generation, values, stamp) = try file.lock.withLock(exclusive: false) { () throws(SandboxError) in
            let generation = try file.lock.generation()
            let (values, stamp) = try file.read()
            return (generation, values, stamp)
        }
        self.file = file
        io = Mutex(Synced(generation: generation, stamp: stamp))
        state = Mutex(State(stored: values))
    }

    deinit {
        state.withLock { state in
            state.poller?.cancel()
            for observer in state.observers.values { observer.finish() }
        }
    }

    /// The file's path in the container: `Library/Preferences/<app-id>.plist`, or
    /// `Library/Preferences/<group-id>.plist` in the group's container for a suite.
    public var path: ContainerPath { file.path }

    // MARK: Reading

    /// The value for `key`: what is stored, else what is registered, else the key's default (a
    /// stored or registered value of another type is passed over).
    ///
    /// Inlinable, so that the conversion is specialized for `Value` in the caller: reads are the
    /// hot path (tens of millions a second).
    @inlinable
    public subscript<Value>(key: Key<Value>) -> Value {
        let (stored, registered) = state.withLock { ($0.stored[key.name], $0.registered[key.name]) }
        return stored.flatMap(Value.init(preferenceValue:)) ?? registered.flatMap(Value.init(preferenceValue:))
            ?? key.defaultValue
    }

    /// The value stored or registered under `name`, untyped.
    public func value(forKey name: String) -> PreferenceValue? {
        state.withLock { $0.stored[name] ?? $0.registered[name] }
    }

    /// The stored values, without the registered defaults.
    public var storedValues: [String: PreferenceValue] {
        state.withLock { $0.stored }
    }

    /// The registered defaults overlaid with the stored values (`dictionaryRepresentation()`).
    public func dictionaryRepresentation() -> [String: PreferenceValue] {
        state.withLock { $0.registered.merging($0.stored) { _, stored in stored } }
    }

    /// Registers defaults for names, read when nothing is stored (`register(defaults:)`). They are
    /// kept in memory only, for this instance.
    public func register(defaults: [String: PreferenceValue]) {
        state.withLock { $0.registered.merge(defaults) { _, new in new } }
    }

    // MARK: Writing

    /// Stores `value` for `key`, durably, before returning.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when the file on disk is damaged
    ///   (it is not overwritten), and the core's codes (e.g. `no-space`, with the old file intact).
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(SandboxError) {
        try update { $0[key.name] = value.preferenceValue }
    }

    /// Stores `value` under `name`, or removes the name when `value` is `nil`.
    ///
    /// - Throws: as ``set(_:for:)``.
    public func setValue(_ value: PreferenceValue?, forKey name: String) throws(SandboxError) {
        try update { $0[name] = value }
    }

    /// Removes the stored value of `key`, so its default shows again.
    ///
    /// - Throws: as ``set(_:for:)``.
    public func remove<Value>(_ key: Key<Value>) throws(SandboxError) {
        try update { $0[key.name] = nil }
    }

    /// Removes the stored value under `name`.
    ///
    /// - Throws: as ``set(_:for:)``.
    public func removeValue(forKey name: String) throws(SandboxError) {
        try update { $0[name] = nil }
    }

    /// Applies `change` to the stored values and writes them in one locked, atomic, durable write,
    /// merged with whatever other processes wrote meanwhile. Nothing is written when `change`
    /// changes nothing.
    ///
    /// - Throws: as ``set(_:for:)``; when it throws, the file is as it was.
    public func update(_ change: (inout [String: PreferenceValue]) -> Void) throws(SandboxError) {
        try io.withLock { (synced: inout Synced) throws(SandboxError) in
            try file.lock.withLock(exclusive: true) { () throws(SandboxError) in
                let generation = try file.lock.generation()
                let current = try currentValues(generation: generation, synced: &synced)
                var next = current
                change(&next)
                if next != current {
                    synced.stamp = try file.write(next)
                    synced.generation = generation &+ 1
                    try file.lock.setGeneration(synced.generation)
                }
                publish(next, origin: .local)
            }
        }
    }

    /// The values on disk under the lock: the cache when nobody wrote since this instance last
    /// looked, else the file, whose news are published as external changes.
    private func currentValues(
        generation: UInt64, synced: inout Synced
    ) throws(SandboxError) -> [String: PreferenceValue] {
        if generation == synced.generation, try file.stamp() == synced.stamp {
            return state.withLock { $0.stored }
        }
        let (values, stamp) = try file.read()
        synced = Synced(generation: generation, stamp: stamp)
        publish(values, origin: .external)
        return values
    }

    /// Makes `values` the cached ones and tells the observers what changed.
    func publish(_ values: [String: PreferenceValue], origin: PreferenceChange.Origin) {
        state.withLock { state in
            let changes = state.observers.isEmpty ? [] : PreferenceChange.between(state.stored, values, origin: origin)
            state.stored = values
            for change in changes {
                for observer in state.observers.values { observer.yield(change) }
            }
        }
    }

    // MARK: Synchronizing

    /// Re-reads the file now, so reads see other processes' writes, and reports what they changed
    /// on ``changes(checkingEvery:)``. Writes never need it: each is on disk when it returns.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged file (the cached
    ///   values are kept), and the core's codes.
    public func synchronize() throws(SandboxError) {
        try refresh(force: true)
    }

    /// Re-reads the file if a writer changed it since this instance last looked.
    func refresh(force: Bool) throws(SandboxError) {
        try io.withLock { (synced: inout Synced) throws(SandboxError) in
            if !force, try file.lock.generation() == synced.generation, try file.stamp() == synced.stamp { return }
            try file.lock.withLock(exclusive: false) { () throws(SandboxError) in
                let generation = try file.lock.generation()
                let (values, stamp) = try file.read()
                synced = Synced(generation: generation, stamp: stamp)
                publish(values, origin: .external)
            }
        }
    }
}
