import Foundation
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// A PROPFIND that names only live properties (and `oc:checksums`), as Finder and rclone send,
/// reads no dead properties; one that names a dead property reads them; and a property the
/// server computes never takes a dead value — PROPPATCH refuses one, and a record of one that an
/// app set on its own files' extended attributes is never served (it stood beside the real value
/// in `allprop`: a second `getetag`).
@Suite struct PropfindDeadReadsTests {
    static func prop(_ names: String) -> String {
        #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:e="urn:example:e" xmlns:oc="http://owncloud.org/ns"><D:prop>"#
            + names + "</D:prop></D:propfind>"
    }

    @Test func onlyANamedDeadPropertyIsReadAndLiveNamesNeverTakeDeadValues() async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-propfind-dead")
        defer { scratch.remove() }
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let store = DeadPropertyStore(root: root, logger: PropfindMemberLookupTests.logger)
        try root.createDirectory(at: ContainerPath("dir"))
        try root.writeContents(Array("x".utf8), to: ContainerPath("file.txt"))
        _ = try store.apply(
            [.set(PropertyName("urn:example:e", "author"), value: "Zoë")], at: ContainerPath("file.txt"))
        // What PROPPATCH refuses (a live name) planted as an app could: a folder has no length.
        let computed: [(PropertyName, String)] = [
            (.dav("getcontentlength"), "dir"), (.dav("getetag"), "file.txt"), (.dav("getlastmodified"), "file.txt"),
            (ContentChecksums.propertyName, "file.txt"),
        ]
        for (name, target) in computed {
            #expect(try store.apply([.set(name, value: "planted")], at: ContainerPath(target)).values.first != 200)
            let planted = DeadPropertyRecord(name: name, value: "planted").encoded
            try root.setExtendedAttribute(
                named: DeadPropertyRecord.attributeName(of: name), to: planted, at: ContainerPath(target))
        }

        let live = try await PropfindMemberLookupTests.propfind(
            root: root, store: store, depth: "1",
            body: Self.prop("<D:getcontentlength/><D:getetag/><D:resourcetype/><oc:checksums/>"))
        let withDead = try await PropfindMemberLookupTests.propfind(
            root: root, store: store, depth: "1", body: Self.prop("<D:getcontentlength/><D:getetag/><e:author/>"))
        let all = try await PropfindMemberLookupTests.propfind(root: root, store: store, depth: "1", body: "")
        for body in [live, withDead, all] {
            #expect(!body.contains("planted"), "a live name took a dead value: \(body)")
        }
        #expect(!live.contains("Zoë"))
        #expect(withDead.contains(#"<ns0:author xmlns:ns0="urn:example:e">Zoë</ns0:author>"#), "\(withDead)")
        #expect(all.contains("Zoë"), "allprop lists the dead properties")
        // The folder's length is missing (404), not served from the planted attribute.
        #expect(live.components(separatedBy: "<D:getcontentlength/>").count > 1, "\(live)")
    }
}
