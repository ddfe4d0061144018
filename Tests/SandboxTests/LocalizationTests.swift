import Foundation
import Sandbox
import Testing

@Suite("Localized resource look-up")
struct LocalizationTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    @Test(
        "the matcher: exact tag, then shorter tags, then any region; case and _ ignored; legacy names",
        arguments: [
            (["de-DE", "en"], ["de", "en", "English", "pt-BR", "pt-PT", "zh-Hans", "Base"], ["de", "en", "English"]),
            (["pt-BR"], ["pt", "pt-BR", "pt-PT"], ["pt-BR"]),
            (["pt"], ["pt-BR", "pt-PT"], ["pt-BR", "pt-PT"]),
            (["PT_br"], ["pt-BR"], ["pt-BR"]),
            (["zh-Hans-CN", "fr"], ["zh-Hans", "zh-Hant", "fr"], ["zh-Hans", "fr"]),
            (["en-GB"], ["English", "de"], ["English"]),
            (["ja"], ["de", "Base"], []),
            ([], ["de"], []),
        ]
    )
    func matcher(preferred: [String], available: [String], expected: [String]) {
        #expect(LocalizationMatcher.preferredLocalizations(from: available, forPreferences: preferred) == expected)
    }

    @Test("the environment: LANGUAGE's list, then LC_ALL, LC_MESSAGES or LANG; C and POSIX name nothing")
    func environment() {
        #expect(PreferredLanguages.fromEnvironment(["LANG": "de_DE.UTF-8"]) == ["de-DE"])
        #expect(
            PreferredLanguages.fromEnvironment(["LANGUAGE": "fr_CA:fr:en", "LANG": "de_DE.UTF-8"]) == [
                "fr-CA", "fr", "en", "de-DE",
            ])
        #expect(PreferredLanguages.fromEnvironment(["LC_ALL": "pt_BR.UTF-8@euro", "LANG": "de_DE"]) == ["pt-BR"])
        #expect(PreferredLanguages.fromEnvironment(["LANG": "C.UTF-8"]) == [])
        #expect(PreferredLanguages.fromEnvironment(["LANG": "POSIX"]) == [])
        #expect(PreferredLanguages.fromEnvironment([:]) == [])
    }

    @Test(
        "look-ups pick the right .lproj for the language settings",
        arguments: [
            (["LANG": "de_DE.UTF-8"], "de.lproj/Localizable.strings", "Base.lproj/Main.storyboard"),
            (["LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"], "de.lproj/Localizable.strings", "fr.lproj/Main.storyboard"),
            (["LANG": "pt_BR.UTF-8"], "pt-BR.lproj/Localizable.strings", "Base.lproj/Main.storyboard"),
            (["LANG": "pt_PT.UTF-8"], "pt-BR.lproj/Localizable.strings", "Base.lproj/Main.storyboard"),
            (["LANG": "ja_JP.UTF-8"], "Base.lproj/Localizable.strings", "Base.lproj/Main.storyboard"),
            (["LANG": "C"], "Base.lproj/Localizable.strings", "Base.lproj/Main.storyboard"),
        ]
    )
    func lookUps(environment: [String: String], strings: String, storyboard: String) throws {
        try withInstalledBundle { home, _ in
            let bundle = try home.openApp(app, environment: environment).bundle
            let base = bundle.hostPath + "/"
            #expect(try bundle.path(forResource: "Localizable", ofType: "strings") == base + strings)
            #expect(try bundle.path(forResource: "Main.storyboard", ofType: nil) == base + storyboard)
            #expect(try bundle.url(forResource: "icon", withExtension: "png")?.path == base + "icon.png")
            #expect(
                try bundle.url(forResource: "ding", withExtension: "wav", subdirectory: "Sounds")?.path == base
                    + "Sounds/ding.wav")
            #expect(try bundle.path(forResource: "missing", ofType: "txt") == nil)
        }
    }

    // The AppleLanguages preference (read by SandboxStore, which owns the preferences file) is
    // tested in SandboxStoreTests/PreferredLanguagesTests.swift.

    @Test("a resource name cannot leave the bundle")
    func confined() throws {
        try withInstalledBundle { home, _ in
            let bundle = try home.openApp(app, environment: [:]).bundle
            let error = #expect(throws: SandboxError.self) {
                try bundle.path(forResource: "../../../../etc/passwd", ofType: nil)
            }
            #expect(error?.code == .escapesContainer)
        }
    }

    private func withInstalledBundle(_ body: (SandboxHome, Container) throws -> Void) throws {
        try withTemporaryHome { home, scratch in
            let (source, _) = try signedBundle(in: scratch, home: home)
            let container = try home.createContainer(for: app, bundleDirectory: source)
            try body(home, container)
        }
    }
}
