import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import SystemPackage
import Testing

@testable import SandboxBackup

/// iOS backup folders: the PyPI judges (mvt, iOSbackup) read what the export writes, and an
/// export imported again gives back the container (times to the second, as MBFile keeps them).
/// scripts/install-test-tools installs the judges for /usr/bin/python3: a judge that is missing or
/// disagrees fails the test.
@Suite struct IOSBackupTests {
    static let app = BackupFixture.app
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("IOSBackupFixtures/ios_backup_judges.py").path

    /// Runs the judges' script; its standard output.
    static func judge(_ arguments: [String], in scratch: SandboxTesting.ScratchDirectory) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("\(python) is missing: run scripts/install-test-tools")
        }
        // mvt writes its settings on its first run, and two first runs at once race to make the
        // folder (`FileExistsError: '/root/.config/mvt'` on a fresh machine): each judge gets its own.
        let output = try await BuiltProgram(path: python).run(
            [script] + arguments, environment: ["MVT_CONFIG_FOLDER": scratch.appending("mvt-config")],
            outputIn: scratch.path, timeout: .seconds(300))
        guard output.status == 0 else {
            throw TestFailure(
                "the judge '\(arguments[0])' failed (\(output.status)); run scripts/install-test-tools for mvt, iOSbackup and bpylist2: \(output.stderr)"
            )
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A container with folders, files of several modes, a link inside, and what iOS leaves out.
    static func populate(_ fixture: BackupFixture) throws {
        try fixture.write("Documents/notes/a.txt", Array("first".utf8))
        try fixture.write("Documents/big.bin", ChunkerTests.pseudoRandom(300_000, seed: 7))
        try fixture.write("Library/Application Support/état.json", Array("{\"v\": 1}".utf8))
        try fixture.write("Library/Caches/cache.bin", [1, 2, 3])
        try fixture.write("tmp/scratch", [9])
        try fixture.container.root.setPermissions(
            FilePermissions(rawValue: 0o640), at: ContainerPath("Documents/notes/a.txt"))
        try fixture.container.root.setExtendedAttribute(
            named: "user.com.apple.tag", to: Array("blue".utf8), at: ContainerPath("Documents/notes/a.txt"))
        try fixture.container.root.setExtendedAttribute(
            named: "user.folder", to: [0, 1, 2], at: ContainerPath("Documents/notes"))
        #expect(symlink("notes/a.txt", fixture.hostPath("Documents/link")) == 0)
        // Whole seconds: MBFile keeps Unix seconds.
        for path in try FileManager.default.subpathsOfDirectory(atPath: fixture.container.homeDirectory) {
            var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, fixture.hostPath(path), &times, AT_SYMLINK_NOFOLLOW) == 0)
        }
    }

    /// What an export carries: everything but Library/Caches, tmp and what is in them.
    static func carried(_ relative: String) -> Bool {
        !(relative == "tmp" || relative.hasPrefix("tmp/") || relative == "Library/Caches"
            || relative.hasPrefix("Library/Caches/"))
    }

    @Test func mvtAndIOSbackupFindEveryFileAndAnImportGivesTheContainerBack() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let home = fixture.container.homeDirectory
            let before = try TreeDescription(home) { !Self.carried($0) }
            let folder = fixture.scratch.appending("00008110-backup")
            let report = try await IOSBackup.export(apps: [Self.app], from: fixture.home, to: folder)
            #expect(report.notes.isEmpty, "\(report.notes)")
            let domain = "AppDomain-\(Self.app)"
            // Every item carried, as the judges list it: domain, relative path, flags.
            var expected: [[String]] = []
            var digests: [String: String] = [:]
            for relative in try FileManager.default.subpathsOfDirectory(atPath: home) where Self.carried(relative) {
                var info = stat()
                #expect(lstat(home + "/" + relative, &info) == 0)
                let flags =
                    switch info.st_mode & S_IFMT {
                    case S_IFDIR: 2
                    case S_IFLNK: 4
                    default: 1
                    }
                expected.append([domain, relative, String(flags)])
                if flags == 1 {
                    let data = try Data(contentsOf: URL(fileURLWithPath: home + "/" + relative))
                    digests[relative] = String(TreeDescription.fnv(data))
                }
            }
            expected.sort { ($0[0], $0[1]) < ($1[0], $1[1]) }
            #expect(report.items == expected.count)
            let mvt = try await Self.judge(["mvt", folder, fixture.scratch.appending("mvt")], in: fixture.scratch)
            let mvtRows = try JSONSerialization.jsonObject(with: Data(mvt.utf8)) as? [[Any]] ?? []
            #expect(mvtRows.map { $0.map { "\($0)" } } == expected, "mvt: \(mvt)")
            let listed = try await Self.judge(["iosbackup", folder], in: fixture.scratch)
            let rows = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[Any]] ?? []
            #expect(rows.map { $0.prefix(3).map { "\($0)" } } == expected, "iOSbackup: \(listed)")
            for row in rows where "\(row[2])" == "1" {
                #expect("\(row[3])" == digests["\(row[1])"], "iOSbackup's bytes of \(row[1])")
            }
            // Changed, then imported: the container is the export's again.
            try fixture.write("Documents/notes/a.txt", Array("changed".utf8))
            try fixture.write("Documents/only-after.txt", [1])
            let imported = try await IOSBackup.importApp(Self.app, into: fixture.home, from: folder)
            #expect(imported.items == report.items && imported.bytes == report.bytes)
            #expect(try TreeDescription(home) { !Self.carried($0) } == before)
            let data = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(data == [Self.app.rawValue], "no stage left: \(data)")
        }
    }

    @Test func anExportWritesOnlyIntoAnEmptyFolderAndLeavesNoStage() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let folder = fixture.scratch.appending("backup")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try Data([1]).write(to: URL(fileURLWithPath: folder + "/keep"))
            let error = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.export(apps: [Self.app], from: fixture.home, to: folder)
            }
            #expect(error?.code == .alreadyExists)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["keep"])
            // A link leading out of the container: refused, nothing under the name, no stage.
            try FileManager.default.removeItem(atPath: folder + "/keep")
            #expect(symlink("/etc", fixture.hostPath("Documents/out")) == 0)
            let out = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.export(apps: [Self.app], from: fixture.home, to: folder)
            }
            #expect(out?.code == .invalidPackage)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path)
            #expect(!left.contains { $0.contains(".exporting-") }, "\(left)")
            // The empty folder is taken.
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/out"))
            _ = try await IOSBackup.export(apps: [Self.app], from: fixture.home, to: folder)
            #expect(FileManager.default.fileExists(atPath: folder + "/Manifest.db"))
        }
    }
}
