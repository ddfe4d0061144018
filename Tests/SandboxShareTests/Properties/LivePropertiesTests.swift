import Foundation
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

@Suite struct LivePropertiesTests {
    static func attributes(
        type: ItemType = .regular, size: Int64 = 1234, modified: TimeInterval = 784_111_777.5, created: Date? = nil
    ) throws -> FileAttributes {
        try ScratchDirectory.with { scratch in
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            try root.writeContents([1], to: ContainerPath("f"))
            var attributes = try #require(try root.attributes(at: ContainerPath("f")))
            attributes.type = type
            attributes.size = size
            attributes.inode = 0xabc
            attributes.modificationDate = Date(timeIntervalSince1970: modified)
            attributes.creationDate = created
            return attributes
        }
    }

    @Test func entityTagsNameInodeSizeAndModification() throws {
        let attributes = try Self.attributes()
        #expect(EntityTag.of(attributes) == "\"abc-4d2-\(String(Int64(784_111_777_500_000_000), radix: 16))\"")
        var rewritten = attributes
        rewritten.modificationDate += 0.001
        #expect(EntityTag.of(rewritten) != EntityTag.of(attributes))
        var resized = attributes
        resized.size += 1
        #expect(EntityTag.of(resized) != EntityTag.of(attributes))
        // Every digit count, zero and the extremes: the same as `String(_:radix:)` would write.
        for (inode, size) in [(UInt64(0), Int64(0)), (.max, .max), (0x10, 0xF), (0x1234_5678_9abc, -1)] {
            var other = attributes
            other.inode = inode
            other.size = size
            other.modificationDate = Date(timeIntervalSince1970: -1.5)
            let expected =
                "\"\(String(inode, radix: 16))-\(String(UInt64(bitPattern: size), radix: 16))-"
                + "\(String(UInt64(bitPattern: -1_500_000_000), radix: 16))\""
            #expect(EntityTag.of(other) == expected)
            var bytes: [UInt8] = []
            EntityTag.append(other, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == expected, "what a listing writes in place")
        }
    }

    @Test func datesAreRFC1123AndRFC3339() {
        let date = Date(timeIntervalSince1970: 881_084_541.9)
        #expect(PropertyDates.lastModified(date) == "Tue, 02 Dec 1997 17:42:21 GMT")
        #expect(PropertyDates.creationDate(date) == "1997-12-02T17:42:21Z")
        #expect(PropertyDates.creationDate(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test(arguments: [
        ("a.html", "text/html; charset=utf-8"), ("A.PNG", "image/png"), ("x.tar.gz", "application/gzip"),
        ("noextension", "application/octet-stream"), (".hidden", "application/octet-stream"),
        ("trailing.", "application/octet-stream"), ("v.mov", "video/quicktime"), ("d.pdf", "application/pdf"),
    ])
    func contentTypesByExtension(name: String, type: String) {
        #expect(ContentType.forName(name) == type)
    }

    @Test func activeTypesAreFlagged() {
        #expect(ContentType.isActive("page.HTM") && ContentType.isActive("i.svg") && ContentType.isActive("x.xml"))
        #expect(!ContentType.isActive("photo.jpg") && !ContentType.isActive("notes.txt"))
        #expect(ContentType.isActive("app.MJS") && ContentType.isActive("café.xhtml"))
        #expect(
            !ContentType.isActive("page.html.txt") && !ContentType.isActive(".html") && !ContentType.isActive("html"))
        let described = ContentType.of("Résumé.HTML")
        #expect(described.type == "text/html; charset=utf-8" && described.isActive)
    }

    @Test func fileProperties() throws {
        let item = ItemSnapshot(
            path: try sharePath("/docs/a<b>.txt"), attributes: try Self.attributes(), isCollection: false)
        let lock = ActiveLock(
            token: "urn:uuid:1", root: try sharePath("/docs"), rootIsCollection: true, depth: .infinity,
            scope: .exclusive, owner: nil, timeoutSeconds: nil, expiry: nil)
        var volume = try ScratchDirectory.with { try ConfinedRoot(openingDirectoryAt: $0.path).volumeValues() }
        (volume.capacity, volume.freeBytes, volume.availableBytes) = (1000, 300, 200)
        let context = PropertyContext(locks: [lock], now: .zero, volume: volume)
        func value(_ name: String) -> String? { LiveProperties.value(of: .dav(name), for: item, context: context) }
        #expect(value("displayname") == "a&lt;b&gt;.txt")
        #expect(value("getcontentlength") == "1234")
        #expect(value("getcontenttype") == "text/plain; charset=utf-8")
        #expect(value("getetag") == EntityTag.of(item.attributes), "quotes need no escaping in text")
        #expect(value("getlastmodified") == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(value("creationdate") == "1994-11-06T08:49:37Z", "the modification time stands in for a birth time")
        #expect(value("resourcetype") == "")
        #expect(value("lockdiscovery") == lock.activeLockXML(now: .zero))
        #expect(value("supportedlock")?.contains("<D:shared/>") == true)
        #expect(value("quota-available-bytes") == "200")
        #expect(value("quota-used-bytes") == "700")
        #expect(value("nonsense") == nil)
        #expect(LiveProperties.value(of: PropertyName("urn:x", "getetag"), for: item, context: context) == nil)
    }

    @Test func collectionProperties() throws {
        let item = ItemSnapshot(path: .root, attributes: try Self.attributes(type: .directory), isCollection: true)
        let context = PropertyContext(locks: [], now: .zero, volume: nil)
        func value(_ name: String) -> String? { LiveProperties.value(of: .dav(name), for: item, context: context) }
        #expect(value("resourcetype") == "<D:collection/>")
        #expect(value("displayname") == "")
        #expect(value("lockdiscovery") == "")
        let undefinedNames = [
            "getcontentlength", "getcontenttype", "getetag", "quota-available-bytes", "quota-used-bytes",
        ]
        for undefined in undefinedNames {
            #expect(value(undefined) == nil, "\(undefined)")
        }
    }

    @Test func allpropLeavesTheQuotasOutAndEveryLivePropertyIsProtected() {
        #expect(LiveProperties.allPropNames.count == 9)
        #expect(!LiveProperties.allPropNames.contains(.dav("quota-used-bytes")))
        for name in LiveProperties.names { #expect(LiveProperties.isProtected(name)) }
        #expect(!LiveProperties.isProtected(PropertyName("http://example.com/", "getetag")))
    }
}
