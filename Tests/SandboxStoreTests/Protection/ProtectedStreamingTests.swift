import Foundation
import SandboxStore
import Testing

@Suite("Data protection: files sealed in stripes")
struct ProtectedStreamingTests {
    static let segment = 64 << 10

    /// Sizes around every boundary the striped write has: empty, one segment, one stripe (16
    /// segments), the stripes sealed ahead (3), and past them.
    @Test(
        "every size round-trips and takes header + plaintext + 16 bytes per segment on disk",
        arguments: [
            0, 1, segment - 1, segment, segment + 1, 16 * segment, 16 * segment + 1, 48 * segment + 7,
            70 * segment + 12_345,
        ]
    )
    func roundTrip(size: Int) throws {
        try ProtectionFixture.with { fixture in
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
            let path = ContainerPath(constant: "Documents/striped.bin")
            try fixture.protection.write(bytes, to: path, in: fixture.root, protection: .complete)
            #expect(try fixture.protection.readContents(of: path, in: fixture.root) == bytes)
            let raw = try fixture.rawBytes("Documents/striped.bin")
            let segments = max(1, (size + Self.segment - 1) / Self.segment)
            #expect(raw.count == 22 + 60 + size + 16 * segments)
        }
    }

    @Test("a damaged segment in any stripe of a large file is corrupt: no byte returned", arguments: [3, 17, 40, 69])
    func damageInAnyStripe(segment: Int) throws {
        try ProtectionFixture.with { fixture in
            let bytes = (0..<(70 * Self.segment)).map { UInt8(truncatingIfNeeded: $0 >> 3) }
            let path = ContainerPath(constant: "Documents/striped.bin")
            try fixture.protection.write(bytes, to: path, in: fixture.root, protection: .complete)
            var raw = try fixture.rawBytes("Documents/striped.bin")
            raw[22 + 60 + segment * (Self.segment + 16) + 100] ^= 0x20
            try fixture.replaceRawBytes("Documents/striped.bin", raw)
            fixture.expect(.corrupt) { _ = try fixture.protection.readContents(of: path, in: fixture.root) }
            raw[22 + 60 + segment * (Self.segment + 16) + 100] ^= 0x20
            raw.removeLast(Self.segment + 16)  // the last segment dropped: the new last is not final
            try fixture.replaceRawBytes("Documents/striped.bin", raw)
            fixture.expect(.corrupt) { _ = try fixture.protection.readContents(of: path, in: fixture.root) }
        }
    }
}
