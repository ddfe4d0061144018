import Foundation
import Glibc
import Testing

/// PROPFIND's bodies on a fixed hostile tree, compared with the ones the server gave before its
/// listing was streamed (`PropfindGolden/*.xml`, captured from that code with
/// `SANDBOX_CAPTURE_PROPFIND=1`): names that are not UTF-8, NFD, `&<>"'`, control characters,
/// hidden items, links, dead properties and locks, at depths 0, 1 and infinity, with `allprop`,
/// `propname` and a list of names. What differs between runs (inodes in entity tags, birth
/// times, lock tokens and timeouts, the volume's quotas, the order `readdir` gives) is masked.
@Suite struct PropfindOutputTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "PropfindGolden")

    static let named = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:prop><D:displayname/><D:getcontentlength/>\
        <D:getetag/><D:resourcetype/><D:getlastmodified/><D:quota-used-bytes/><Z:colour/><Z:missing/>\
        <D:lockdiscovery/></D:prop></D:propfind>
        """

    /// The requests compared: name, target, depth, body.
    static let requests: [(String, String, String, String)] = [
        ("root-depth-0-allprop", "/", "0", ""),
        ("root-depth-1-allprop", "/", "1", ""),
        ("root-depth-infinity-allprop", "/", "infinity", ""),
        (
            "root-depth-1-propname", "/", "1",
            #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>"#
        ),
        ("root-depth-infinity-named", "/", "infinity", named),
        (
            "folder-depth-1-allprop-include", "/dir/", "1",
            #"<D:propfind xmlns:D="DAV:"><D:allprop/><D:include><D:quota-used-bytes/></D:include></D:propfind>"#
        ),
        ("file-depth-1-named", "/plain.txt", "1", named),
    ]

    @Test func bodiesMatchTheOnesCapturedBeforeStreaming() async throws {
        let capture = ProcessInfo.processInfo.environment["SANDBOX_CAPTURE_PROPFIND"] == "1"
        try await ShareServerProcess.with { server in
            try await Self.makeTree(server)
            for (name, target, depth, body) in Self.requests {
                let response = try await server.send("PROPFIND", target, headers: [("Depth", depth)], text: body)
                #expect(response.status == 207, "\(name): \(response)")
                try Self.compare(Self.masked(response.text), Self.golden, name, capturing: capture)
            }
        }
    }

    /// Expects `body` to be the fixture `name` in `folder`, or, `capturing`, writes it there.
    static func compare(_ body: String, _ folder: URL, _ name: String, capturing: Bool) throws {
        let file = folder.appendingPathComponent(name + ".xml")
        if capturing {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(body.utf8).write(to: file)
        } else {
            let expected = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(body == expected, "\(name):\n\(body)")
        }
    }

    /// The tree: files and folders with hostile names, ones the share never lists, links, dead
    /// properties, a lock, and fixed modification times.
    static func makeTree(_ server: ShareServerProcess) async throws {
        for name in [
            "plain.txt", "amp&<>\"'.txt", "cafe\u{301}.txt", "caf\u{E9}.txt", "space name.md", "dir/inner.json",
            "dir/sub/deep.html", "dir/.hidden-inner", ".hidden", ".hiddendir/x.txt", "back\\slash.txt",
            "ctl\u{1}name.txt", "empty/", "dir/locked.txt", "percent%20.bin", "noext",
        ] {
            if name.hasSuffix("/") {
                try FileManager.default.createDirectory(
                    atPath: server.documents(name), withIntermediateDirectories: true)
            } else {
                try server.plant(name, "contents of \(name)")
            }
        }
        let invalid = (Array(server.documents.utf8) + Array("/not-utf8-".utf8) + [0xFF, 0xFE, 0]).map {
            CChar(bitPattern: $0)
        }
        let descriptor = open(invalid, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0, "a file whose name is not UTF-8: \(String(cString: strerror(errno)))")
        close(descriptor)
        symlink("plain.txt", server.documents("link.txt"))
        symlink("dir", server.documents("dirlink"))
        symlink("/etc", server.documents("etc"))
        mkfifo(server.documents("fifo"), 0o644)
        for (target, value) in [
            ("/plain.txt", "<Z:colour>blue &amp; <Z:x a=\"1\">green</Z:x></Z:colour>"),
            ("/dir/", "<Z:colour>red</Z:colour><Z:other>x</Z:other>"),
        ] {
            let patch = """
                <?xml version="1.0" encoding="utf-8"?>
                <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:set><D:prop>\(value)</D:prop></D:set>\
                </D:propertyupdate>
                """
            let response = try await server.send("PROPPATCH", target, text: patch)
            #expect(response.status == 207, "PROPPATCH \(target): \(response)")
        }
        let lock = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>\
            <D:owner><D:href>mailto:a&amp;b@example.com</D:href></D:owner></D:lockinfo>
            """
        let locked = try await server.send(
            "LOCK", "/dir/locked.txt", headers: [("Timeout", "Second-600"), ("Depth", "0")], text: lock)
        #expect(locked.status == 200, "LOCK: \(locked)")
        let shared = lock.replacingOccurrences(of: "exclusive", with: "shared")
        let sharedLock = try await server.send(
            "LOCK", "/dir/sub/", headers: [("Timeout", "Second-600"), ("Depth", "infinity")], text: shared)
        #expect(sharedLock.status == 200, "LOCK: \(sharedLock)")
        // Every item's modification time fixed, the folders' last (their members' creation changed them).
        // (Links are left alone: setting a time follows them, and one leads to /etc.)
        let fixed: [FileAttributeKey: Any] = [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000.25)]
        let paths = (FileManager.default.subpaths(atPath: server.documents) ?? []).sorted { $0.count > $1.count }
        // (The name that is not UTF-8 comes back repaired, naming nothing: it is never listed.)
        for relative in paths + [""] where !relative.contains("\u{FFFD}") {
            let path = server.documents + "/" + relative
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            if type == .typeSymbolicLink { continue }
            try FileManager.default.setAttributes(fixed, ofItemAtPath: path)
        }
    }

    /// `xml` with what changes between runs replaced, its responses sorted by href.
    static func masked(_ xml: String) -> String {
        var text = xml
        for (pattern, replacement) in [
            ("<D:getetag>[^<]*</D:getetag>", "<D:getetag>ETAG</D:getetag>"),
            ("<D:creationdate>[^<]*</D:creationdate>", "<D:creationdate>BIRTH</D:creationdate>"),
            ("<D:quota-used-bytes>[0-9]*</D:quota-used-bytes>", "<D:quota-used-bytes>USED</D:quota-used-bytes>"),
            (
                "<D:quota-available-bytes>[0-9]*</D:quota-available-bytes>",
                "<D:quota-available-bytes>FREE</D:quota-available-bytes>"
            ),
            ("urn:uuid:[0-9a-fA-F-]+", "urn:uuid:TOKEN"),
            ("Second-[0-9]+", "Second-N"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return sortedResponses(text)
    }

    /// `xml` with its responses sorted (the order `readdir` gives changes between runs), one a line.
    static func sortedResponses(_ text: String) -> String {
        let pieces = text.components(separatedBy: "<D:response>")
        guard let first = pieces.first, let last = pieces.last, pieces.count > 1,
            let end = last.range(of: "</D:response>", options: .backwards)
        else { return text }
        let closing = String(last[end.upperBound...])
        var responses = Array(pieces.dropFirst().dropLast()) + [String(last[..<end.upperBound])]
        responses.sort()
        return first + responses.map { "<D:response>" + $0 }.joined(separator: "\n") + closing
    }
}
