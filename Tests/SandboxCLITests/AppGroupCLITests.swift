import Foundation
import SandboxTesting
import Testing

@Suite("The sandbox command line: App Groups (sign --entitlements, path group:, defaults --suite, keychain --group)")
struct AppGroupCLITests {
    static let group = "group.com.example.shared"

    /// Writes a bundle for `identifier` and an entitlements file listing `groups`; returns both paths.
    private func bundle(
        _ cli: CLI, _ identifier: String, groups: [String]
    ) throws -> (bundle: String, entitlements: String) {
        let name = identifier.split(separator: ".").last.map(String.init) ?? identifier
        let path = cli.scratch + "/" + identifier + "/" + name + ".app"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(infoPlist(identifier: identifier, version: "1").utf8).write(
            to: URL(fileURLWithPath: path + "/Info.plist"))
        let entitlements = cli.scratch + "/" + identifier + ".entitlements"
        let array = groups.map { "<string>\($0)</string>" }.joined()
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>com.apple.security.application-groups</key><array>\(array)</array></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: entitlements))
        return (path, entitlements)
    }

    @Test("members share the group's container, suite and keychain items; a non-member is refused each")
    func membersShare() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            for (app, groups) in [
                ("com.example.today", [Self.group]), ("com.example.widget", [Self.group]), ("com.example.other", []),
            ] {
                let (path, entitlements) = try bundle(cli, app, groups: groups)
                let signed = try await cli.run("sign", path, "--key", key, "--entitlements", entitlements)
                #expect(signed.status == 0, "\(signed.stderr)")
                #expect(FileManager.default.fileExists(atPath: path + "/archived-expanded-entitlements.xcent"))
                #expect(try await cli.run("create", app, "--bundle", path).status == 0)
            }
            let path = try await cli.run("path", "com.example.today", "group:\(Self.group)")
            #expect(path.status == 0, "\(path.stderr)")
            #expect(path.stdout == cli.home + "/Containers/Shared/AppGroup/\(Self.group)\n")

            #expect(
                try await cli.run("defaults", "com.example.today", "--suite", Self.group, "write", "theme", "dark")
                    .status
                    == 0)
            let read = try await cli.run("defaults", "com.example.widget", "--suite", Self.group, "read", "theme")
            #expect(read.stdout == "dark\n", "\(read.stderr)")
            #expect(try await cli.run("defaults", "com.example.widget", "read", "theme").status != 0)

            let set = try await CLI.program.run(
                ["keychain", "com.example.today", "set", "api", "alice", "--group", Self.group],
                environment: ["SANDBOX_HOME": cli.home], input: Array("s3cr3t\n".utf8), outputIn: cli.scratch)
            #expect(set.status == 0, "\(set.stderr)")
            let get = try await cli.run("keychain", "com.example.widget", "get", "api", "alice", "--group", Self.group)
            #expect(get.stdout == "s3cr3t\n", "\(get.stderr)")

            for command in [
                ["path", "com.example.other", "group:\(Self.group)"],
                ["defaults", "com.example.other", "--suite", Self.group, "read"],
                ["keychain", "com.example.other", "get", "api", "alice", "--group", Self.group],
            ] {
                let refused = try await cli.run(command)
                #expect(refused.status == 1, "\(command)")
                #expect(refused.stderr.contains("[not-a-group-member]"), "\(command): \(refused.stderr)")
                #expect(refused.stderr.contains("--entitlements FILE` signs the group into the bundle"), "\(command)")
            }
        }
    }

    @Test("hostile group identifiers are refused by every command, and by sign")
    func hostileIdentifiers() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            #expect(try await cli.run("create", "com.example.today").status == 0)
            for hostile in [
                "group.a/../../Data", "..", "group.", "com.example.notgroup", String(repeating: "g", count: 200),
            ] {
                for command in [
                    ["path", "com.example.today", "group:\(hostile)"],
                    ["defaults", "com.example.today", "--suite", hostile, "read"],
                ] {
                    let refused = try await cli.run(command)
                    #expect(refused.status == 64, "\(command)")
                    #expect(refused.stderr.contains("[invalid-app-group-identifier]"), "\(command): \(refused.stderr)")
                }
            }
            let (path, entitlements) = try bundle(cli, "com.example.today", groups: ["group.a/b"])
            let signed = try await cli.run("sign", path, "--key", key, "--entitlements", entitlements)
            #expect(signed.status != 0)
            #expect(signed.stderr.contains("'group.a/b' is not a valid App Group identifier"), "\(signed.stderr)")
        }
    }

    @Test("df lists the group's container; purge evicts its Library/Caches, named group:<id>")
    func dfAndPurge() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            let (path, entitlements) = try bundle(cli, "com.example.today", groups: [Self.group])
            #expect(try await cli.run("sign", path, "--key", key, "--entitlements", entitlements).status == 0)
            #expect(try await cli.run("create", "com.example.today", "--bundle", path).status == 0)
            let shared = try await cli.run("path", "com.example.today", "group:\(Self.group)").stdout.dropLast()
            try Data(repeating: 1, count: 8192).write(to: URL(fileURLWithPath: shared + "/Library/Caches/c"))
            let df = try await cli.run("df")
            #expect(df.status == 0, "\(df.stderr)")
            #expect(df.stdout.contains("group:\(Self.group):\t"), "\(df.stdout)")
            let purge = try await cli.run("purge")
            #expect(purge.status == 0, "\(purge.stderr)")
            #expect(purge.stdout.contains("\tgroup:\(Self.group)\tLibrary/Caches/c\n"), "\(purge.stdout)")
            #expect(!FileManager.default.fileExists(atPath: shared + "/Library/Caches/c"))
        }
    }
}
