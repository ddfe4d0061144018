import Foundation
import SandboxStore
import Testing

/// Every property-list type at once.
struct Everything: Codable, Equatable {
    var string: String
    var integer: Int
    var negative: Int64
    var huge: UInt64
    var double: Double
    var flag: Bool
    var date: Date
    var data: Data
    var array: [String]
    var nested: [String: [Int]]
    var optional: String?
    var inner: Inner

    struct Inner: Codable, Equatable {
        var values: [Double]
        var when: [Date]
    }

    static let sample = Everything(
        string: "héllo, wörld ✓",
        integer: 42,
        negative: -1_234_567_890_123,
        huge: .max,
        double: 3.141_592_653_589_793,
        flag: true,
        date: Date(timeIntervalSinceReferenceDate: 784_111_777.123_456),
        data: Data([0, 1, 2, 0xFE, 0xFF]),
        array: ["a", "", "c"],
        nested: ["primes": [2, 3, 5, 7], "empty": []],
        optional: nil,
        inner: Inner(values: [0.5, -0.25], when: [Date(timeIntervalSinceReferenceDate: 0.001)])
    )
}

@Suite("Property lists")
struct PropertyListTests {
    let path = ContainerPath(constant: "Documents/everything.plist")

    @Test("binary round trip of every type, dates to the sub-second")
    func binaryRoundTrip() throws {
        try Fixture.with { fixture in
            try fixture.container.writePropertyList(Everything.sample, to: path)
            let read = try fixture.container.readPropertyList(Everything.self, from: path)
            #expect(read == Everything.sample)
            #expect(read.date.timeIntervalSinceReferenceDate == 784_111_777.123_456)
            #expect(try fixture.container.propertyListFormat(at: path) == .binary)
        }
    }

    @Test("XML round trip, format detected on read; XML dates are whole seconds as on Apple platforms")
    func xmlRoundTrip() throws {
        try Fixture.with { fixture in
            var sample = Everything.sample
            sample.date = Date(timeIntervalSinceReferenceDate: 784_111_777)
            sample.inner.when = [Date(timeIntervalSinceReferenceDate: 12)]
            try fixture.container.writePropertyList(sample, to: path, format: .xml)
            #expect(try fixture.container.propertyListFormat(at: path) == .xml)
            let text = try #require(String(bytes: try fixture.container.root.readContents(of: path), encoding: .utf8))
            #expect(text.hasPrefix("<?xml"))
            #expect(try fixture.container.readPropertyList(Everything.self, from: path) == sample)
        }
    }

    @Test("binary output is byte-stable: golden bytes")
    func goldenBytes() throws {
        struct Golden: Codable {
            var name = "notes"
            var count = 3
            var ratio = 0.5
            var on = true
            var when = Date(timeIntervalSinceReferenceDate: 1.5)
            var blob = Data([0xCA, 0xFE])
            var tags = ["a", "b"]
        }
        let bytes = try PropertyList.encode(Golden())
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.golden)
        #expect(try PropertyList.encode(Golden()) == bytes)
    }

    static let golden =
        "62706c6973743030d70102030405060708090a0b0c0d0e546e616d6555636f756e7455726174696f526f6e547768656e5462"
        + "6c6f625474616773556e6f7465731003233fe000000000000009333ff800000000000042cafea20f105161516208171c2228"
        + "2b30353a40424b4c55585b5d000000000000010100000000000000110000000000000000000000000000005f"

    @Test("malformed and truncated files are clear errors and are left as they were")
    func malformed() throws {
        try Fixture.with { fixture in
            let good = try PropertyList.encode(Everything.sample)
            let cases: [(String, [UInt8], SandboxError.Code)] = [
                ("empty", [], .corrupt),
                ("text", Array("just some text".utf8), .corrupt),
                ("truncated header", Array(good.prefix(6)), .corrupt),
                ("truncated body", Array(good.prefix(good.count / 2)), .corrupt),
                ("no trailer", Array(good.dropLast(16)), .corrupt),
                ("broken xml", Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8), .corrupt),
                ("wrong shape", try PropertyList.encode(["string": 5]), .typeMismatch),
            ]
            for (name, bytes, code) in cases {
                try fixture.container.root.writeContents(bytes, to: path)
                let error = try #require(throws: SandboxError.self, "\(name)") {
                    try fixture.container.readPropertyList(Everything.self, from: path)
                }
                #expect(error.code == code, "\(name): \(error)")
                #expect(error.message.contains("Documents/everything.plist"), "\(name): \(error)")
                #expect(try fixture.container.root.readContents(of: path) == bytes, "\(name): the file changed")
            }
        }
    }

    @Test("every truncation and every flipped bit of a binary plist throws or decodes, never crashes")
    func fuzz() throws {
        let good = try PropertyList.encode(Everything.sample)
        var thrown = 0
        for length in 0..<good.count {
            do {
                _ = try PropertyList.decode(Everything.self, from: Array(good.prefix(length)))
            } catch {
                thrown += 1
            }
        }
        #expect(thrown == good.count)
        for index in good.indices {
            var damaged = good
            damaged[index] ^= 0x10
            _ = try? PropertyList.decode(Everything.self, from: damaged)  // any outcome but a crash
        }
    }

    @Test("an unencodable value is an error and nothing is written")
    func unencodable() throws {
        try Fixture.with { fixture in
            let error = try #require(throws: SandboxError.self) { try fixture.container.writePropertyList(5, to: path) }
            #expect(error.code == .encodingFailed)
            #expect(try fixture.container.root.itemExists(at: path) == false)
        }
    }

    @Test("Library/Preferences and the Inbox are not written by the general API")
    func policy() throws {
        try Fixture.with { fixture in
            for target in [
                "Library/Preferences/x.plist", "Documents/../Library/Preferences/y.plist", "Documents/Inbox/z.plist",
            ] {
                let error = try #require(throws: SandboxError.self) {
                    try fixture.container.writePropertyList(["a": 1], to: ContainerPath(target))
                }
                #expect(error.code == .readOnly, "\(target)")
            }
            let escape = try #require(throws: SandboxError.self) { try ContainerPath("../outside.plist") }
            #expect(escape.code == .escapesContainer)
        }
    }

    @Test("a link the app planted does not lead the general API into Library/Preferences or the Inbox")
    func policyThroughLinks() throws {
        try Fixture.with { fixture in
            let home = fixture.container.homeDirectory
            try FileManager.default.createDirectory(
                atPath: home + "/Documents/Inbox", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: home + "/Documents/prefs", withDestinationPath: "../Library/Preferences")
            try FileManager.default.createSymbolicLink(
                atPath: home + "/tmp/inbox", withDestinationPath: "../Documents/Inbox")
            for target in ["Documents/prefs/x.plist", "tmp/inbox/z.plist", "tmp/inbox/../Inbox/z.plist"] {
                let error = try #require(throws: SandboxError.self) {
                    try fixture.container.writePropertyList(["a": 1], to: ContainerPath(target))
                }
                #expect(error.code == .readOnly, "\(target)")
                #expect(error.message.contains("which leads to"), "\(error.message)")
            }
            let archive = try #require(throws: SandboxError.self) {
                try fixture.container.writeArchive(
                    ["a"], with: Archiver<[String]>(version: 1), to: ContainerPath("Documents/prefs/a.archive"))
            }
            #expect(archive.code == .readOnly)
            #expect(!FileManager.default.fileExists(atPath: home + "/Library/Preferences/x.plist"))
            try fixture.container.writePropertyList(["a": 1], to: ContainerPath("Documents/fine.plist"))
        }
    }
}
