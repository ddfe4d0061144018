import SandboxCore

/// What ``SandboxHome/restart()`` did.
public struct RestartReport: Sendable, Hashable, Codable {
    /// Containers whose `tmp/` was emptied.
    public var containers: Int
    /// Items removed from them.
    public var removedItems: Int
}

extension SandboxHome {
    /// Simulates a device restart: empties every container's `tmp/`, and nothing else.
    ///
    /// - Throws: file-system errors; containers before the failing one are already cleared.
    @discardableResult
    public func restart() throws(SandboxError) -> RestartReport {
        var report = RestartReport(containers: 0, removedItems: 0)
        for container in try containers() {
            guard let tmp = ContainerDirectory.tmp.path else { continue }
            if try !container.root.directoryExists(at: tmp) {
                try container.root.createDirectory(at: tmp)  // an app removed it: iOS recreates it
            }
            report.removedItems += try container.root.removeContents(of: tmp)
            report.containers += 1
        }
        return report
    }
}
