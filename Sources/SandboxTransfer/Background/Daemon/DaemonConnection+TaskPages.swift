import Sandbox

extension DaemonConnection {
    /// Lists the tasks of this connection's hello (its session, or every session of its app) a
    /// page at a time, in the daemon's order, calling `body` with each page: what is held at once
    /// is one page (``TaskListPage``), however many tasks the daemon keeps.
    ///
    /// - Throws: the daemon's error when it refuses a page; `daemon-unavailable` when the
    ///   connection closes first; ``/SandboxCore/SandboxError/Code/protocolViolation`` when the daemon
    ///   answers a page with the cursor it was asked for (it would list forever); what `body` throws.
    package func forEachTaskPage(
        _ body: ([DownloadTaskSummary.Wire]) async throws(SandboxError) -> Void
    ) async throws(SandboxError) {
        var cursor: TaskCursor?
        while true {
            let after = cursor
            let answer = try await request { .list(after: after, limit: TaskListPage.maximumTasks, id: $0) }
            try await body(answer.tasks ?? [])
            guard let next = answer.nextCursor else { return }
            guard next != cursor else {
                throw SandboxError(
                    .protocolViolation, "sandboxd answered a page of tasks with the cursor it was asked for.")
            }
            cursor = next
        }
    }
}
