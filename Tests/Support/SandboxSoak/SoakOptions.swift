/// What a soak run does: how many apps, for how long, from which seed, with which faults.
public struct SoakOptions: Sendable {
    /// A fault or lifecycle operation the chaos driver may pick.
    public enum Fault: String, Sendable, CaseIterable {
        /// `sandbox restore` of an app from the snapshot made at the start.
        case restore
        /// `sandbox update` with a newly signed bundle.
        case update
        /// `sandbox purge`.
        case purge
        /// `sandbox restart`.
        case restart
        /// `sandbox lock`, then `sandbox unlock` a moment later.
        case lock
        /// SIGKILL of an app's `sandbox share`.
        case killShare
        /// SIGKILL of `sandboxd`.
        case killDaemon
        /// SIGKILL of an app's `sandbox run` program.
        case killRun
        /// SIGKILL of an app's `sandbox watch`.
        case killWatch
        /// SIGKILL of a lifecycle command (restore, update, purge, restart, lock) a moment after it started.
        case killCommand
    }

    /// How many apps run side by side, each with its share, watch, run program and downloads.
    public var apps: Int
    /// How long the chaos lasts (set-up and the final checks come on top).
    public var duration: Duration
    /// The seed of every random choice (the faults' order, file sizes): printed with the report.
    public var seed: UInt64
    /// The folder holding the built `sandbox`, `sandbox-extras` and `sandboxd`.
    public var binaries: String
    /// The faults the driver picks from.
    public var faults: Set<Fault>
    /// The most a long-lived process (share, watch, run, sandboxd) may reach (VmHWM).
    public var memoryLimit: Int
    /// Whether a background download that fails is a violation. Off until `sandboxd` holds its
    /// staging as a presenter: `sandbox purge` evicts a download under way from Library/Caches
    /// today (the task fails `not-found`); every file the soak serves exists and matches its hash,
    /// so with the daemon's presenter no download has a reason to fail.
    public var downloadsMustComplete: Bool

    /// A run of `apps` apps for `duration`.
    public init(
        apps: Int = 3, duration: Duration = .seconds(100), seed: UInt64, binaries: String,
        faults: Set<Fault> = Set(Fault.allCases), memoryLimit: Int = 512 << 20, downloadsMustComplete: Bool = false
    ) {
        self.apps = apps
        self.duration = duration
        self.seed = seed
        self.binaries = binaries
        self.faults = faults
        self.memoryLimit = memoryLimit
        self.downloadsMustComplete = downloadsMustComplete
    }

    /// Parses a comma-separated list of fault names ("all" for every one).
    ///
    /// - Throws: ``SoakError`` naming an unknown fault.
    public static func faults(parsing text: String) throws -> Set<Fault> {
        if text == "all" { return Set(Fault.allCases) }
        var faults: Set<Fault> = []
        for name in text.split(separator: ",") {
            guard let fault = Fault(rawValue: String(name)) else {
                throw SoakError(
                    "unknown fault '\(name)'; known: \(Fault.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            faults.insert(fault)
        }
        return faults
    }
}

/// A soak run that could not be set up (a missing tool, a command that failed during set-up).
public struct SoakError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
