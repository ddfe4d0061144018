import Foundation
import SandboxStore
import SandboxTesting
import Testing

/// The PyPI judges of the format, both ways: bpylist2 writes archives this store must read, and
/// bpylist2 and nska_deserialize read the archives this store writes. Each prints what it decoded
/// as canonical JSON (Fixtures/keyed-archive-judges.py), compared here exactly: a judge that
/// disagrees fails the test. scripts/install-test-tools installs them for /usr/bin/python3.
@Suite("NSKeyedArchiver archives: bpylist2 and nska_deserialize")
struct KeyedArchiveInteropTests {
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/keyed-archive-judges.py").path

    /// What `judge` (`bpylist2` or `nska`) decodes from `bytes`, as canonical JSON.
    static func judge(_ judge: String, _ bytes: [UInt8], in scratch: ScratchDirectory) async throws -> String {
        let file = scratch.appending("judged-\(judge).archive")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return try await run([judge, file], in: scratch)
    }

    static func run(_ arguments: [String], in scratch: ScratchDirectory) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("\(python) is missing: run scripts/install-test-tools")
        }
        let output = try await BuiltProgram(path: python).run([script] + arguments, outputIn: scratch.path)
        guard output.status == 0 else {
            throw TestFailure(
                "the judge \(arguments[0]) failed (\(output.status)); run scripts/install-test-tools for bpylist2 and nska_deserialize: \(output.stderr)"
            )
        }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let person = KeyedArchive.ArchivedClass("Person", classes: ["Person"])

    @Test("archives bpylist2 writes decode to the values it archived; its cycle reads as a graph")
    func readsBpylist2() async throws {
        try await ScratchDirectory.with(prefix: "keyed-archive") { scratch in
            _ = try await Self.run(["generate", scratch.path], in: scratch)
            func read(_ name: String) throws -> [UInt8] {
                Array(try Data(contentsOf: URL(fileURLWithPath: scratch.appending(name))))
            }
            let archive = try KeyedArchive(bytes: try read("bpylist2-values.archive"))
            let bob: ArchivedValue = .object(
                Self.person, fields: ["name": .string("Bob"), "age": .integer(40), "friend": .null])
            let expected: ArchivedValue = .dictionary([
                .string("name"): .string("Ada"), .string("text"): .string("héllo ✓"), .string("count"): .integer(3),
                .string("big"): .integer(-5_000_000_000), .string("ratio"): .double(0.5), .string("flag"): .bool(true),
                .string("off"): .bool(false), .string("blob"): .data(Data([0, 1, 0xFF])),
                .string("list"): .array([.string("a"), .string("b"), .string("a")]),
                .string("nested"): .dictionary([.string("x"): .array([.integer(1), .integer(2)])]),
                .string("when"): .date(Date(timeIntervalSinceReferenceDate: 1000.5)),
                .string("tags"): .set([.string("red")]),
                .string("none"): .null,
                .string("person"): .object(
                    Self.person, fields: ["name": .string("Ada"), "age": .integer(36), "friend": bob]),
            ])
            #expect(try archive.rootValue() == expected)

            let profile = try Archiver<Profile>(version: 4).unarchive(try read("bpylist2-profile.archive"))
            #expect(profile == Profile.sample)

            let cycle = try KeyedArchive(bytes: try read("bpylist2-cycle.archive"))
            let error = try #require(throws: SandboxError.self) { try cycle.rootValue() }
            #expect(error.code == .cyclicReference)
        }
    }

    struct Profile: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var blob: Data
        var list: [String]
        var when: Date
        var nickname: String?

        static let sample = Profile(
            name: "Ada", count: 3, ratio: 0.5, flag: true, blob: Data([0, 1]), list: ["a", "b"],
            when: Date(timeIntervalSinceReferenceDate: 1000.5), nickname: nil)
    }

    @Test("bpylist2 and nska_deserialize read what Archiver writes")
    func judgesReadArchiver() async throws {
        try await ScratchDirectory.with(prefix: "keyed-archive") { scratch in
            let bytes = try Archiver<Profile>(version: 2).archive(Profile.sample)
            let fields =
                #""blob": {"data": "0001"}, "count": 3, "flag": true, "list": ["a", "b"], "name": "Ada", "ratio": 0.5, "when": {"date": 1000.5}"#
            #expect(try await Self.judge("bpylist2", bytes, in: scratch) == "{\(fields)}")
            #expect(
                try await Self.judge("nska", bytes, in: scratch)
                    == #"{"SandboxStore.version": 2, "root": {"# + fields + "}}")
        }
    }

    @Test("bpylist2 and nska_deserialize read every kind of value this store writes, binary and XML")
    func judgesReadValues() async throws {
        try await ScratchDirectory.with(prefix: "keyed-archive") { scratch in
            let bob: ArchivedValue = .object(
                Self.person, fields: ["name": .string("Bob"), "age": .integer(40), "friend": .null])
            let root: ArchivedValue = .dictionary([
                .string("name"): .string("Ada"), .string("big"): .integer(-5_000_000_000),
                .string("ratio"): .double(0.5),
                .string("flag"): .bool(true), .string("blob"): .data(Data([0, 1, 0xFF])),
                .string("list"): .array([.string("a"), .string("b"), .string("a")]),
                .string("when"): .date(Date(timeIntervalSinceReferenceDate: 1000.5)),
                .string("tags"): .set([.string("red")]),
                .string("none"): .null,
                .string("id"): .uuid(try #require(UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))),
                .string("site"): .url(try #require(KeyedArchiveTests.swiftOrg)),
                .string("person"): .object(
                    Self.person, fields: ["name": .string("Ada"), "age": .integer(36), "friend": bob]),
            ])
            for format in PropertyListFormat.allCases {
                let bytes = try KeyedArchive(root: root).encoded(format: format)
                // bpylist2 reads binary archives only: Python's plistlib reads no UIDs in XML.
                if format == .binary {
                    let decoded = try await Self.judge("bpylist2", bytes, in: scratch)
                    #expect(
                        decoded
                            == #"{"big": -5000000000, "blob": {"data": "0001ff"}, "flag": true, "id": {"uuid": "71DC068E-3420-45FF-919E-3A267D55EC22"}, "list": ["a", "b", "a"], "name": "Ada", "none": null, "person": {"age": 36, "class": "Person", "friend": {"age": 40, "class": "Person", "friend": null, "name": "Bob"}, "name": "Ada"}, "ratio": 0.5, "site": {"url": "https://www.swift.org + index.xml"}, "tags": {"set": ["red"]}, "when": {"date": 1000.5}}"#
                    )
                }
                #expect(
                    try await Self.judge("nska", bytes, in: scratch)
                        == #"{"big": -5000000000, "blob": {"data": "0001ff"}, "flag": true, "id": "71DC068E-3420-45FF-919E-3A267D55EC22", "list": ["a", "b", "a"], "name": "Ada", "none": {}, "person": {"age": 36, "friend": {"age": 40, "friend": "", "name": "Bob"}, "name": "Ada"}, "ratio": 0.5, "site": {"NS.base": {"NS.base": "", "NS.relative": "https://www.swift.org"}, "NS.relative": "index.xml"}, "tags": ["red"], "when": {"date": 1000.5}}"#,
                    "\(format)")
            }
        }
    }
}
