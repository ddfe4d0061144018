import Foundation
import SandboxStore
import Testing

/// A sandbox home in a fresh temporary directory with one app installed, removed afterwards.
struct Fixture {
    let home: SandboxHome
    let container: Container
    /// The temporary directory (the home is `<scratch>/home`).
    let scratch: String

    static let app = appIdentifier("com.example.notes")

    static func appIdentifier(_ raw: String) -> AppIdentifier {
        do {
            return try AppIdentifier(raw)
        } catch {
            preconditionFailure("test identifier '\(raw)' is invalid: \(error)")
        }
    }

    static func with<T>(_ body: (Fixture) throws -> T) throws -> T {
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }  // teardown only
        let home = try SandboxHome(location: scratch + "/home")
        let container = try home.createContainer(for: app)
        return try body(Fixture(home: home, container: container, scratch: scratch))
    }

    static func with<T>(_ body: (Fixture) async throws -> T) async throws -> T {
        let scratch = try makeScratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }  // teardown only
        let home = try SandboxHome(location: scratch + "/home")
        let container = try home.createContainer(for: app)
        return try await body(Fixture(home: home, container: container, scratch: scratch))
    }

    static func makeScratch() throws -> String {
        var template = Array("/tmp/sandbox-store-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: created)
    }

    /// The host path of a file beneath the home, for tests that play the attacker.
    func hostPath(_ relative: String) -> String { home.location + "/" + relative }

    /// Starts `writers` `sandbox-store-harness` processes at once, the n-th writing `count` keys
    /// `<prefix><n>-<index>` with `command` (`write-preferences` or `write-keychain`), and waits
    /// for every one to succeed — polling, so as not to hold a thread of the cooperative pool that
    /// other tests need while the writers run.
    func runConcurrentWriters(_ command: String, writers: Int, count: Int, prefix: String) async throws {
        let started = try (0..<writers).map { writer in
            try BuiltProduct.start(
                "sandbox-store-harness",
                [command, home.location, Fixture.app.rawValue, "\(prefix)\(writer)", String(count)],
                home: home.location, scratch: scratch
            )
        }
        for (process, wait) in started {
            while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            let result = try wait()
            #expect(result.status == 0, "\(result.stderr)")
        }
    }
}

/// Executables built next to the test bundle (`swift build` puts them in one directory).
enum BuiltProduct {
    static func path(_ name: String) -> String {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path) && directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent(name).path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Starts `name ARGUMENTS…` with `SANDBOX_HOME=home`; output goes through files.
    static func start(_ name: String, _ arguments: [String], home: String, input: Data? = nil, scratch: String) throws -> (Process, () throws -> Result) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(name))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SANDBOX_HOME"] = home
        process.environment = environment
        let tag = UUID().uuidString
        let outPath = scratch + "/\(tag).out", errPath = scratch + "/\(tag).err", inPath = scratch + "/\(tag).in"
        for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        if let input {
            _ = FileManager.default.createFile(atPath: inPath, contents: input)
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return (process, {
            process.waitUntilExit()
            try? out.close()  // teardown only
            try? err.close()
            return Result(
                status: process.terminationStatus,
                stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                stderr: try String(contentsOfFile: errPath, encoding: .utf8)
            )
        })
    }

    /// Runs `sandbox ARGUMENTS…` against `fixture`'s home and waits for it.
    @discardableResult
    static func sandbox(_ arguments: String..., fixture: Fixture, input: Data? = nil) throws -> Result {
        try start("sandbox", arguments, home: fixture.home.location, input: input, scratch: fixture.scratch).1()
    }
}

/// Waits for the first element of `sequence` that satisfies `predicate`; fails after `seconds`
/// (a safety limit for a broken build, not a way of waiting: the element ends the wait).
func first<S: AsyncSequence & Sendable>(
    of sequence: S,
    within seconds: Double = 10,
    where predicate: @escaping @Sendable (S.Element) -> Bool
) async throws -> S.Element? where S.Element: Sendable {
    try await withThrowingTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = try await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

extension StoreError {
    /// For `#expect(throws:)` checks by code.
    func has(_ code: Code) -> Bool { self.code == code }
}
