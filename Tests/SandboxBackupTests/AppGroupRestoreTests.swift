import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

@Suite("Restore of App Groups: a member's restore puts back its groups' containers and keychains")
struct AppGroupRestoreTests {
    static let group = AppGroupIdentifier.testing(AppGroupBackupTests.group)

    /// Two members of the group (A: today, B: widget) and a non-member (the fixture's app).
    struct Members {
        let today: Container
        let widget: Container

        init(_ fixture: BackupFixture) throws {
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            today = try AppGroupBackupTests.install(
                "com.example.today", of: [AppGroupBackupTests.group], in: fixture, key: key)
            widget = try AppGroupBackupTests.install(
                "com.example.widget", of: [AppGroupBackupTests.group], in: fixture, key: key)
        }

        /// The group's container as `member` opens it now (a fresh descriptor: after a restore, the
        /// restored container).
        func shared(_ member: Container) throws -> ConfinedRoot {
            try member.groupContainer(AppGroupRestoreTests.group).root
        }
    }

    static func text(_ path: String, in root: ConfinedRoot) throws -> String? {
        guard try root.attributes(at: ContainerPath(path), followingSymlink: false) != nil else { return nil }
        return String(decoding: try root.readContents(of: ContainerPath(path), maximumSize: 1 << 20), as: UTF8.self)
    }

