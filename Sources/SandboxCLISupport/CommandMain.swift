import ArgumentParser
import Glibc
import Sandbox

/// The `main` of `sandbox` and `sandbox-extras`: parse, run, and turn a failure into one line and
/// an exit status.
package enum CommandMain {
    /// Runs `Root` on this process's arguments; library errors print one line,
    /// `sandbox: <message> [<code>]`, and exit with the status `exitStatuses` gives their code
    /// (``ExitStatus/of(_:in:)``). Usage errors are the
    /// argument parser's (exit 64, EX_USAGE). A reader of standard output that went away ends the
    /// command quietly with status 0: `SIGPIPE` is ignored, so the write fails with `EPIPE` instead
    /// of killing the process (see ``StandardStreams``).
    package static func run<Root: AsyncParsableCommand>(
        _: Root.Type, exitStatuses: [SandboxError.Code: Int32] = ExitStatus.statuses,
        remedies: [SandboxError.Code: [Remedies.Remedy]] = [:]
    ) async {
        signal(SIGPIPE, SIG_IGN)
        var name: String?
        do {
            var command = try Root.parseAsRoot()
            name = type(of: command).configuration.commandName
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch  where StandardStreams.isClosedOutput(error) {
            Root.exit(withError: ExitCode.success)
        } catch let error as SandboxError {
            StandardStreams.error(Remedies.line(for: error, command: name, adding: remedies) + "\n")
            Root.exit(withError: ExitCode(ExitStatus.of(error, in: exitStatuses)))
        } catch {
            Root.exit(withError: error)
        }
    }
}
