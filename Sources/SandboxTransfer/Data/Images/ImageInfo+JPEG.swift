extension ImageInfo {
    /// JPEG: after SOI (`FF D8`), walks the marker segments to the first start-of-frame (SOF0–SOF15:
    /// `FF C0`–`FF CF` except DHT `C4`, JPG `C8` and DAC `CC`), whose frame header holds the
    /// height, then the width (ITU T.81 §B.2.2). Markers without a length (RST0–7, TEM, a repeated
    /// SOI) are skipped, as are fill bytes (`FF FF …`). A scan or the end before any frame, a
    /// length under 2, or bytes that are not a marker where one must be, give `nil`. Each step
    /// moves forward, so the walk ends within the bytes given.
    static func jpeg(_ reader: ByteReader) -> ImageInfo? {
        guard reader.matches([0xFF, 0xD8, 0xFF], at: 0) else { return nil }
        var offset = 2
        while true {
            guard reader.uint8(at: offset) == 0xFF else { return nil }
            while reader.uint8(at: offset) == 0xFF { offset += 1 }
            guard let marker = reader.uint8(at: offset) else { return nil }
            offset += 1
            switch marker {
            case 0x01, 0xD0...0xD8:
                continue  // no length
            case 0x00, 0xD9, 0xDA:
                return nil  // a stuffed zero, EOI or SOS before any frame
            default:
                break
            }
            guard let length = reader.uint16(bigEndianAt: offset), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                // length (2), sample precision (1), number of lines (2), samples per line (2)
                guard length >= 7, let height = reader.uint16(bigEndianAt: offset + 3),
                    let width = reader.uint16(bigEndianAt: offset + 5)
                else { return nil }
                return ImageInfo(format: .jpeg, width: width, height: height)
            }
            offset += length
        }
    }
}
