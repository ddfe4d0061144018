import Foundation
import Glibc

/// A program the tests run: an executable of this package (`sandbox`, a test harness), found
/// beside the running test binary where `swift build` puts it, or any other executable (`/bin/sh`
/// wrapping one of them).
///
/// The one way the test targets start processes: output goes to files (no pipe can fill up and
/// block the child), and waiting happens on a thread of the runner's own, never on one of the
/// cooperative pool's (two on CI).
public struct BuiltProgram: Sendable {
    /// The executable's absolute path.
    public let path: String

    /// The product named `name`, in the folder of the test binary or the nearest one above it.
    ///
    /// - Throws: ``TestFailure`` when no such executable was built.
    public init(_ name: String) throws {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path) {
            guard directory.path != "/" else {
                throw TestFailure("no built '\(name)' beside the test binary: run `swift build --build-tests` first")
            }
            directory.deleteLastPathComponent()
        }
        path = directory.appendingPathComponent(name).path
    }

    /// The executable at `path`, as it is.
    public init(path: String) {
        self.path = path
    }

    /// Starts the program with `arguments`, this process's environment with `environment` laid
    /// over it, `input` (or nothing) on its standard input and its standard output and error in
    /// fresh files in `scratch` (discarded when `scratch` is `nil`).
    ///
    /// - Throws: ``TestFailure`` when the files cannot be made or the program cannot be started.
    public func start(
        _ arguments: [String],
        environment: [String: String] = [:],
        input: [UInt8]? = nil,
        outputIn scratch: String?
    ) throws -> RunningProgram {
        let tag = UUID().uuidString
        let files = RunningProgram.Files(
            stdout: scratch.map { "\($0)/\(tag).stdout" },
            stderr: scratch.map { "\($0)/\(tag).stderr" }
        )
        var stdin = "/dev/null"
        if let input {
            guard let scratch else { throw TestFailure("standard input for '\(path)' needs a scratch folder") }
            stdin = "\(scratch)/\(tag).stdin"
            guard FileManager.default.createFile(atPath: stdin, contents: Data(input)) else {
                throw TestFailure("cannot write '\(stdin)'")
            }
        }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pid = try Spawn.start(
            path,
            arguments: [path] + arguments,
            environment: variables.map { "\($0.key)=\($0.value)" },
            stdin: stdin,
            stdout: files.stdout ?? "/dev/null",
            stderr: files.stderr ?? "/dev/null"
        )
        return RunningProgram(pid: pid, files: files)
    }

    /// Runs the program to its end (killing it with `SIGKILL` after `timeout`, a hang) and returns
    /// what it printed.
    ///
    /// - Throws: ``TestFailure`` when it cannot be started or its output cannot be read.
    @discardableResult
    public func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        input: [UInt8]? = nil,
        outputIn scratch: String,
        timeout: Duration = RunningProgram.defaultTimeout
    ) async throws -> ProgramOutput {
        try await start(arguments, environment: environment, input: input, outputIn: scratch).finish(timeout: timeout)
    }
}
