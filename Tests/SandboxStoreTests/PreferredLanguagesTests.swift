import Foundation
import SandboxStore
import Testing

/// The app's `AppleLanguages` preference, which the store reads (it owns the preferences file) and
/// hands to the bundle's look-ups.
@Suite("Preferred languages")
struct PreferredLanguagesTests {
    let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")

    /// A home with the app installed from a signed bundle holding `de`, `pt-BR` and `Base`
    /// localizations.
    func withLocalizedApp(_ body: (Fixture, Container) throws -> Void) throws {
        try Fixture.with { fixture in
            let bundle = fixture.scratch + "/Notes.app"
            for language in ["de", "pt-BR", "Base"] {
                try FileManager.default.createDirectory(
                    atPath: "\(bundle)/\(language).lproj", withIntermediateDirectories: true)
                try Data("\"hello\" = \"\(language)\";".utf8).write(
                    to: URL(fileURLWithPath: "\(bundle)/\(language).lproj/Localizable.strings"))
            }
            let app = Fixture.appIdentifier("com.example.localized")
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            try BundleSigner.sign(
                bundleAt: bundle, with: key, identity: BundleIdentity(identifier: app, version: BundleVersion("1.0")))
            let container = try fixture.home.createContainer(for: app, bundleDirectory: bundle)
            try body(fixture, container)
        }
    }

    @Test("the AppleLanguages preference wins over the environment, read through the preferences API")
    func appleLanguages() throws {
        try withLocalizedApp { fixture, container in
            #expect(try container.preferredLanguages(environment: ["LANG": "de_DE.UTF-8"]) == ["de-DE"])
            try container.preferences().setValue(.array([.string("pt-BR"), .string("en")]), forKey: "AppleLanguages")
            #expect(try container.preferredLanguages(environment: ["LANG": "de_DE.UTF-8"]) == ["pt-BR", "en"])
            let bundle = try container.localizedBundle(environment: ["LANG": "de_DE.UTF-8"])
            #expect(bundle.preferredLanguages == ["pt-BR", "en"])
            #expect(
                try bundle.path(forResource: "Localizable", ofType: "strings")?.hasSuffix(
                    "/pt-BR.lproj/Localizable.strings") == true)
            let opened = try fixture.home.openAppInPreferredLanguages(
                container.identifier, environment: ["LANG": "de_DE.UTF-8"])
            #expect(opened.bundle.preferredLanguages == ["pt-BR", "en"])
            // The Sandbox module alone knows only the environment.
            #expect(try container.bundle(environment: ["LANG": "de_DE.UTF-8"]).preferredLanguages == ["de-DE"])
        }
    }

    @Test("a damaged preferences file or a malformed AppleLanguages is a precise error; an empty list falls back")
    func malformed() throws {
        try withLocalizedApp { _, container in
            let file = try ContainerPath("Library/Preferences/\(container.identifier).plist")
            try container.root.writeContents(Array("bplist00 truncated".utf8), to: file)
            let damaged = try #require(throws: SandboxError.self) { try container.localizedBundle(environment: [:]) }
            #expect(damaged.code == .corrupt)
            #expect(damaged.message.contains("\(container.identifier).plist"))
            try container.root.removeItem(at: file)
            try container.preferences().setValue(.string("de"), forKey: "AppleLanguages")
            let mistyped = try #require(throws: SandboxError.self) {
                try container.preferredLanguages(environment: [:])
            }
            #expect(mistyped.code == .typeMismatch)
            #expect(mistyped.message.contains("AppleLanguages"))
            try container.preferences().setValue(.array([]), forKey: "AppleLanguages")
            #expect(try container.preferredLanguages(environment: ["LANG": "de_DE"]) == ["de-DE"])
        }
    }
}
