extension DownloadSession {
    /// How a session transfers: limits, retries, timeouts.
    public struct Configuration: Sendable, Hashable {
        /// Tasks transferring at once; more wait in the order they were resumed.
        public var maximumConcurrentTasks: Int
        /// Tasks transferring at once from one host.
        public var maximumConcurrentTasksPerHost: Int
        /// Retries of transient failures; each continues from the bytes on disk.
        public var retryPolicy: RetryPolicy
        /// A transfer that receives nothing for this long is retried (or fails as `stalled`).
        public var stallTimeout: Duration
        /// How long connecting may take.
        public var connectTimeout: Duration
        /// Redirects followed per request (0: none).
        public var maximumRedirects: Int
        /// Bytes per second per task, or `nil` for no limit.
        public var rateLimit: Int64?
        /// The shortest time between two progress reports of a task.
        public var progressInterval: Duration
        /// How often a running task records its length in the checkpoint (for listings).
        public var checkpointInterval: Duration
        /// The largest transfer, as its answer announces it, that is checkpointed only when it has
        /// run for ``checkpointInterval``, fails, pauses or completes — 1 MiB by default. A process
        /// killed before then forgets the task (its next session sweeps the partial file), and
        /// downloading it again costs at most this many bytes; a small download writes one
        /// checkpoint instead of three. Larger transfers, and those of unknown length, are
        /// checkpointed when their answer is accepted, before their first byte is written. 0
        /// checkpoints every transfer at once.
        public var smallTransferLimit: Int64
        /// Whether a finished file is fsync'd before it is handed over, so that it survives a power
        /// cut too (a kill never loses it either way). Off by default, like curl and iOS: it costs
        /// a write-back of the whole file.
        public var synchronizesFinishedFiles: Bool

        /// A configuration; each value as its property says. ``standard`` is the default one.
        public init(
            maximumConcurrentTasks: Int = 6,
            maximumConcurrentTasksPerHost: Int = 4,
            retryPolicy: RetryPolicy = .standard,
            stallTimeout: Duration = .seconds(30),
            connectTimeout: Duration = .seconds(10),
            maximumRedirects: Int = 10,
            rateLimit: Int64? = nil,
            progressInterval: Duration = .milliseconds(100),
            checkpointInterval: Duration = .seconds(1),
            synchronizesFinishedFiles: Bool = false,
            smallTransferLimit: Int64 = 1 << 20
        ) {
            self.maximumConcurrentTasks = maximumConcurrentTasks
            self.maximumConcurrentTasksPerHost = maximumConcurrentTasksPerHost
            self.retryPolicy = retryPolicy
            self.stallTimeout = stallTimeout
            self.connectTimeout = connectTimeout
            self.maximumRedirects = maximumRedirects
            self.rateLimit = rateLimit
            self.progressInterval = progressInterval
            self.checkpointInterval = checkpointInterval
            self.synchronizesFinishedFiles = synchronizesFinishedFiles
            self.smallTransferLimit = smallTransferLimit
        }

        /// Six tasks (four per host), standard retries, 30 s stall timeout, 10 redirects.
        public static let standard = Configuration()
    }
}
