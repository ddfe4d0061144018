import Foundation
import SandboxStore
import SandboxTesting
import Testing

/// Damage of every part of a protected file, or of the key bag, is an error, never other bytes.
@Suite("Data protection: damaged files")
struct ProtectedFileCorruptionTests {
    static let path = ContainerPath(constant: "Documents/four-segments")
    /// 3.5 segments of 64 KiB: three full segments and a partial final one.
    static let contents = (0..<(64 * 1024 * 7 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    static let headerSize = 22 + 60
    static let sealedSegment = 64 * 1024 + 16

    /// Writes the file, lets `damage` change its raw bytes, and expects a read to fail with `code`.
    func expectDamage(
        _ code: SandboxError.Code = .corrupt, sourceLocation: SourceLocation = #_sourceLocation,
        _ damage: (inout [UInt8]) -> Void
    ) throws {
        try ProtectionFixture.with { f in
            try f.protection.write(Self.contents, to: Self.path, in: f.root, protection: .complete)
            var raw = try f.rawBytes(Self.path.description)
            #expect(raw.count == Self.headerSize + 3 * Self.sealedSegment + 32 * 1024 + 16)
            damage(&raw)
            try f.replaceRawBytes(Self.path.description, raw)
            f.expect(code, sourceLocation: sourceLocation) {
                _ = try f.protection.readContents(of: Self.path, in: f.root)
            }
        }
    }

    @Test("a flipped bit in the wrapped file key") func wrappedKey() throws { try expectDamage { $0[40] ^= 0x01 } }
    @Test("another class in the header") func headerClass() throws { try expectDamage { $0[7] = 3 } }
    @Test("an unknown class in the header") func unknownClass() throws { try expectDamage { $0[7] = 99 } }
    @Test("a bad magic number is read as a plain file, not decrypted") func magic() throws {
        try ProtectionFixture.with { f in
            try f.protection.write(Self.contents, to: Self.path, in: f.root, protection: .complete)
            var raw = try f.rawBytes(Self.path.description)
            raw[0] = UInt8(ascii: "X")
            try f.replaceRawBytes(Self.path.description, raw)
            #expect(try f.protection.readContents(of: Self.path, in: f.root) == raw)
        }
    }
    @Test("a newer format version") func version() throws { try expectDamage(.newerVersion) { $0[6] = 2 } }
    @Test("a truncated header") func truncatedHeader() throws { try expectDamage { $0.removeSubrange(30...) } }
    @Test("a flipped bit in the second segment") func segment() throws {
        try expectDamage { $0[Self.headerSize + Self.sealedSegment + 100] ^= 0x80 }
    }
    @Test("truncated at a segment boundary") func truncatedAtBoundary() throws {
        try expectDamage { $0.removeSubrange((Self.headerSize + 3 * Self.sealedSegment)...) }
    }
    @Test("truncated inside the last segment") func truncatedInside() throws { try expectDamage { $0.removeLast(5) } }
    @Test("two segments swapped") func reordered() throws {
        try expectDamage { raw in
            let first = Self.headerSize..<Self.headerSize + Self.sealedSegment
            let second = first.upperBound..<first.upperBound + Self.sealedSegment
            let copy = Array(raw[first])
            raw.replaceSubrange(first, with: raw[second])
            raw.replaceSubrange(second, with: copy)
        }
    }
    @Test("a segment appended") func extended() throws {
        try expectDamage { raw in raw += raw[Self.headerSize..<Self.headerSize + Self.sealedSegment] }
    }

    @Test("a damaged wrapped class key in the key bag is corrupt, never garbage")
    func keyBagClassKey() throws {
        try ProtectionFixture.with { f in
            try f.protection.write(Self.contents, to: Self.path, in: f.root, protection: .complete)
            let bagPath = f.fixture.hostPath("Device/protection.keybag")
            let bag = try #require(FileManager.default.contents(atPath: bagPath))
            var object = try #require(JSONSerialization.jsonObject(with: bag) as? [String: Any])
            var keys = try #require(object["wrappedKeys"] as? [String: String])
            let encoded = try #require(keys["complete"])
            var sealed = try #require(Data(base64Encoded: encoded))
            sealed[20] ^= 0x04
            keys["complete"] = sealed.base64EncodedString()
            object["wrappedKeys"] = keys
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: bagPath))
            f.expect(.corrupt) { _ = try f.protection.readContents(of: Self.path, in: f.root) }
            try Data("{".utf8).write(to: URL(fileURLWithPath: bagPath))
            f.expect(.corrupt) { _ = try f.protection.readContents(of: Self.path, in: f.root) }
        }
    }

    @Test("random reads open only the segments they need, and still catch a truncated end")
    func ranges() throws {
        try ProtectionFixture.with { f in
            try f.protection.write(Self.contents, to: Self.path, in: f.root, protection: .complete)
            let cases = [
                0..<10, 65_530..<65_550, 100_000..<200_000, 229_000..<229_376, 229_370..<300_000, 400_000..<400_010,
            ]
            for range in cases {
                let expected = Array(
                    Self.contents[
                        min(range.lowerBound, Self.contents.count)..<min(range.upperBound, Self.contents.count)])
                #expect(try f.protection.readContents(of: Self.path, in: f.root, range: range) == expected, "\(range)")
            }
            var raw = try f.rawBytes(Self.path.description)
            raw[Self.headerSize + 3 * Self.sealedSegment + 7] ^= 1  // damage the last segment only
            try f.replaceRawBytes(Self.path.description, raw)
            #expect(
                try f.protection.readContents(of: Self.path, in: f.root, range: 0..<100)
                    == Array(Self.contents[0..<100]))
            f.expect(.corrupt) {
                _ = try f.protection.readContents(of: Self.path, in: f.root, range: 229_000..<229_010)
            }
            raw.removeSubrange((Self.headerSize + 3 * Self.sealedSegment)...)  // cut at a boundary
            try f.replaceRawBytes(Self.path.description, raw)
            f.expect(.corrupt) {
                _ = try f.protection.readContents(of: Self.path, in: f.root, range: 150_000..<150_010)
            }
            f.expect(.invalidValue) { _ = try f.protection.readContents(of: Self.path, in: f.root, range: -1..<3) }
        }
    }

    @Test("an empty file round-trips as one empty final segment")
    func empty() throws {
        try ProtectionFixture.with { f in
            try f.protection.write([], to: Self.path, in: f.root, protection: .completeUnlessOpen)
            #expect(try f.rawBytes(Self.path.description).count == 22 + 92 + 16)
            #expect(try f.protection.readContents(of: Self.path, in: f.root) == [])
        }
    }
}
