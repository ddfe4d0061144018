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

/// A listing reads its members' dead properties with `listxattrat` from the folder's descriptor
/// (Linux 6.13) or, where the kernel lacks it, by opening each member: the two give the same
/// bodies byte for byte, dead properties, damaged ones, long attribute lists and links included.
@Suite struct PropfindMemberLookupTests {
    static let logger = Logger(label: "propfind-lookup") { _ in SwiftLogNoOpLogHandler() }

    @Test func theFallbackGivesTheSameBodies() async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-propfind-lookup")
        defer { scratch.remove() }
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        var store = DeadPropertyStore(root: root, logger: Self.logger)
        try Self.makeTree(scratch.path, root: root, store: store)
        let (listsFromFolders, failure) = DeadPropertyStore.kernelListsFromFolders(probing: scratch.path)
        #expect(listsFromFolders, "this kernel has listxattrat (Linux 6.13): \(String(cString: strerror(failure)))")

        var bodies: [String] = []
        for lookup in [DeadPropertyStore.MemberLookup.fromFolder, .openEach, .fromFolder] {
            store.memberLookup = lookup
            var body = ""
            for (depth, request) in [("infinity", ""), ("1", Self.propname), ("1", "")] {
                body += try await Self.propfind(root: root, store: store, depth: depth, body: request)
            }
            bodies.append(body)
        }
        #expect(bodies[0] == bodies[1], "listxattrat and the open of each member differ")
        #expect(bodies[0] == bodies[2])
        #expect(bodies[0].contains("<ns0:author xmlns:ns0=\"urn:example:e\">Zoë</ns0:author>"), "\(bodies[0])")
        #expect(
            bodies[0].contains("<ns0:n21 xmlns:ns0=\"urn:example:e\">v</ns0:n21>"),
            "a long attribute list is read whole")
        #expect(!bodies[0].contains("garbage"), "a damaged record is never served")
        #expect(!bodies[0].contains("link"), "a link is never listed")
    }

    /// The tree: files and a folder with dead properties, one with over a kilobyte of attribute
    /// names (past the first buffer), a damaged record, a link to a file with properties.
    static func makeTree(_ path: String, root: ConfinedRoot, store: DeadPropertyStore) throws {
        try root.createDirectory(at: ContainerPath("dir"))
        try root.writeContents(Array("x".utf8), to: ContainerPath("plain.txt"))
        try root.writeContents(Array("y".utf8), to: ContainerPath("dir/inner.txt"))
        try root.writeContents(Array("z".utf8), to: ContainerPath("many.txt"))
        try root.writeContents(Array("w".utf8), to: ContainerPath("damaged.txt"))
        let author = PropertyName("urn:example:e", "author")
        for target in ["plain.txt", "dir", "dir/inner.txt"] {
            _ = try store.apply([.set(author, value: "Zoë")], at: ContainerPath(target))
        }
        // 22 names of 50 bytes: past the first kilobyte, within ext4's 4 KiB block.
        let many = (0..<22).map { ProppatchRequest.Operation.set(PropertyName("urn:example:e", "n\($0)"), value: "v") }
        #expect(try store.apply(many, at: ContainerPath("many.txt")).values.allSatisfy { $0 == 200 })
        try root.setExtendedAttribute(
            named: "user.sandbox.dav.x", to: Array("garbage".utf8), at: ContainerPath("damaged.txt"))
        #expect(symlink(path + "/plain.txt", path + "/link") == 0)
    }

    static let propname = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>"#

    /// The body of a PROPFIND of the shared folder, answered in process.
    static func propfind(
        root: ConfinedRoot, store: DeadPropertyStore, depth: String, body: String
    ) async throws
        -> String
    {
        let methods = DAVMethods(
            documents: root, locks: LockManager(), properties: store, readOnly: true, maximumUploadSize: nil,
            allowedAuthorities: ["127.0.0.1:8080"], logger: logger)
        var head = HTTPRequest(method: .propfind, scheme: "http", authority: "127.0.0.1:8080", path: "/")
        head.headerFields[.depth] = depth
        let response = try await methods.propfind(
            .root, request: Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body))))
        #expect(response.status.code == 207)
        let collecting = CollectingWriter()
        try await response.body.write(collecting)
        return String(decoding: collecting.sink.bytes, as: UTF8.self)
    }
}
