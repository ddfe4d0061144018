import Synchronization

extension Preferences {
    /// The changes to the stored values, as they happen: this instance's writes at once, and
    /// other processes' writes as the file is seen to change.
    ///
    /// Other writers are noticed by polling, while at least one sequence is being listened to:
    /// every `interval`, the lock file's generation counter is read and the file is `statx`ed
    /// (two system calls, no read of the file unless it changed). Polling is used rather than
    /// inotify because the file is replaced by a rename on every write and inotify watches would
    /// have to follow the directory; at the default 50 ms it costs next to nothing. A damaged file
    /// seen while polling is skipped (the next ``set(_:for:)`` or ``synchronize()`` throws for it).
    ///
    /// The sequence ends when the ``Preferences`` instance goes away; ending the iteration stops
    /// the polling once no one else listens.
    public func changes(checkingEvery interval: Duration = .milliseconds(50)) -> AsyncStream<PreferenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PreferenceChange.self)
        let id = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            if state.poller == nil { state.poller = startPolling(every: interval) }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.observers[id] = nil
                if state.observers.isEmpty {
                    state.poller?.cancel()
                    state.poller = nil
                }
            }
        }
        return stream
    }

    /// The values of `key` as they change (its default when it is removed).
    public func updates<Value>(
        _ key: Key<Value>, checkingEvery interval: Duration = .milliseconds(50)
    ) -> AsyncMapSequence<AsyncFilterSequence<AsyncStream<PreferenceChange>>, Value> {
        let name = key.name
        return changes(checkingEvery: interval)
            .filter { $0.key == name }
            .map { $0.newValue.flatMap(Value.init(preferenceValue:)) ?? key.defaultValue }
    }

    private func startPolling(every interval: Duration) -> Task<Void, Never> {
        Task.detached { [weak self] in
            while true {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return  // cancelled: no one listens any more
                }
                guard let self else { return }
                do {
                    try self.refresh(force: false)
                } catch {
                    continue  // a damaged file: the next write or synchronize() reports it
                }
            }
        }
    }
}
