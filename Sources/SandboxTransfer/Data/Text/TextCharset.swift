import Foundation

/// A character encoding a body can be decoded from.
///
/// Labels are looked up as browsers do (the WHATWG Encoding Standard): `iso-8859-1`, `latin1` and
/// `us-ascii` mean windows-1252, which is what servers that send them almost always mean (it
/// differs from ISO-8859-1 only in bytes 0x80–0x9F, which are controls there and `€`, `„`, `…` and
/// so on here). `utf-16` without a byte-order mark means little-endian (as in browsers); `utf-32`
/// without one means big-endian (the Unicode Standard's default).
public enum TextCharset: String, Sendable, Hashable, CaseIterable {
    case utf8 = "UTF-8"
    case utf16LittleEndian = "UTF-16LE"
    case utf16BigEndian = "UTF-16BE"
    case utf32LittleEndian = "UTF-32LE"
    case utf32BigEndian = "UTF-32BE"
    case windows1252 = "windows-1252"

    /// The charset a label names (in any case, spaces trimmed); `nil` for one not supported.
    public init?(label: String) {
        let name = label.trimmingCharacters(in: .whitespaces).lowercased()
        guard let charset = Self.labels[name] else { return nil }
        self = charset
    }

    private static let labels: [String: TextCharset] = {
        var labels: [String: TextCharset] = [:]
        for label in ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"] {
            labels[label] = .utf8
        }
        for label in ["utf-16", "utf-16le", "unicode", "unicodefeff", "ucs-2", "csunicode", "iso-10646-ucs-2"] {
            labels[label] = .utf16LittleEndian
        }
        for label in ["utf-16be", "unicodefffe"] { labels[label] = .utf16BigEndian }
        for label in ["utf-32", "utf-32be"] { labels[label] = .utf32BigEndian }
        labels["utf-32le"] = .utf32LittleEndian
        for label in [
            "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso88591", "iso_8859-1",
            "iso_8859-1:1987", "iso-ir-100", "latin1", "l1", "csisolatin1", "cp819", "ibm819", "us-ascii", "ascii",
            "ansi_x3.4-1968", "iso-8859-1:1987",
        ] {
            labels[label] = .windows1252
        }
        return labels
    }()

    /// The charset of a byte-order mark at the start of `bytes`, and the mark's length. UTF-32's
    /// marks are looked for first (UTF-32LE's starts with UTF-16LE's).
    static func byteOrderMark(of bytes: UnsafeRawBufferPointer) -> (charset: TextCharset, length: Int)? {
        let marks: [([UInt8], TextCharset)] = [
            ([0xFF, 0xFE, 0x00, 0x00], .utf32LittleEndian), ([0x00, 0x00, 0xFE, 0xFF], .utf32BigEndian),
            ([0xEF, 0xBB, 0xBF], .utf8), ([0xFF, 0xFE], .utf16LittleEndian), ([0xFE, 0xFF], .utf16BigEndian),
        ]
        for (mark, charset) in marks where bytes.count >= mark.count && bytes.prefix(mark.count).elementsEqual(mark) {
            return (charset, mark.count)
        }
        return nil
    }

    /// Decodes `bytes` (without a byte-order mark); invalid sequences become U+FFFD.
    func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        switch self {
        case .utf8: return String(decoding: bytes, as: UTF8.self)
        case .utf16LittleEndian, .utf16BigEndian:
            return Self.decodeUnits(bytes, as: UTF16.self, bigEndian: self == .utf16BigEndian)
        case .utf32LittleEndian, .utf32BigEndian:
            return Self.decodeUnits(bytes, as: UTF32.self, bigEndian: self == .utf32BigEndian)
        case .windows1252: return Self.decodeWindows1252(bytes)
        }
    }

    /// Code units of `Codec` read in the given byte order, decoded by the standard library; a
    /// trailing incomplete unit becomes U+FFFD.
    private static func decodeUnits<Codec: UnicodeCodec>(
        _ bytes: UnsafeRawBufferPointer, as codec: Codec.Type, bigEndian: Bool
    ) -> String where Codec.CodeUnit: FixedWidthInteger {
        let width = MemoryLayout<Codec.CodeUnit>.size
        var units: [Codec.CodeUnit] = []
        units.reserveCapacity(bytes.count / width)
        var offset = 0
        while offset + width <= bytes.count {
            var unit: Codec.CodeUnit = 0
            for index in 0..<width {
                let byte = Codec.CodeUnit(bytes[offset + (bigEndian ? index : width - 1 - index)])
                unit = unit << 8 | byte
            }
            units.append(unit)
            offset += width
        }
        let text = String(decoding: units, as: Codec.self)
        return offset == bytes.count ? text : text + "\u{FFFD}"
    }

    /// Windows-1252 through Foundation, with the five bytes it leaves undefined (0x81, 0x8D, 0x8F,
    /// 0x90, 0x9D) mapped to the control characters of the same value, as browsers do (Foundation
    /// refuses them).
    private static func decodeWindows1252(_ bytes: UnsafeRawBufferPointer) -> String {
        var text = ""
        var runStart = 0
        func flush(upTo end: Int) {
            guard end > runStart else { return }
            let run = Data(bytes[runStart..<end])
            // Every byte of the run is defined in windows-1252, so Foundation decodes it.
            text += String(data: run, encoding: .windowsCP1252) ?? String(decoding: run, as: UTF8.self)
        }
        for (index, byte) in bytes.enumerated() where undefinedInWindows1252.contains(byte) {
            flush(upTo: index)
            text.unicodeScalars.append(Unicode.Scalar(byte))
            runStart = index + 1
        }
        flush(upTo: bytes.count)
        return text
    }

    private static let undefinedInWindows1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]
}
