import Sandbox

/// What the backup module needs of an app's preferences: their file, read while no writer can
/// replace it (the writers' lock held shared).
package enum PreferencesBackupAccess {
    /// The name of `app`'s preferences file in `Library/Preferences`, and of its lock file.
    package static func fileNames(for app: AppIdentifier) -> (file: String, lock: String) {
        fileNames(named: app.rawValue)
    }

    /// The name of the preferences file `name` (an app's identifier, or a suite's: an App Group's)
    /// in `Library/Preferences`, and of its lock file.
    package static func fileNames(named name: String) -> (file: String, lock: String) {
        ("\(name).plist", ".\(name).plist.lock")
    }

    /// Runs `body` with the path of `container`'s preferences file while holding the preferences
    /// lock shared, so no writer replaces the file meanwhile; waits for the lock until `deadline`
    /// at the latest (an app can hold it as long as it likes).
    ///
    /// - Returns: what `body` returns, or `nil` when a writer still held the lock at `deadline`.
    /// - Throws: ``/SandboxCore/SandboxError`` with the core's codes (also what `body` throws, carried inside).
    package static func withFileLocked<T>(
        in container: Container, waitingUntil deadline: ContinuousClock.Instant,
        _ body: (ContainerPath) throws(SandboxError) -> T
    ) throws(SandboxError) -> T? {
        try withFileLocked(root: container.root, name: container.identifier.rawValue, waitingUntil: deadline, body)
    }

    /// ``withFileLocked(in:waitingUntil:_:)`` for the preferences file `name` beneath `root` (an
    /// App Group's suite in its container, say).
    package static func withFileLocked<T>(
        root: ConfinedRoot, name: String, waitingUntil deadline: ContinuousClock.Instant,
        _ body: (ContainerPath) throws(SandboxError) -> T
    ) throws(SandboxError) -> T? {
        let file = try PreferencesFile(root: root, name: name)
        return try file.lock.withLock(exclusive: false, waitingUntil: deadline) { () throws(SandboxError) in
            try body(file.path)
        }
    }
}
