import Foundation
import Glibc
import SandboxStore
import SandboxTesting
import Testing

/// SIGKILL during `sandbox write --protection complete`, 30 times: the file is the old version or
/// the new one, always decrypts, never a part.
@Suite(.serialized) struct ProtectedWriteKillTests {
    static let rounds = 30
    static let path = ContainerPath(constant: "Documents/ledger")

    static func version(_ round: Int) -> [UInt8] {
        (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* (round + 3) &+ $0 >> 12) }
    }

    @Test func killedProtectedWritesLeaveTheOldFileOrTheNewOne() async throws {
        try await Fixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            let root = fixture.container.root
            let arguments = ["write", Fixture.app.rawValue, Self.path.description, "--protection", "complete"]
            func start(_ round: Int) throws -> RunningProgram {
                try fixture.start("sandbox", arguments, input: Self.version(round))
            }
            let first = try start(0)
            let output = try await first.finish()
            #expect(output.status == 0, "\(output.stderr)")
            var full = first.runTime ?? .seconds(1)
            var current = Self.version(0)
            var killed = 0
            for round in 1...Self.rounds {
                let program = try start(round)
                program.signal(
                    SIGKILL, after: .microseconds(Int64.random(in: 0...max(1, Int64(full / .microseconds(1))))))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal == SIGKILL {
                    killed += 1
                } else {
                    let stderr = try program.standardError()
                    #expect(exit.status == 0, "\(stderr)")
                    full = min(full, program.runTime ?? full)
                }
                let now = try protection.readContents(of: Self.path, in: root)
                let new = Self.version(round)
                #expect(now == current || now == new, "round \(round): neither the old file nor the new one")
                if now == new { current = new }
            }
            #expect(killed > Self.rounds / 3, "only \(killed) of \(Self.rounds) writes were killed mid-way")
            try protection.forgetKeysAtRestart()
        }
    }
}
