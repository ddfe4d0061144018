import Foundation
import Sandbox
import Testing

@Suite("Signed bundles: changes after install are refused at open")
struct BundleTamperTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    /// Installs the sample bundle, applies `change` to the installed copy, and returns the error
    /// `openApp` throws.
    private func openAfter(_ change: (String) throws -> Void) throws -> SandboxError? {
        try withTemporaryHome { home, scratch in
            let (source, _) = try signedBundle(in: scratch, home: home)
            let container = try home.createContainer(for: app, bundleDirectory: source)
            #expect(throws: Never.self) { try home.openApp(app, environment: [:]) }
            try change(container.hostPath(for: .bundle))
            return #expect(throws: SandboxError.self) { try home.openApp(app, environment: [:]) }
        }
    }

    @Test("a changed file is named")
    func modified() throws {
        let error = try openAfter { bundle in
            try overwrite(bundle + "/de.lproj/Localizable.strings", with: "\"hi\" = \"Servus\";")
        }
        #expect(error?.code == .bundleModified)
        #expect(error?.path == "Notes.app/de.lproj/Localizable.strings")
        #expect(error?.message.contains("'Notes.app/de.lproj/Localizable.strings' was modified") == true)
        #expect(error?.message.contains("reinstall it from its signed bundle") == true)
    }

    @Test("a change of the same size is found by the hash")
    func sameSize() throws {
        let error = try openAfter { bundle in try overwrite(bundle + "/icon.png", with: "GIF") }
        #expect(error?.code == .bundleModified)
        #expect(error?.message.contains("'Notes.app/icon.png' was modified") == true)
    }

    @Test("an added file is named, hidden or not, also inside _CodeSignature")
    func added() throws {
        let error = try openAfter { bundle in try overwrite(bundle + "/Sounds/.payload", with: "x") }
        #expect(error?.code == .bundleModified)
        #expect(error?.message.contains("'Notes.app/Sounds/.payload' was added") == true)
        let inSignature = try openAfter { bundle in try overwrite(bundle + "/_CodeSignature/extra", with: "x") }
        #expect(inSignature?.message.contains("'Notes.app/_CodeSignature/extra' was added") == true)
    }

    @Test("a removed file is named")
    func removed() throws {
        let error = try openAfter { bundle in try FileManager.default.removeItem(atPath: bundle + "/Info.plist") }
        #expect(error?.code == .bundleModified)
        #expect(error?.message.contains("'Notes.app/Info.plist' was removed") == true)
    }

    @Test("a removed signature makes the bundle unsigned, which is refused")
    func removedSignature() throws {
        let error = try openAfter { bundle in
            try FileManager.default.removeItem(atPath: bundle + "/_CodeSignature/signature")
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test("permissions made writable again are a change")
    func permissionsChanged() throws {
        let error = try openAfter { bundle in
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bundle + "/Info.plist")
        }
        #expect(error?.code == .bundleModified)
        #expect(error?.message.contains("'Notes.app/Info.plist' changed permissions") == true)
    }

    @Test("a file replaced by a symlink or directory is a change of type")
    func typeChanged() throws {
        let error = try openAfter { bundle in
            try FileManager.default.removeItem(atPath: bundle + "/icon.png")
            try FileManager.default.createSymbolicLink(atPath: bundle + "/icon.png", withDestinationPath: "Info.plist")
        }
        #expect(error?.message.contains("'Notes.app/icon.png' changed type") == true)
    }

    @Test("several changes: the first is named, the count of the rest given")
    func several() throws {
        let error = try openAfter { bundle in
            for name in ["a", "b", "c", "d", "e"] { try overwrite(bundle + "/\(name).txt", with: name) }
        }
        #expect(
            error?.message.contains(
                "'Notes.app/a.txt' was added, 'Notes.app/b.txt' was added, 'Notes.app/c.txt' was added and 2 more")
                == true)
    }

    @Test("a key no longer trusted stops the app from opening")
    func distrusted() throws {
        try withTemporaryHome { home, scratch in
            let (source, key) = try signedBundle(in: scratch, home: home)
            try home.createContainer(for: app, bundleDirectory: source)
            try home.distrust(key.publicKey)
            let error = #expect(throws: SandboxError.self) { try home.openApp(app, environment: [:]) }
            #expect(error?.code == .untrustedKey)
        }
    }
}
