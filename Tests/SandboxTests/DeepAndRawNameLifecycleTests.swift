import Foundation
import Glibc
import Sandbox
import Testing

/// Device-wide operations over folders nested past what paths can name and names that are not
/// UTF-8 (issue 17, items 3 and 4): nothing crashes, nothing is skipped.
@Suite("Restart, purge, df and uninstall over deep trees and raw names")
struct DeepAndRawNameLifecycleTests {
    /// Makes `levels` nested folders named `chain` in the host directory, a file at the bottom, and a file
    /// named `bad\xFF` beside the chain.
    private func plant(levels: Int, in directory: String, chain: String = "d") throws {
        var fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        let raw: [CChar] = Array("bad".utf8).map { CChar(bitPattern: $0) } + [CChar(bitPattern: 0xFF), 0]
        let file = openat(fd, raw, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        _ = write(file, "12345", 5)
        close(file)
        for _ in 0..<levels {
            #expect(mkdirat(fd, chain, 0o755) == 0)
            let next = openat(fd, chain, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        close(openat(fd, "leaf", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
        close(fd)
    }

    @Test("df measures, purge evicts, restart and uninstall remove a 15,000-level tree and a non-UTF-8 name")
    func deviceWide() throws {
        try withTemporaryHome { home, _ in
            let app = try AppIdentifier("com.example.deep")
            let container = try home.createContainer(for: app)
            let other = try home.createContainer(for: AppIdentifier("com.example.other"))
            try writeFile(other, "tmp/t", bytes: 10)
            try plant(levels: 15_000, in: container.hostPath(for: .tmp))
            try plant(levels: 15_000, in: container.hostPath(for: .caches))
            try plant(levels: 100, in: container.hostPath(for: .documents))

            #expect(try home.storageValues().purgeableBytes > 15_000 * 4096)
            let purge = try home.purge(bytes: nil)
            #expect(purge.skipped.isEmpty)
            #expect(try container.root.contentsOfDirectory(at: ContainerPath("tmp")).isEmpty)
            #expect(try container.root.contentsOfDirectory(at: ContainerPath("Library/Caches")).isEmpty)

            try plant(levels: 15_000, in: container.hostPath(for: .tmp))
            let restart = try home.restart()
            #expect(restart.skipped.isEmpty)
            #expect(try container.root.contentsOfDirectory(at: ContainerPath("tmp")).isEmpty)
            // Inbox, bad\xFF, d
            #expect(try container.root.contentsOfDirectory(at: ContainerPath("Documents")).count == 3)

            try plant(levels: 15_000, in: container.hostPath(for: .documents), chain: "e")
            #expect(try home.uninstall(app) > 15_000)
            #expect(!FileManager.default.fileExists(atPath: container.hostPath(for: .home)))
        }
    }
}
