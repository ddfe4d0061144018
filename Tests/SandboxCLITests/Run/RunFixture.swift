import Foundation
import Sandbox
import SandboxTesting

/// Whether this kernel's Landlock enforces everything `sandbox run` promises: the tests that run
/// programs confined need it (on an older kernel `sandbox run` refuses, which the ABI tests check
/// by lowering the ABI with `SANDBOX_LANDLOCK_ABI`).
let landlockIsComplete = LandlockABI.current().version >= LandlockABI.required

/// A device with two apps for the `sandbox run` tests: `com.example.notes`, installed from a signed
/// bundle that holds the compiled probe (`sandbox-run-probe`) and a text file, and
/// `com.example.other`, whose Documents hold a secret the first must not reach.
struct RunFixture {
    let cli: CLI
    let app = "com.example.notes"
    let other = "com.example.other"

    /// The data container of `app` on the host.
    func data(_ app: String) -> String { cli.home + "/Containers/Data/" + app }
    /// The installed bundle of `com.example.notes` on the host.
    var bundle: String { cli.home + "/Containers/Bundle/" + app + "/Notes.app" }
    /// The probe inside the installed bundle, as the app executes it.
    var probe: String { bundle + "/probe" }
    /// The secret in the other app's Documents.
    var secret: String { data(other) + "/Documents/secret.txt" }

    /// Runs `sandbox run com.example.notes ARGUMENTS…`.
    @discardableResult
    func run(_ arguments: String...) async throws -> ProgramOutput {
        try await run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String]) async throws -> ProgramOutput {
        try await cli.run(["run", app] + arguments)
    }

    /// Starts `sandbox run com.example.notes ARGUMENTS…` with `environment` added to the test's.
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningProgram {
        try CLI.program.start(
            ["run", app] + arguments, environment: environment.merging(["SANDBOX_HOME": cli.home]) { $1 },
            outputIn: cli.scratch)
    }

    /// A `/usr/bin` or `/bin` program (never one from `/root`, which the sandbox cannot reach,
    /// as a `PATH` lookup might find).
    static func system(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)")
        {
            return "\(directory)/\(name)"
        }
        throw TestFailure("no \(name) in /usr/bin or /bin")
    }

    static func with(_ body: (RunFixture) async throws -> Void) async throws {
        try await CLI.withTemporary { cli in
            let fixture = RunFixture(cli: cli)
            try await fixture.install()
            try await body(fixture)
        }
    }

    private func install() async throws {
        let key = cli.scratch + "/dev.key"
        try await expectSuccess(cli.run("keygen", key, "--trust"))
        let source = cli.scratch + "/source/Notes.app"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data(infoPlist(identifier: app, version: "1").utf8).write(to: URL(fileURLWithPath: source + "/Info.plist"))
        try Data("bundled text\n".utf8).write(to: URL(fileURLWithPath: source + "/hello.txt"))
        try FileManager.default.copyItem(atPath: BuiltProgram("sandbox-run-probe").path, toPath: source + "/probe")
        try await expectSuccess(cli.run("sign", source, "--key", key))
        try await expectSuccess(cli.run("create", app, "--bundle", source))
        try await expectSuccess(cli.run("create", other))
        try Data("other app's secret\n".utf8).write(to: URL(fileURLWithPath: secret))
    }

    private func expectSuccess(_ output: ProgramOutput) throws {
        guard output.status == 0 else { throw TestFailure("set-up failed: \(output.exit): \(output.stderr)") }
    }
}
