import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Imports of iOS backup folders made without our exporter: ios_backup_judges.py lays one out as
/// an iPhone does (its MBFile archives by bpylist2's archiver, other domains beside the app's,
/// folder and link rows), and hostile ones, each refused with the container untouched.
@Suite struct IOSBackupImportTests {
    static let app = BackupFixture.app
    static let domain = "AppDomain-\(BackupFixture.app)"

    /// A row of the backup the script makes (see ios_backup_judges.py).
    struct Item: Sendable, Encodable {
        var domain = IOSBackupImportTests.domain
        var path: String
        var kind = "file"
        var data = ""
        var mode: Int?
        var mtime: Int?
        var target: String?
        var fileID: String?
        var size: Int?
        var skipFile: Bool?
        var latin1Path: Bool?
    }

    /// A row stored as it is, its `file` column any bytes.
    struct RawRow: Sendable, Encodable {
        var domain: String
        var path: String
        var flags: Int
        var file: String
        var fileID: String
    }

    /// The backup the script makes.
    struct Spec: Sendable, Encodable {
        var items: [Item] = []
        var rawRows: [RawRow]?
        var manifestDB: String?
        var encrypted: Bool?
    }

    /// Writes the backup `spec` describes at `folder`.
    static func make(_ spec: Spec, at folder: String, in scratch: SandboxTesting.ScratchDirectory) async throws {
        let file = scratch.appending("spec-\(UUID().uuidString).json")
        try JSONEncoder().encode(spec).write(to: URL(fileURLWithPath: file))
        _ = try await IOSBackupTests.judge(["make", folder, file], in: scratch)
    }

    static func item(
        _ path: String, _ kind: String = "file", data: String = "", domain: String = domain,
        mode: Int? = nil, mtime: Int? = nil, target: String? = nil
    ) -> Item {
        Item(domain: domain, path: path, kind: kind, data: data, mode: mode, mtime: mtime, target: target)
    }

    /// An iPhone's layout: the device's domains, another app's, and the app's own.
    static let iPhone: [Item] = [
        item("Library/SMS/sms.db", data: "not yours", domain: "HomeDomain"),
        item("Documents/secret.txt", data: "other app", domain: "AppDomain-com.example.other"),
        item("Documents", "dir"),
        item("Documents/notes", "dir", mode: 0o40755, mtime: 1_600_000_000),
        item("Documents/notes/a.txt", data: "from the phone", mode: 0o100600, mtime: 1_650_000_000),
        item("Documents/latest", "link", target: "notes/a.txt"),
        item("Library", "dir"),
        item("Library/Preferences", "dir"),
        item("Library/Preferences/com.example.notes.plist", data: "bplist00"),
    ]

