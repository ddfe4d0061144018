import ArgumentParser
import SandboxCLISupport

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
        ]
    )

    static func main() async {
        await CommandMain.run(Self.self)
    }
}
