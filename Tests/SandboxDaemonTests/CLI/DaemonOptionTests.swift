import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// `sandboxd`'s numeric options and environment: a value out of range is a usage error (exit 64)
/// naming the option and the range, never a trap, and no daemon starts.
@Suite struct DaemonOptionTests {
    @Test(arguments: [
        (["--idle-exit", "nan"], "--idle-exit"), (["--idle-exit", "inf"], "--idle-exit"),
        (["--idle-exit", "1e300"], "--idle-exit"), (["--idle-exit=-1"], "--idle-exit"),
        (["--event-retention", "1e300"], "--event-retention"), (["--event-retention=-inf"], "--event-retention"),
        (["--max-connections", "0"], "--max-connections"),
        (["--max-connections-per-process", "100000"], "--max-connections-per-process"),
    ])
    func anOptionOutOfRangeIsAUsageError(arguments: [String], name: String) async throws {
        try await DaemonFixture.with { fixture in
            let output = try await BuiltProgram("sandboxd").run(
                ["--home", fixture.home.location, "--runtime-directory", fixture.paths.runtimeDirectory] + arguments,
                environment: fixture.environment(), outputIn: fixture.scratch.path, timeout: .seconds(60))
            #expect(output.status == 64, "\(output.stderr)")
            #expect(output.stderr.contains(name), "\(output.stderr)")
            #expect(output.stderr.contains(" to "), "\(output.stderr)")
            #expect(fixture.daemonPIDs().isEmpty)
        }
    }

    @Test(arguments: ["nan", "inf", "1e300", "-5", "soon"])
    func anIdleExitFromTheEnvironmentOutOfRangeIsAUsageError(value: String) async throws {
        try await DaemonFixture.with { fixture in
            var environment = fixture.environment()
            environment["SANDBOXD_IDLE_EXIT"] = value
            let output = try await BuiltProgram("sandboxd").run(
                ["--home", fixture.home.location, "--runtime-directory", fixture.paths.runtimeDirectory],
                environment: environment, outputIn: fixture.scratch.path, timeout: .seconds(60))
            #expect(output.status == 64, "\(output.stderr)")
            #expect(output.stderr.contains("SANDBOXD_IDLE_EXIT takes seconds from 0 to"), "\(output.stderr)")
            #expect(fixture.daemonPIDs().isEmpty)
        }
    }
}
