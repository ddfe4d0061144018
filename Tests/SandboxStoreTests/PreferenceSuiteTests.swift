import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("Preference suites of App Groups")
struct PreferenceSuiteTests {
    static let group = Fixture.groupIdentifier("group.com.example.shared")

    @Test("two members' processes, two each, write 200 keys each to the suite: all 800 are there, for both")
    func twoAppsFourWriters() async throws {
        try await Fixture.with { fixture in
            let members = try ["com.example.today", "com.example.widget"].map {
                try fixture.installMember($0, groups: [Self.group])
            }
            var started: [RunningProgram] = []
            for writer in 0..<4 {
                let app = members[writer % 2].identifier.rawValue
                started.append(
                    try fixture.start(
                        "sandbox-store-harness",
                        ["write-suite", fixture.home.location, app, "w\(writer)", "200", Self.group.rawValue]))
            }
            for writer in started {
                let result = try await writer.finish()
                #expect(result.status == 0, "\(result.stderr)")
            }
            for member in members {
                let suite = try member.preferences(suite: Self.group)
                #expect(suite.suite == Self.group)
                #expect(suite.path == (try ContainerPath("Library/Preferences/group.com.example.shared.plist")))
                let values = suite.storedValues
                #expect(values.count == 800)
                for writer in 0..<4 {
                    for index in 0..<200 { #expect(values["w\(writer)-\(index)"] == .integer(index)) }
                }
                // The app's own preferences are another file.
                #expect(try member.preferences().storedValues.isEmpty)
            }
        }
    }

    @Test("a non-member is refused the suite; the suite is not the app's own preferences")
    func nonMember() throws {
        try Fixture.with { fixture in
            let member = try fixture.installMember("com.example.today", groups: [Self.group])
            try member.preferences(suite: Self.group).setValue(.string("shared"), forKey: "k")
            let error = #expect(throws: SandboxError.self) { try fixture.container.preferences(suite: Self.group) }
            #expect(error?.code == .notAGroupMember)
            #expect(try member.preferences().value(forKey: "k") == nil)
        }
    }
}

extension Fixture {
    /// Installs `app` from a bundle signed as a member of `groups`.
    func installMember(_ app: String, groups: [AppGroupIdentifier]) throws -> Container {
        let key = SigningKey()
        try home.trust(key.publicKey)
        let bundle = scratch + "/" + app + ".app"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try Data("<plist/>".utf8).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        try BundleSigner.sign(
            bundleAt: bundle, with: key,
            identity: BundleIdentity(identifier: AppIdentifier(app), version: BundleVersion("1")), appGroups: groups)
        return try home.createContainer(for: AppIdentifier(app), bundleDirectory: bundle)
    }

    static func groupIdentifier(_ raw: String) -> AppGroupIdentifier {
        do {
            return try AppGroupIdentifier(raw)
        } catch {
            preconditionFailure("test group '\(raw)' is invalid: \(error)")
        }
    }
}
