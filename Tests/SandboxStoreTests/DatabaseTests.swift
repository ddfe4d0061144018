import Foundation
import GRDB
import SandboxStore
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
