import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

@Suite("Backup of App Groups: the members' group containers, once each (AppDomainGroup-<id>)")
struct AppGroupBackupTests {
    static let group = "group.com.example.shared"

    /// Installs `app` from a bundle signed (with `key`, trusted on `home`) as a member of `groups`.
    static func install(
        _ app: String, of groups: [String], in fixture: BackupFixture, key: SigningKey
    ) throws -> Container {
        let path = fixture.scratch.appending(app + ".app")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("<plist/>".utf8).write(to: URL(fileURLWithPath: path + "/Info.plist"))
        try BundleSigner.sign(
            bundleAt: path, with: key,
            identity: BundleIdentity(identifier: AppIdentifier(app), version: BundleVersion("1.0")),
            appGroups: groups.map(AppGroupIdentifier.init))
        return try fixture.home.createContainer(for: AppIdentifier(app), bundleDirectory: path)
    }

    @Test("two members backed up: the group's container is one part, its blobs survive prune and check")
    func groupPartOnce() async throws {
        try await BackupFixture.with { fixture in
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            let today = try Self.install("com.example.today", of: [Self.group], in: fixture, key: key)
            let widget = try Self.install("com.example.widget", of: [Self.group], in: fixture, key: key)
            let shared = try today.groupContainer(AppGroupIdentifier(Self.group)).root
            try shared.writeContents(Array("shared note".utf8), to: ContainerPath("note.txt"))
            try shared.writeContents(Array("cache".utf8), to: ContainerPath("Library/Caches/c"))
            let repository = try fixture.repository()
            _ = try await Backup.run(
                apps: [today.identifier, widget.identifier, BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try #require(try await repository.snapshots().last)
            #expect(
                snapshot.record.apps.map(\.app).sorted() == [
                    "com.example.notes", "com.example.today", "com.example.widget",
                ])
            let parts = try #require(snapshot.record.groups)
            #expect(parts.map(\.app) == ["AppDomainGroup-\(Self.group)"])
            let entries = try await SnapshotBrowser.list(
                snapshot, app: "AppDomainGroup-\(Self.group)", path: nil, recursive: true, from: repository)
            let paths = Set(entries.map(\.path))
            #expect(paths.contains("note.txt"))
            #expect(!paths.contains("Library/Caches/c"), "a group's caches are not backed up, as an app's")

            // A second snapshot without groups (only the non-member). Prune keeps both: the
            // group's blobs are referenced (a prune counting only the apps' parts removes them),
            // and check finds every blob.
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(try await repository.snapshots().last?.record.groups == nil)
            _ = try await Pruner.prune(repository, keepingLast: 2)
            let check = try await Checker.check(repository, readingData: true)
            #expect(check.problems.isEmpty, "\(check.problems)")
        }
    }
}
