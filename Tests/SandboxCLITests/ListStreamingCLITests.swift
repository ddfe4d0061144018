import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

/// `sandbox ls` streams (issue 31): the same bytes as the listing collected and sorted whole (the
/// expectations below were captured from that implementation, 79fd930), memory that does not grow
/// with the tree, and a tree changed under the listing ending it cleanly.
@Suite("sandbox ls, streamed")
struct ListStreamingCLITests {
    let app = "com.example.listing"

    /// Every item of the fixed tree, in the order created: a path (raw bytes) and its contents, or
    /// `nil` for a folder. Names that sort around `/`, a control character, a backslash, a name
    /// that is not UTF-8 (file and folder), NFC and NFD spellings, empty folders.
    private static let items: [(path: [UInt8], contents: String?)] = [
        (Array("a".utf8), nil), (Array("a/b.txt".utf8), "hello"), (Array("a/c".utf8), nil),
        (Array("a/c/deep.txt".utf8), "x"), (Array("a-b".utf8), "ab"), (Array("a.txt".utf8), "a"),
        (Array("a0".utf8), nil), (Array("A".utf8), "AAA"), (Array("a ".utf8), ""), ([0x61, 0x01], "1"),
        (Array("bad".utf8) + [0xFF] + Array(".txt".utf8), "bad"), (Array("\u{E9}".utf8), nil),
        (Array("\u{E9}/n".utf8), "nn"), (Array("e\u{301}".utf8), "nfd"), (Array("line\nbreak".utf8), "lb"),
        (Array("back\\slash".utf8), "bs"), (Array("z".utf8), nil), (Array("z/".utf8) + [0xFF], nil),
        (Array("z/".utf8) + [0xFF] + Array("/f".utf8), "f"), (Array("empty".utf8), nil), (Array("z/y".utf8), nil),
        (Array("z/y/x".utf8), nil),
    ]
    private static let links = [("link-file", "a/b.txt"), ("link-dir", "a"), ("dangling", "nowhere")]

    /// The host path of `relative` (bytes) inside `documents`, NUL-terminated.
    private static func host(_ documents: String, _ relative: [UInt8]) -> [CChar] {
        (Array(documents.utf8) + [UInt8(ascii: "/")] + relative).map { CChar(bitPattern: $0) } + [0]
    }

