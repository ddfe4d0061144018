import Foundation
import Sandbox
import Testing

@Suite("Restart and purge touch only tmp/ and Library/Caches/")
struct StoragePressureTests {
    /// Two apps with files everywhere; returns the containers.
    private func populate(_ home: SandboxHome) throws -> [Container] {
        var containers: [Container] = []
        for name in ["com.example.a", "com.example.b"] {
            let container = try home.createContainer(for: AppIdentifier(name))
            for path in [
                "Documents/doc.txt", "Library/Preferences/p.plist", "Library/Application Support/db",
                "Library/keep.txt", "Documents/Inbox/in.pdf",
            ] {
                try writeFile(container, path, bytes: 5000)
            }
            containers.append(container)
        }
        return containers
    }

    /// Everything outside tmp/ and Library/Caches/, with sizes.
    private func protectedItems(_ containers: [Container]) throws -> [String: Int64] {
        var items: [String: Int64] = [:]
        for container in containers {
            for entry in try container.root.contentsOfDirectory(at: .root, recursive: true, prefetchingAttributes: true)
            {
                let path = entry.path.description
                if path.hasPrefix("tmp") || path.hasPrefix("Library/Caches") { continue }
                items["\(container.identifier)/\(path)"] = entry.attributes?.size
            }
        }
        return items
    }

    @Test("restart empties every tmp/ and nothing else")
    func restart() throws {
        try withTemporaryHome { home, _ in
            let containers = try populate(home)
            for container in containers {
                try writeFile(container, "tmp/t1", bytes: 100)
                try writeFile(container, "tmp/sub/t2", bytes: 100)
                try writeFile(container, "Library/Caches/c1", bytes: 100)
            }
            let before = try protectedItems(containers)
            let report = try home.restart()
            #expect(report.containers == 2)
            #expect(report.removedItems == 6)  // t1, sub/, sub/t2 in each
            for container in containers {
                #expect(try container.root.contentsOfDirectory(at: ContainerPath("tmp")).isEmpty)
                #expect(try container.root.fileExists(at: ContainerPath("Library/Caches/c1")))
            }
            #expect(try protectedItems(containers) == before)
        }
    }

    @Test("purge evicts tmp/ first, then caches, least recently used first, and reports the bytes")
    func purgeOrder() throws {
        try withTemporaryHome { home, _ in
            let containers = try populate(home)
            let (a, b) = (containers[0], containers[1])
            let now = Date()
            // Ages: older = used longer ago. 16 KiB files so allocation is exact multiples of 4 KiB.
            let plan: [(Container, String, TimeInterval)] = [
                (a, "Library/Caches/old", 5000), (b, "Library/Caches/older", 6000), (a, "Library/Caches/new", 10),
                (b, "tmp/recent", 1), (a, "tmp/x/stale", 9000), (b, "Library/Caches/mid/file", 3000),
            ]
            for (container, path, age) in plan {
                let target = try writeFile(container, path, bytes: 16384)
                let date = now.addingTimeInterval(-age)
                try container.root.setDates(modification: date, access: date, at: target)
            }
            let before = try protectedItems(containers)
            func allocated(_ container: Container, _ path: String) throws -> Int64 {
                try #require(try container.root.attributes(at: ContainerPath(path))?.allocatedSize)
            }
            let expectedOrder = [
                "com.example.a/tmp/x/stale", "com.example.b/tmp/recent", "com.example.b/Library/Caches/older",
                "com.example.a/Library/Caches/old",
            ]
            let expectedBytes =
                try allocated(a, "tmp/x/stale") + allocated(b, "tmp/recent") + allocated(b, "Library/Caches/older")
                + allocated(a, "Library/Caches/old")

            // Ask for a little more than three files: four must go, tmp first, then the oldest cache.
            let report = try home.purge(bytes: 3 * 16384 + 1)
            #expect(report.items.map { "\($0.owner)/\($0.path)" } == expectedOrder)
            #expect(report.freedBytes == expectedBytes)
            #expect(report.items.map(\.bytes).reduce(0, +) == report.freedBytes)
            #expect(try !a.root.itemExists(at: ContainerPath("tmp/x")))  // emptied directory pruned
            #expect(try a.root.directoryExists(at: ContainerPath("tmp")))
            #expect(try a.root.fileExists(at: ContainerPath("Library/Caches/new")))
            #expect(try b.root.fileExists(at: ContainerPath("Library/Caches/mid/file")))
            #expect(try protectedItems(containers) == before)

            // No amount: everything purgeable goes, nothing else.
            let rest = try home.purge()
            #expect(rest.items.count == 2)
            #expect(try home.storageValues().purgeableBytes == 0)
            for container in containers {
                #expect(try container.root.contentsOfDirectory(at: ContainerPath("Library/Caches")).isEmpty)
            }
            #expect(try protectedItems(containers) == before)
        }
    }

    @Test("available for important usage adds purgeable bytes to the available ones")
    func importantUsage() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.a"))
            try writeFile(container, "Library/Caches/blob", bytes: 1 << 20)
            let storage = try home.storageValues()
            #expect(storage.purgeableBytes >= 1 << 20)
            #expect(storage.availableForImportantUsage == storage.volume.availableBytes + storage.purgeableBytes)
        }
    }
}
