import Foundation
import Glibc
import Sandbox
import SystemPackage
import Testing

@Suite("Signed bundles: a refused install or update changes nothing on the device")
struct BundleHostileInstallTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    /// Files of the device that a bundle's links point at, with their modes: the device key, a
    /// keychain, and another app's document.
    private func plantSecrets(in home: SandboxHome) throws -> [String: Int] {
        let other = try home.createContainer(for: AppIdentifier("com.example.other"))
        try other.root.writeContents(Array("private".utf8), to: ContainerPath("Documents/diary.txt"))
        try home.root.createDirectory(at: ContainerPath("Device/Keychains"), withIntermediateDirectories: true)
        let secrets: [String: Int] = [
            "Device/device.key": 0o600,
            "Device/Keychains/com.example.other.keychain": 0o600,
            "Containers/Data/com.example.other/Documents/diary.txt": 0o640,
            "Device/Keychains": 0o700,
        ]
        for (path, mode) in secrets {
            let target = try ContainerPath(path)
            if try !home.root.itemExists(at: target) { try home.root.writeContents(Array("secret".utf8), to: target) }
            try home.root.setPermissions(FilePermissions(rawValue: mode_t(mode)), at: target)
        }
        return secrets
    }

    /// Replaces entries of the signed bundle at `bundle` with links into the device home, as the
    /// staged copy will see them (`Containers/Bundle/<stage>/Notes.app/…`, four levels below it).
    private func plantLinks(in bundle: String) throws {
        let links = [
            "Info.plist": "../../../../Device/device.key",
            "icon.png": "../../../../Device/Keychains/com.example.other.keychain",
            "en.lproj/Localizable.strings": "../../../../../Containers/Data/com.example.other/Documents/diary.txt",
            "Sounds": "../../../../Device/Keychains",
        ]
        for (entry, target) in links {
            try FileManager.default.removeItem(atPath: bundle + "/" + entry)
            try FileManager.default.createSymbolicLink(atPath: bundle + "/" + entry, withDestinationPath: target)
        }
    }

    private func expectUnchanged(_ home: SandboxHome, _ secrets: [String: Int]) throws {
        for (path, mode) in secrets {
            let attributes = try #require(try home.root.attributes(at: ContainerPath(path), followingSymlink: false))
            #expect(
                attributes.permissions.rawValue == mode_t(mode),
                "\(path) changed mode to \(String(attributes.permissions.rawValue, radix: 8))")
        }
    }

    @Test("install: entries replaced by links into the home are refused before anything is sealed")
    func installWithLinks() throws {
        try withTemporaryHome { home, scratch in
            let secrets = try plantSecrets(in: home)
            let (source, _) = try signedBundle(in: scratch, home: home)
            try plantLinks(in: source)
            let error = #expect(throws: SandboxError.self) {
                try home.createContainer(for: app, bundleDirectory: source)
            }
            #expect(error?.code == .bundleModified, "\(String(describing: error))")
            #expect(
                error?.message.contains("'Notes.app/Info.plist' changed type") == true,
                "\(String(describing: error?.message))")
            try expectUnchanged(home, secrets)
            #expect(try home.installedApps() == [AppIdentifier("com.example.other")])
        }
    }

    @Test("update: entries replaced by links into the home are refused; the old app and the device are intact")
    func updateWithLinks() throws {
        try withTemporaryHome { home, scratch in
            let secrets = try plantSecrets(in: home)
            let (v1, key) = try signedBundle(in: scratch + "/v1", home: home)
            try home.createContainer(for: app, bundleDirectory: v1)
            let v2 = try makeBundle(in: scratch + "/v2")
            try sign(v2, with: key, version: "2.0")
            try plantLinks(in: v2)
            let error = #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: v2) }
            #expect(error?.code == .bundleModified, "\(String(describing: error))")
            try expectUnchanged(home, secrets)
            #expect(try home.openApp(app, environment: [:]).verification.identity?.version == BundleVersion("1.0"))
        }
    }

    @Test("a FIFO in a signed bundle is refused without being opened")
    func fifo() throws {
        try withTemporaryHome { home, scratch in
            let (source, _) = try signedBundle(in: scratch, home: home)
            try FileManager.default.removeItem(atPath: source + "/icon.png")
            #expect(mkfifo(source + "/icon.png", 0o644) == 0)
            let error = #expect(throws: SandboxError.self) {
                try home.createContainer(for: app, bundleDirectory: source)
            }
            #expect(error?.code == .bundleModified)
            #expect(error?.message.contains("'Notes.app/icon.png' changed type") == true)
            #expect(try homeIsEmpty(home))
        }
    }

    @Test("setPermissions never follows a link: a link inside is refused, one that leads out escapes")
    func permissionsNeverFollowLinks() throws {
        try withTemporaryHome { home, scratch in
            let target = try ContainerPath("Device/target")
            try home.root.writeContents(Array("x".utf8), to: target)
            try home.root.setPermissions(FilePermissions(rawValue: 0o600), at: target)
            try FileManager.default.createSymbolicLink(
                atPath: home.location + "/Device/link", withDestinationPath: "target")
            try FileManager.default.createSymbolicLink(
                atPath: home.location + "/Device/out", withDestinationPath: scratch)
            let inside = #expect(throws: SandboxError.self) {
                try home.root.setPermissions(FilePermissions(rawValue: 0o444), at: ContainerPath("Device/link"))
            }
            #expect(inside?.code == .unsupported)
            #expect(inside?.message.contains("'Device/link' is a symbolic link") == true)
            let outside = #expect(throws: SandboxError.self) {
                try home.root.setPermissions(FilePermissions(rawValue: 0o777), at: ContainerPath("Device/out"))
            }
            #expect(outside?.code == .escapesContainer)
            #expect(try home.root.attributes(at: target)?.permissions.rawValue == 0o600)
        }
    }
}
