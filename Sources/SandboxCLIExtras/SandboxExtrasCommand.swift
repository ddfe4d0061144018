import ArgumentParser
import SandboxBackup
import SandboxCLISupport
import SandboxShare
import SandboxTransfer

/// `sandbox-extras`: the `sandbox` commands that link the sharing server, the HTTP client or the
/// backup repository (``ExtraCommand``). `sandbox` hands them here with `execv`, so that it starts
/// in a few milliseconds; this executable's commands print their usage as `sandbox <command>`.
@main
struct SandboxExtrasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "The `sandbox` commands that download, share and back up (run through `sandbox`).",
        subcommands: [
            Download.self, Downloads.self, Fetch.self,
            Share.self,
            BackupCommand.self, SnapshotsCommand.self, CheckCommand.self, RestoreCommand.self, PruneCommand.self,
            ExportCommand.self, ImportCommand.self,
        ]
    )

    static func main() async {
        await CommandMain.run(Self.self, exitStatuses: exitStatuses, remedies: remedies)
    }

    /// The remedies of the backup repository's codes and of the share's certificate.
    static let remedies: [SandboxError.Code: [Remedies.Remedy]] = [
        .notARepository: [Remedies.Remedy(text: "`sandbox backup` makes one.", scope: .any)],
        .repositoryDamaged: [
            Remedies.Remedy(
                text: "`sandbox check REPO --read-data` shows which snapshots and files it affects.", scope: .any)
        ],
        .encryptedIOSBackup: [
            Remedies.Remedy(
                text:
                    "`sandbox import APP --ios-backup DIR --password-file FILE` opens an encrypted backup with its password (FILE's first line).",
                scope: .any)
        ],
        .invalidCertificate: [
            Remedies.Remedy(
                text: "`sandbox share APP --tls` serves this device's own certificate instead.", scope: .any)
        ],
    ]

    /// `sandbox`'s exit statuses and the usage codes: a URL, resume data or a certificate the user gave.
    static let exitStatuses = ExitStatus.merging([
        .invalidURL: ExitStatus.usage, .invalidResumeData: ExitStatus.usage, .invalidCertificate: ExitStatus.usage,
    ])
}
