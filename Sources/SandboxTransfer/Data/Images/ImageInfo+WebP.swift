extension ImageInfo {
    /// WebP: a `RIFF` … `WEBP` file whose first chunk is one of
    /// - `VP8 ` (lossy): after the 3-byte frame tag, the start code `9D 01 2A`, then 14-bit width
    ///   and height (RFC 6386 §9.1; the top two bits are a scale);
    /// - `VP8L` (lossless): the signature `2F`, then width − 1 and height − 1 in 14 bits each;
    /// - `VP8X` (extended: alpha, animation, metadata): the canvas's width − 1 and height − 1 in 24
    ///   bits each (RFC 9649 §2.7).
    static func webp(_ reader: ByteReader) -> ImageInfo? {
        guard reader.matches(ascii: "RIFF", at: 0), reader.matches(ascii: "WEBP", at: 8),
            let chunk = reader.fourCC(at: 12), let chunkSize = reader.uint32(littleEndianAt: 16)
        else { return nil }
        let data = 20
        switch chunk {
        case "VP8 ":
            guard chunkSize >= 10, reader.matches([0x9D, 0x01, 0x2A], at: data + 3),
                let width = reader.uint16(littleEndianAt: data + 6),
                let height = reader.uint16(littleEndianAt: data + 8)
            else { return nil }
            return ImageInfo(format: .webp, width: width & 0x3FFF, height: height & 0x3FFF)
        case "VP8L":
            guard chunkSize >= 5, reader.uint8(at: data) == 0x2F, let bits = reader.uint32(littleEndianAt: data + 1)
            else { return nil }
            return ImageInfo(format: .webp, width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            guard chunkSize >= 10, let width = reader.uint24(littleEndianAt: data + 4),
                let height = reader.uint24(littleEndianAt: data + 7)
            else { return nil }
            return ImageInfo(format: .webp, width: width + 1, height: height + 1)
        default:
            return nil
        }
    }
}
