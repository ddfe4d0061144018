import Foundation
import Sandbox
import Testing

@Suite("App Groups: membership comes from the signed manifest")
struct AppGroupMembershipTests {
    @Test("a bundle signed with groups is a member of exactly those, sorted")
    func signedGroups() throws {
        try withTemporaryHome { home, scratch in
            let container = try installMember(
                "com.example.notes", of: ["group.com.example.shared", "group.com.example.a"], in: home,
                scratch: scratch)
            #expect(try container.appGroups().map(\.rawValue) == ["group.com.example.a", "group.com.example.shared"])
            let report = try home.openApp(container.identifier, environment: [:]).verification
            #expect(report.appGroups.map(\.rawValue) == ["group.com.example.a", "group.com.example.shared"])
        }
    }

    @Test("an unsigned placeholder belongs to no group")
    func placeholder() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            #expect(try container.appGroups().isEmpty)
            let error = #expect(throws: SandboxError.self) {
                try container.groupContainer(AppGroupIdentifier("group.com.example.shared"))
            }
            #expect(error?.code == .notAGroupMember)
            #expect(error?.message.contains("lists no App Group") == true)
        }
    }

    @Test("adding a group to an installed manifest breaks its signature: no membership, no launch")
    func tamperedManifest() throws {
        try withTemporaryHome { home, scratch in
            let container = try installMember(
                "com.example.notes", of: ["group.com.example.a"], in: home, scratch: scratch)
            let manifest = container.hostPath(for: .bundle) + "/_CodeSignature/manifest.json"
            let original = try String(contentsOfFile: manifest, encoding: .utf8)
            let forged = original.replacingOccurrences(
                of: "\"appGroups\":[\"group.com.example.a\"]",
                with: "\"appGroups\":[\"group.com.example.a\",\"group.com.example.bank\"]")
            #expect(forged != original)
            try overwrite(manifest, with: forged)
            let error = #expect(throws: SandboxError.self) { try container.appGroups() }
            #expect(error?.code == .signatureInvalid)
            let groupError = #expect(throws: SandboxError.self) {
                try container.groupContainer(AppGroupIdentifier("group.com.example.bank"))
            }
            #expect(groupError?.code == .signatureInvalid)
            #expect(throws: SandboxError.self) { try home.openApp(container.identifier, environment: [:]) }
        }
    }

    @Test("an entitlements file changed after signing is refused when the app opens")
    func tamperedEntitlementsFile() throws {
        try withTemporaryHome { home, scratch in
            let key = try trustedKey(in: home)
            let path = try makeBundle(
                in: scratch,
                files: ["Info.plist": "<plist/>", "archived-expanded-entitlements.xcent": "<plist>a</plist>"])
            try sign(path, with: key)
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"), bundleDirectory: path)
            try overwrite(
                container.hostPath(for: .bundle) + "/archived-expanded-entitlements.xcent", with: "<plist>b</plist>")
            let error = #expect(throws: SandboxError.self) { try home.openApp(container.identifier, environment: [:]) }
            #expect(error?.code == .bundleModified)
            #expect(error?.path == "Notes.app/archived-expanded-entitlements.xcent")
        }
    }

    @Test("a manifest without groups keeps the bytes it always had")
    func noGroupsSameBytes() throws {
        let identity = BundleIdentity(
            identifier: try AppIdentifier("com.example.notes"), version: try BundleVersion("1"))
        let plain = BundleManifest(entries: [], identity: identity)
        #expect(
            String(decoding: plain.canonicalBytes, as: UTF8.self)
                == "{\"entries\":[\n],\"format\":\"sandbox-bundle-manifest/2\",\"identifier\":\"com.example.notes\",\"version\":\"1\"}\n"
        )
        let grouped = BundleManifest(
            entries: [], identity: identity,
            appGroups: [
                try AppGroupIdentifier("group.b.c"), try AppGroupIdentifier("group.a"),
                try AppGroupIdentifier("group.a"),
            ])
        let read = try BundleManifest(storedBytes: grouped.canonicalBytes, source: "manifest.json")
        #expect(read.appGroups.map(\.rawValue) == ["group.a", "group.b.c"])
        // Another order, or an empty list written out, is not the canonical encoding.
        let unsorted = String(decoding: grouped.canonicalBytes, as: UTF8.self)
            .replacingOccurrences(of: "[\"group.a\",\"group.b.c\"]", with: "[\"group.b.c\",\"group.a\"]")
        #expect(throws: SandboxError.self) { try BundleManifest(storedBytes: Array(unsorted.utf8), source: "m") }
        let empty = "{\"appGroups\":[]," + String(decoding: plain.canonicalBytes, as: UTF8.self).dropFirst()
        #expect(throws: SandboxError.self) { try BundleManifest(storedBytes: Array(empty.utf8), source: "m") }
    }

    @Test(
        "hostile group identifiers are refused",
        arguments: [
            "group.com/example", "group.../etc", "group..", "group.", "com.example.shared", "group.com..x",
            "group.café", "group.caf\u{FFFD}", "group.a b", "group.a\u{0}b", "../group.a", "GROUP.a",
            "group." + String(repeating: "a", count: AppGroupIdentifier.maximumLength),
        ])
    func hostileIdentifiers(_ raw: String) {
        let error = #expect(throws: SandboxError.self) { try AppGroupIdentifier(raw) }
        #expect(error?.code == .invalidAppGroupIdentifier)
    }

    @Test("a bundle lists a bounded number of groups")
    func boundedCount() throws {
        let many = (0...AppGroupIdentifier.maximumCount).map { "group.com.example.g\($0)" }
        let error = #expect(throws: SandboxError.self) { try AppGroupIdentifier.validatedList(many) }
        #expect(error?.code == .invalidAppGroupIdentifier)
        #expect(try AppGroupIdentifier.validatedList(Array(many.dropLast())).count == AppGroupIdentifier.maximumCount)
    }
}
