import Glibc
import SandboxCore
import SandboxTesting
import Testing

@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    static let fileSize = 2 << 20
    static let trials = 210

    @Test("SIGKILL at random moments leaves the old or the new file, never a partial one")
    func killedWriters() async throws {
        let fixture = try IOFixture()
        let outcomes = try await killWriters(in: fixture, trials: Self.trials, seed: 0x5EED_C4A5) { trial, a, b in
            // No temporary file may be visible, except the complete second name that a kill
            // between linkat and renameat leaves in a root without a staging directory (see
            // ConfinedRoot.removeInterruptedWrites): it is checked complete, then recovered.
            let others = fixture.hostList().filter { $0 != "target" }
            for name in others {
                #expect(ConfinedRoot.isInterruptedWriteName(name), "trial \(trial): unexpected name '\(name)'")
                let debris = fixture.hostRead(name)
                #expect(debris == a || debris == b, "trial \(trial): the leftover '\(name)' is partial")
            }
            if !others.isEmpty {
                let removed = try fixture.root.removeInterruptedWrites(olderThan: .zero)
                #expect(removed == others.count)
            }
            #expect(fixture.hostList() == ["target"], "trial \(trial): names left: \(fixture.hostList())")
            return others.count
        }
        #expect(outcomes.killed > Self.trials / 2)
    }

    @Test(
        "SIGKILL with a staging directory leaves no temporary beside the file, with or without O_TMPFILE",
        arguments: [false, true])
    func killedStagedWriters(named: Bool) async throws {
        let fixture = try IOFixture()
        try fixture.hostMakeDirectory("tmp")
        let trials = Self.trials / 3
        let flags = named ? ["staged", "named"] : ["staged"]
        let outcomes = try await killWriters(
            in: fixture, trials: trials, flags: flags, seed: named ? 0x5EED_0002 : 0x5EED_0001
        ) { trial, _, _ in
            #expect(
                fixture.hostList() == ["target", "tmp"], "trial \(trial): names beside the file: \(fixture.hostList())")
            // What a kill leaves is in tmp/, which a restart empties: empty it, as restart does.
            let staged = fixture.hostList("tmp")
            for name in staged {
                #expect(ConfinedRoot.isInterruptedWriteName(name), "trial \(trial): unexpected name 'tmp/\(name)'")
                removeTree(fixture.host("tmp/" + name))
            }
            return staged.count
        }
        #expect(outcomes.killed > trials / 2)
        if named {
            #expect(
                outcomes.debris > 0, "no kill landed while a named temporary existed: the staging was not exercised")
        }
    }

    struct Outcomes {
        var old = 0, new = 0, killed = 0, exited = 0, debris = 0
    }

    /// Starts harness writers that replace `target` and kills them at random moments, `trials`
    /// times; after each, checks that `target` holds complete old or new contents, then runs
    /// `inspect` (which returns how many leftovers it found and removed).
    func killWriters(
        in fixture: IOFixture,
        trials: Int,
        flags: [String] = [],
        seed: UInt64,
        inspect: (_ trial: Int, _ a: [UInt8], _ b: [UInt8]) throws -> Int
    ) async throws -> Outcomes {
        let a = patternBytes(Self.fileSize, seed: 1)
        let b = patternBytes(Self.fileSize, seed: 2)
        try fixture.hostWrite("target", a)
        let target = fixture.directory

        // How long one write takes, start-up included, so that kills land before, during and after:
        // the process's own run time, which a starved cooperative pool does not stretch.
        var durations: [Int] = []
        for technique in ["writer", "contents"] {
            let harness = try fixture.startHarness(
                ["write", target, "target", "\(Self.fileSize)", "1", "1", technique, "once"] + flags)
            let run = try await harness.finish()
            #expect(run.exit == .exited(0), "calibration run: \(run.exit): \(run.stderr)")
            durations.append(Int((harness.runTime ?? .milliseconds(50)) / .microseconds(1)))
        }
        // Bounded, so that a heavily loaded machine cannot stretch the test past a minute.
        let full = min(max(durations.max() ?? 50_000, 5_000), 100_000)
        #expect(fixture.hostRead("target") == a)

        var generator = SeededGenerator(seed: seed)
        var outcomes = Outcomes()
        let started = monotonicMicroseconds()
        for trial in 0..<trials {
            let technique = trial % 2 == 0 ? "writer" : "contents"
            let loop = trial % 3 == 2
            let durable = trial % 4 < 2
            let current = fixture.hostRead("target")
            // Once: write the other content. Loop: alternate, starting with the other content.
            let (seedA, seedB) = current == a ? (1, 2) : (2, 1)
            var arguments = [
                "write", target, "target", "\(Self.fileSize)", "\(seedA)", "\(seedB)", technique,
                loop ? "loop" : "once",
            ]
            if durable { arguments.append("durable") }
            let delay =
                loop
                ? Int.random(in: full / 2...full * 3, using: &generator)
                : Int.random(in: 0...full * 5 / 4, using: &generator)
            let harness = try fixture.startHarness(arguments + flags)
            harness.signal(SIGKILL, after: .microseconds(delay))
            let exit = await harness.exit(timeout: RunningProgram.defaultTimeout)
            if exit.signal == SIGKILL { outcomes.killed += 1 } else { outcomes.exited += 1 }
            #expect(exit.signal == SIGKILL || exit.status == 0, "trial \(trial): the harness failed: \(exit)")

            // The destination: complete old or complete new contents, nothing else.
            let after = fixture.hostRead("target")
            #expect(
                after == a || after == b,
                "trial \(trial) (\(technique), loop \(loop), delay \(delay) µs): partial contents, \(after?.count ?? -1) bytes"
            )
            if after == current { outcomes.old += 1 } else { outcomes.new += 1 }
            outcomes.debris += try inspect(trial, a, b)
        }
        let elapsed = Double(monotonicMicroseconds() - started) / 1e6
        print(
            "crash safety \(flags): \(trials) trials in \(elapsed) s (one write ≈ \(full / 1000) ms): old \(outcomes.old), new \(outcomes.new), killed \(outcomes.killed), finished \(outcomes.exited), leftovers \(outcomes.debris)"
        )
        // Kills landed both before publication and after it.
        #expect(outcomes.old > 0 && outcomes.new > 0)
        return outcomes
    }

    @Test("running out of descriptors is a clear error, not a crash")
    func descriptorExhaustion() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1])
        let run = try await fixture.runHarness(["emfile", fixture.directory, "f"])
        let printed = run.stdout
        #expect(run.exit == .exited(0), "\(run.exit): \(printed) \(run.stderr)")
        #expect(printed.contains("too-many-open-files"))
    }
}
