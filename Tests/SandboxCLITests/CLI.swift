import Foundation
import Testing

/// Runs the built `sandbox` binary against a temporary home.
struct CLI {
    let home: String
    let scratch: String

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `sandbox` executable, built next to the test bundle by `swift build`/`swift test`.
    static let executable: URL = {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
        // On Linux the tests run from <build>/<Package>PackageTests.xctest; on macOS from inside a bundle.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("sandbox").path) && directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("sandbox")
    }()

    /// Runs `sandbox ARGUMENTS…`; output goes through files, so no pipe can fill up and block it.
    @discardableResult
    func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SANDBOX_HOME"] = home
        process.environment = environment
        let outPath = scratch + "/stdout", errPath = scratch + "/stderr"
        for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? out.close()  // teardown only
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8)
        )
    }

    static func withTemporary<T>(_ body: (CLI) throws -> T) throws -> T {
        var template = Array("/tmp/sandbox-cli-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let path = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: path) }  // teardown only
        return try body(CLI(home: path + "/home", scratch: path))
    }
}
