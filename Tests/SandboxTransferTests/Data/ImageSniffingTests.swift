import Foundation
import SandboxTesting
import SandboxTransfer
import Testing

/// Image type and size from real files of each format, and nothing but `nil` from truncated,
/// damaged and hostile ones.
@Suite struct ImageSniffingTests {
    func withSamples(_ body: ([SampleImage]) throws -> Void) async throws {
        try await ScratchDirectory.with(prefix: "sandbox-images") { scratch in
            try body(try await SampleImage.make(in: scratch.path))
        }
    }

    @Test func realFilesOfEachFormat() async throws {
        try await withSamples { samples in
            for sample in samples {
                #expect(ImageInfo(sniffing: sample.bytes) == sample.expected, "\(sample)")
                #expect(ImageInfo(sniffing: Data(sample.bytes)) == sample.expected, "\(sample)")
            }
            let webp = samples.filter { $0.name.hasSuffix(".webp") }.map {
                String(decoding: $0.bytes[12..<16], as: UTF8.self)
            }
            #expect(Set(webp) == ["VP8 ", "VP8L", "VP8X"])  // each WebP header kind was covered
        }
    }

    /// Every prefix is either too short to say (`nil`) or says what the whole file says.
    @Test func truncatedFilesGiveNilOrTheRightAnswer() async throws {
        try await withSamples { samples in
            for sample in samples {
                for length in 0..<min(sample.bytes.count, 4096) {
                    let info = ImageInfo(sniffing: Array(sample.bytes.prefix(length)))
                    #expect(info == nil || info == sample.expected, "\(sample) cut at \(length)")
                }
                #expect(ImageInfo(sniffing: Array(sample.bytes.prefix(8))) == nil, "\(sample)")
            }
        }
    }

    /// Random damage to real files never crashes or hangs (the fuzz target does this at length).
    @Test func damagedFilesNeverCrash() async throws {
        try await withSamples { samples in
            var random = SplitMix(seed: 17)
            for sample in samples {
                for _ in 0..<2000 {
                    var bytes = Array(sample.bytes.prefix(2048))
                    for _ in 0...random.next(below: 8) {
                        bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next(below: 256))
                    }
                    if let info = ImageInfo(sniffing: bytes) { #expect(info.width > 0 && info.height > 0) }
                }
            }
        }
    }

    @Test func hostileISOMediaBoxes() {
        func box(_ type: String, _ content: [UInt8], size: UInt32? = nil) -> [UInt8] {
            be32(size ?? UInt32(8 + content.count)) + Array(type.utf8) + content
        }
        func fullBox(_ type: String, _ content: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + content) }
        let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let ispe = fullBox("ispe", be32(640) + be32(480))
        let valid = ftyp + fullBox("meta", box("iprp", box("ipco", ispe)))
        #expect(ImageInfo(sniffing: valid) == ImageInfo(format: .heic, width: 640, height: 480))
        let hostile: [(String, [UInt8])] = [
            ("no meta", ftyp),
            ("unknown brand", box("ftyp", Array("isomiso2".utf8)) + Array(valid.dropFirst(ftyp.count))),
            ("size 0: to the end", ftyp + box("mdat", [1, 2, 3], size: 0) + fullBox("meta", [])),
            ("64-bit size past the end", ftyp + be32(1) + Array("mdat".utf8) + be64(UInt64.max) + valid),
            ("64-bit size under its header", ftyp + be32(1) + Array("meta".utf8) + be64(8)),
            ("size under 8", ftyp + be32(7) + Array("meta".utf8) + [0, 0, 0, 0]),
            ("size past the end", ftyp + be32(0xFFFF_FFFF) + Array("meta".utf8)),
            ("empty meta", ftyp + box("meta", [])),
            ("ispe cut short", ftyp + fullBox("meta", box("iprp", box("ipco", fullBox("ispe", be32(640)))))),
            ("zero width", ftyp + fullBox("meta", box("iprp", box("ipco", fullBox("ispe", be32(0) + be32(480)))))),
        ]
        for (name, bytes) in hostile {
            #expect(ImageInfo(sniffing: bytes) == nil, "\(name)")
        }
        // an ipma that claims 2^32-1 entries: read up to its end, then the first ispe
        let endless =
            ftyp
            + fullBox(
                "meta", fullBox("pitm", [0, 1]) + box("iprp", box("ipco", ispe) + fullBox("ipma", be32(0xFFFF_FFFF))))
        #expect(ImageInfo(sniffing: endless) == ImageInfo(format: .heic, width: 640, height: 480))
        // the primary item's extents, not a thumbnail's listed first
        let thumbnail = fullBox("ispe", be32(160) + be32(120))
        let ipma = fullBox("ipma", be32(2) + [0, 1, 1, 0x81] + [0, 2, 1, 0x82])
        let primaryTwo =
            ftyp + fullBox("meta", fullBox("pitm", [0, 2]) + box("iprp", box("ipco", thumbnail + ispe) + ipma))
        #expect(ImageInfo(sniffing: primaryTwo) == ImageInfo(format: .heic, width: 640, height: 480))
    }

    @Test func hostileJPEGAndOthers() {
        let hostile: [(String, [UInt8])] = [
            ("segment length 0", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00]),
            ("segment length 1", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0]),
            ("fill bytes to the end", [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 100_000)),
            ("scan before a frame", [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02]),
            ("SOF cut short", [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01]),
            ("no marker", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x12, 0x34]),
            (
                "PNG with a bad IHDR",
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(14) + Array("IHDR".utf8) + be32(1) + be32(1)
            ),
            (
                "PNG of 2^31 columns",
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(0x8000_0000)
                    + be32(1)
            ),
            ("GIF cut short", Array("GIF89a".utf8) + [0x10]),
            (
                "WebP VP8 without its start code",
                Array("RIFF".utf8) + be32(0) + Array("WEBPVP8 ".utf8) + [10, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
            ),
            ("empty", []),
        ]
        for (name, bytes) in hostile {
            #expect(ImageInfo(sniffing: bytes) == nil, "\(name)")
        }
        // DHT (C4), JPG (C8) and DAC (CC) are not frames: the walk goes on to SOF2
        let jpeg: [UInt8] =
            [
                0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xCC, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xFF, 0xC2,
                0x00, 0x0B, 0x08,
            ]
            + [0x01, 0xDF, 0x02, 0x81, 0x01, 0x01, 0x11, 0x00]
        #expect(ImageInfo(sniffing: jpeg) == ImageInfo(format: .jpeg, width: 641, height: 479))
    }
}

func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

/// A seeded generator, so a failure can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
