import Foundation
import GRDB
import Glibc
import SandboxStore
import SandboxTesting
import Synchronization
import Testing

@Suite("SQLite databases")
struct DatabaseTests {
    @Test("opens in Library/Application Support, in WAL mode")
    func placeAndMode() throws {
        try Fixture.with { fixture in
            let pool = try fixture.container.database(named: "notes.sqlite")
            try pool.write { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)")
                try db.execute(sql: "INSERT INTO note (title) VALUES (?)", arguments: ["hello"])
            }
            #expect(try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
            #expect(try pool.read { db in try String.fetchOne(db, sql: "SELECT title FROM note") } == "hello")
            #expect(
                try fixture.container.root.fileExists(at: ContainerPath("Library/Application Support/notes.sqlite")))
            #expect(
                try fixture.container.root.fileExists(at: ContainerPath("Library/Application Support/notes.sqlite-wal"))
            )
        }
    }

    @Test("names that would leave the folder are refused")
    func names() throws {
        try Fixture.with { fixture in
            for name in [
                "", "../escape.sqlite", "a/b.sqlite", "..", ".", ".hidden", "nul\0byte",
                String(repeating: "x", count: 300),
            ] {
                let error = try #require(throws: SandboxError.self, "\(name)") {
                    try fixture.container.database(named: name)
                }
                #expect(error.code == .invalidName, "\(name)")
            }
        }
    }

    @Test("a symlink in place of the database is refused")
    func symlink() throws {
        try Fixture.with { fixture in
            let link = fixture.container.hostPath(for: .applicationSupport) + "/evil.sqlite"
            try FileManager.default.createSymbolicLink(
                atPath: link, withDestinationPath: fixture.scratch + "/outside.sqlite")
            let error = try #require(throws: SandboxError.self) { try fixture.container.database(named: "evil.sqlite") }
            #expect(error.code == SandboxError.Code.escapesContainer)
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch + "/outside.sqlite"))
        }
    }

    @Test("a symlink planted as the database's -wal, or as its folder, is refused by name")
    func plantedSymlinks() throws {
        try Fixture.with { fixture in
            let folder = fixture.container.hostPath(for: .applicationSupport)
            let outside = fixture.scratch + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/notes.sqlite-wal", withDestinationPath: outside + "/notes.sqlite-wal")
            let wal = try #require(throws: SandboxError.self) { try fixture.container.database(named: "notes.sqlite") }
            #expect(wal.code == SandboxError.Code.escapesContainer)
            #expect(wal.path == "Library/Application Support/notes.sqlite-wal")
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch + "/outside/notes.sqlite-wal"))

            try FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside)
            let swapped = try #require(throws: SandboxError.self) {
                try fixture.container.database(named: "notes.sqlite")
            }
            #expect(swapped.code == SandboxError.Code.escapesContainer)
            #expect(swapped.path == "Library/Application Support")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        }
    }

    @Test("a name with URI characters opens the file of that name")
    func uriCharacters() throws {
        try Fixture.with { fixture in
            let name = "my notes?#%20&vfs=unix café.sqlite"
            try fixture.container.database(named: name).write { db in
                try db.execute(sql: "CREATE TABLE note (title TEXT)")
            }
            let names = try FileManager.default.contentsOfDirectory(
                atPath: fixture.container.hostPath(for: .applicationSupport))
            #expect(names.contains(name))
            let tables = try fixture.container.database(named: name).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master")
            }
            #expect(tables == ["note"])
        }
    }

    @Test("readers opened later, once descriptor numbers were reused, still read the database")
    func readersOpenedLater() async throws {
        try await Fixture.with { fixture in
            let (pool, held) = try await onOwnThread { () throws -> (DatabasePool, [CInt]) in
                try fixture.container.database(named: "notes.sqlite").write { db in
                    try db.execute(sql: "CREATE TABLE note (title TEXT)")
                    for index in 0..<100 {
                        try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: ["\(index)"])
                    }
                }
                // Reopened: only the writer's connection exists yet.
                let pool = try fixture.container.database(named: "notes.sqlite")
                // A folder with a notes.sqlite of its own, opened many times: had the pool's folder
                // descriptor been closed, one of these would now carry its number.
                let impostor = fixture.scratch + "/impostor"
                try FileManager.default.createDirectory(atPath: impostor, withIntermediateDirectories: true)
                try DatabaseQueue(path: impostor + "/notes.sqlite").write { db in
                    try db.execute(sql: "CREATE TABLE impostor (title TEXT)")
                }
                return (pool, (0..<32).map { _ in open(impostor, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
            }
            defer { for fd in held where fd >= 0 { close(fd) } }
            #expect(held.allSatisfy { $0 >= 0 })

            // Four reads at once: four reader connections, each opened now.
            let readers = 4
            let inside = Counter()
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<readers {
                    group.addTask {
                        try await onOwnThread {
                            try pool.read { db in
                                inside.value.add(1, ordering: .relaxed)
                                let deadline = ContinuousClock.now + .seconds(30)
                                while inside.value.load(ordering: .relaxed) < readers && ContinuousClock.now < deadline
                                {
                                    sched_yield()  // every reader holds its connection until all are in
                                }
                                return try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? -1
                            }
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 100, count: readers))
            #expect(inside.value.load(ordering: .relaxed) == readers)
        }
    }

    @Test("a file that is not a database is a clear error")
    func notADatabase() throws {
        try Fixture.with { fixture in
            try fixture.container.root.writeContents(
                Array(repeating: 0x41, count: 4096), to: ContainerPath("Library/Application Support/junk.sqlite"))
            let error = try #require(throws: SandboxError.self) { try fixture.container.database(named: "junk.sqlite") }
            #expect(error.code == .database)
        }
    }
}

/// How many of several threads have reached a point.
private final class Counter: Sendable {
    let value = Atomic(0)
}
