import Glibc
import SandboxCore
import SystemPackage
import Testing

@Suite(
    "Disk full", .serialized,
    .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN); skipped"))
struct DiskFullTests {
    @Test("every write technique fails with .noSpace on a full file system and leaves the previous file intact")
    func fullFileSystem() async throws {
        let volume = try SmallFileSystem(size: "1m")
        let root = try ConfinedRoot(openingDirectoryAt: volume.directory)
        let old = patternBytes(100_000, seed: 31)
        try await root.writeContents(
            DataRegions(old), to: ioPath("doc"), options: [.atomic, .durable], engine: .shared)
        try volume.fill("filler")
        let new = DataRegions(patternBytes(300_000, seed: 32))
        func expectIntact(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                hostReadFile(volume.directory + "/doc") == old, "\(label): the previous file changed",
                sourceLocation: sourceLocation)
            #expect(
                hostListDirectory(volume.directory) == ["doc", "filler"], "\(label): leftovers",
                sourceLocation: sourceLocation)
        }

        // Whole file, atomic (and durable).
        expectIOError(.noSpace) { try root.writeContents(new.bytes, to: ioPath("doc")) }
        expectIntact("writeContents")
        await expectIOError(.noSpace) {
            try await root.writeContents(new, to: ioPath("doc"), options: [.atomic, .durable], engine: .shared)
        }
        expectIntact("writeContents(_:to:options:engine:)")

        // The streaming writer: the error surfaces at a later append or at finish.
        await expectIOError(.noSpace) {
            try await root.withWriter(at: ioPath("doc")) { writer in
                for _ in 0..<4 { try await writer.write(new) }
            }
        }
        expectIntact("FileWriter")

        // Streaming from a descriptor (`sandbox put`).
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writeEnd = fds[1]
        // The reader stops at ENOSPC and closes its end, so this write may end with EPIPE, which
        // is expected (SIGPIPE is blocked on the peer's thread).
        let doubled = new + new
        let feeder = PeerThread {
            let writer = OpenFile(takingOwnershipOf: FileDescriptor(rawValue: writeEnd), access: .writing, name: "pipe")
            try? writer.write(doubled)  // EPIPE expected
            try? writer.close()
        }
        expectIOError(.noSpace) {
            try root.writeContents(readingFrom: FileDescriptor(rawValue: fds[0]), to: ioPath("doc"))
        }
        close(fds[0])
        await feeder.join()
        expectIntact("writeContents(readingFrom:)")

        // In place, through a handle and a channel: the error is clear (the file is not atomic there).
        let handle = try root.openFile(forWritingAt: ioPath("other"), options: .newFile(replaceExisting: true))
        expectIOError(.noSpace) { try handle.write(new) }
        expectIOError(.noSpace) { try handle.allocate(1 << 20) }
        try handle.close()
        let channel = try root.openChannel(at: ioPath("other"), access: .writing)
        await expectIOError(.noSpace) { try await channel.writeAll(new) }
        channel.close()
        await channel.waitUntilReleased()
        #expect(hostReadFile(volume.directory + "/doc") == old)

        // With space again, the same write succeeds.
        #expect(unlink(volume.directory + "/filler") == 0)
        #expect(unlink(volume.directory + "/other") == 0)
        try await root.writeContents(new, to: ioPath("doc"), options: [.atomic, .durable], engine: .shared)
        #expect(hostReadFile(volume.directory + "/doc") == new.bytes)
    }
}
