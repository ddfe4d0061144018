import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SystemPackage

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program confined to an app's container with Landlock.",
        discussion: """
            Opens the app as a launch does (a bundle changed since install is refused and nothing runs), \
            then runs COMMAND with HOME, TMPDIR, CFFIXED_USER_HOME and XDG_*_HOME inside the data container, \
            the bundle's path in SANDBOX_BUNDLE_PATH, the home as working directory, in a new session, with \
            PR_SET_NO_NEW_PRIVS and resource limits. The program can read and write its container, read and \
            execute its bundle and the system's programs and libraries, and nothing else.

            Exits with the program's status, or 128+N when signal N ended it; 126 when it could not be \
            executed, 127 when it was not found. SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed on to it.
            """
    )

    @OptionGroup var app: AppArgument
    @Flag(help: "Block the network: TCP, UDP and raw sockets, and abstract Unix sockets outside the sandbox.")
    var noNetwork = false
    @Option(
        name: .customLong("allow-read"),
        help: ArgumentHelp("Also allow reading PATH (a file, or a folder and what is beneath it).", valueName: "path"))
    var allowRead: [String] = []
    @Flag(help: "Run even where the kernel's Landlock cannot enforce everything, saying on stderr what is not.")
    var bestEffort = false
    @Argument(parsing: .postTerminator, help: "The program and its arguments, after `--`.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("Give the program to run after `--`, e.g. `-- ls -l`.") }
    }

    func run() async throws {
        let (process, forwarder) = try start()
        let exit = await process.exit
        withExtendedLifetime(forwarder) {}
        throw ExitCode(exit.shellStatus)
    }

    /// Opens the app and starts the program, with the signals forwarded to it from just before it
    /// starts (while the bundle is verified, Ctrl-C still ends the command). A program that cannot
    /// be executed ends the command as a shell would: 127 when it was not found, 126 otherwise.
    private func start() throws -> (AppProcess, SignalForwarder) {
        let options = ConfinementOptions(blocksNetwork: noNetwork, readablePaths: allowRead, bestEffort: bestEffort)
        let identifier = try app.identifier()
        do throws(SandboxError) {
            let home = try SandboxHome()
            let launch = try home.prepareRun(identifier, command: command, options: options)
            for gap in launch.unenforced {
                StandardStreams.error("sandbox: warning: not enforced (\(launch.abi)): \(gap)\n")
            }
            // The program's only way to sandboxd: connections this process opens and binds to the
            // app (the program cannot open a Unix socket itself).
            let environment = ProcessInfo.processInfo.environment
            let broker = try DaemonBroker(
                binding: AppBinding(app: identifier.rawValue, allowsNetwork: !noNetwork),
                location: DaemonLocation(home: home.location, environment: environment), startsDaemon: true,
                environment: environment)
            let forwarder = SignalForwarder()
            let process: AppProcess
            do throws(SandboxError) {
                process = try launch.start(passing: broker.programEnd)
            } catch {
                broker.closeProgramEnd()
                throw error
            }
            broker.closeProgramEnd()
            broker.serve()
            forwarder.forward(to: process)
            return (process, forwarder)
        } catch {
            guard let cause = error.cause, cause.systemCall == "execve" else { throw error }
            StandardStreams.error(Remedies.line(for: error) + "\n")
            throw ExitCode(cause.errno == .noSuchFileOrDirectory ? 127 : 126)
        }
    }
}
