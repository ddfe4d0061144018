import Foundation
import SandboxTesting
import Testing

/// iTunes' Apps tab: `sandbox list` shows which apps share files, as their bundles declare;
/// `create --file-sharing` declares it for a placeholder.
@Suite("sandbox list and create: file sharing declared in Info.plist")
struct FileSharingCLITests {
    @Test("list shows each app's file sharing in a column, and its declarations in --json")
    func list() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", "com.example.a").status == 0)
            #expect(try await cli.run("create", "com.example.b", "--file-sharing").status == 0)
            try await cli.installSigned(
                "com.example.c",
                declaring: "<key>UIFileSharingEnabled</key><true/><key>LSSupportsOpeningDocumentsInPlace</key><true/>"
                    + CLI.acceptsAnyDocument)
            try await cli.installSigned(
                "com.example.d", declaring: "<key>UIFileSharingEnabled</key><string>YES</string>")
            let text = try await cli.run("list")
            #expect(text.status == 0, "\(text.stderr)")
            #expect(
                text.stdout == "com.example.a\tno\ncom.example.b\tyes\ncom.example.c\tyes\ncom.example.d\tinvalid\n")
            let json = try await cli.run("list", "--json")
            let apps = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(apps.map { $0["fileSharing"] as? Bool } == [false, true, true, false])
            #expect(apps.map { $0["supportsOpeningDocumentsInPlace"] as? Bool } == [nil, nil, true, nil])
            let types = apps[2]["documentTypes"] as? [[String: Any]]
            #expect(types?.first?["contentTypes"] as? [String] == ["public.data"])
            let error = apps[3]["infoPlistError"] as? String
            #expect(error?.contains("UIFileSharingEnabled with a value of type string") == true, "\(apps[3])")
            #expect(apps[0]["infoPlistError"] == nil)
        }
    }

    @Test("create --file-sharing declares it in the placeholder, which verifies; not with --bundle")
    func create() async throws {
        try await CLI.withTemporary { cli in
            let created = try await cli.run("create", "com.example.shared", "--file-sharing", "--json")
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("\"fileSharing\":true"), "\(created.stdout)")
            let verified = try await cli.run("verify", "com.example.shared")
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stdout.contains("unsigned placeholder"), "\(verified.stdout)")
            let both = try await cli.run("create", "com.example.other", "--file-sharing", "--bundle", cli.scratch)
            #expect(both.status == 64, "\(both.stderr)")
            #expect(both.stderr.contains("--file-sharing is for the placeholder bundle only"))
        }
    }
}
