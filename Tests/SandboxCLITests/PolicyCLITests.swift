import Foundation
import SandboxTesting
import Testing

@Suite("The sandbox command line keeps the container's rules and never acts through planted links")
struct PolicyCLITests {
    let app = "com.example.notes"

    @Test("file commands obey the policy: the Inbox is read and delete only, preferences go through defaults")
    func policy() async throws {
        try await CLI.withTemporary { cli in
            try await cli.installSigned(app, declaring: CLI.acceptsAnyDocument)
            let host = cli.scratch + "/f.txt"
            try Data("x".utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("open-in", app, host).status == 0)  // delivered by "another app"
            #expect(try await cli.run("mkdir", app, "Documents/x").status == 0)
            #expect(try await cli.run("put", app, host, "Documents/f.txt").status == 0)
            let inbox = "may only read and delete there"
            let preferences = "preferences API. `sandbox defaults` writes preferences."
            let refused: [([String], String)] = [
                (["put", app, host, "Documents/Inbox/new.txt"], inbox),
                (["put", app, host, "Documents/Inbox"], inbox),
                (["put", app, host, "Documents/x/../Inbox/new.txt"], inbox),
                (["put", app, host, "Library/Preferences/\(app).plist"], preferences),
                (["mkdir", app, "Documents/Inbox/sub"], inbox),
                (["mkdir", app, "Documents/Inbox/a/b", "--parents"], inbox),
                (["mv", app, "Documents/f.txt", "Documents/Inbox/f.txt"], inbox),
                (["cp", app, "Documents/f.txt", "Documents/Inbox"], inbox),
                (["exclude", app, "Documents/Inbox/f.txt"], inbox),
                (["rm", app, "Library/Preferences", "--recursive"], preferences),
                (["rm", app, "Library", "--recursive"], "which holds 'Library/Preferences'"),
                (["mv", app, "Library/Preferences", "Documents/p"], preferences),
                (["process-inbox", app, "--into", "Library/Preferences/in"], preferences),
            ]
            for (arguments, rule) in refused {
                let result = try await cli.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(rule), "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasSuffix("[read-only]\n"), "\(arguments): \(result.stderr)")
            }
            #expect(
                !FileManager.default.fileExists(atPath: cli.home + "/Containers/Data/\(app)/Library/Preferences/in"))
            #expect(try await cli.run("ls", app, "Documents/Inbox").stdout == "f.txt\n")
            // Reading, moving out and deleting are the app's to do.
            #expect(try await cli.run("cat", app, "Documents/Inbox/f.txt").stdout == "x")
            #expect(try await cli.run("cp", app, "Documents/Inbox/f.txt", "Documents/copy.txt").status == 0)
            #expect(try await cli.run("mv", app, "Documents/Inbox/f.txt", "Documents/moved.txt").status == 0)
            #expect(try await cli.run("open-in", app, host).status == 0)
            #expect(try await cli.run("rm", app, "Documents/Inbox/f.txt").status == 0)
            #expect(try await cli.run("ls", app, "Documents/Inbox").stdout.isEmpty)
        }
    }

    @Test("a link planted in Documents that points into the Inbox does not get round the rule")
    func plantedLink() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = cli.home + "/Containers/Data/\(app)/Documents"
            try FileManager.default.createSymbolicLink(atPath: documents + "/in", withDestinationPath: "Inbox")
            let host = cli.scratch + "/f.txt"
            try Data("x".utf8).write(to: URL(fileURLWithPath: host))
            let result = try await cli.run("put", app, host, "Documents/in/f.txt")
            #expect(result.status == 1)
            #expect(result.stderr.contains("which leads to 'Documents/Inbox/f.txt'"), "\(result.stderr)")
            #expect(try await cli.run("rm", app, "Documents/in").status == 0)  // the link itself may go
        }
    }

    @Test("path refuses a directory the app replaced with a link, and says why")
    func path() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = cli.home + "/Containers/Data/\(app)/Documents"
            try FileManager.default.removeItem(atPath: documents)
            try FileManager.default.createSymbolicLink(atPath: documents, withDestinationPath: "/etc")
            let result = try await cli.run("path", app, "documents")
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr.contains(
                    "'Documents' in the container of 'com.example.notes' is a symbolic link that leads out"),
                "\(result.stderr)")
            #expect(
                try await cli.run("path", app, "caches").stdout == cli.home + "/Containers/Data/\(app)/Library/Caches\n"
            )
        }
    }

    @Test("restart, df and purge skip an app whose tmp was replaced by a link, name it, do the rest, exit 1")
    func deviceWide() async throws {
        try await CLI.withTemporary { cli in
            for name in ["com.example.a", "com.example.b"] { #expect(try await cli.run("create", name).status == 0) }
            let host = cli.scratch + "/f.txt"
            try Data("x".utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("put", "com.example.a", host, "tmp/t").status == 0)
            let tmp = cli.home + "/Containers/Data/com.example.b/tmp"
            try FileManager.default.removeItem(atPath: tmp)
            try FileManager.default.createSymbolicLink(atPath: tmp, withDestinationPath: cli.scratch)
            for arguments in [["restart"], ["df"], ["purge"], ["df", "--json"]] {
                let result = try await cli.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(
                    result.stderr.contains(
                        "sandbox: 'com.example.b' was skipped: 'tmp' in the container of 'com.example.b' is a symbolic link that leads out"
                    ), "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasSuffix("[escapes-container]\n"), "\(arguments): \(result.stderr)")
                #expect(!result.stdout.isEmpty, "\(arguments)")
            }
            #expect(try await cli.run("ls", "com.example.a", "tmp").stdout.isEmpty)
            #expect(FileManager.default.fileExists(atPath: host))
        }
    }
}