    @Test func anIPhoneBackupGivesOnlyTheAppsDomain() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/old.txt", [1])
            let folder = fixture.scratch.appending("phone")
            try await Self.make(Spec(items: Self.iPhone), at: folder, in: fixture.scratch)
            let report = try await IOSBackup.importApp(Self.app, into: fixture.home, from: folder)
            #expect(report.domains == [Self.domain])
            let home = fixture.container.homeDirectory
            #expect(!FileManager.default.fileExists(atPath: home + "/Documents/old.txt"))
            #expect(!FileManager.default.fileExists(atPath: home + "/Documents/secret.txt"))
            #expect(!FileManager.default.fileExists(atPath: home + "/Library/SMS"))
            #expect(try String(contentsOfFile: home + "/Documents/notes/a.txt", encoding: .utf8) == "from the phone")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: home + "/Documents/latest") == "notes/a.txt")
            var info = stat()
            #expect(stat(home + "/Documents/notes/a.txt", &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o600 && info.st_mtim.tv_sec == 1_650_000_000)
            #expect(stat(home + "/Documents/notes", &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o755 && info.st_mtim.tv_sec == 1_600_000_000)
            #expect(FileManager.default.fileExists(atPath: home + "/Library/Caches"), "container folders made")
        }
    }

    /// Hostile backups: each refused with its code, naming what the message says, and the
    /// container as it was.
    @Test(
        arguments: [
            ("dot-dot", Spec(items: [item("Documents/../../escape", data: "x")]), "'..'"),
            ("absolute", Spec(items: [item("/etc/passwd", data: "x")]), "absolute"),
            ("empty", Spec(items: [item("", data: "x")]), "empty relative path"),
            ("not UTF-8", Spec(items: [Item(path: "Documents/\u{ff}", data: "x", latin1Path: true)]), "not UTF-8"),
            (
                "fileID",
                Spec(items: [Item(path: "Documents/a", data: "x", fileID: String(repeating: "ab", count: 20))]), "SHA-1"
            ),
            ("missing", Spec(items: [Item(path: "Documents/a", data: "x", skipFile: true)]), "no readable file"),
            ("size", Spec(items: [Item(path: "Documents/a", data: "x", size: 999)]), "999 bytes"),
            ("link out", Spec(items: [item("Documents/l", "link", target: "../../../etc/passwd")]), "leads out"),
            ("absolute link", Spec(items: [item("Documents/l", "link", target: "/etc/passwd")]), "leads out"),
            ("fifo", Spec(items: [item("Documents/f", mode: 0o10644)]), "FIFO"),
            ("device", Spec(items: [item("Documents/d", mode: 0o20644)]), "device"),
            (
                "archive",
                Spec(rawRows: [
                    RawRow(
                        domain: domain, path: "Documents/a", flags: 1, file: "bplist00junk",
                        fileID: ManifestDatabase.fileID(domain: domain, relativePath: "Documents/a"))
                ]), "not a keyed archive"
            ),
            ("not SQLite", Spec(manifestDB: "this is not a database"), "not a SQLite database"),
        ] as [(String, Spec, String)])
    func aHostileBackupIsRefused(_ name: String, _ spec: Spec, _ naming: String) async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/old.txt", Array("old".utf8))
            let before = try TreeDescription(fixture.container.homeDirectory)
            let folder = fixture.scratch.appending("hostile")
            try await Self.make(spec, at: folder, in: fixture.scratch)
            let error = await #expect(throws: SandboxError.self, "\(name)") {
                _ = try await IOSBackup.importApp(Self.app, into: fixture.home, from: folder)
            }
            #expect(error?.code == .invalidIOSBackup, "\(name): \(String(describing: error))")
            #expect(error?.message.contains(naming) == true, "\(name): \(error?.message ?? "")")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before, "\(name)")
        }
    }

    @Test func anEncryptedBackupAndTooManyRowsAreRefused() async throws {
        try await BackupFixture.with { fixture in
            let folder = fixture.scratch.appending("encrypted")
            try await Self.make(Spec(items: Self.iPhone, encrypted: true), at: folder, in: fixture.scratch)
            let encrypted = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.importApp(Self.app, into: fixture.home, from: folder)
            }
            #expect(encrypted?.code == .encryptedIOSBackup)
            let plain = fixture.scratch.appending("plain")
            try await Self.make(Spec(items: Self.iPhone), at: plain, in: fixture.scratch)
            let many = #expect(throws: SandboxError.self) {
                _ = try IOSBackup.importApp(
                    Self.app, into: fixture.home, from: plain, limits: IOSBackupLimits(maximumItems: 3))
            }
            #expect(many?.code == .tooLarge)
            // A bomb of an archive: refused by the archive reader's bounds.
            let bomb = try IOSBackupItem(
                domain: Self.domain, relativePath: "Documents/a", kind: .file, mode: 0o100644, size: 1,
                lastModified: 0, lastStatusChange: 0, birth: 0, target: String(repeating: "x", count: 2 << 20)
            ).archive()
            let bombed = failure { () throws(SandboxError) in
                _ = try IOSBackupItem(
                    archive: bomb, domain: Self.domain, relativePath: "Documents/a", kind: .file,
                    limits: IOSBackupLimits.default.archive, shown: "bomb")
            }
            #expect(bombed?.code == .tooLarge)
        }
    }

    @Test func aKilledImportLeavesTheOldContainerOrTheNewOne() async throws {
        try await BackupFixture.with { fixture in
            try KillTests.populate(fixture, variant: 5)
            let folder = fixture.scratch.appending("backup")
            _ = try await IOSBackup.export(apps: [Self.app], from: fixture.home, to: folder)
            let home = fixture.container.homeDirectory
            let carried = { (relative: String) in !IOSBackupTests.carried(relative) }
            // The old container: the imported one and a file of its own (a fixed time).
            let makeOld = { () throws in
                // By host path: an import swaps the container the fixture's root has open.
                try Data([1]).write(to: URL(fileURLWithPath: fixture.hostPath("Documents/only-old.txt")))
                var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, fixture.hostPath("Documents/only-old.txt"), &times, 0) == 0)
            }
            // Import once to have the import's own tree (times to the second).
            _ = try await IOSBackup.importApp(Self.app, into: fixture.home, from: folder)
            let imported = try TreeDescription(home, leavingOut: carried)
            try makeOld()
            let oldTree = try TreeDescription(home, leavingOut: carried)
            let arguments = ["import-ios", fixture.home.location, folder, Self.app.rawValue]
            var full = try await KillTests.duration(of: arguments, fixture)
            #expect(try TreeDescription(home, leavingOut: carried) == imported)
            try makeOld()
            let rounds = 6
            let (killed, ran) = try await KillTests.killRounds(rounds) { round in
                let program = try KillTests.start(fixture, arguments)
                program.signal(SIGKILL, after: KillTests.randomDelay(upTo: full))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal != SIGKILL { full = KillTests.shortest(full, program) }
                let now = try TreeDescription(home, leavingOut: carried)
                #expect(now == oldTree || now == imported, "round \(round): a mix of old and new")
                if now == imported { try makeOld() }
                return exit.signal == SIGKILL
            }
            #expect(killed > rounds / 3, "only \(killed) of \(ran) runs were killed mid-way")
        }
    }
}
