import Logging
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// The store on a real directory (the scratch base must hold user xattrs: ext4, xfs, btrfs).
@Suite struct DeadPropertyStoreTests {
    static let logger = Logger(label: "sandbox.share.properties") { _ in SwiftLogNoOpLogHandler() }
    let author = PropertyName("http://example.com/ns", "author")
    let title = PropertyName("http://example.com/ns", "title")

    func withStore(_ body: (DeadPropertyStore, ConfinedRoot) throws -> Void) throws {
        try ScratchDirectory.with { scratch in
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            try root.writeContents(Array("x".utf8), to: ContainerPath("file.txt"))
            try root.createDirectory(at: ContainerPath("dir"))
            try body(DeadPropertyStore(root: root, logger: Self.logger), root)
        }
    }

    let file = ContainerPath(constant: "file.txt")

    @Test func setsReadsAndRemoves() throws {
        try withStore { store, _ in
            let body = """
                <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:e="http://example.com/ns">\
                <D:set><D:prop><e:author><e:name xmlns:e="urn:other">Zoë &amp; co</e:name></e:author>\
                <e:title>T</e:title></D:prop></D:set></D:propertyupdate>
                """
            let request = try ProppatchRequest.parse(Array(body.utf8))
            #expect(try store.apply(request.operations, at: file) == [author: 200, title: 200])
            let properties = try store.properties(at: file)
            guard case .set(_, let value) = request.operations[0] else {
                Issue.record("not a set")
                return
            }
            #expect(properties == [author: value, title: "T"], "values come back as they were given")
            #expect(try store.names(at: file) == [author, title])
            let never = PropertyName("urn:x", "never-set")
            #expect(try store.apply([.remove(title), .remove(never)], at: file) == [title: 200, never: 200])
            #expect(try store.names(at: file) == [author])
        }
    }

    @Test func aProtectedPropertyFailsTheWholeRequest() throws {
        try withStore { store, _ in
            _ = try store.apply([.set(author, value: "old")], at: file)
            let statuses = try store.apply(
                [.set(author, value: "new"), .set(title, value: "t"), .remove(.dav("getetag"))], at: file)
            #expect(statuses == [author: 424, title: 424, .dav("getetag"): 403])
            #expect(try store.properties(at: file) == [author: "old"], "the operations before it were undone")
        }
    }

    @Test func anOversizedValueIs507AndChangesNothing() throws {
        try withStore { store, _ in
            _ = try store.apply([.set(author, value: "old")], at: file)
            let huge = String(repeating: "a", count: DeadPropertyStore.maximumValueSize + 1)
            let statuses = try store.apply([.remove(author), .set(title, value: huge)], at: file)
            #expect(statuses == [author: 424, title: 507])
            #expect(try store.properties(at: file) == [author: "old"])
        }
    }

    /// ext4 keeps an item's xattrs in one 4 KiB block (without `ea_inode`): a 20 KiB value is
    /// under the store's cap, and the file system refuses it with ENOSPC or E2BIG.
    @Test func aValueTheFileSystemCannotHoldIs507AndChangesNothing() throws {
        try withStore { store, _ in
            _ = try store.apply([.set(author, value: "old")], at: file)
            let large = String(repeating: "b", count: 20 * 1024)
            let statuses = try store.apply([.set(author, value: "new"), .set(title, value: large)], at: file)
            if statuses[title] == 200 {
                #expect(try store.properties(at: file) == [author: "new", title: large], "this file system holds it")
            } else {
                #expect(statuses == [author: 424, title: 507])
                #expect(try store.properties(at: file) == [author: "old"])
            }
        }
    }

    @Test func theNumberOfPropertiesIsCapped() throws {
        try withStore { store, root in
            let store = DeadPropertyStore(root: root, maximumPropertyCount: 5, logger: Self.logger)
            let names = (0..<5).map { PropertyName("urn:n", "p\($0)") }
            let statuses = try store.apply(names.map { .set($0, value: "") }, at: file)
            #expect(statuses.values.allSatisfy { $0 == 200 })
            let more = PropertyName("urn:n", "one-more")
            #expect(try store.apply([.set(more, value: "")], at: file) == [more: 507])
            #expect(try store.apply([.set(names[0], value: "replaced")], at: file) == [names[0]: 200])
            #expect(try store.properties(at: file).count == 5)
        }
    }

