import Foundation
import Testing

@testable import Sandbox

@Suite("Signed bundles: update")
struct BundleUpdateTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    /// An installed app with data in every directory; `body` gets the home, the scratch folder,
    /// the key and the host path of the container's home.
    private func withInstalledApp(_ body: (SandboxHome, String, SigningKey, String) throws -> Void) throws {
        try withTemporaryHome { home, scratch in
            let (source, key) = try signedBundle(in: scratch, home: home, named: "v1/Notes.app")
            let container = try home.createContainer(for: app, bundleDirectory: source)
            for (path, text) in dataFiles {
                try container.root.writeContents(Array(text.utf8), to: ContainerPath(path))
            }
            try body(home, scratch, key, container.homeDirectory)
        }
    }

    private let dataFiles = [
        "Documents/notes.txt": "my notes",
        "Documents/Inbox/mail.eml": "from: someone",
        "Library/Preferences/com.example.notes.plist":
            "<plist version=\"1.0\"><dict><key>volume</key><integer>7</integer></dict></plist>",
        "Library/Application Support/db.sqlite": "rows",
        "Library/Caches/thumb.png": "cache",
        "tmp/scratch": "temporary",
    ]

    /// Every data file still holds what it held.
    private func expectDataIntact(_ home: SandboxHome, except removed: Set<String> = []) throws {
        let container = try home.container(for: app)
        for (path, text) in dataFiles where !removed.contains(path) {
            #expect(try container.root.readContents(of: ContainerPath(path)) == Array(text.utf8), "\(path)")
        }
        for path in removed { #expect(try !container.root.itemExists(at: ContainerPath(path)), "\(path)") }
    }

    /// The installed bundle opens and is version `version` (its Info.plist).
    private func expectBundle(_ home: SandboxHome, info: String) throws {
        let opened = try home.openApp(app, environment: [:])
        #expect(try opened.bundle.readContents(of: ContainerPath("Info.plist")) == Array(info.utf8))
    }

    private func noStagingLeft(_ home: SandboxHome) throws -> Bool {
        try home.root.contentsOfDirectory(at: ContainerPath("Containers/Bundle")).map(\.name) == [app.rawValue]
    }

    @Test(
        "a successful update swaps the bundle, keeps Documents, Preferences, Application Support and Caches, clears tmp"
    )
    func successfulUpdate() throws {
        try withInstalledApp { home, scratch, key, _ in
            var files = sampleBundleFiles
            files["Info.plist"] = "<plist>v2</plist>"
            files["New.txt"] = "new in v2"
            files["fr.lproj/Main.storyboard"] = nil
            let v2 = try makeBundle(in: scratch + "/v2", named: "Notes.app", files: files)
            try sign(v2, with: key, version: "2.0")
            let report = try home.update(app, bundleDirectory: v2)
            #expect(report.previousKeyID == key.publicKey.keyID)
            #expect(report.removedTemporaryItems == 1)
            #expect(report.warnings.isEmpty)
            try expectBundle(home, info: "<plist>v2</plist>")
            let bundle = try home.openApp(app, environment: [:]).bundle
            #expect(try bundle.fileExists(at: ContainerPath("New.txt")))
            #expect(try !bundle.fileExists(at: ContainerPath("fr.lproj/Main.storyboard")))
            try expectDataIntact(home, except: ["tmp/scratch"])
            #expect(try noStagingLeft(home))
        }
    }

    @Test("an update may rename the bundle")
    func renamed() throws {
        try withInstalledApp { home, scratch, key, _ in
            let v2 = try makeBundle(in: scratch + "/v2", named: "Notes Pro.app")
            try sign(v2, with: key, version: "2.0")
            try home.update(app, bundleDirectory: v2)
            #expect(try home.container(for: app).bundleName == "Notes Pro.app")
            #expect(throws: Never.self) { try home.openApp(app, environment: [:]) }
        }
    }

    @Test("a bad signature, an untrusted key, another signer, a missing bundle: old bundle and data intact")
    func refusedUpdates() throws {
        try withInstalledApp { home, scratch, key, _ in
            let badSignature = try makeBundle(in: scratch + "/bad", named: "Notes.app")
            try sign(badSignature, with: key)
            try overwrite(badSignature + "/Info.plist", with: "<plist>evil</plist>")
            let manifest = badSignature + "/_CodeSignature/manifest.json"
            try overwrite(
                manifest,
                with: try String(contentsOfFile: manifest, encoding: .utf8).replacingOccurrences(
                    of: "\"size\":8,", with: "\"size\":19,"))
            try expectRefused(home, badSignature, .signatureInvalid)

            let untrusted = try makeBundle(in: scratch + "/untrusted", named: "Notes.app")
            try sign(untrusted, with: SigningKey())
            try expectRefused(home, untrusted, .untrustedKey)

            let otherSigner = try makeBundle(in: scratch + "/other", named: "Notes.app")
            let other = try trustedKey(in: home)
            try sign(otherSigner, with: other)
            let error = try expectRefused(home, otherSigner, .untrustedKey)
            #expect(error?.message.contains("same signer") == true)
            #expect(throws: Never.self) { try home.update(app, bundleDirectory: otherSigner, allowingNewSigner: true) }
            // cleared by that update
            try home.container(for: app).root.writeContents(Array("temporary".utf8), to: ContainerPath("tmp/scratch"))

            try expectRefused(home, scratch + "/missing.app", .notFound, installedInfo: "<plist/>")
        }
    }

    @Test("a failure mid-way (after staging, before the swap) leaves the old app working and no debris")
    func injectedFailure() throws {
        try withInstalledApp { home, scratch, key, _ in
            var files = sampleBundleFiles
            files["Info.plist"] = "<plist>v2</plist>"
            let v2 = try makeBundle(in: scratch + "/v2", named: "Notes.app", files: files)
            try sign(v2, with: key, version: "2.0")
            let error = #expect(throws: SandboxError.self) {
                try home.update(app, bundleDirectory: v2, allowingNewSigner: false) { step throws(SandboxError) in
                    if step == .staged { throw SandboxError(.noSpace, "injected: disk full") }
                }
            }
            #expect(error?.code == .noSpace)
            try expectBundle(home, info: "<plist/>")
            try expectDataIntact(home)
            #expect(try noStagingLeft(home))
            // The same update then succeeds.
            try home.update(app, bundleDirectory: v2)
            try expectBundle(home, info: "<plist>v2</plist>")
        }
    }

    @Test("a bundle changed after signing fails after the copy; the old app is intact")
    func modifiedSource() throws {
        try withInstalledApp { home, scratch, key, _ in
            let v2 = try makeBundle(in: scratch + "/v2", named: "Notes.app")
            try sign(v2, with: key, version: "2.0")
            try overwrite(v2 + "/Sounds/ding.wav", with: "WAVE")
            let error = try expectRefused(home, v2, .bundleModified)
            #expect(error?.message.contains("'Notes.app/Sounds/ding.wav' was modified") == true)
        }
    }

    @Test("debris of a crashed update is swept by the next one")
    func debrisSwept() throws {
        try withInstalledApp { home, scratch, key, _ in
            let debris = try ContainerPath("Containers/Bundle/.updating-abc-\(app.rawValue)")
            try home.root.createDirectory(at: debris.appending("Old.app"), withIntermediateDirectories: true)
            let unrelated = try ContainerPath("Containers/Bundle/.updating-abc-\(app.rawValue)-x")
            try home.root.createDirectory(at: unrelated)
            let v2 = try makeBundle(in: scratch + "/v2", named: "Notes.app")
            try sign(v2, with: key, version: "2.0")
            try home.update(app, bundleDirectory: v2)
            #expect(try !home.root.itemExists(at: debris))
            #expect(try home.root.itemExists(at: unrelated))
        }
    }

    @discardableResult
    private func expectRefused(
        _ home: SandboxHome, _ bundle: String, _ code: SandboxError.Code, installedInfo: String = "<plist/>"
    ) throws -> SandboxError? {
        let error = #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: bundle) }
        #expect(error?.code == code, "\(String(describing: error))")
        try expectBundle(home, info: installedInfo)
        try expectDataIntact(home)
        #expect(try noStagingLeft(home))
        return error
    }
}
