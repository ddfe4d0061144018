import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("Keychain access groups of App Groups")
struct KeychainAccessGroupTests {
    static let group = Fixture.groupIdentifier("group.com.example.shared")

    @Test("members share the group's items; the apps' own keychains and non-members do not see them")
    func sharedByMembers() throws {
        try Fixture.with { fixture in
            let today = try fixture.installMember("com.example.today", groups: [Self.group])
            let widget = try fixture.installMember("com.example.widget", groups: [Self.group])
            let fromToday = try Keychain(
                home: fixture.home, app: today.identifier, service: "api", accessGroup: Self.group)
            try fromToday.set("s3cr3t", key: "alice")
            let fromWidget = try Keychain(
                home: fixture.home, app: widget.identifier, service: "api", accessGroup: Self.group)
            #expect(try fromWidget.get("alice") == "s3cr3t")
            #expect(fromWidget.accessGroup == Self.group)
            #expect(try Keychain(home: fixture.home, app: today.identifier, service: "api").get("alice") == nil)
            let error = #expect(throws: SandboxError.self) {
                try Keychain(
                    home: fixture.home, app: fixture.container.identifier, service: "api", accessGroup: Self.group)
            }
            #expect(error?.code == .notAGroupMember)
            #expect(
                FileManager.default.fileExists(
                    atPath: fixture.hostPath("Device/AppGroups/group.com.example.shared/keychain.plist")))
        }
    }

    @Test("an app named like the group cannot read the group's items, even given the group's file")
    func appNamedLikeTheGroup() throws {
        try Fixture.with { fixture in
            let member = try fixture.installMember("com.example.today", groups: [Self.group])
            try Keychain(home: fixture.home, app: member.identifier, service: "api", accessGroup: Self.group)
                .set("s3cr3t", key: "alice")
            let impostor = try fixture.home.createContainer(for: AppIdentifier(Self.group.rawValue))
            let own = try Keychain(home: fixture.home, app: impostor.identifier, service: "api")
            #expect(try own.get("alice") == nil)
            // The group's file planted as the impostor's own: it names its owner, and its key is another.
            try FileManager.default.createDirectory(
                atPath: fixture.hostPath("Device/Apps/\(Self.group.rawValue)"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: fixture.hostPath("Device/AppGroups/\(Self.group.rawValue)/keychain.plist"),
                toPath: fixture.hostPath("Device/Apps/\(Self.group.rawValue)/keychain.plist"))
            let error = #expect(throws: SandboxError.self) {
                try Keychain(home: fixture.home, app: impostor.identifier, service: "api").get("alice")
            }
            #expect(error?.code == .authenticationFailed)
        }
    }

    @Test("the group's items go with its last member")
    func uninstallLastMember() throws {
        try Fixture.with { fixture in
            let today = try fixture.installMember("com.example.today", groups: [Self.group])
            let widget = try fixture.installMember("com.example.widget", groups: [Self.group])
            try Keychain(home: fixture.home, app: today.identifier, service: "api", accessGroup: Self.group)
                .set("s3cr3t", key: "alice")
            try fixture.home.uninstall(today.identifier)
            #expect(
                try Keychain(home: fixture.home, app: widget.identifier, service: "api", accessGroup: Self.group)
                    .get("alice") == "s3cr3t")
            try fixture.home.uninstall(widget.identifier)
            #expect(
                !FileManager.default.fileExists(atPath: fixture.hostPath("Device/AppGroups/\(Self.group.rawValue)")))
        }
    }
}
