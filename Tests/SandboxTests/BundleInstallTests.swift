import Foundation
import Sandbox
import Testing

@Suite("Signed bundles: sign, install, open")
struct BundleInstallTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    @Test("a signed bundle installs read-only and opens")
    func signInstallOpen() throws {
        try withTemporaryHome { home, scratch in
            let (source, key) = try signedBundle(in: scratch, home: home)
            try home.createContainer(for: app, bundleDirectory: source)
            let opened = try home.openApp(app, environment: [:])
            #expect(opened.verification.isSigned)
            #expect(opened.verification.keyID == key.publicKey.keyID)
            #expect(opened.verification.files == sampleBundleFiles.count)
            #expect(opened.bundle.name == "Notes.app")
            #expect(try opened.bundle.readContents(of: ContainerPath(".hidden")) == Array("hidden file".utf8))
            let bundle = opened.container.hostPath(for: .bundle)
            #expect(try permissions(bundle + "/Info.plist") == 0o444)
            #expect(try permissions(bundle + "/Notes") == 0o555)
            #expect(try permissions(bundle + "/en.lproj") == 0o555)
            #expect(try permissions(bundle) == 0o555)
            #expect(try permissions(bundle + "/_CodeSignature/manifest.json") == 0o444)
            // A read-only bundle is still removed whole by uninstall.
            try home.uninstall(app)
            #expect(try homeIsEmpty(home))
        }
    }

    @Test("the manifest is canonical: the same bundle gives the same bytes; hidden files are in it")
    func canonicalManifest() throws {
        try withTemporaryHome { _, scratch in
            let key = SigningKey()
            let path = try makeBundle(in: scratch)
            try sign(path, with: key)
            let first = try Data(contentsOf: URL(fileURLWithPath: path + "/_CodeSignature/manifest.json"))
            let report = try sign(path, with: key)
            let second = try Data(contentsOf: URL(fileURLWithPath: path + "/_CodeSignature/manifest.json"))
            #expect(first == second)
            #expect(report.files == sampleBundleFiles.count)
            let text = String(decoding: first, as: UTF8.self)
            #expect(text.contains("\"path\":\".hidden\",\"sha256\":\""))
            #expect(text.contains("{\"mode\":\"0755\",\"path\":\"Notes\",\"sha256\":\""))
            #expect(
                text.hasSuffix(
                    "],\"format\":\"sandbox-bundle-manifest/2\",\"identifier\":\"com.example.notes\",\"version\":\"1.0\"}\n"
                ))
            #expect(!text.contains("_CodeSignature"))
        }
    }

    @Test("symbolic links are refused when signing, naming the link")
    func symlinkRefused() throws {
        try withTemporaryHome { _, scratch in
            let path = try makeBundle(in: scratch)
            try FileManager.default.createSymbolicLink(
                atPath: path + "/en.lproj/link", withDestinationPath: "/etc/passwd")
            let error = #expect(throws: SandboxError.self) { try sign(path, with: SigningKey()) }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("'en.lproj/link'") == true)
            #expect(!FileManager.default.fileExists(atPath: path + "/_CodeSignature/signature"))
        }
    }

    @Test(
        "an unsigned bundle, a bad signature, a tampered manifest and an untrusted key are refused; nothing is installed"
    )
    func refusedAtInstall() throws {
        try withTemporaryHome { home, scratch in
            let unsigned = try makeBundle(in: scratch, named: "Unsigned.app")
            try expectRefused(home, unsigned, .signatureInvalid, mentioning: "is not signed")

            let (badSignature, _) = try signedBundle(in: scratch, home: home, named: "BadSignature.app")
            let signatureFile = badSignature + "/_CodeSignature/signature"
            let other = try String(decoding: Data(contentsOf: URL(fileURLWithPath: signatureFile)), as: UTF8.self)
            var flipped = Array(other.utf8)
            let index = flipped.count - 10  // inside the base64 signature
            flipped[index] = flipped[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            try overwrite(signatureFile, with: String(decoding: flipped, as: UTF8.self))
            try expectRefused(home, badSignature, .signatureInvalid, mentioning: "does not match")

            let (tampered, _) = try signedBundle(in: scratch, home: home, named: "Tampered.app")
            let manifest = tampered + "/_CodeSignature/manifest.json"
            let text = try String(contentsOfFile: manifest, encoding: .utf8)
            try overwrite(manifest, with: text.replacingOccurrences(of: "\"size\":3,", with: "\"size\":4,"))
            try expectRefused(home, tampered, .signatureInvalid, mentioning: "manifest was changed")

            let untrusted = try makeBundle(in: scratch, named: "Untrusted.app")
            let stranger = SigningKey()
            try sign(untrusted, with: stranger)
            try expectRefused(home, untrusted, .untrustedKey, mentioning: "Trust the signer's public key")

            let (changed, _) = try signedBundle(in: scratch, home: home, named: "Changed.app")
            try overwrite(changed + "/en.lproj/Localizable.strings", with: "changed after signing")
            try expectRefused(
                home, changed, .bundleModified, mentioning: "'Changed.app/en.lproj/Localizable.strings' was modified")

            let (added, _) = try signedBundle(in: scratch, home: home, named: "Added.app")
            try overwrite(added + "/extra.dylib", with: "added after signing")
            try expectRefused(home, added, .bundleModified, mentioning: "'Added.app/extra.dylib' was added")
        }
    }

    @Test("an empty unsigned bundle is the placeholder of `create` without --bundle, and opens")
    func placeholder() throws {
        try withTemporaryHome { home, scratch in
            try home.createContainer(for: app)
            let opened = try home.openApp(app, environment: [:])
            #expect(!opened.verification.isSigned)
            let empty = scratch + "/Empty.app"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let other = try AppIdentifier("com.example.empty")
            try home.createContainer(for: other, bundleDirectory: empty)
            #expect(try home.openApp(other, environment: [:]).verification.isSigned == false)
        }
    }

    private func expectRefused(
        _ home: SandboxHome, _ bundle: String, _ code: SandboxError.Code, mentioning text: String
    ) throws {
        let error = #expect(throws: SandboxError.self) { try home.createContainer(for: app, bundleDirectory: bundle) }
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(error?.message.contains(text) == true, "\(String(describing: error?.message))")
        #expect(try homeIsEmpty(home))
    }
}

/// The permission bits of a host path.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o7777
}
