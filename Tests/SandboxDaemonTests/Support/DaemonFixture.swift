import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer

/// A fresh sandbox home with one app's container, a runtime folder of its own (so each test has
/// its own `sandboxd`), and helpers to run the background test app and find the daemon.
struct DaemonFixture {
    let scratch: ScratchDirectory
    let home: SandboxHome
    let container: Container
    static let app = "com.example.background"

    var runtime: String { scratch.appending("run") }
    var paths: DaemonPaths {
        var paths = DaemonPaths(home: home)
        paths.runtimeDirectory = runtime + "/sandbox"
        return paths
    }

    /// The environment of every process a test starts: this home, this runtime folder, and a
    /// daemon that exits `idleExit` seconds after its last client and transfer.
    func environment(idleExit: Double = 30) -> [String: String] {
        [
            "SANDBOX_HOME": home.location, "XDG_RUNTIME_DIR": runtime,
            "SANDBOXD_IDLE_EXIT": String(idleExit),
        ]
    }

    /// Runs `body` with a fixture; afterwards kills every daemon it started.
    static func with<T>(_ body: (DaemonFixture) async throws -> T) async throws -> T {
        let scratch = try ScratchDirectory.make(prefix: "sbd")
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.appending("run"), withIntermediateDirectories: true)
        let home = try SandboxHome(location: scratch.appending("home"))
        let fixture = DaemonFixture(
            scratch: scratch, home: home, container: try home.createContainer(for: AppIdentifier(app)))
        defer { fixture.killDaemons() }
        return try await body(fixture)
    }

    /// Starts the background test app: `APP SESSION arguments…`.
    func startApp(_ session: String, _ arguments: [String], idleExit: Double = 30) throws -> RunningProgram {
        try BuiltProgram("sandbox-background-app").start(
            [Self.app, session] + arguments, environment: environment(idleExit: idleExit), outputIn: scratch.path)
    }

    /// Runs the background test app to its end.
    func runApp(_ session: String, _ arguments: [String], idleExit: Double = 30) async throws -> AppOutput {
        AppOutput(try await startApp(session, arguments, idleExit: idleExit).finish(timeout: .seconds(60)))
    }

    /// The processes running `sandboxd` for this fixture's home.
    func daemonPIDs() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []  // no /proc: none found
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.first?.hasSuffix("/sandboxd") == true,
                let index = arguments.firstIndex(of: "--home"), index + 1 < arguments.count,
                arguments[index + 1] == home.location
            else { return nil }
            // A zombie has an empty cmdline, so this is a live process.
            return pid
        }
    }

    func killDaemons() {
        for pid in daemonPIDs() { kill(pid, SIGKILL) }
    }
}

/// The JSON lines a background test app printed.
struct AppOutput {
    let output: ProgramOutput
    let lines: [[String: Any]]

    init(_ output: ProgramOutput) {
        self.output = output
        lines = Self.parse(output.stdout)
    }

    static func parse(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]  // a cut last line: skipped
        }
    }

    var status: Int32 { output.status }

    /// The daemon's pid the `connect` command printed.
    var daemonPID: Int? { lines.lazy.compactMap { $0["daemonPID"] as? Int }.first }

    /// The `kind` of each event line, with its task: `completed 1`, `didFinishEvents`.
    var events: [String] {
        lines.compactMap { line in
            guard let kind = line["kind"] as? String else { return nil }
            return (line["task"] as? Int).map { "\(kind) \($0)" } ?? kind
        }
    }
}

extension DaemonFixture {
    /// A file of the container, whole.
    func contents(_ path: String) throws -> [UInt8] {
        try container.root.readContents(of: try ContainerPath(path), maximumSize: 1 << 30)
    }

    /// The files waiting in session `session`'s staging folder.
    func stagedFiles(_ session: String) throws -> [String] {
        let folder = try ContainerPath("Library/Caches/com.sandbox.background/\(session)")
        // None yet: no folder.
        guard (try? container.root.attributes(at: folder, followingSymlink: false)) != nil else { return [] }
        return try container.root.fileNames(at: folder).sorted()
    }
}
