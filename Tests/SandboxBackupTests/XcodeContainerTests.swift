import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import SystemPackage
import Testing

@testable import SandboxBackup

/// `.xcappdata` packages: a byte-exact round trip, an atomic export, and imports that refuse
/// hostile packages with the live container untouched.
@Suite struct XcodeContainerTests {
    static let app = BackupFixture.app

    /// The live container, item by item, less the files a package never carries.
    static func live(_ fixture: BackupFixture) throws -> TreeDescription {
        try TreeDescription(fixture.container.homeDirectory)
    }

    static func populate(_ fixture: BackupFixture) throws {
        try fixture.write("Documents/notes/a.txt", Array("first".utf8))
        try fixture.write("Documents/big.bin", ChunkerTests.pseudoRandom(300_000, seed: 7))
        try fixture.write("Library/Caches/cache.bin", [1, 2, 3])
        try fixture.write("tmp/scratch", [9])
        try fixture.container.root.setExtendedAttribute(
            named: "user.tag", to: Array("blue".utf8), at: ContainerPath("Documents/notes/a.txt"))
        try fixture.container.root.setPermissions(
            FilePermissions(rawValue: 0o640), at: ContainerPath("Documents/notes/a.txt"))
        // A link inside the container, copied as a link.
        #expect(symlink("notes/a.txt", fixture.hostPath("Documents/link")) == 0)
    }

