import Foundation
import SandboxTesting

/// A program from the system (`litmus`, `curl`, `rclone`…) that a client test drives.
///
/// A test that needs one is skipped when it is missing, except on CI (`CI=true`), where CI's
/// script installs it: there a missing tool fails the test instead of hiding it.
enum ExternalTool {
    /// Whether the tests that need every one of `names` should run: all are installed, or this
    /// is CI.
    static func available(_ names: String...) -> Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || names.allSatisfy { path(of: $0) != nil }
    }

    /// The absolute path of `name` on `PATH` (or in the usual system folders).
    static func path(of name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/usr/local/bin"]
        return folders.map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
    }

    /// `name` as a program to start.
    ///
    /// - Throws: ``TestFailure`` naming the Debian package to install when it is missing.
    static func program(_ name: String) throws -> BuiltProgram {
        guard let path = path(of: name) else {
            throw TestFailure("\(name) is not installed: apt-get install \(name) (.ci/run does)")
        }
        return BuiltProgram(path: path)
    }

    /// Runs `name ARGUMENTS…` in the folder `directory` (through `/bin/sh`, which changes into it
    /// first), with `environment` added and `input` on its standard input; output files go to
    /// `scratch`.
    static func run(
        _ name: String,
        _ arguments: [String],
        in directory: String? = nil,
        environment: [String: String] = [:],
        input: String? = nil,
        outputIn scratch: String,
        timeout: Duration = .seconds(300)
    ) async throws -> ProgramOutput {
        let tool = try program(name)
        guard let directory else {
            return try await tool.run(
                arguments, environment: environment, input: input.map { Array($0.utf8) }, outputIn: scratch,
                timeout: timeout)
        }
        return try await BuiltProgram(path: "/bin/sh").run(
            ["-c", "cd \"$0\" && exec \"$@\"", directory, tool.path] + arguments, environment: environment,
            input: input.map { Array($0.utf8) }, outputIn: scratch, timeout: timeout)
    }
}