    @Test func hostileAttributesAreSkipped() throws {
        let kept = "<ns0:x xmlns:ns0=\"urn:e\">kept</ns0:x>"
        try withStore { store, root in
            // The value as the PROPPATCH parser gives it: prefixes renamed, namespaces declared.
            _ = try store.apply([.set(author, value: kept)], at: file)
            let titleAttribute = DeadPropertyRecord.attributeName(of: title)
            let valid = DeadPropertyRecord(name: title, value: "fine").encoded
            let hostile: [[UInt8]] = [
                [], [0x53, 0x44, 0x50], Array("not a record".utf8), valid.dropLast(5) + [0xFF, 0xFE],
                Array(valid.prefix(8)) + [0xFF, 0xFF, 0xFF, 0xFF],  // a length past the end
                DeadPropertyRecord(name: title, value: "<open>").encoded,  // ill-formed XML
                DeadPropertyRecord(name: title, value: "</a><injected/>").encoded,
                DeadPropertyRecord(name: PropertyName("urn:e", "other"), value: "x").encoded,  // wrong digest
                DeadPropertyRecord(name: PropertyName("urn:e", ""), value: "x").encoded,
            ]
            for bytes in hostile {
                try root.setExtendedAttribute(named: titleAttribute, to: bytes, at: file)
                #expect(try store.properties(at: file) == [author: kept], "\(bytes)")
            }
            try root.setExtendedAttribute(named: "user.sandbox.dav.", to: [1, 2, 3], at: file)
            try root.setExtendedAttribute(named: "user.other", to: valid, at: file)
            try root.setExtendedAttribute(named: titleAttribute, to: valid, at: file)
            #expect(try store.properties(at: file) == [author: kept, title: "fine"])
        }
    }

    @Test func aMissingItemIsNotFound() throws {
        try withStore { store, _ in
            let error = #expect(throws: SandboxError.self) { try store.properties(at: ContainerPath("missing")) }
            #expect(error?.code == .notFound)
            let applyError = #expect(throws: SandboxError.self) {
                try store.apply([.set(author, value: "a")], at: ContainerPath("missing"))
            }
            #expect(applyError?.code == .notFound)
        }
    }

    /// The core's copy and move carry user xattrs, so dead properties follow COPY and MOVE; a
    /// depth-0 COPY of a collection copies them with ``DeadPropertyStore/copy(from:to:)``.
    @Test func propertiesFollowCopyAndMove() throws {
        try withStore { store, root in
            _ = try store.apply([.set(author, value: "a")], at: file)
            _ = try store.apply([.set(title, value: "d")], at: ContainerPath("dir"))
            try root.writeContents([1], to: ContainerPath("dir/inner"))
            _ = try store.apply([.set(title, value: "i")], at: ContainerPath("dir/inner"))

            _ = try root.copyItem(from: file, to: ContainerPath("copy.txt"))
            #expect(try store.properties(at: ContainerPath("copy.txt")) == [author: "a"])
            try root.moveItem(from: ContainerPath("copy.txt"), to: ContainerPath("moved.txt"))
            #expect(try store.properties(at: ContainerPath("moved.txt")) == [author: "a"])
            _ = try root.copyItem(from: ContainerPath("dir"), to: ContainerPath("tree"))
            #expect(try store.properties(at: ContainerPath("tree")) == [title: "d"])
            #expect(try store.properties(at: ContainerPath("tree/inner")) == [title: "i"])
            try root.createDirectory(at: ContainerPath("shallow"))
            try store.copy(from: ContainerPath("dir"), to: ContainerPath("shallow"))
            #expect(try store.properties(at: ContainerPath("shallow")) == [title: "d"])
        }
    }
}