    /// Plants the fixed tree in `documents` and sets every item's modification time to
    /// 2001-09-09T01:46:40Z, so that `--json` prints the same dates every time.
    private func plant(in documents: String) throws {
        for (path, contents) in Self.items {
            let name = Self.host(documents, path)
            if let contents {
                let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                try #require(fd >= 0, "create \(path): errno \(errno)")
                _ = write(fd, contents, contents.utf8.count)
                close(fd)
            } else {
                try #require(mkdir(name, 0o755) == 0, "mkdir \(path): errno \(errno)")
            }
        }
        for (link, target) in Self.links { try #require(symlink(target, documents + "/" + link) == 0) }
        let all = Self.items.map(\.path) + Self.links.map { Array($0.0.utf8) } + [Array("Inbox".utf8)]
        for path in all {
            let times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
            try #require(utimensat(AT_FDCWD, Self.host(documents, path), times, AT_SYMLINK_NOFOLLOW) == 0)
        }
    }

    /// `ls --recursive` of the fixed tree, captured from the collect-and-sort implementation.
    static let recursive =
        "A\nInbox/\na/\na/b.txt\na/c/\na/c/deep.txt\na\\x01\na \na-b\na.txt\na0/\nback\\\\slash\nbad\\xFF.txt\ndangling\nempty/\ne\u{301}\nline\\x0Abreak\nlink-dir\nlink-file\nz/\nz/y/\nz/y/x/\nz/\\xFF/\nz/\\xFF/f\n\u{E9}/\n\u{E9}/n\n"
    /// `ls` (one level) of the fixed tree, captured likewise.
    static let flat =
        "A\nInbox/\na/\na\\x01\na \na-b\na.txt\na0/\nback\\\\slash\nbad\\xFF.txt\ndangling\nempty/\ne\u{301}\nline\\x0Abreak\nlink-dir\nlink-file\nz/\n\u{E9}/\n"
    /// `ls --recursive --json`'s elements, captured likewise: name and path as JSON text, the size
    /// (`nil` for a folder, whose size depends on the file system: read with `lstat`), the type.
    static let elements: [(name: String, path: String, size: Int?, type: String)] = [
        ("A", "A", 3, "regular"), ("Inbox", "Inbox", nil, "directory"), ("a", "a", nil, "directory"),
        ("b.txt", "a/b.txt", 5, "regular"), ("c", "a/c", nil, "directory"),
        ("deep.txt", "a/c/deep.txt", 1, "regular"), ("a\\u0001", "a\\\\x01", 1, "regular"),
        ("a ", "a ", 0, "regular"), ("a-b", "a-b", 2, "regular"), ("a.txt", "a.txt", 1, "regular"),
        ("a0", "a0", nil, "directory"), ("back\\\\slash", "back\\\\\\\\slash", 2, "regular"),
        ("bad\\\\xFF.txt", "bad\\\\xFF.txt", 3, "regular"), ("dangling", "dangling", 7, "symlink"),
        ("empty", "empty", nil, "directory"), ("e\u{301}", "e\u{301}", 3, "regular"),
        ("line\\nbreak", "line\\\\x0Abreak", 2, "regular"), ("link-dir", "link-dir", 1, "symlink"),
        ("link-file", "link-file", 7, "symlink"), ("z", "z", nil, "directory"), ("y", "z/y", nil, "directory"),
        ("x", "z/y/x", nil, "directory"), ("\\\\xFF", "z/\\\\xFF", nil, "directory"),
        ("f", "z/\\\\xFF/f", 1, "regular"), ("\u{E9}", "\u{E9}", nil, "directory"),
        ("n", "\u{E9}/n", 2, "regular"),
    ]

    /// The JSON `ls --recursive --json` printed for the fixed tree in `documents`.
    private func expectedJSON(_ documents: String) throws -> String {
        let rows = try Self.elements.map { element in
            var size = element.size ?? 0
            if element.size == nil {
                let raw = element.path == "z/\\\\xFF" ? Array("z/".utf8) + [0xFF] : Array(element.path.utf8)
                var info = stat()
                try #require(lstat(Self.host(documents, raw), &info) == 0)
                size = Int(info.st_size)
            }
            return
                "{\"modified\":\"2001-09-09T01:46:40Z\",\"name\":\"\(element.name)\",\"path\":\"Documents/\(element.path)\",\"size\":\(size),\"type\":\"\(element.type)\"}"
        }
        return "[" + rows.joined(separator: ",") + "]\n"
    }

    @Test("text and JSON, recursive or not, below a folder, the home or '..': byte for byte the collected listing's")
    func byteIdentical() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = try await cli.run("path", app, "documents").stdout.trimmingCharacters(in: .newlines)
            try plant(in: documents)
            let cases: [([String], String)] = [
                (["Documents", "--recursive"], Self.recursive),
                (["Documents"], Self.flat),
                (["Documents/a/..", "-r"], Self.recursive),
                (["Documents", "--recursive", "--json"], try expectedJSON(documents)),
                (["Documents/empty", "--json"], "[]\n"),
                (["Documents/empty"], ""),
                (
                    [".", "--recursive"],
                    "Documents/\n" + Self.recursive.split(separator: "\n").map { "Documents/\($0)\n" }.joined()
                        + "Library/\nLibrary/Application Support/\nLibrary/Caches/\nLibrary/Preferences/\ntmp/\n"
                ),
            ]
            for (arguments, expected) in cases {
                let listing = try await cli.run(["ls", app] + arguments)
                #expect(listing.status == 0, "\(arguments): \(listing.stderr)")
                // Bytes, not Strings: Strings compare NFC and NFD spellings equal.
                #expect(Array(listing.stdout.utf8) == Array(expected.utf8), "\(arguments):\n\(listing.stdout)")
            }
            let json = try await cli.run("ls", app, "Documents", "--json")
            let names = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            #expect(names?.count == Self.flat.split(separator: "\n").count)
        }
    }

    /// Runs `argv[1:]` (output discarded) and prints its peak resident memory in KiB, or -1 when it
    /// failed. A small process that forks, because a child's `ru_maxrss` starts at what its parent
    /// held when it was made (the test process's tens of MiB, had the test spawned it).
    static let peakScript = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)
        """

    @Test("memory does not grow with the tree: 30,000 files take what 2,000 do")
    func boundedMemory() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = try await cli.run("path", app, "documents").stdout.trimmingCharacters(in: .newlines)
            func peak(_ folder: String, folders: Int) async throws -> Int {
                for index in 0..<folders {
                    let directory = "\(documents)/\(folder)/folder-\(index)"
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    for file in 0..<1_000 {
                        close(
                            open(
                                "\(directory)/a-file-with-a-name-of-some-length-\(file).txt", O_CREAT | O_WRONLY, 0o644)
                        )
                    }
                }
                let measured = try await BuiltProgram(path: "/usr/bin/python3").run(
                    ["-c", Self.peakScript, try CLI.program.path, "ls", app, "Documents/\(folder)", "--recursive"],
                    environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch)
                #expect(measured.status == 0, "\(measured.stderr)")
                return try #require(Int(measured.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) << 10
            }
            let small = try await peak("small", folders: 2)
            let large = try await peak("large", folders: 30)
            // Collected whole, the listing grew by ~0.45 KiB an item (27 MiB for 60,000 in a debug
            // build); streamed, by one folder's names at most.
            #expect(large - small < 4 << 20, "peak \(small >> 10) KiB for 2,000 files, \(large >> 10) KiB for 30,000")
        }
    }

    @Test(
        "folders renamed and removed under a recursive listing: it ends with a listing or a precise error, never a crash"
    )
    func treeChangingUnderTheListing() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = try await cli.run("path", app, "documents").stdout.trimmingCharacters(in: .newlines)
            for index in 0..<40 {
                let directory = "\(documents)/d\(index)/inner"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for file in 0..<50 { close(open("\(directory)/f\(file)", O_CREAT | O_WRONLY, 0o644)) }
            }
            try FileManager.default.createDirectory(atPath: "\(documents)/aside", withIntermediateDirectories: true)
            for round in 0..<6 {
                let running = try CLI.program.start(
                    ["ls", app, "Documents", "--recursive"] + (round % 2 == 0 ? [] : ["--json"]),
                    environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch)
                // Move folders away and back, and remove and remake one, while it runs.
                var moves = 0
                while running.isRunning && moves < 400 {
                    let index = moves % 40
                    _ = rename("\(documents)/d\(index)", "\(documents)/aside/d\(index)")
                    _ = rename("\(documents)/aside/d\(index)", "\(documents)/d\(index)")
                    _ = rename("\(documents)/d\(index)/inner/f0", "\(documents)/aside/f0")
                    _ = rename("\(documents)/aside/f0", "\(documents)/d\(index)/inner/f0")
                    moves += 1
                }
                let output = try await running.finish()
                #expect(output.exit.signal == nil, "round \(round): killed by signal \(output.exit.signal ?? 0)")
                #expect(output.status == 0 || output.status == 1, "round \(round): \(output.stderr)")
                if output.status == 1 {
                    #expect(output.stderr.hasPrefix("sandbox: ") && output.stderr.contains("["), "\(output.stderr)")
                } else {
                    #expect(output.stderr.isEmpty)
                }
            }
        }
    }
}
