import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTransfer
import SystemPackage

/// Starts an app's registered relaunch command the way `sandbox run` starts a program: the app
/// opened as a launch does (a bundle changed since install is refused), the command confined to
/// the container (``/Sandbox/ConfinedLaunch``), an environment built from scratch with the
/// session's name added, and a ``/Sandbox/DaemonBroker`` bound to the app so the program can
/// reach its session again. The daemon never runs anything else on an app's behalf.
enum RelaunchedApp {
    /// The variable that names the session a relaunched program is for.
    static let sessionVariable = "SANDBOX_BACKGROUND_SESSION"
    /// The variable that names its app (also in `SANDBOX_APP_IDENTIFIER`).
    static let appVariable = "SANDBOX_APP"

    /// Starts `command` for `key`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the app cannot be opened, the kernel cannot
    ///   confine it, or the program cannot be started; nothing runs then.
    static func start(
        _ key: SessionKey, _ command: RelaunchCommand, home: SandboxHome, location: DaemonLocation
    ) throws(SandboxError) -> AppProcess {
        let app = try home.openApp(try AppIdentifier(key.app))
        let allowsNetwork = command.allowsNetwork ?? false
        let launch = try ConfinedLaunch(
            app: app, command: command.arguments, options: ConfinementOptions(blocksNetwork: !allowsNetwork),
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"],
            variables: [sessionVariable: key.session, appVariable: key.app])
        let broker = try DaemonBroker(
            binding: AppBinding(app: key.app, allowsNetwork: allowsNetwork), location: location, startsDaemon: false,
            environment: [:])
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else {
            broker.closeProgramEnd()
            throw .systemCall("open", errno: Errno(rawValue: errno), path: "/dev/null")
        }
        defer { close(null) }
        let stream = FileDescriptor(rawValue: null)
        let process: AppProcess
        do {
            process = try launch.start(
                standardInput: stream, standardOutput: stream, standardError: stream, passing: broker.programEnd)
        } catch {
            broker.closeProgramEnd()
            throw error
        }
        broker.closeProgramEnd()
        broker.serve()
        return process
    }
}
