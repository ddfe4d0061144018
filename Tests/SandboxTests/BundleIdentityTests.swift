import Foundation
import Testing

@testable import Sandbox

@Suite("Signed bundles: the signature binds the app and the version")
struct BundleIdentityTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    @Test("a bundle signed for another app does not install or update as this one")
    func otherApp() throws {
        try withTemporaryHome { home, scratch in
            let (foreign, key) = try signedBundle(in: scratch + "/foreign", home: home, app: "com.example.mail")
            let refused = #expect(throws: SandboxError.self) {
                try home.createContainer(for: app, bundleDirectory: foreign)
            }
            #expect(refused?.code == .identifierMismatch)
            #expect(
                refused?.message.contains("is signed for 'com.example.mail', not 'com.example.notes'") == true,
                "\(String(describing: refused?.message))")
            #expect(try homeIsEmpty(home))

            let own = try makeBundle(in: scratch + "/own")
            try sign(own, with: key)
            try home.createContainer(for: app, bundleDirectory: own)
            let update = #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: foreign) }
            #expect(update?.code == .identifierMismatch)
            #expect(try home.openApp(app, environment: [:]).verification.identity?.identifier == app)
        }
    }

    @Test("an update never installs a lower version; the same version re-installs; a higher one updates")
    func versions() throws {
        try withTemporaryHome { home, scratch in
            let (v1, key) = try signedBundle(in: scratch + "/installed", home: home, version: "1.2.10")
            try home.createContainer(for: app, bundleDirectory: v1)
            func bundle(_ version: String) throws -> String {
                let path = try makeBundle(in: scratch + "/" + version)
                try sign(path, with: key, version: version)
                return path
            }
            for lower in ["1.2.9", "1.2", "0.99.99", "1"] {
                let older = try bundle(lower)
                let error = #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: older) }
                #expect(error?.code == .downgrade, "\(lower): \(String(describing: error))")
                #expect(
                    error?.message.contains(
                        "version \(lower) of 'com.example.notes', lower than the installed version 1.2.10") == true)
                // Not even with a new signer.
                let other = #expect(throws: SandboxError.self) {
                    try home.update(app, bundleDirectory: older, allowingNewSigner: true)
                }
                #expect(other?.code == .downgrade)
            }
            #expect(try home.openApp(app, environment: [:]).verification.identity?.version.rawValue == "1.2.10")
            let same = try home.update(app, bundleDirectory: bundle("1.2.10"))
            #expect(same.previousVersion?.rawValue == "1.2.10")
            let higher = try home.update(app, bundleDirectory: bundle("1.10"))
            #expect(higher.previousVersion?.rawValue == "1.2.10")
            #expect(higher.verification.identity?.version.rawValue == "1.10")
            let below = try bundle("1.9.99")
            #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: below) }
        }
    }

    @Test(
        "versions compare as dotted integers",
        arguments: [
            ("1.2.10", "1.2.9", 1), ("1.2", "1.2.0", 0), ("2", "1.99.99", 1), ("0.0.1", "0", 1), ("10", "9", 1),
            ("007", "7", 0),
        ])
    func versionOrder(_ pair: (String, String, Int)) throws {
        let (a, b) = (try BundleVersion(pair.0), try BundleVersion(pair.1))
        switch pair.2 {
        case 1: #expect(a > b && b < a && a != b)
        default: #expect(a == b && !(a < b) && !(b < a) && a.hashValue == b.hashValue)
        }
    }

    @Test(
        "invalid versions are refused",
        arguments: ["", "1.", ".1", "1..2", "1.2.3.4", "v1", "1.-2", "1 .2", "1234567890123456789", "١"])
    func invalidVersion(_ text: String) {
        let error = #expect(throws: SandboxError.self) { try BundleVersion(text) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("CFBundleVersion") == true)
    }

    @Test("a manifest that names no app or version, or is not canonical, is refused")
    func manifestIdentity() throws {
        let identity = BundleIdentity(identifier: app, version: try BundleVersion("3"))
        let entry = BundleManifest.Entry(
            path: try ContainerPath("a"), kind: .file, mode: 0o644, size: 0, sha256: String(repeating: "0", count: 64))
        let canonical = BundleManifest(entries: [entry], identity: identity).canonicalBytes
        #expect(try BundleManifest(storedBytes: canonical, source: "m").identity == identity)

        let text = String(decoding: canonical, as: UTF8.self)
        let variants = [
            text.replacingOccurrences(
                of: "sandbox-bundle-manifest/2\",\"identifier\":\"com.example.notes\",\"version\":\"3\"",
                with: "sandbox-bundle-manifest/1\""),
            text.replacingOccurrences(of: ",\"version\":\"3\"", with: ""),
            text.replacingOccurrences(
                of: "\"com.example.notes\"", with: "\"com.example.notes\",\"identifier\":\"com.example.mail\""),
            text.replacingOccurrences(of: "\"entries\":[", with: "\"entries\": ["),
            text.replacingOccurrences(of: "\"version\":\"3\"", with: "\"version\":\"3.x\""),
        ]
        for variant in variants {
            let error = #expect(throws: SandboxError.self) {
                try BundleManifest(storedBytes: Array(variant.utf8), source: "m")
            }
            #expect(error?.code == .corrupt, "\(variant)")
        }
    }
}
