import Glibc
import SandboxCore
import SandboxTesting
import Testing

/// Roots whose atomic writes keep their temporary names in a staging directory (a container's
/// `tmp/`), and what happens when that directory is hostile or unusable.
@Suite("Staging directory")
struct StagingTests {
    /// A container with `Documents/` and, unless `tmp` is false, `tmp/`, opened with staging in `tmp`.
    static func stagedRoot(_ fixture: IOFixture, tmp: Bool = true) throws -> ConfinedRoot {
        try fixture.hostMakeDirectory("Documents")
        if tmp { try fixture.hostMakeDirectory("tmp") }
        return try fixture.root.openSubroot(at: .root, stagingWritesIn: ioPath("tmp"))
    }

    @Test(
        "every technique replaces files in a staged root and leaves nothing in tmp/",
        arguments: PublishTests.Technique.allCases)
    func replaces(technique: PublishTests.Technique) async throws {
        let fixture = try IOFixture()
        let root = try Self.stagedRoot(fixture)
        #expect(root.stagingDirectory == (try ioPath("tmp")))
        #expect(fixture.root.stagingDirectory == nil)
        for seed: UInt64 in [51, 52, 53] {
            let bytes = patternBytes(50_000, seed: seed)
            try await technique.write(bytes, to: ioPath("Documents/f"), in: root, options: [.atomic, .durable])
            #expect(fixture.hostRead("Documents/f") == bytes)
        }
        let other = patternBytes(10, seed: 54)
        try await technique.write(other, to: ioPath("tmp/g"), in: root, options: .atomic)
        try await technique.write(other, to: ioPath("tmp/g"), in: root, options: .atomic)
        #expect(fixture.hostRead("tmp/g") == other)
        #expect(fixture.hostList("Documents") == ["f"])
        #expect(fixture.hostList("tmp") == ["g"])
    }

    @Test("a tmp that is missing, a file, or a symlink out of the container: writes go on, beside the file")
    func unusableStaging() async throws {
        let outside = try IOFixture()
        for kind in ["missing", "file", "symlink out", "symlink inside"] {
            let fixture = try IOFixture()
            let root = try Self.stagedRoot(fixture, tmp: false)
            switch kind {
            case "file": try fixture.hostWrite("tmp", [1])
            case "symlink out": #expect(symlink(outside.directory, fixture.host("tmp")) == 0)
            case "symlink inside": #expect(symlink("Documents", fixture.host("tmp")) == 0)
            default: break
            }
            for seed: UInt64 in [55, 56] {
                let bytes = patternBytes(20_000, seed: seed)
                try root.writeContents(bytes, to: ioPath("Documents/f"))
                try await root.withWriter(at: ioPath("Documents/f")) { try await $0.write(contentsOf: bytes) }
                #expect(fixture.hostRead("Documents/f") == bytes, "\(kind)")
            }
            #expect(fixture.hostList("Documents") == ["f"], "\(kind)")
            #expect(outside.hostList().isEmpty, "\(kind): a temporary was made outside the container")
        }
    }

    @Test(
        "a tmp on another mount: writes go on, beside the file",
        .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"))
    func stagingOnAnotherMount() async throws {
        let fixture = try IOFixture()
        let root = try Self.stagedRoot(fixture)
        let volume = try MountedFileSystem(at: fixture.host("tmp"))
        let bytes = patternBytes(30_000, seed: 57)
        for _ in 0..<2 {
            try root.writeContents(bytes, to: ioPath("Documents/f"))
            try await root.withWriter(at: ioPath("Documents/f")) { try await $0.write(contentsOf: bytes) }
        }
        #expect(fixture.hostRead("Documents/f") == bytes)
        // Without O_TMPFILE the whole file is written under the temporary name: it must not be
        // created on the other mount, where it could not be renamed into place.
        for technique in ["contents", "writer"] {
            let run = try await fixture.runHarness([
                "write", fixture.directory, "Documents/f", "40000", "1", "2", technique, "once", "staged", "named",
            ])
            #expect(run.exit == .exited(0), "\(technique): \(run.exit): \(run.stderr)")
            #expect(fixture.hostRead("Documents/f") == patternBytes(40_000, seed: 2), "\(technique)")
        }
        #expect(fixture.hostList("Documents") == ["f"])
        #expect(fixture.hostList("tmp").isEmpty)
        volume.unmount()
    }

    @Test("without O_TMPFILE, a write in a staged root creates its temporary in tmp/")
    func namedTemporaryInStaging() async throws {
        let fixture = try IOFixture()
        _ = try Self.stagedRoot(fixture)
        try fixture.hostWrite("Documents/f", [1])
        // A loop that never ends: killed while writing, it must leave its temporary in tmp/ only.
        let harness = try fixture.startHarness([
            "write", fixture.directory, "Documents/f", "\(8 << 20)", "1", "2", "writer", "loop", "staged", "named",
        ])
        // Waits for the temporary, or for the harness to end early (then its exit and stderr are
        // the failure); generous, since a loaded CI machine may start the harness late.
        let appeared = await eventually(timeout: .seconds(90)) {
            !fixture.hostList("tmp").isEmpty || !harness.isRunning
        }
        let early = harness.isRunning ? nil : await harness.exit
        harness.signal(SIGKILL)
        _ = await harness.exit
        let stderr = try harness.standardError()
        #expect(appeared && early == nil, "harness: \(early.map { "\($0)" } ?? "still running"), stderr: \(stderr)")
        let staged = fixture.hostList("tmp")
        // One temporary, or none if the kill landed between a rename and the next round.
        #expect(staged.count <= 1 && staged.allSatisfy(ConfinedRoot.isInterruptedWriteName), "tmp/: \(staged)")
        #expect(fixture.hostList("Documents") == ["f"])
    }
}

/// A tmpfs mounted on an existing directory, unmounted when it goes away. Needs root.
final class MountedFileSystem {
    let directory: String

    init(at directory: String, size: String = "16m") throws {
        guard mount("tmpfs", directory, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            throw IOTestFailure("mount tmpfs on \(directory): \(String(cString: strerror(errno)))")
        }
        self.directory = directory
    }

    /// Unmounts now (the fixture that holds the directory can then remove it).
    func unmount() {
        _ = umount2(directory, Int32(MNT_DETACH))
    }

    deinit {
        unmount()
    }
}
