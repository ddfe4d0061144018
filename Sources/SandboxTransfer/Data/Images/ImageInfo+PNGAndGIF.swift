extension ImageInfo {
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// PNG: the signature, then the `IHDR` chunk (13 bytes) that must come first; width and height
    /// are 31-bit (PNG §11.2.2).
    static func png(_ reader: ByteReader) -> ImageInfo? {
        guard reader.matches(pngSignature, at: 0), reader.uint32(bigEndianAt: 8) == 13,
            reader.matches(ascii: "IHDR", at: 12),
            let width = reader.uint32(bigEndianAt: 16), let height = reader.uint32(bigEndianAt: 20),
            width <= Int(Int32.max), height <= Int(Int32.max)
        else { return nil }
        return ImageInfo(format: .png, width: width, height: height)
    }

    /// GIF: `GIF87a` or `GIF89a`, then the logical screen's width and height (little-endian).
    static func gif(_ reader: ByteReader) -> ImageInfo? {
        guard reader.matches(ascii: "GIF87a", at: 0) || reader.matches(ascii: "GIF89a", at: 0),
            let width = reader.uint16(littleEndianAt: 6), let height = reader.uint16(littleEndianAt: 8)
        else { return nil }
        return ImageInfo(format: .gif, width: width, height: height)
    }
}
