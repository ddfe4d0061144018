import Foundation
import Glibc

/// An executable of this package (`sandbox`, a test harness), built by `swift build` into the
/// folder of the running test binary, run with its output in files (no pipe can fill up and
/// block it) and waited for without holding a thread of the cooperative pool.
public struct BuiltProgram: Sendable {
    /// The executable's path.
    public let path: String

    /// The product named `name`, beside the test binary.
    public init(_ name: String) throws {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path) {
            guard directory.path != "/" else { throw TestFailure("no built '\(name)' beside the test binary: run `swift build` first") }
            directory.deleteLastPathComponent()
        }
        path = directory.appendingPathComponent(name).path
    }

    /// What a finished run left.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// A started process, its output going to files in a scratch folder.
    public struct Running: @unchecked Sendable {
        /// The process (only its identifier and state are used after start).
        public let process: Process
        let stdoutPath: String
        let stderrPath: String

        /// The process identifier, to signal it.
        public var pid: Int32 { process.processIdentifier }

        /// Waits for the process to end and collects its output. Polls (suspending between
        /// checks) rather than blocking in `waitUntilExit`, so the cooperative pool stays free.
        public func finish() async throws -> Output {
            while process.isRunning { try await Task.sleep(for: .milliseconds(2)) }
            process.waitUntilExit()
            for handle in [process.standardOutput, process.standardError] { try (handle as? FileHandle)?.close() }
            return Output(
                status: process.terminationStatus,
                stdout: try String(contentsOfFile: stdoutPath, encoding: .utf8),
                stderr: try String(contentsOfFile: stderrPath, encoding: .utf8)
            )
        }
    }

    /// Starts the program with `arguments` and `environment` added to this process's own.
    public func start(
        _ arguments: [String],
        environment: [String: String] = [:],
        outputIn scratch: String
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let stdoutPath = scratch + "/stdout-\(UUID().uuidString)"
        let stderrPath = scratch + "/stderr-\(UUID().uuidString)"
        for file in [stdoutPath, stderrPath] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    /// Runs the program to its end.
    @discardableResult
    public func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        outputIn scratch: String
    ) async throws -> Output {
        try await start(arguments, environment: environment, outputIn: scratch).finish()
    }
}
