import Foundation
import Sandbox
import SandboxTransferTesting

/// The built `sandbox` binary run against a temporary home.
struct CLIProcess {
    let home: String
    let scratch: String

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `sandbox` executable, built into the same folder as this test binary.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("sandbox")

    static func with<T>(_ body: (CLIProcess) async throws -> T) async throws -> T {
        let scratch = try TemporaryDirectory.make(prefix: "cli")
        defer { try? FileManager.default.removeItem(atPath: scratch) }  // teardown only
        let cli = CLIProcess(home: scratch + "/home", scratch: scratch)
        _ = try SandboxHome(location: cli.home).createContainer(for: AppIdentifier(Fixture.app))
        return try await body(cli)
    }

    /// Starts `sandbox ARGUMENTS…` with output to files (no pipe can fill up).
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SANDBOX_HOME"] = home
        process.environment = environment
        for name in ["stdout", "stderr"] { _ = FileManager.default.createFile(atPath: scratch + "/" + name, contents: nil) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + "/stdout"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + "/stderr"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits for `process` and collects its output.
    func finish(_ process: Process) async throws -> Output {
        // Polling, so as not to hold a thread of the cooperative pool (two on CI) that the other
        // tests, and the servers they talk to, need while the process runs.
        while process.isRunning { try await Task.sleep(for: .milliseconds(2)) }
        process.waitUntilExit()
        for handle in [process.standardOutput, process.standardError] { try (handle as? FileHandle)?.close() }
        return Output(
            status: process.terminationStatus, stdout: try String(contentsOfFile: scratch + "/stdout", encoding: .utf8),
            stderr: try String(contentsOfFile: scratch + "/stderr", encoding: .utf8))
    }

    @discardableResult
    func run(_ arguments: String...) async throws -> Output {
        try await finish(try start(arguments))
    }

    /// A file of the container.
    func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: containerHome + "/" + path)))
    }

    var containerHome: String {
        get throws { try SandboxHome(location: home).container(for: AppIdentifier(Fixture.app)).homeDirectory }
    }

    /// Waits until a partial file of the container's download sessions has `size` bytes.
    func waitForPartial(ofSize size: Int) async throws -> Bool {
        let sessions = try containerHome + "/Library/Caches/com.sandbox.downloads"
        return await eventually {
            let enumerator = FileManager.default.enumerator(atPath: sessions)
            while let name = enumerator?.nextObject() as? String {
                let length = (try? FileManager.default.attributesOfItem(atPath: sessions + "/" + name)[.size] as? Int) ?? 0  // not there yet
                if name.hasSuffix(".partial") && length == size { return true }
            }
            return false
        }
    }
}
