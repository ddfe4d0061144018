import Foundation
import SandboxTesting
import Testing

@Suite("The sandbox command line")
struct CLITests {
    let app = "com.example.notes"

    @Test("the quick start: create, put, ls, cat, du")
    func quickStart() async throws {
        try await CLI.withTemporary { cli in
            let created = try await cli.run("create", app)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("Created com.example.notes"))
            let host = cli.scratch + "/hello.txt"
            try Data("hello, sandbox\n".utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("put", app, host, "Documents/hello.txt").status == 0)
            let listing = try await cli.run("ls", app, "Documents")
            #expect(listing.stdout == "Inbox/\nhello.txt\n")
            #expect(listing.stderr.isEmpty)
            #expect(try await cli.run("cat", app, "Documents/hello.txt").stdout == "hello, sandbox\n")
            let usage = try await cli.run("du", app)
            #expect(usage.status == 0)
            let lines = usage.stdout.split(separator: "\n")
            #expect(lines.first == "LOGICAL\tALLOCATED\tFILES\tPATH")
            #expect(lines.contains { $0.hasPrefix("15\t") && $0.hasSuffix("\tDocuments") })
            #expect(lines.last?.hasPrefix("15\t") == true)
            #expect(lines.last?.hasSuffix("\ttotal") == true)
        }
    }

    @Test("--json output parses and carries the data")
    func json() async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", app)
            try await cli.run("mkdir", app, "Documents/a/b", "--parents")
            let list = try await cli.run("list", "--json")
            let apps = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
            #expect(apps?.first?["app"] as? String == app)
            let ls = try await cli.run("ls", app, "Documents", "--recursive", "--json")
            let items = try JSONSerialization.jsonObject(with: Data(ls.stdout.utf8)) as? [[String: Any]]
            #expect(items?.compactMap { $0["path"] as? String } == ["Documents/Inbox", "Documents/a", "Documents/a/b"])
            let stat = try await cli.run("stat", app, "Documents/a", "--json")
            let values = try JSONSerialization.jsonObject(with: Data(stat.stdout.utf8)) as? [String: Any]
            #expect(values?["type"] as? String == "directory")
            let du = try await cli.run("du", app, "--json")
            let usage = try JSONSerialization.jsonObject(with: Data(du.stdout.utf8)) as? [String: Any]
            #expect((usage?["entries"] as? [Any])?.count == 3)
            let df = try await cli.run("df", "--json")
            let storage = try JSONSerialization.jsonObject(with: Data(df.stdout.utf8)) as? [String: Any]
            #expect(storage?["availableForImportantUsage"] as? Int ?? 0 > 0)
        }
    }

    @Test("path, mv, cp, rm, exclude")
    func fileCommands() async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", app)
            let caches = try await cli.run("path", app, "caches")
            #expect(caches.stdout == cli.home + "/Containers/Data/\(app)/Library/Caches\n")
            let host = cli.scratch + "/f.txt"
            try Data("x".utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("put", app, host, "Documents").status == 0)  // into the directory, same name
            #expect(try await cli.run("cp", app, "Documents/f.txt", "Documents/g.txt").status == 0)
            #expect(try await cli.run("mv", app, "Documents/g.txt", "tmp").status == 0)
            #expect(try await cli.run("ls", app, "tmp").stdout == "g.txt\n")
            #expect(try await cli.run("exclude", app, "Documents/f.txt").status == 0)
            #expect(try await cli.run("stat", app, "Documents/f.txt").stdout.contains("excluded from backup: yes"))
            #expect(try await cli.run("exclude", app, "Documents/f.txt", "--off").status == 0)
            #expect(try await cli.run("stat", app, "Documents/f.txt").stdout.contains("excluded from backup: no"))
            #expect(try await cli.run("rm", app, "tmp/g.txt").status == 0)
            let restart = try await cli.run("restart")
            #expect(restart.stdout.contains("1 container(s)"))
            #expect(try await cli.run("uninstall", app).status == 0)
            #expect(try await cli.run("list").stdout == "")
        }
    }

    @Test("failures: one line on stderr naming the problem, non-zero status, nothing on stdout")
    func failures() async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", app)
            let cases: [([String], Int32, String)] = [
                (["cat", app, "../../etc/passwd"], 1, "escapes the container"),
                (["cat", app, "/etc/passwd"], 1, "[escapes-container]"),
                (["ls", app, "Documents/../.."], 1, "escapes the container"),
                (["rm", app, "..", "--recursive"], 1, "escapes the container"),
                (["cat", app, "Documents/missing.txt"], 1, "[not-found]"),
                (["rm", app, "Documents/missing.txt"], 1, "nothing removed"),
                (["rm", app, "Documents"], 1, "--recursive"),
                (["create", "../x"], 64, "not a valid app identifier"),
                (["create", app], 1, "already exists"),
                (["ls", "com.example.absent"], 1, "`sandbox create <app-id>` makes a container"),
                (["put", app, cli.scratch + "/nope", "Documents/x"], 1, "[not-found]"),
                (["cat", app, ""], 64, "[invalid-path]"),
                (["frobnicate"], 64, "Unexpected argument"),
                (["purge", "--bytes", "lots"], 64, "lots"),
            ]
            for (arguments, status, needle) in cases {
                let actual = try await cli.run(arguments)
                #expect(actual.status == status, "\(arguments): \(actual.stderr)")
                #expect(actual.stderr.contains(needle), "\(arguments): \(actual.stderr)")
                #expect(actual.stdout.isEmpty, "\(arguments)")
                if status == 1 {
                    #expect(actual.stderr.hasPrefix("sandbox: "), "\(arguments)")
                    #expect(actual.stderr.split(separator: "\n").count == 1, "\(arguments): \(actual.stderr)")
                }
            }
        }
    }

    @Test("a symlink planted in the container cannot be used to read or write outside")
    func plantedSymlink() async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", app)
            let secret = cli.scratch + "/secret"
            try Data("secret".utf8).write(to: URL(fileURLWithPath: secret))
            try FileManager.default.createSymbolicLink(
                atPath: cli.home + "/Containers/Data/\(app)/Documents/link", withDestinationPath: secret)
            let read = try await cli.run("cat", app, "Documents/link")
            #expect(read.status == 1)
            #expect(read.stderr.contains("[escapes-container]"))
            #expect(!read.stdout.contains("secret"))
            let host = cli.scratch + "/new"
            try Data("overwrite".utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("cp", app, "Documents/link", "Documents/copy").status == 1)
            #expect(try String(contentsOfFile: secret, encoding: .utf8) == "secret")
            #expect(try await cli.run("rm", app, "Documents/link").status == 0)  // the link itself goes
            #expect(FileManager.default.fileExists(atPath: secret))
        }
    }
}
