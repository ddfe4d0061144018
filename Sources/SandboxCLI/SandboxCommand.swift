import ArgumentParser
import SandboxCLISupport

/// `sandbox`: iOS-style app containers on Linux, from the command line.
@main
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "iOS-style app containers on Linux: create them, put files in, inspect, size and purge them.",
        discussion: """
            The device lives in $SANDBOX_HOME (default: $XDG_DATA_HOME/sandbox or ~/.local/share/sandbox). \
            PATH arguments are relative to the container's home (e.g. Documents/a.txt); anything that would \
            leave the container is refused.
            """,
        subcommands: [
            Create.self, List.self, PathCommand.self, Uninstall.self, Users.self,
            ListDirectory.self, Stat.self, MakeDirectory.self, Remove.self,
            Put.self, Cat.self, Move.self, Copy.self, Exclude.self,
            DiskUsage.self, DiskFree.self, Restart.self, Purge.self,
            Watch.self, OpenIn.self, ProcessInbox.self,
            Keygen.self, Trust.self, Sign.self, Update.self, Verify.self, Resource.self,
            DefaultsCommand.self, KeychainCommand.self,
            ForwardedDownload.self, ForwardedDownloads.self, ForwardedFetch.self,
            ForwardedShare.self,
            ForwardedBackup.self, ForwardedSnapshots.self, ForwardedCheck.self,
            ForwardedRestore.self, ForwardedPrune.self,
            ForwardedExport.self, ForwardedImport.self,
            Run.self,
            PasscodeCommand.self, LockCommand.self, UnlockCommand.self, ProtectedWrite.self,
        ]
    )

    /// Hands an ``ExtraCommand`` (`share`, `download`, `backup`, …) to `sandbox-extras` before
    /// parsing anything; runs every other command here (see ``CommandMain``).
    static func main() async {
        let arguments = CommandLine.arguments
        if let extra = ExtraCommand.requested(by: arguments.dropFirst()) {
            do {
                try ExtrasExecutable.replaceProcess(for: extra, arguments: arguments)
            } catch {
                StandardStreams.error(Remedies.line(for: error) + "\n")
                exit(withError: ExitCode(ExitStatus.of(error)))
            }
        }
        await CommandMain.run(Self.self)
    }
}
