import SandboxCore
import SandboxStore

/// The failures of reading an iOS backup folder for an import.
enum IOSBackupProblem {
    /// `shown` (an item of the backup folder, or a row of its `Manifest.db`) refused with
    /// ``SandboxCore/SandboxError/Code/invalidIOSBackup`` (or `code`).
    static func refusal(
        _ shown: String, _ problem: String, code: SandboxError.Code = .invalidIOSBackup, remedy: String? = nil
    ) -> SandboxError {
        SandboxError(
            code,
            "'\(shown)' \(problem); the backup was not imported and the app's container is unchanged. \(remedy ?? "Make the backup again, or remove the item from it.")",
            path: shown)
    }
}
