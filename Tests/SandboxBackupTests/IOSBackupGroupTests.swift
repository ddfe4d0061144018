import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// `sandbox export APP… --ios-backup DIR` from the command line: two members of an App Group give
/// their domains and the group's, once, as mvt reads them; the keychain and caches never.
@Suite struct IOSBackupGroupTests {
    static let group = "group.com.example.shared"

    private func install(
        _ app: String, in fixture: BackupFixture, key: SigningKey, group: String = Self.group
    ) throws -> Container {
        let path = fixture.scratch.appending(app + ".app")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("<plist/>".utf8).write(to: URL(fileURLWithPath: path + "/Info.plist"))
        try BundleSigner.sign(
            bundleAt: path, with: key,
            identity: BundleIdentity(identifier: AppIdentifier(app), version: BundleVersion("1.0")),
            appGroups: [AppGroupIdentifier(group)])
        return try fixture.home.createContainer(for: AppIdentifier(app), bundleDirectory: path)
    }

    @Test func theGroupsDomainIsExportedOnceBesideItsMembers() async throws {
        try await BackupFixture.with { fixture in
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            let today = try install("com.example.today", in: fixture, key: key)
            _ = try install("com.example.widget", in: fixture, key: key)
            let shared = try today.groupContainer(AppGroupIdentifier(Self.group)).root
            try shared.writeContents(Array("shared note".utf8), to: ContainerPath("note.txt"))
            try shared.writeContents(Array("cache".utf8), to: ContainerPath("Library/Caches/c"))
            try today.root.writeContents(Array("today".utf8), to: ContainerPath("Documents/t.txt"))
            let folder = fixture.scratch.appending("backup")
            let output = try await fixture.sandbox([
                "export", "com.example.today", "com.example.widget", "--ios-backup", folder,
            ])
            #expect(output.status == 0, "\(output.stderr)")
            let mvt = try await IOSBackupTests.judge(
                ["mvt", folder, fixture.scratch.appending("mvt")], in: fixture.scratch)
            let rows = try JSONSerialization.jsonObject(with: Data(mvt.utf8)) as? [[Any]] ?? []
            let items = Set(rows.map { "\($0[0]) \($0[1])" })
            #expect(items.contains("AppDomainGroup-\(Self.group) note.txt"), "\(mvt)")
            #expect(items.contains("AppDomain-com.example.today Documents/t.txt"), "\(mvt)")
            #expect(items.contains { $0.hasPrefix("AppDomain-com.example.widget ") }, "\(mvt)")
            #expect(!items.contains { $0.contains("Caches") || $0.contains("tmp") }, "\(mvt)")
            #expect(
                Set(rows.map { "\($0[0])" }) == [
                    "AppDomain-com.example.today", "AppDomain-com.example.widget", "AppDomainGroup-\(Self.group)",
                ])
            // An encrypted backup: refused, the CLI naming the password file as the remedy.
            let encrypted = fixture.scratch.appending("encrypted")
            try await IOSBackupImportTests.make(
                IOSBackupImportTests.Spec(items: IOSBackupImportTests.iPhone, encrypted: true), at: encrypted,
                in: fixture.scratch)
            let refused = try await fixture.sandbox(["import", "com.example.today", "--ios-backup", encrypted])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--password-file") && refused.stderr.contains("encrypted-ios-backup"))
        }
    }

    /// Import takes the group domains of the groups the app is a member of into their containers
    /// (another member sees them), and skips, with a note, a group it is not a member of.
    @Test func importRestoresTheMembersGroupsAndSkipsOthers() async throws {
        try await BackupFixture.with { fixture in
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            let other = "group.com.example.other"
            let today = try install("com.example.today", in: fixture, key: key)
            let widget = try install("com.example.widget", in: fixture, key: key)
            let loner = try install("com.example.loner", in: fixture, key: key, group: other)
            let shared = try today.groupContainer(AppGroupIdentifier(Self.group)).root
            let lonely = try loner.groupContainer(AppGroupIdentifier(other)).root
            try shared.writeContents(Array("as backed up".utf8), to: ContainerPath("note.txt"))
            try lonely.writeContents(Array("the loner's".utf8), to: ContainerPath("note.txt"))
            let folder = fixture.scratch.appending("backup")
            _ = try await IOSBackup.export(
                apps: [today.identifier, loner.identifier], from: fixture.home, to: folder)
            try shared.writeContents(Array("changed".utf8), to: ContainerPath("note.txt"))
            try shared.writeContents(Array("new".utf8), to: ContainerPath("added.txt"))
            try lonely.writeContents(Array("changed".utf8), to: ContainerPath("note.txt"))
            let report = try await IOSBackup.importApp(today.identifier, into: fixture.home, from: folder)
            #expect(report.domains == ["AppDomain-com.example.today", "AppDomainGroup-\(Self.group)"])
            let seen = try widget.groupContainer(AppGroupIdentifier(Self.group)).root
            #expect(
                try seen.readContents(of: ContainerPath("note.txt"), maximumSize: 100) == Array("as backed up".utf8))
            #expect(try !seen.itemExists(at: ContainerPath("added.txt")))
            #expect(try seen.directoryExists(at: ContainerPath("Library/Preferences")))
            #expect(try lonely.readContents(of: ContainerPath("note.txt"), maximumSize: 100) == Array("changed".utf8))
            #expect(report.notes.contains { $0.contains(other) && $0.contains("not a member") }, "\(report.notes)")
            // A program under `sandbox run` in the other member: refused before any work, nothing changed.
            try seen.writeContents(Array("changed again".utf8), to: ContainerPath("note.txt"))
            let program = try ContainerPresenter(
                home: fixture.home, app: widget.identifier, kind: .run, description: "sandbox run widget")
            defer { program.close() }
            let refused = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.importApp(today.identifier, into: fixture.home, from: folder)
            }
            #expect(refused?.code == .containerInUse && refused?.message.contains("sandbox run widget") == true)
            #expect(
                try seen.readContents(of: ContainerPath("note.txt"), maximumSize: 100) == Array("changed again".utf8))
            let groupFolder = try FileManager.default.contentsOfDirectory(
                atPath: fixture.home.location + "/Containers/Shared/AppGroup")
            #expect(Set(groupFolder) == [Self.group, other], "no stage left: \(groupFolder)")
        }
    }
}