    @Test func aRoundTripGivesBackTheContainerByteForByte() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let before = try Self.live(fixture)
            let package = fixture.scratch.appending("Notes.xcappdata")
            let exported = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            #expect(exported.notes.isEmpty, "\(exported.notes)")
            #expect(try TreeDescription(package + "/AppData") == before)
            let info = try PropertyList.decode(
                AppDataInfo.self,
                from: Array(try Data(contentsOf: URL(fileURLWithPath: package + "/AppDataInfo.plist"))))
            #expect(info.bundleIdentifier == Self.app.rawValue)
            #expect(info.downloadDate != nil && info.deviceName != nil && info.deviceIdentifier?.count == 40)
            // Modified, then the package imported: the container is the package's again.
            try fixture.write("Documents/notes/a.txt", Array("changed".utf8))
            try fixture.write("Documents/only-after.txt", [1])
            #expect(try Self.live(fixture) != before)
            let imported = try await XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
            #expect(imported.items == exported.items && imported.bytes == exported.bytes)
            #expect(try Self.live(fixture) == before)
            let data = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(data == [Self.app.rawValue], "no stage left: \(data)")
        }
    }

    @Test func anExportNeverWritesOverAnItemNorLeavesAStage() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let package = fixture.scratch.appending("Notes.xcappdata")
            try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: false)
            let error = await #expect(throws: SandboxError.self) {
                _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            }
            #expect(error?.code == .alreadyExists)
            // A link leading out of the container: refused, nothing under the name, no stage.
            try FileManager.default.removeItem(atPath: package)
            #expect(symlink("/etc", fixture.hostPath("Documents/out")) == 0)
            let out = await #expect(throws: SandboxError.self) {
                _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            }
            #expect(out?.code == .invalidPackage)
            #expect(out?.message.contains("Documents/out") == true, "\(out?.message ?? "")")
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path)
            #expect(!left.contains { $0.contains("xcappdata") }, "\(left)")
        }
    }

    /// A package exported from the fixture, changed by `tamper` (given its host path), imported:
    /// it must fail with `code`, naming `naming`, and leave the live container as it was.
    static func expectRefused(
        _ code: SandboxError.Code, naming: String, limits: XcodeContainerLimits = .default,
        _ tamper: (String) throws -> Void
    ) async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let package = fixture.scratch.appending("Notes.xcappdata")
            _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            try fixture.write("Documents/live-only.txt", Array("live".utf8))
            let before = try Self.live(fixture)
            try tamper(package)
            let error = await #expect(throws: SandboxError.self) {
                _ = try await XcodeContainer.importContainer(
                    app: Self.app, into: fixture.home, from: package, limits: limits)
            }
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(error?.message.contains(naming) == true, "\(error?.message ?? "")")
            #expect(try Self.live(fixture) == before)
            let data = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(data == [Self.app.rawValue], "no stage left: \(data)")
        }
    }

    @Test func linksLeadingOutOfAppDataAreRefused() async throws {
        for target in ["/etc/passwd", "../../../outside", "notes/../../..", "../Documents/../../x"] {
            try await Self.expectRefused(.invalidPackage, naming: "AppData/Documents/evil") { package in
                #expect(symlink(target, package + "/AppData/Documents/evil") == 0)
            }
        }
    }

    @Test func hardLinksAreRefused() async throws {
        try await Self.expectRefused(.invalidPackage, naming: "hard link") { package in
            let secret = package + "/../secret"
            try Data("host secret".utf8).write(to: URL(fileURLWithPath: secret))
            #expect(link(secret, package + "/AppData/Documents/stolen") == 0)
        }
    }

    @Test func fifosAndSocketsAreRefused() async throws {
        try await Self.expectRefused(.invalidPackage, naming: "a FIFO") { package in
            #expect(mkfifo(package + "/AppData/Documents/pipe", 0o600) == 0)
        }
    }

    @Test func aContainerFolderThatIsNotAFolderIsRefused() async throws {
        try await Self.expectRefused(.invalidPackage, naming: "AppData/Documents") { package in
            try FileManager.default.removeItem(atPath: package + "/AppData/Documents")
            #expect(symlink("Library", package + "/AppData/Documents") == 0)
        }
        try await Self.expectRefused(.invalidPackage, naming: "not a folder") { package in
            try FileManager.default.removeItem(atPath: package + "/AppData/Documents")
            try Data("x".utf8).write(to: URL(fileURLWithPath: package + "/AppData/Documents"))
        }
    }

    @Test func aPackageWithoutAppDataOrItsDescriptionIsRefused() async throws {
        try await Self.expectRefused(.invalidPackage, naming: "AppData' is missing") { package in
            try FileManager.default.removeItem(atPath: package + "/AppData")
        }
        try await Self.expectRefused(.invalidPackage, naming: "AppDataInfo.plist' is missing") { package in
            try FileManager.default.removeItem(atPath: package + "/AppDataInfo.plist")
        }
        try await Self.expectRefused(.invalidPackage, naming: "AppDataInfo.plist' is not a file") { package in
            try FileManager.default.removeItem(atPath: package + "/AppDataInfo.plist")
            #expect(symlink("/etc/hostname", package + "/AppDataInfo.plist") == 0)
        }
        try await Self.expectRefused(.invalidPackage, naming: "AppDataInfo.plist' cannot be read") { package in
            try Data("<?xml version=\"1.0\"?><plist><array><string>x".utf8).write(
                to: URL(fileURLWithPath: package + "/AppDataInfo.plist"))
        }
        try await Self.expectRefused(.invalidPackage, naming: "is larger than") { package in
            try Data(repeating: 0x20, count: 100_000).write(to: URL(fileURLWithPath: package + "/AppDataInfo.plist"))
        }
    }

    @Test func countsAndSizesAreBounded() async throws {
        try await Self.expectRefused(
            .tooLarge, naming: "limit of 5 items", limits: XcodeContainerLimits(maximumItems: 5)
        ) {
            _ in
        }
        try await Self.expectRefused(
            .tooLarge, naming: "limit of 1000 bytes", limits: XcodeContainerLimits(maximumBytes: 1000)
        ) { _ in }
    }

    @Test func symlinkTargetsAreReadAsTheKernelWould() {
        #expect(AppDataCopier.staysInside(Array("a.txt".utf8), fromDepth: 0))
        #expect(AppDataCopier.staysInside(Array("../Library/x".utf8), fromDepth: 1))
        #expect(AppDataCopier.staysInside(Array("./../x".utf8), fromDepth: 1))
        #expect(!AppDataCopier.staysInside(Array("../x".utf8), fromDepth: 0))
        #expect(!AppDataCopier.staysInside(Array("a/../x".utf8), fromDepth: 3))  // `a` may be a link
        #expect(!AppDataCopier.staysInside(Array("/etc".utf8), fromDepth: 3))
        #expect(!AppDataCopier.staysInside([], fromDepth: 3))
    }

    @Test func aProgramUnderSandboxRunMakesAnImportRefuseBeforeItsWork() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let package = fixture.scratch.appending("Notes.xcappdata")
            _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            try fixture.write("Documents/later.txt", [1])
            let program = try ContainerPresenter(
                home: fixture.home, app: Self.app, kind: .run, description: "sandbox run python3")
            let refused = await #expect(throws: SandboxError.self) {
                _ = try await XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
            }
            #expect(refused?.code == .containerInUse)
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/later.txt")))
            program.close()
        }
    }
}
