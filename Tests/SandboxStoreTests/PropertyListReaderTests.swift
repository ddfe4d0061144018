import Foundation
import SandboxStore
import Testing

/// The store's own property-list readers and writers, against Python's `plistlib` (the test
/// vectors below are its output) and against hostile input.
@Suite("Property-list readers")
struct PropertyListReaderTests {
    /// `plistlib.dumps(vector, fmt=FMT_BINARY, sort_keys=True)` of the values in ``check(_:)``.
    static let pythonBinary = [UInt8](
        hex:
            "62706c6973743030db0102030405060708090a0b0c0d0e0f1011121314151654626c6f62546564676553696e66536d696e536e616e576e65677a65726f546e696e66536f6c64547465787458756e7369676e65645577686f6c654700ff68656c6c6f1400000000000000008000000000000000237ff0000000000000138000000000000000237ff800000000000023800000000000000023fff000000000000033c212a05f200000005a610d0a622026203c633e140000000000000000ffffffffffffffff234000000000000000081f24292d31353d42464b545a62737c858e97a0a9b4c500000000000001010000000000000017000000000000000000000000000000ce"
    )

    /// The same with `fmt=FMT_XML` (its `\r\n` is read as `\n`, as XML requires).
    static let pythonXML = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>blob</key>
        \t<data>
        \tAP9oZWxsbw==
        \t</data>
        \t<key>edge</key>
        \t<integer>9223372036854775808</integer>
        \t<key>inf</key>
        \t<real>inf</real>
        \t<key>min</key>
        \t<integer>-9223372036854775808</integer>
        \t<key>nan</key>
        \t<real>nan</real>
        \t<key>negzero</key>
        \t<real>-0.0</real>
        \t<key>ninf</key>
        \t<real>-inf</real>
        \t<key>old</key>
        \t<date>1367-03-24T12:26:40Z</date>
        \t<key>text</key>
        \t<string>a\r\nb &amp; &lt;c&gt;</string>
        \t<key>unsigned</key>
        \t<integer>18446744073709551615</integer>
        \t<key>whole</key>
        \t<real>2.0</real>
        </dict>
        </plist>

