import SandboxCore

/// What ``SandboxHome/restart()`` did.
public struct RestartReport: Sendable, Hashable, Codable {
    /// Containers whose `tmp/` was emptied.
    public var containers: Int
    /// Items removed from them.
    public var removedItems: Int
    /// Apps whose `tmp/` could not be emptied (some of its items may be gone), with the reason.
    public var skipped: [SkippedApp]
}

extension SandboxHome {
    /// Simulates a device restart: starts a new boot session (a new random `Device/boot-session`,
    /// which forgets what was tagged with the old one: Data Protection's unlocked class keys) and
    /// empties every container's `tmp/`.
    ///
    /// A container that cannot be processed (its `tmp` replaced by a link, say: it is never
    /// followed, see ``Container/locate(_:)``) is skipped and named in ``RestartReport/skipped``;
    /// every other container is still emptied.
    ///
    /// Every app's live users are told first, as a reboot would stop them: the daemon lets go of
    /// what it has in `tmp/`, and a program under `sandbox run` makes the restart refuse.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/containerInUse`` when a live user refused or did
    ///   not let go in time (nothing is done); file-system errors writing `Device/boot-session` or
    ///   listing the installed apps.
    @discardableResult
    public func restart() throws(SandboxError) -> RestartReport {
        try coordinating(.restart, apps: try installedApps()) { () throws(SandboxError) -> RestartReport in
            try beginBootSession()
            var report = RestartReport(containers: 0, removedItems: 0, skipped: [])
            guard let tmpPath = ContainerDirectory.tmp.path else { return report }
            report.skipped = try forEachContainer { container throws(SandboxError) in
                if let tmp = try container.locate(.tmp) {
                    report.removedItems += try container.root.removeContents(of: tmp)
                } else {
                    try container.root.createDirectory(at: tmpPath)  // an app removed it: iOS recreates it
                }
                report.containers += 1
            }
            return report
        }
    }
}
