extension OwnedThread {
    /// Runs `body` — blocking work: a backup, a restore, a repository's requests — on a new thread
    /// named `name` and returns its result to the awaiting task, whose cooperative-pool thread is
    /// free meanwhile. The work is not cancelled with the task: it runs to its end (each
    /// operation bounds its own waits).
    ///
    /// - Throws: what `body` throws; ``SandboxError/Code/tooManyOpenFiles`` when the system has no
    ///   thread to give.
    package static func run<T: Sendable>(
        name: String, _ body: @escaping @Sendable () throws(SandboxError) -> T
    ) async throws(SandboxError) -> T {
        let result = await withUnsafeContinuation {
            (continuation: UnsafeContinuation<Result<T, SandboxError>, Never>) in
            do throws(SandboxError) {
                try OwnedThread.detached(name: name) { continuation.resume(returning: Result(catching: body)) }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }
}
