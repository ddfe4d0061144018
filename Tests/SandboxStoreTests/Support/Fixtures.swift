import Foundation
import SandboxStore
import SandboxTesting
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
        try ScratchDirectory.with(prefix: "sandbox-store") { scratch in try body(make(in: scratch)) }
    }

    static func with<T>(_ body: (Fixture) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-store") { scratch in try await body(make(in: scratch)) }
    }

    private static func make(in scratch: ScratchDirectory) throws -> Fixture {
        let home = try SandboxHome(location: scratch.appending("home"))
        return Fixture(home: home, container: try home.createContainer(for: app), scratch: scratch.path)
    }

    /// The host path of a file beneath the home, for tests that play the attacker.
    func hostPath(_ relative: String) -> String { home.location + "/" + relative }

    /// Starts `program ARGUMENTS…` (an executable of this package) with `SANDBOX_HOME` set to the
    /// home and `input` on its standard input.
    func start(_ program: String, _ arguments: [String], input: [UInt8]? = nil) throws -> RunningProgram {
        try BuiltProgram(program).start(
            arguments, environment: ["SANDBOX_HOME": home.location], input: input, outputIn: scratch)
    }

    /// Runs `sandbox ARGUMENTS…` against the home.
    @discardableResult
    func sandbox(_ arguments: String..., input: [UInt8]? = nil) async throws -> ProgramOutput {
        try await start("sandbox", arguments, input: input).finish()
    }

    /// Starts `writers` `sandbox-store-harness` processes at once, the n-th writing `count` keys
    /// `<prefix><n>-<index>` with `command` (`write-preferences` or `write-keychain`), and waits
    /// for every one to succeed.
    func runConcurrentWriters(_ command: String, writers: Int, count: Int, prefix: String) async throws {
        let started = try (0..<writers).map { writer in
            try start(
                "sandbox-store-harness",
                [command, home.location, Fixture.app.rawValue, "\(prefix)\(writer)", String(count)])
        }
        for writer in started {
            let result = try await writer.finish()
            #expect(result.status == 0, "\(result.stderr)")
        }
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

extension SandboxError {
    /// For `#expect(throws:)` checks by code.
    func has(_ code: Code) -> Bool { self.code == code }
}
