import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// A listing's body byte for byte as the share gave it before its responses were rendered from
/// per-request plans (`PropfindGolden/Bytes/*.xml`, captured from that code with
/// `SANDBOX_CAPTURE_PROPFIND=1`): hrefs that need percent-encoding and XML escaping, names that are
/// not UTF-8 or that the share hides, dead properties, content types, sizes past 4 GiB, dates
/// from 1969 to the year 10000, at Depth 1 and infinity with `allprop`, `propname` and a list of
/// names. Only the inode in each entity tag and the birth times (which no call can set) are masked.
@Suite struct PropfindBytesTests {
    static let logger = Logger(label: "propfind-bytes") { _ in SwiftLogNoOpLogHandler() }
    static let fixtures = PropfindOutputTests.golden.appendingPathComponent("Bytes")

    static let named = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:prop><D:getlastmodified/><D:displayname/>\
        <D:getcontenttype/><D:getetag/><D:resourcetype/><Z:colour/><D:creationdate/><Z:missing/>\
        <D:getcontentlength/><D:lockdiscovery/><D:supportedlock/></D:prop></D:propfind>
        """
    static let include = """
        <D:propfind xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:allprop/><D:include><Z:colour/>\
        <D:getetag/><Z:missing/></D:include></D:propfind>
        """
    static let propname = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>"#

    /// The requests compared: fixture name, target, depth, body.
    static let requests: [(String, String, String, String)] = [
        ("root-1-allprop", "/", "1", ""),
        ("root-infinity-allprop", "/", "infinity", ""),
        ("root-1-propname", "/", "1", propname),
        ("root-infinity-named", "/", "infinity", named),
        ("folder-1-include", "/sub folder/", "1", include),
        ("file-0-allprop", "/amp&<>\"'.txt", "0", ""),
    ]

    @Test func bodiesMatchTheOnesCapturedBeforeThePlans() async throws {
        let capture = ProcessInfo.processInfo.environment["SANDBOX_CAPTURE_PROPFIND"] == "1"
        let scratch = try ScratchDirectory.make(prefix: "share-propfind-bytes")
        defer { scratch.remove() }
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let store = DeadPropertyStore(root: root, logger: Self.logger)
        try Self.makeTree(scratch.path, root: root, store: store)
        for (name, target, depth, request) in Self.requests {
            let body = Self.masked(
                try await Self.propfind(target, root: root, store: store, depth: depth, body: request))
            try PropfindOutputTests.compare(body, Self.fixtures, name, capturing: capture)
        }
    }

    /// Each member's name and modification time (seconds since 1970); a name ending in `/` is a
    /// folder. Sizes are the contents' but for `big.iso` (5 GB, sparse).
    static let members: [(String, Double)] = [
        ("plain.txt", 1_700_000_000.25), ("amp&<>\"'.txt", 0), ("caf\u{E9}.txt", -1),
        ("cafe\u{301}.txt", 951_782_400), ("space name.md", 1_709_164_799.999), ("percent%20.bin", 253_402_300_799),
        ("far-future.dat", 253_402_300_800), ("sub-delims!$()*+,;=:@.txt", 1_000_000_000), ("tilde~_-.JSON", 86_399),
        ("noext", 1_234_567_890), ("archive.tar.gz", 1_600_000_000), ("photo.JPG", 1_500_000_000),
        ("page.html", 1_400_000_000), ("big.iso", 1_300_000_000), ("\u{65E5}\u{672C}.txt", 1_200_000_000),
        ("sub folder/", 1_100_000_000), ("sub folder/inner.json", 1_050_000_000), ("sub folder/deeper/", 900_000_000),
        ("sub folder/deeper/leaf.txt", 800_000_000), ("empty/", 700_000_000), (".hidden", 1), (".hiddendir/", 2),
        (".hiddendir/x.txt", 3), ("Inbox/", 4), ("Inbox/mail.txt", 5), ("back\\slash.txt", 6), ("ctl\u{1}name.txt", 7),
        ("._finder.txt", 8),
    ]

    /// The tree of ``members``, with a name that is not UTF-8, links, a FIFO and dead properties.
    static func makeTree(_ path: String, root: ConfinedRoot, store: DeadPropertyStore) throws {
        for (name, _) in members {
            if name.hasSuffix("/") {
                #expect(mkdir(path + "/" + name, 0o755) == 0, "\(name): \(String(cString: strerror(errno)))")
            } else {
                try Data("contents of \(name)".utf8).write(to: URL(fileURLWithPath: path + "/" + name))
            }
        }
        #expect(truncate(path + "/big.iso", 5_000_000_000) == 0)
        let invalid = (Array(path.utf8) + Array("/not-utf8-".utf8) + [0xFF, 0xFE, 0]).map { CChar(bitPattern: $0) }
        let descriptor = open(invalid, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0, "a file whose name is not UTF-8: \(String(cString: strerror(errno)))")
        close(descriptor)
        #expect(symlink("plain.txt", path + "/link.txt") == 0)
        #expect(symlink("sub folder", path + "/dirlink") == 0)
        #expect(mkfifo(path + "/fifo", 0o644) == 0)
        let colour = PropertyName("urn:example:z", "colour")
        for (target, value) in [
            ("plain.txt", "blue &amp; <Z:x xmlns:Z=\"urn:example:z\" a=\"1\">green</Z:x>"), ("sub folder", "red"),
            ("amp&<>\"'.txt", ""), ("sub folder/deeper/leaf.txt", "Zo\u{EB}"),
        ] {
            _ = try store.apply([.set(colour, value: value)], at: ContainerPath(target))
        }
        _ = try store.apply(
            [.set(PropertyName("", "bare"), value: "x"), .set(PropertyName("urn:a&b", "amp"), value: "y")],
            at: ContainerPath("sub folder/inner.json"))
        // The times last, deepest first: creating a member changes its folder's.
        for (name, seconds) in members.reversed() {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: path + "/" + name)
        }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_650_000_000)], ofItemAtPath: path)
    }

    /// `xml` with each entity tag's inode and each birth time masked, its responses sorted by href.
    static func masked(_ xml: String) -> String {
        let text = xml.replacingOccurrences(
            of: "<D:getetag>\"[0-9a-f]+-", with: "<D:getetag>\"INODE-", options: .regularExpression
        ).replacingOccurrences(
            of: "<D:creationdate>[^<]*</D:creationdate>", with: "<D:creationdate>BIRTH</D:creationdate>",
            options: .regularExpression)
        return PropfindOutputTests.sortedResponses(text)
    }

    /// The body of a PROPFIND of `target`, answered in process.
    static func propfind(
        _ target: String, root: ConfinedRoot, store: DeadPropertyStore, depth: String, body: String
    ) async throws -> String {
        let methods = DAVMethods(
            documents: root, locks: LockManager(), properties: store, readOnly: true, maximumUploadSize: nil,
            allowedAuthorities: ["127.0.0.1:8080"], logger: logger)
        let encoded = target.split(separator: "/", omittingEmptySubsequences: false).map {
            PercentEncoding.encode(String($0))
        }.joined(separator: "/")
        var head = HTTPRequest(method: .propfind, scheme: "http", authority: "127.0.0.1:8080", path: encoded)
        head.headerFields[.depth] = depth
        let response = try await methods.propfind(
            try SharePath(requestPath: encoded),
            request: Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body))))
        #expect(response.status.code == 207)
        let collecting = CollectingWriter()
        try await response.body.write(collecting)
        return String(decoding: collecting.sink.bytes, as: UTF8.self)
    }
}
