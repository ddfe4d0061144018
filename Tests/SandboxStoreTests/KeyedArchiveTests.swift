import Foundation
import SandboxStore
import Testing

@Suite("NSKeyedArchiver archives")
struct KeyedArchiveTests {
    /// Archives made by Apple's Foundation (see Fixtures/KeyedArchives/README.md).
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/KeyedArchives/" + name)
        return Array(try Data(contentsOf: url))
    }

    static let swiftOrg = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org"))

    @Test("archives made by Apple's Foundation decode to the values Apple's tests archived")
    func appleFixtures() throws {
        let array = try KeyedArchive(bytes: try Self.fixture("NSKeyedUnarchiver-ArrayTest.plist"))
        #expect(try array.rootValue() == .array([.string("baa"), .string("baa"), .string("black"), .string("sheep")]))
        #expect(array.objects.filter { $0 == .value(.string("baa")) }.count == 1, "the shared string is stored once")

        let complex = try KeyedArchive(bytes: try Self.fixture("NSKeyedUnarchiver-ComplexTest.plist"))
        let uuid = try #require(UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
        let url = try #require(Self.swiftOrg)
        #expect(
            try complex.rootValue()
                == .dictionary([
                    .string("array"): .array([
                        .null, .string("hello"), .integer(34545), .dictionary([.string("key"): .string("val")]),
                    ]),
                    .string("string"): .string("hello"), .string("url"): .url(url), .string("uuid"): .uuid(uuid),
                ]))

        let relative = try KeyedArchive(bytes: try Self.fixture("NSKeyedUnarchiver-URLTest.plist")).rootValue()
        guard case .url(let read) = relative else {
            Issue.record("NSURL read as \(relative)")
            return
        }
        #expect(read.absoluteString == "https://www.example.com/foo.xml")
        #expect(read.relativeString == "foo.xml")

        let identifier = try KeyedArchive(bytes: try Self.fixture("NSKeyedUnarchiver-UUIDTest.plist")).rootValue()
        #expect(identifier == .uuid(try #require(UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))))

        for name in ["NSSet-Numbers.archive", "NSMutableSet-Numbers.archive"] {
            let set = try KeyedArchive(bytes: try Self.fixture(name)).rootValue()
            #expect(set == .set([3, 2, 5, 1, 4].map(ArchivedValue.integer)), "\(name)")
        }
    }

    struct Complex: Codable, Equatable {
        var string: String
        var uuid: UUID
        var url: URL
    }

    @Test("an archive made by Apple's Foundation decodes into Codable types (NSUUID into UUID, NSURL into URL)")
    func appleFixtureAsCodable() throws {
        let complex = try Archiver<Complex>(version: 1).unarchive(
            try Self.fixture("NSKeyedUnarchiver-ComplexTest.plist"), path: "Complex.plist")
        #expect(complex.string == "hello")
        #expect(complex.uuid == UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
        #expect(complex.url.absoluteString == "https://www.swift.org/index.xml")
    }

    static let relativeURL: URL = {
        guard let url = URL(string: "b/c.txt", relativeTo: URL(string: "https://example.com/a/")) else {
            preconditionFailure("the test URL does not parse")
        }
        return url
    }()

    static let note = KeyedArchive.ArchivedClass("Note", classes: ["Note", "Document", "NSObject"])

    static let everyKind: ArchivedValue = .dictionary([
        .string("string"): .string("héllo ✓"), .string("int"): .integer(-5_000_000_000),
        .string("unsigned"): .unsignedInteger(.max), .string("real"): .double(0.5), .string("yes"): .bool(true),
        .string("no"): .bool(false), .string("data"): .data(Data([0, 1, 0xFF])),
        .string("date"): .date(Date(timeIntervalSinceReferenceDate: 1000.5)),
        .string("array"): .array([.string("a"), .null, .integer(1)]), .string("set"): .set([.integer(2), .integer(1)]),
        .integer(7): .string("an integer key"),
        .string("uuid"): .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
        .string("url"): .url(Self.relativeURL),
        .string("object"): .object(
            note, fields: ["title": .string("t"), "count": .integer(2), "parent": .null, "body": .array([])]),
    ])

    @Test("every kind of value round-trips, binary and XML")
    func roundTrip() throws {
        for format in PropertyListFormat.allCases {
            let bytes = try KeyedArchive(root: Self.everyKind).encoded(format: format)
            #expect(PropertyListFormat.detect(bytes) == format)
            #expect(try KeyedArchive(bytes: bytes).rootValue() == Self.everyKind, "\(format)")
        }
    }

    @Test("0.0 and -0.0 are not shared as equal: the sign survives, in place and as NSNumber")
    func signedZeros() throws {
        let root: ArchivedValue = .array([
            .double(0), .double(-0.0),
            .object(Self.note, fields: ["a": .double(0)]), .object(Self.note, fields: ["a": .double(-0.0)]),
        ])
        let read = try KeyedArchive(bytes: try KeyedArchive(root: root).encoded()).rootValue()
        guard case .array(let values) = read, values.count == 4,
            case .double(let positive) = values[0], case .double(let negative) = values[1],
            case .object(_, let first) = values[2], case .double(let inPlacePositive)? = first["a"],
            case .object(_, let second) = values[3], case .double(let inPlaceNegative)? = second["a"]
        else {
            Issue.record("read as \(read)")
            return
        }
        #expect(positive.sign == .plus && negative.sign == .minus)
        #expect(inPlacePositive.sign == .plus && inPlaceNegative.sign == .minus)
    }

    @Test("equal objects are written once and referenced")
    func sharedObjects() throws {
        let page: ArchivedValue = .dictionary([.string("text"): .string("shared")])
        let archive = KeyedArchive(root: .array([page, page, .string("shared"), page]))
        #expect(archive.objects.filter { $0 == .value(.string("shared")) }.count == 1)
        let dictionaries = archive.objects.filter {
            guard case .instance(let description, _) = $0 else { return false }
            return archive.archivedClass(description)?.name == "NSDictionary"
        }
        #expect(dictionaries.count == 1)
        let read = try KeyedArchive(bytes: try archive.encoded())
        #expect(read.objects.count == archive.objects.count)
    }

    /// An array that contains itself: `[ "x", <itself> ]`.
    static let cycle = KeyedArchive(
        objects: [
            .null,
            .instance(class: KeyedArchive.Reference(2), fields: ["NS.objects": .references([.init(3), .init(1)])]),
            .archivedClass(.init("NSArray")), .value(.string("x")),
        ],
        top: ["root": .reference(.init(1))])

    @Test("a cycle is written and read back as a graph; as a value it is a precise error")
    func cycles() throws {
        let bytes = try Self.cycle.encoded()
        let read = try KeyedArchive(bytes: bytes, path: "Documents/cycle.archive")
        #expect(read == Self.cycle)
        let error = try #require(throws: SandboxError.self) { try read.rootValue(path: "Documents/cycle.archive") }
        #expect(error.code == .cyclicReference)
        #expect(error.code.rawValue == "cyclic-reference")
        #expect(error.message.contains("'Documents/cycle.archive'") && error.message.contains("object 1"))
        let archiver = try #require(throws: SandboxError.self) { try Archiver<[String]>(version: 1).unarchive(bytes) }
        #expect(archiver.code == .cyclicReference)
    }

    @Test("shared references that expand past the limits, and nesting past the depth, are refused")
    func expansionAndDepth() throws {
        // 40 arrays, each holding the previous one twice: 2⁴⁰ values from a file of a few KB.
        var objects: [KeyedArchive.Object] = [.null, .archivedClass(.init("NSArray")), .value(.string("lol"))]
        for level in 0..<40 {
            let previous = KeyedArchive.Reference(level == 0 ? 2 : objects.count - 1)
            objects.append(.instance(class: .init(1), fields: ["NS.objects": .references([previous, previous])]))
        }
        let bomb = try KeyedArchive(
            bytes: try KeyedArchive(objects: objects, top: ["root": .reference(.init(objects.count - 1))]).encoded())
        // Refused before anything is built: at once, under the default 64 MiB.
        let started = ContinuousClock.now
        let error = try #require(throws: SandboxError.self) { try bomb.rootValue(path: "bomb") }
        #expect(ContinuousClock.now - started < .seconds(1), "refused by counting, not by building")
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("'bomb'"))

        var deep: ArchivedValue = .string("bottom")
        for _ in 0..<20 { deep = .array([deep]) }
        let nested = try KeyedArchive(bytes: try KeyedArchive(root: deep).encoded())
        #expect(try nested.rootValue() == deep)
        let tooDeep = try #require(throws: SandboxError.self) {
            try nested.rootValue(limits: PropertyListLimits(maximumDepth: 10))
        }
        #expect(tooDeep.code == .tooLarge)
    }

    /// An XML archive whose `$objects` and `$top` are `objects` and `top` (XML text).
    static func xml(
        objects: String, top: String = "<key>root</key><dict><key>CF$UID</key><integer>1</integer></dict>"
    )
        -> [UInt8]
    {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$version</key><integer>100000</integer><key>$objects</key><array>\(objects)</array>
            <key>$top</key><dict>\(top)</dict></dict></plist>
            """.utf8)
    }

    @Test(
        "hostile archives are refused with corrupt and a message naming the part",
        arguments: [
            (
                "<string>$null</string><dict><key>$class</key><dict><key>CF$UID</key><integer>99</integer></dict></dict>",
                "refers to object 99"
            ),
            (
                "<string>$null</string><dict><key>$class</key><dict><key>CF$UID</key><string>2</string></dict></dict>",
                "malformed UID"
            ),
            (
                "<string>$null</string><dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict></dict><string>NSArray</string>",
                "not a class description"
            ),
            ("<string>nothing</string><string>x</string>", "'$objects' array starting with '$null'"),
            ("<string>$null</string><array/>", "object 1 is an array"),
            (
                "<string>$null</string><dict><key>x</key><integer>1</integer></dict>",
                "neither '$class' nor '$classname'"
            ),
        ])
    func hostile(objects: String, expected: String) throws {
        let error = try #require(throws: SandboxError.self) {
            try KeyedArchive(bytes: Self.xml(objects: objects), path: "Library/evil.archive")
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("'Library/evil.archive'"))
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test("Foundation's classes without their fields are corrupt, not a crash")
    func classesWithoutFields() throws {
        for name in ["NSUUID", "NSDate", "NSURL", "NSDictionary"] {
            let archive = try KeyedArchive(
                bytes: Self.xml(
                    objects: """
                        <string>$null</string><dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict>\
                        <key>NS.keys</key><array><dict><key>CF$UID</key><integer>0</integer></dict></array></dict>\
                        <dict><key>$classname</key><string>\(name)</string></dict>
                        """))
            let error = try #require(throws: SandboxError.self) { try archive.rootValue() }
            #expect(error.code == .corrupt, "\(name): \(error)")
        }
    }

    @Test("a binary UID of more than 8 bytes is a damaged property list")
    func oversizedUID() throws {
        var builder = BinaryPlistBuilder()
        let uid = builder.add([0x88] + [UInt8](repeating: 0, count: 9))
        let array = builder.addArray([uid])
        let error = try #require(throws: SandboxError.self) {
            try KeyedArchive(bytes: builder.build(top: array))
        }
        #expect(error.code == .corrupt)
    }

    struct Notes: Codable, Equatable {
        var titles: [String]
        var saved: Date
    }

    /// The store's earlier archive format, as existing files hold it.
    struct OldEnvelope: Codable {
        var archiver = "SandboxStore.Archiver"
        var version: Int
        var root: Notes
        enum CodingKeys: String, CodingKey {
            case archiver = "$archiver"
            case version = "$version"
            case root = "$root"
        }
    }

    @Test("Archiver writes NSKeyedArchiver archives and still reads its earlier format")
    func archiverFormats() throws {
        // Whole seconds: XML keeps no more.
        let notes = Notes(titles: ["a", "b"], saved: Date(timeIntervalSinceReferenceDate: 5))
        let archiver = Archiver<Notes>(version: 2)
        let written = try archiver.archive(notes)
        let archive = try KeyedArchive(bytes: written)
        #expect(archive.top["SandboxStore.version"] == .value(.integer(2)))
        #expect(
            try archive.rootValue()
                == .dictionary([
                    .string("titles"): .array([.string("a"), .string("b")]),
                    .string("saved"): .date(notes.saved),
                ]))
        #expect(try archiver.unarchive(written) == notes)
        for format in PropertyListFormat.allCases {
            let old = try PropertyList.encode(OldEnvelope(version: 2, root: notes), format: format)
            #expect(try archiver.unarchive(old) == notes)
            let older = try PropertyList.encode(OldEnvelope(version: 1, root: notes), format: format)
            let error = try #require(throws: SandboxError.self) { try archiver.unarchive(older) }
            #expect(error.code == .migrationFailed)
        }
        var wrongVersion = archive
        wrongVersion.top["SandboxStore.version"] = .value(.string("two"))
        let error = try #require(throws: SandboxError.self) {
            try archiver.unarchive(try wrongVersion.encoded(), path: "n.archive")
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("SandboxStore.version"))
    }
}
