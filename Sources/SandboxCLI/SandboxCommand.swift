import ArgumentParser
import Glibc
import Sandbox

/// `sandbox`: iOS-style app containers on Linux, from the command line.
@main
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "iOS-style app containers on Linux: create them, put files in, inspect, size and purge them.",
        discussion: """
            The device lives in $SANDBOX_HOME (default: $XDG_DATA_HOME/sandbox or ~/.local/share/sandbox).
            PATH arguments are relative to the container's home (e.g. Documents/a.txt); anything that would
            leave the container is refused.
            """,
        subcommands: [
            Create.self, List.self, PathCommand.self, Uninstall.self,
            ListDirectory.self, Stat.self, MakeDirectory.self, Remove.self,
            Put.self, Cat.self, Move.self, Copy.self, Exclude.self,
            DiskUsage.self, DiskFree.self, Restart.self, Purge.self,
            Watch.self, OpenIn.self, ProcessInbox.self,
            Keygen.self, Trust.self, Sign.self, Update.self, Verify.self, Resource.self,
            DefaultsCommand.self, KeychainCommand.self,
            Download.self, Downloads.self, Fetch.self,
            Share.self,
            BackupCommand.self, SnapshotsCommand.self, CheckCommand.self, RestoreCommand.self, PruneCommand.self,
            Run.self,
            PasscodeCommand.self, LockCommand.self, UnlockCommand.self, ProtectedWrite.self,
        ]
    )

    /// Runs the command; library errors print one line, `sandbox: <message> [<code>]`, and exit with
    /// ``ExitStatus/of(_:)``. Usage errors are the argument parser's (exit 64, EX_USAGE). A reader of
    /// standard output that went away ends the command quietly with status 0: `SIGPIPE` is ignored,
    /// so the write fails with `EPIPE` instead of killing the process (see ``StandardStreams``).
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch  where StandardStreams.isClosedOutput(error) {
            exit(withError: ExitCode.success)
        } catch let error as any SandboxFailure {
            StandardStreams.error(Remedies.line(for: error) + "\n")
            exit(withError: ExitCode(ExitStatus.of(error)))
        } catch {
            exit(withError: error)
        }
    }
}
