import Foundation
import SandboxStore
import Testing

@Suite("Versioned archives")
struct ArchiveTests {
    struct NotesV1: Codable, Equatable {
        var titles: [String]
    }

    struct Note: Codable, Equatable {
        var title: String
        var pinned: Bool
    }

    struct NotesV2: Codable, Equatable {
        var notes: [Note]
        var saved: Date
    }

    static let migrated = Date(timeIntervalSinceReferenceDate: 1000.25)

    let archiverV2 = Archiver<NotesV2>(version: 2) { archived in
        guard archived.version == 1 else { throw CocoaError(.coderReadCorrupt) }
        let old = try archived.decodeRoot(as: NotesV1.self)
        return NotesV2(notes: old.titles.map { Note(title: $0, pinned: false) }, saved: ArchiveTests.migrated)
    }
    let path = ContainerPath(constant: "Library/Application Support/notes.archive")

    @Test("round trip at the current version")
    func roundTrip() throws {
        try Fixture.with { fixture in
            let notes = NotesV2(
                notes: [Note(title: "a", pinned: true)], saved: Date(timeIntervalSinceReferenceDate: 5.125))
            try fixture.container.writeArchive(notes, with: archiverV2, to: path)
            #expect(try fixture.container.readArchive(with: archiverV2, from: path) == notes)
        }
    }

    @Test("an older archive goes through the migration hook")
    func migration() throws {
        try Fixture.with { fixture in
            try fixture.container.writeArchive(
                NotesV1(titles: ["x", "y"]), with: Archiver<NotesV1>(version: 1), to: path)
            let read = try fixture.container.readArchive(with: archiverV2, from: path)
            #expect(
                read
                    == NotesV2(
                        notes: [Note(title: "x", pinned: false), Note(title: "y", pinned: false)], saved: Self.migrated)
            )
            let noHook = try #require(throws: SandboxError.self) {
                try fixture.container.readArchive(with: Archiver<NotesV2>(version: 2), from: path)
            }
            #expect(noHook.code == .migrationFailed)
        }
    }

    @Test("a newer archive is a clear error and the file is left as it was")
    func newerVersion() throws {
        try Fixture.with { fixture in
            let v3 = Archiver<NotesV2>(version: 3)
            try fixture.container.writeArchive(NotesV2(notes: [], saved: Date()), with: v3, to: path)
            let before = try fixture.container.root.readContents(of: path)
            let error = try #require(throws: SandboxError.self) {
                try fixture.container.readArchive(with: archiverV2, from: path)
            }
            #expect(error.code == .newerVersion)
            #expect(error.message.contains("version 3"))
            #expect(try fixture.container.root.readContents(of: path) == before)
        }
    }

    @Test("not an archive, or damaged: clear errors")
    func notAnArchive() throws {
        try Fixture.with { fixture in
            try fixture.container.writePropertyList(["hello": "world"], to: path)
            #expect(throws: SandboxError.self) { try fixture.container.readArchive(with: archiverV2, from: path) }
            let bytes = try archiverV2.archive(NotesV2(notes: [], saved: Date()))
            let error = try #require(throws: SandboxError.self) { try archiverV2.unarchive(Array(bytes.prefix(20))) }
            #expect(error.code == .corrupt)
        }
    }

    @Test("a failure of the file system beneath keeps the core's code, path and system call")
    func fileSystemFailure() throws {
        try Fixture.with { fixture in
            let error = try #require(throws: SandboxError.self) {
                try fixture.container.readArchive(with: archiverV2, from: path)
            }
            #expect(error.code == .notFound)
            #expect(error.code.rawValue == "not-found")
            #expect(error.path == path.description)
            #expect(error.cause?.systemCall != nil, "the system call and errno beneath are kept")
            #expect(error.description.hasSuffix(") [not-found]"))
        }
    }

    @Test("a migration hook's own error is reported as a failed migration")
    func failingHook() throws {
        let archiver = Archiver<NotesV2>(version: 5) { _ in throw CocoaError(.coderReadCorrupt) }
        let old = try Archiver<NotesV1>(version: 1).archive(NotesV1(titles: []))
        let error = try #require(throws: SandboxError.self) { try archiver.unarchive(old) }
        #expect(error.code == .migrationFailed)
        #expect(error.code.rawValue == "migration-failed")
        guard case .detail? = error.underlying else {
            Issue.record("the hook's words are the detail beneath: \(String(describing: error.underlying))")
            return
        }
    }
}