        """.utf8
    )

    /// 1367-03-24T12:26:40Z, proleptic Gregorian, in seconds since 2001 (Python's `datetime`).
    static let old = -20_000_000_000.0

    /// Every value of the vector, with its exact type.
    func check(_ value: PreferenceValue, text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .dictionary(let values) = value else {
            Issue.record("not a dictionary: \(value)", sourceLocation: sourceLocation)
            return
        }
        #expect(values["unsigned"] == .unsignedInteger(.max), sourceLocation: sourceLocation)
        #expect(values["edge"] == .unsignedInteger(1 << 63), sourceLocation: sourceLocation)
        #expect(values["min"] == .integer(.min), sourceLocation: sourceLocation)
        #expect(values["whole"] == .double(2), "a whole real stays a real", sourceLocation: sourceLocation)
        guard case .double(let zero)? = values["negzero"], case .double(let nan)? = values["nan"] else {
            Issue.record("-0.0 or nan is not a real: \(values)", sourceLocation: sourceLocation)
            return
        }
        #expect(zero == 0 && zero.sign == .minus, "-0.0 keeps its sign", sourceLocation: sourceLocation)
        #expect(nan.isNaN, sourceLocation: sourceLocation)
        #expect(values["inf"] == .double(.infinity), sourceLocation: sourceLocation)
        #expect(values["ninf"] == .double(-.infinity), sourceLocation: sourceLocation)
        #expect(
            values["old"] == .date(Date(timeIntervalSinceReferenceDate: Self.old)), "proleptic Gregorian",
            sourceLocation: sourceLocation)
        #expect(values["text"] == .string(text), sourceLocation: sourceLocation)
        #expect(values["blob"] == .data(Data([0, 0xFF] + Array("hello".utf8))), sourceLocation: sourceLocation)
    }

    @Test("Python's binary and XML files read with every type exact: 2^64-1, reals, -0.0, nan, dates before 1582")
    func pythonVectors() throws {
        check(try PropertyList.value(from: Self.pythonBinary), text: "a\r\nb & <c>")
        check(try PropertyList.value(from: Self.pythonXML), text: "a\nb & <c>")
        // And through Codable.
        struct Sample: Decodable {
            var unsigned: UInt64
            var whole: Double
            var old: Date
        }
        for bytes in [Self.pythonBinary, Self.pythonXML] {
            let sample = try PropertyList.decode(Sample.self, from: bytes)
            #expect(sample.unsigned == .max)
            #expect(sample.whole == 2)
            #expect(sample.old.timeIntervalSinceReferenceDate == Self.old)
        }
    }

    @Test("what the writers write reads back with the same types, in both formats")
    func writersRoundTrip() throws {
        let value = try PropertyList.value(from: Self.pythonBinary)
        for format in PropertyListFormat.allCases {
            let bytes = try PropertyList.encode(value, format: format)
            #expect(PropertyListFormat.detect(bytes) == format)
            check(try PropertyList.value(from: bytes), text: "a\r\nb & <c>")  // a \r is written as &#13;
        }
        let xml = try #require(String(bytes: try PropertyList.encode(value, format: .xml), encoding: .utf8))
        #expect(xml.contains("<date>1367-03-24T12:26:40Z</date>"))
        #expect(xml.contains("<real>2.0</real>"))
        #expect(xml.contains("<real>-0.0</real>"))
        #expect(xml.contains("<integer>18446744073709551615</integer>"))
        // The binary writer stores 2^64-1 as Python does: a 16-byte integer.
        struct Unsigned: Codable { var v: UInt64 }
        #expect(
            try PropertyList.encode(Unsigned(v: .max))
                == [UInt8](
                    hex:
                        "62706c6973743030d101025176140000000000000000ffffffffffffffff080b0d000000000000010100000000000000030000000000000000000000000000001e"
                ))
        // Codable values written as XML keep their dates on the proleptic calendar too.
        struct When: Codable, Equatable { var when: Date }
        let when = When(when: Date(timeIntervalSinceReferenceDate: Self.old))
        let document = try PropertyList.encode(when, format: .xml)
        #expect(String(decoding: document, as: UTF8.self).contains("1367-03-24T12:26:40Z"))
        #expect(try PropertyList.decode(When.self, from: document) == when)
    }

    @Test("a string that starts with U+FEFF keeps it through XML (found by the fuzzer)")
    func leadingByteOrderMark() throws {
        let value = PreferenceValue.dictionary(["k": .string("\u{FEFF}x"), "\u{FEFF}key": .string("\u{FEFF}")])
        #expect(try PropertyList.value(from: try PropertyList.encode(value, format: .xml)) == value)
        #expect(try PropertyList.value(from: try PropertyList.encode(value, format: .binary)) == value)
        #expect(
            try PropertyList.value(from: Array("<plist><string>\u{FEFF}\u{FEFF}y</string></plist>".utf8))
                == .string("\u{FEFF}\u{FEFF}y"))
    }

    @Test("a string XML cannot carry is refused, not written damaged")
    func xmlControlCharacters() throws {
        let error = try #require(throws: SandboxError.self) {
            try PropertyList.encode(PreferenceValue.dictionary(["a": .string("bell\u{07}")]), format: .xml)
        }
        #expect(error.code == .encodingFailed)
        #expect(
            try PropertyList.value(
                from: try PropertyList.encode(PreferenceValue.dictionary(["a": .string("bell\u{07}")])))
                == .dictionary(["a": .string("bell\u{07}")]))
    }

    // MARK: Hostile binary files

    @Test("binary: a reference or offset of 2^63 and more is an error, not a crash")
    func hugeReferencesAndOffsets() throws {
        var references = BinaryPlistBuilder()
        references.referenceSize = 8
        references.addArray([1 << 63])
        var offsets = BinaryPlistBuilder()
        offsets.offsetSize = 8
        offsets.add([0x09])
        let cases: [(String, [UInt8])] = [
            ("reference 2^63", references.build(top: 0)),
            (
                "reference 2^64-1",
                {
                    var builder = BinaryPlistBuilder()
                    builder.referenceSize = 8
                    builder.addArray([.max])
                    return builder.build(top: 0)
                }()
            ),
            ("offset with the high bit set", offsets.build(top: 0, offsets: [1 << 63 | 8])),
            ("top object 2^63", offsets.build(top: 1 << 63)),
            ("object count 2^64-1", offsets.build(top: 0, objectCount: .max)),
            (
                "length 2^63",
                {
                    var builder = BinaryPlistBuilder()
                    builder.add([0x4F, 0x13] + BinaryPlistBuilder.bigEndian(1 << 63, size: 8))
                    return builder.build(top: 0)
                }()
            ),
        ]
        for (name, bytes) in cases {
            let error = try #require(throws: SandboxError.self, "\(name)") {
                try PropertyList.value(from: bytes, path: "Documents/x.plist")
            }
            #expect(error.code == .corrupt, "\(name): \(error)")
            #expect(error.message.contains("Documents/x.plist"), "\(name)")
        }
    }

    @Test("binary: one data object referenced a million times is refused by the bytes it would produce, at once")
    func sharedObjects() throws {
        var builder = BinaryPlistBuilder()
        let data = builder.addData(Array(repeating: 0xAB, count: 16 << 10))
        let hundred = builder.addArray(Array(repeating: data, count: 100))
        let top = builder.addArray(Array(repeating: hundred, count: 1000))
        let bytes = builder.build(top: top)
        #expect(bytes.count < 32 << 10)
        let clock = ContinuousClock()
        let started = clock.now
        let error = try #require(throws: SandboxError.self) {
            try PropertyList.value(from: bytes, path: "Documents/bomb.plist")
        }
        #expect(error.code == .tooLarge, "\(error)")
        #expect(error.message.contains("Documents/bomb.plist"))
        #expect(clock.now - started < .seconds(5))
        // Each reference counts: 100 × 16 KiB fits 2 MiB, 1,000 × that does not fit 64 MiB.
        let small = PropertyListLimits(maximumOutputSize: 2 << 20)
        #expect(throws: SandboxError.self) { try PropertyList.value(from: bytes, limits: small) }
        var one = builder
        let single = one.addArray([hundred])
        #expect(try PropertyList.value(from: one.build(top: single), limits: small) != .array([]))
        // The Codable path is bounded the same way.
        let decoded = try #require(throws: SandboxError.self) { try PropertyList.decode([[Data]].self, from: bytes) }
        #expect(decoded.code == .tooLarge)
    }

    @Test("binary: an array that contains itself, directly or not, is an error")
    func cycles() throws {
        var direct = BinaryPlistBuilder()
        direct.addArray([0])
        var indirect = BinaryPlistBuilder()
        indirect.addArray([1])
        indirect.addArray([2, 0])
        indirect.add([0x09])
        for bytes in [direct.build(top: 0), indirect.build(top: 0)] {
            let error = try #require(throws: SandboxError.self) { try PropertyList.value(from: bytes) }
            #expect(error.code == .corrupt, "\(error)")
        }
    }

    @Test("binary and XML: nesting past the depth limit is refused without touching the stack")
    func deepNesting() throws {
        let depth = 100_000
        var builder = BinaryPlistBuilder()
        builder.referenceSize = 4
        for level in 0..<depth - 1 { builder.addArray([UInt64(level + 1)]) }
        builder.add([0xA0])
        let xml = Array(
            ("<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
                + "</plist>").utf8)
        for bytes in [builder.build(top: 0), xml] {
            let error = try #require(throws: SandboxError.self) {
                try PropertyList.value(from: bytes, path: "Documents/deep.plist")
            }
            #expect(error.code == .tooLarge, "\(error)")
            #expect(error.message.contains("Documents/deep.plist"))
        }
    }

    @Test("XML: 10,000 levels are refused at once and 1,000 (under a raised limit) read in linear time")
    func xmlDepthAndTime() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Array(
                ("<?xml version=\"1.0\"?><plist>" + String(repeating: "<array>", count: depth) + "<true/>"
                    + String(repeating: "</array>", count: depth) + "</plist>").utf8)
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: SandboxError.self) { try PropertyList.value(from: nested(10_000)) }
        var value = try PropertyList.value(from: nested(1_000), limits: PropertyListLimits(maximumDepth: 1_001))
        #expect(clock.now - started < .seconds(2))
        var depth = 0
        while case .array(let values) = value, let first = values.first {
            value = first
            depth += 1
        }
        #expect(depth == 1_000)
        #expect(value == .bool(true))
    }

    @Test("XML: malformed documents are corrupt errors that name the file")
    func malformedXML() throws {
        let documents = [
            "<plist><dict><key>a</key></dict></plist>",
            "<plist><array><string>x</array></plist>",
            "<plist><string>&bogus;</string></plist>",
            "<!DOCTYPE plist [<!ENTITY a \"b\">]><plist><string>&a;</string></plist>",
            "<plist><integer>18446744073709551616</integer></plist>",
            "<plist><integer>-9223372036854775809</integer></plist>",
            "<plist><real>two</real></plist>",
            "<plist><date>2026-02-30T00:00:00Z</date></plist>",
            "<plist><data>!!!</data></plist>",
            "<plist>stray<true/></plist>",
            "<plist><true/><false/></plist>",
            "<plist><dict><string>no key</string></dict></plist>",
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>",
            "<plist><unknown/></plist>",
            "<plist><array>",
            // Character references: a sign, an empty number, past Unicode, a surrogate, NUL.
            "<plist><string>&#x+41;</string></plist>", "<plist><string>&#x;</string></plist>",
            "<plist><string>&#x110000;</string></plist>", "<plist><string>&#xD800;</string></plist>",
            "<plist><string>&#x0;</string></plist>", "<plist><string>&#x100000041;</string></plist>",
        ]
        for document in documents {
            let error = try #require(throws: SandboxError.self, "\(document)") {
                try PropertyList.value(from: Array(document.utf8), path: "Documents/bad.plist")
            }
            #expect(error.code == .corrupt, "\(document): \(error)")
            #expect(error.message.contains("Documents/bad.plist"), "\(document)")
        }
    }

    @Test("XML: what Apple's and Python's writers allow is read")
    func lenientXML() throws {
        let cases: [(String, PreferenceValue)] = [
            ("<plist version=\"1.0\"><dict/></plist>", .dictionary([:])),
            (
                "<plist><array><integer>0x1F</integer><integer> -5 </integer><real>1e3</real></array></plist>",
                .array([.integer(31), .integer(-5), .double(1000)])
            ),
            (
                "<plist><!-- a comment --><string><![CDATA[<raw & text>]]> and &#x263A;&#65;</string></plist>",
                .string("<raw & text> and ☺A")
            ),
            (
                "\u{FEFF}<?xml version=\"1.0\"?><plist><array><true></true><string/><data></data></array></plist>",
                .array([.bool(true), .string(""), .data(Data())])
            ),
            ("<plist><date>2001-01-01T00:00:00.250Z</date></plist>", .date(Date(timeIntervalSinceReferenceDate: 0.25))),
            ("<plist><real>+infinity</real></plist>", .double(.infinity)),
        ]
        for (document, expected) in cases {
            #expect(try PropertyList.value(from: Array(document.utf8)) == expected, "\(document)")
        }
    }
}
