import Glibc
import SandboxCore
import Testing

@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    static let fileSize = 2 << 20
    static let trials = 210

    @Test("SIGKILL at random moments leaves the old or the new file, never a partial one")
    func killedWriters() async throws {
        let fixture = try IOFixture()
        let a = patternBytes(Self.fileSize, seed: 1)
        let b = patternBytes(Self.fileSize, seed: 2)
        try fixture.hostWrite("target", a)
        let target = fixture.directory

        // How long one write takes, start-up included, so that kills land before, during and after.
        var durations: [Int] = []
        for technique in ["writer", "contents"] {
            let start = monotonicMicroseconds()
            let exit = try HarnessProcess.run(["write", target, "target", "\(Self.fileSize)", "1", "1", technique, "once"])
            #expect(exit == .init(status: 0, signal: nil), "calibration run: \(exit)")
            durations.append(monotonicMicroseconds() - start)
        }
        // Bounded, so that a heavily loaded machine cannot stretch the test past a minute.
        let full = min(max(durations.max() ?? 50_000, 5_000), 100_000)
        #expect(fixture.hostRead("target") == a)

        var generator = SeededGenerator(seed: 0x5EED_C4A5)
        var outcomes = (old: 0, new: 0, killed: 0, exited: 0, debris: 0)
        let started = monotonicMicroseconds()
        for trial in 0..<Self.trials {
            let technique = trial % 2 == 0 ? "writer" : "contents"
            let loop = trial % 3 == 2
            let durable = trial % 4 < 2
            let current = fixture.hostRead("target")
            // Once: write the other content. Loop: alternate, starting with the other content.
            let (seedA, seedB) = current == a ? (1, 2) : (2, 1)
            var arguments = ["write", target, "target", "\(Self.fileSize)", "\(seedA)", "\(seedB)", technique, loop ? "loop" : "once"]
            if durable { arguments.append("durable") }
            let delay = loop ? Int.random(in: full / 2...full * 3, using: &generator) : Int.random(in: 0...full * 5 / 4, using: &generator)
            let pid = try HarnessProcess.spawn(arguments)
            usleep(UInt32(delay))
            kill(pid, SIGKILL)
            let exit = HarnessProcess.wait(pid)
            if exit.signal == SIGKILL { outcomes.killed += 1 } else { outcomes.exited += 1 }
            #expect(exit.signal == SIGKILL || exit.status == 0, "trial \(trial): the harness failed: \(exit)")

            // The destination: complete old or complete new contents, nothing else.
            let after = fixture.hostRead("target")
            #expect(after == a || after == b, "trial \(trial) (\(technique), loop \(loop), delay \(delay) µs): partial contents, \(after?.count ?? -1) bytes")
            if after == current { outcomes.old += 1 } else { outcomes.new += 1 }

            // No temporary file may be visible, except the complete hidden link that a kill between
            // linkat and renameat leaves (see ConfinedRoot.removeInterruptedWrites): it is checked
            // complete, then recovered.
            let others = fixture.hostList().filter { $0 != "target" }
            for name in others {
                #expect(ConfinedRoot.isInterruptedWriteName(name), "trial \(trial): unexpected name '\(name)'")
                let debris = fixture.hostRead(name)
                #expect(debris == a || debris == b, "trial \(trial): the leftover '\(name)' is partial")
                outcomes.debris += 1
            }
            if !others.isEmpty {
                #expect(try fixture.root.removeInterruptedWrites(olderThan: .zero) == others.count)
            }
            #expect(fixture.hostList() == ["target"], "trial \(trial): names left: \(fixture.hostList())")
        }
        let elapsed = Double(monotonicMicroseconds() - started) / 1e6
        print("crash safety: \(Self.trials) trials in \(elapsed) s (one write ≈ \(full / 1000) ms): old \(outcomes.old), new \(outcomes.new), killed \(outcomes.killed), finished \(outcomes.exited), recovered leftovers \(outcomes.debris)")
        // Kills landed both before publication and after it.
        #expect(outcomes.old > 0 && outcomes.new > 0)
        #expect(outcomes.killed > Self.trials / 2)
    }

    @Test("running out of descriptors is a clear error, not a crash")
    func descriptorExhaustion() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1])
        let output = fixture.host("out.txt")
        let exit = try HarnessProcess.run(["emfile", fixture.directory, "f"], output: output)
        let printed = hostReadFile(output).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(exit == .init(status: 0, signal: nil), "\(exit): \(printed)")
        #expect(printed.contains("too-many-open-files"))
    }
}
