import Foundation

extension BackgroundSession {
    /// Starts background downloads of `requests` in the daemon, all submitted at once: the
    /// daemon records them together (one commit for the batch instead of one a task) and answers
    /// each, so 1,000 tasks take a fraction of the time of 1,000 ``downloadTask(with:)-(DownloadRequest)``
    /// calls awaited one after another. The tasks come back in the order of `requests`.
    ///
    /// Every URL is checked before anything is sent. When the daemon refuses one of them, that
    /// error is thrown; the others it accepted run on (``allTasks()`` lists them).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidURL`` unless every URL is absolute http(s) (nothing is
    ///   submitted then); `daemon-unavailable` when the daemon connection is gone.
    public func downloadTasks(with requests: [DownloadRequest]) async throws(SandboxError) -> [BackgroundTask] {
        for request in requests where !DownloadRequest.isSupported(request.url) {
            throw SandboxError(
                .invalidURL, "'\(request.url.absoluteString)' is not an absolute http or https URL.",
                url: request.url.absoluteString)
        }
        let answers = await withTaskGroup(of: (Int, Result<BackgroundTask, SandboxError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    do throws(SandboxError) {
                        return (index, .success(try await self.downloadTask(with: request)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var answers: [(Int, Result<BackgroundTask, SandboxError>)] = []
            answers.reserveCapacity(requests.count)
            for await answer in group { answers.append(answer) }
            return answers
        }
        return try answers.sorted { $0.0 < $1.0 }.map { answer throws(SandboxError) in try answer.1.get() }
    }
}
