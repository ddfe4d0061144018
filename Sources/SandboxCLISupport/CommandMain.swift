import ArgumentParser
import Glibc
import Sandbox

/// The `main` of `sandbox` and `sandbox-extras`: parse, run, and turn a failure into one line and
/// an exit status.
package enum CommandMain {
    /// Runs `Root` on this process's arguments; library errors print one line,
    /// `sandbox: <message> [<code>]`, and exit with ``ExitStatus/of(_:)``. Usage errors are the
    /// argument parser's (exit 64, EX_USAGE). A reader of standard output that went away ends the
    /// command quietly with status 0: `SIGPIPE` is ignored, so the write fails with `EPIPE` instead
    /// of killing the process (see ``StandardStreams``).
    package static func run<Root: AsyncParsableCommand>(_: Root.Type) async {
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
            StandardStreams.error(Remedies.line(for: error, command: name) + "\n")
            Root.exit(withError: ExitCode(ExitStatus.of(error)))
        } catch {
            Root.exit(withError: error)
        }
    }
}
