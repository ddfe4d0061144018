import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

@Suite struct IncrementalTests {
    /// The issue asks for 1 GiB; 256 MiB keeps the test target's time sane on CI (the benchmark
    /// does 1 GiB). With 10,000 small files, and 1 MiB changed in the middle of the large one plus
    /// one small file changed, the second backup stores < 5 MiB.
    @Test func aSmallChangeToALargeFileStoresLittle() async throws {
        try await BackupFixture.with { fixture in
            let size = 256 << 20
            let large = fixture.hostPath("Documents/large.bin")
            do {
                #expect(FileManager.default.createFile(atPath: large, contents: nil))
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: large))
                for piece in 0..<(size >> 24) {
                    handle.write(Data(ChunkerTests.pseudoRandom(16 << 20, seed: UInt64(piece) + 100)))
                }
                try handle.close()
            }
            try fixture.container.root.createDirectory(
                at: ContainerPath("Documents/small"), withIntermediateDirectories: true)
            for index in 0..<10_000 {
                try fixture.container.root.writeContents(
                    Array("small file \(index)\n".utf8), to: ContainerPath("Documents/small/\(index).txt"), options: [])
            }
            let repository = try fixture.repository()
            let first = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(first.bytesStored > Int64(size))

            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: large))
            try handle.seek(toOffset: UInt64(size / 2))
            handle.write(Data(ChunkerTests.pseudoRandom(1 << 20, seed: 999)))
            try handle.close()
            try fixture.container.root.writeContents(
                Array("changed".utf8), to: ContainerPath("Documents/small/5000.txt"))

            let second = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(second.bytesStored < 5 << 20, "stored \(second.bytesStored)")
            // Unchanged files were not read again.
            #expect(second.bytesRead < Int64(size) + (1 << 20))
        }
    }
}
