import Foundation
import Sandbox
import Testing

@Suite("Device-wide operations skip (and name) an app they cannot process, and do the rest")
struct DeviceWideSkipTests {
    /// Two apps with a file in `tmp/`, `Library/Caches/` and `Documents/` each; `sabotage` is then
    /// applied to the second one's container (its host path). Returns the containers.
    private func twoApps(
        _ home: SandboxHome, sabotage: (String) throws -> Void
    ) throws -> (good: Container, bad: Container) {
        let good = try home.createContainer(for: AppIdentifier("com.example.good"))
        let bad = try home.createContainer(for: AppIdentifier("com.example.bad"))
        for container in [good, bad] {
            for path in ["tmp/t", "Library/Caches/c", "Documents/d"] { try writeFile(container, path, bytes: 100) }
        }
        try sabotage(bad.homeDirectory)
        return (good, bad)
    }

    /// Replaces `directory` of the container at `home` with a symbolic link to `target`.
    private func replace(_ directory: String, in home: String, withLinkTo target: String) throws {
        try FileManager.default.removeItem(atPath: home + "/" + directory)
        try FileManager.default.createSymbolicLink(atPath: home + "/" + directory, withDestinationPath: target)
    }

    /// A folder outside the home with one file, to check that nothing follows a link there.
    private func outside(_ scratch: String) throws -> String {
        let folder = scratch + "/outside"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/keep"))
        return folder
    }

    @Test("restart: tmp linked out of the container, or to Documents, skips that app only")
    func restart() throws {
        for target in ["outside", "Documents"] {
            try withTemporaryHome { home, scratch in
                let folder = try outside(scratch)
                let (good, bad) = try twoApps(home) {
                    try replace("tmp", in: $0, withLinkTo: target == "outside" ? folder : target)
                }
                let report = try home.restart()
                #expect(report.containers == 1, "\(target)")
                #expect(report.removedItems == 1)
                #expect(report.skipped.map(\.app) == [bad.identifier])
                #expect(report.skipped.first?.code == (target == "outside" ? "escapes-container" : "not-a-directory"))
                #expect(
                    report.skipped.first?.message.contains(
                        "'tmp' in the container of 'com.example.bad' is a symbolic link") == true)
                #expect(try good.root.contentsOfDirectory(at: ContainerPath("tmp")).isEmpty)
                #expect(try bad.root.fileExists(at: ContainerPath("Documents/d")))
                #expect(FileManager.default.fileExists(atPath: folder + "/keep"))
            }
        }
    }

    @Test("purge and storage values: a purgeable directory linked elsewhere skips that app only")
    func purge() throws {
        try withTemporaryHome { home, scratch in
            let folder = try outside(scratch)
            let (good, bad) = try twoApps(home) { container in
                try replace("tmp", in: container, withLinkTo: folder)
                try replace("Library/Caches", in: container, withLinkTo: "../Documents")
            }
            let storage = try home.storageValues()
            #expect(storage.skipped.map(\.app) == [bad.identifier])
            #expect(storage.purgeableBytes > 0)
            let report = try home.purge()
            #expect(report.skipped.map(\.app) == [bad.identifier])
            #expect(Set(report.items.map(\.path)) == ["tmp/t", "Library/Caches/c"])
            #expect(report.items.allSatisfy { $0.app == good.identifier })
            #expect(try bad.root.fileExists(at: ContainerPath("Documents/d")))
            #expect(FileManager.default.fileExists(atPath: folder + "/keep"))
        }
    }

    @Test("an app whose containers cannot be opened is skipped by restart, purge, df and the listing")
    func unopenable() throws {
        try withTemporaryHome { home, _ in
            let (good, bad) = try twoApps(home) { _ in }
            try FileManager.default.removeItem(atPath: bad.hostPath(for: .bundle))
            #expect(try home.openContainers().containers.map(\.identifier) == [good.identifier])
            #expect(try home.openContainers().skipped.first?.code == "corrupt")
            #expect(try home.restart().skipped.map(\.app) == [bad.identifier])
            #expect(try home.storageValues().skipped.map(\.app) == [bad.identifier])
            #expect(try home.purge().skipped.map(\.app) == [bad.identifier])
            #expect(try good.root.contentsOfDirectory(at: ContainerPath("Library/Caches")).isEmpty)
        }
    }
}