    static func config(_ fixture: BackupFixture) throws -> RepositoryConfig {
        try Repository.readConfig(LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath))
    }

    @Test("restoring A restores the group (data and keychain) and A; B sees the restored group")
    func restoreTwoMemberGroup() async throws {
        try await BackupFixture.with { fixture in
            let members = try Members(fixture)
            let (today, widget) = (members.today, members.widget)
            try members.shared(today).writeContents(Array("v1".utf8), to: ContainerPath("note.txt"))
            try today.root.writeContents(Array("a1".utf8), to: ContainerPath("Documents/a.txt"))
            let groupKeychain = try Keychain(
                home: fixture.home, app: today.identifier, service: "shared", accessGroup: Self.group)
            try groupKeychain.set("token-1", key: "api")
            let repository = try fixture.repository()
            #expect(try Self.config(fixture).version == RepositoryConfig.currentVersion, "a new repository is format 4")
            let backup = try await Backup.run(apps: [today.identifier], from: fixture.home, to: repository)
            #expect(try Self.config(fixture).version >= RepositoryConfig.partsVersion, "what reads group parts")

            // Everything changes after the backup; B writes to the group too.
            try members.shared(widget).writeContents(
                Array("v2".utf8), to: ContainerPath("note.txt"), options: [.atomic])
            try members.shared(widget).writeContents(Array("later".utf8), to: ContainerPath("later.txt"))
            try today.root.writeContents(Array("a2".utf8), to: ContainerPath("Documents/a.txt"), options: [.atomic])
            try Keychain(home: fixture.home, app: widget.identifier, service: "shared", accessGroup: Self.group).set(
                "token-2", key: "api")

            let snapshot = try await repository.snapshot(matching: backup.snapshot)
            let report = try await Restore.run(
                app: today.identifier, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(report.groups?.map(\.group) == [Self.group.rawValue])
            #expect(report.groups?.first?.keychainItems == 1)
            #expect(try Self.text("Documents/a.txt", in: fixture.home.container(for: today.identifier).root) == "a1")
            // B's view: the restored group (iOS restores the device's group domain whole).
            let seen = try members.shared(widget)
            #expect(try Self.text("note.txt", in: seen) == "v1")
            #expect(try Self.text("later.txt", in: seen) == nil)
            #expect(try seen.directoryExists(at: AppGroupContainer.caches), "the layout is made")
            #expect(
                try Keychain(home: fixture.home, app: widget.identifier, service: "shared", accessGroup: Self.group)
                    .get(
                        "api")
                    == "token-1")
            let groupFolder = try FileManager.default.contentsOfDirectory(
                atPath: fixture.home.location + "/Containers/Shared/AppGroup")
            #expect(groupFolder == [Self.group.rawValue], "no stage or record left: \(groupFolder)")
            let check = try await Checker.check(repository, readingData: true)
            #expect(check.problems.isEmpty, "\(check.problems)")
        }
    }

    @Test("a group the app is not a member of is skipped and named; a missing group container is made")
    func nonMemberSkippedAndMissingCreated() async throws {
        try await BackupFixture.with { fixture in
            let members = try Members(fixture)
            try members.shared(members.today).writeContents(Array("v1".utf8), to: ContainerPath("note.txt"))
            let repository = try fixture.repository()
            let backup = try await Backup.run(
                apps: [members.today.identifier, BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try await repository.snapshot(matching: backup.snapshot)
            try members.shared(members.today).writeContents(
                Array("v2".utf8), to: ContainerPath("note.txt"), options: [.atomic])

            let other = try await Restore.run(
                app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(other.groups == nil)
            #expect(
                other.notes.contains { $0.contains("App Group '\(Self.group)'") && $0.contains("not a member") },
                "\(other.notes)")
            #expect(try Self.text("note.txt", in: members.shared(members.widget)) == "v2", "left as it was")

            // No container yet (removed here): the restore makes it.
            _ = try fixture.home.root.removeItem(
                at: ContainerPath("Containers/Shared/AppGroup/\(Self.group.rawValue)"), recursively: true)
            let report = try await Restore.run(
                app: members.today.identifier, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(report.groups?.map(\.group) == [Self.group.rawValue])
            #expect(try Self.text("note.txt", in: members.shared(members.widget)) == "v1")
        }
    }

    @Test("a program under sandbox run in B refuses A's restore before any work; nothing changes")
    func otherMemberUnderSandboxRunRefuses() async throws {
        try await BackupFixture.with { fixture in
            let members = try Members(fixture)
            try members.shared(members.today).writeContents(Array("v1".utf8), to: ContainerPath("note.txt"))
            let repository = try fixture.repository()
            let backup = try await Backup.run(apps: [members.today.identifier], from: fixture.home, to: repository)
            try members.shared(members.today).writeContents(
                Array("v2".utf8), to: ContainerPath("note.txt"), options: [.atomic])
            let program = try ContainerPresenter(
                home: fixture.home, app: members.widget.identifier, kind: .run, description: "sandbox run widget")
            defer { program.close() }
            let snapshot = try await repository.snapshot(matching: backup.snapshot)
            let refused = await #expect(throws: SandboxError.self) {
                _ = try await Restore.run(
                    app: members.today.identifier, snapshot: snapshot, from: repository, into: fixture.home)
            }
            #expect(refused?.code == .containerInUse)
            #expect(refused?.message.contains("sandbox run widget") == true, "\(refused?.message ?? "")")
            #expect(try Self.text("note.txt", in: members.shared(members.widget)) == "v2")
            let groupFolder = try FileManager.default.contentsOfDirectory(
                atPath: fixture.home.location + "/Containers/Shared/AppGroup")
            #expect(groupFolder == [Self.group.rawValue], "no stage left: \(groupFolder)")
        }
    }

    @Test("a killed restore between the group's keychain write and its exchange: old keychain, old group")
    func interruptedGroupExchangeRollsTheKeychainBack() async throws {
        try await BackupFixture.with { fixture in
            let members = try Members(fixture)
            let keychain = try Keychain(home: fixture.home, app: members.today.identifier, accessGroup: Self.group)
            try keychain.set("old", key: "api")
            _ = try members.shared(members.today)
            let target = RestoreTarget.group(Self.group, member: members.today.identifier)
            let stageName = "\(Restore.stagePrefix)killed-\(Self.group.rawValue)"
            try fixture.home.root.createDirectory(at: target.folder.appendingTrusted(stageName))
            _ = try KeychainRollback.record(target, stageNamed: stageName, in: fixture.home)
            try keychain.set("new", key: "api")  // the restore's keychain write; then the kill
            try await Restore.recoverInterrupted(app: members.today.identifier, in: fixture.home)
            #expect(try keychain.get("api") == "old")
            let groupFolder = try FileManager.default.contentsOfDirectory(
                atPath: fixture.home.location + "/Containers/Shared/AppGroup")
            #expect(groupFolder == [Self.group.rawValue], "stage and record removed: \(groupFolder)")
        }
    }

    @Test("config: format 4 (packs, which come after group parts); a reader of 1…3 refuses it")
    func formatVersion() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository(password: "pw")
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(try Self.config(fixture).version == RepositoryConfig.packsVersion)
            let members = try Members(fixture)
            _ = try await Backup.run(apps: [members.today.identifier], from: fixture.home, to: repository)
            let config = try Self.config(fixture)
            #expect(config.version == RepositoryConfig.packsVersion, "a group part needs 3; packs are 4")
            // Still authenticated: the repository opens with its password.
            let reopened = try await Repository.open(
                LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath), password: Array("pw".utf8))
            #expect(reopened.configAuthentication == .authenticated)
            let old = #expect(throws: SandboxError.self) {
                try config.validate(in: fixture.repositoryPath, reading: 1...3)
            }
            #expect(old?.code == .notARepository)
            #expect(old?.message.contains("has format version 4") == true)
            #expect(old?.message.contains("Use a newer sandbox") == true)
        }
    }
}

extension AppGroupIdentifier {
    static func testing(_ raw: String) -> AppGroupIdentifier {
        do {
            return try AppGroupIdentifier(raw)
        } catch {
            preconditionFailure("test group '\(raw)' is invalid: \(error)")
        }
    }
}
