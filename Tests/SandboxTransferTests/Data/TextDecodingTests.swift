import Foundation
import SandboxTransfer
import Testing

/// Charsets from byte-order marks and `Content-Type`, and what invalid bytes become.
@Suite struct TextDecodingTests {
    let text = "Ünïcødé ✓ 𝄞"

    func utf16(_ string: String, bigEndian: Bool) -> [UInt8] {
        string.utf16.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    func utf32(_ string: String, bigEndian: Bool) -> [UInt8] {
        string.unicodeScalars.flatMap { scalar -> [UInt8] in
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) }
            return bigEndian ? bytes.reversed() : bytes
        }
    }

    @Test func byteOrderMarksNameTheCharsetAndAreNotText() throws {
        let cases: [([UInt8], TextCharset)] = [
            ([0xEF, 0xBB, 0xBF] + Array(text.utf8), .utf8),
            ([0xFF, 0xFE] + utf16(text, bigEndian: false), .utf16LittleEndian),
            ([0xFE, 0xFF] + utf16(text, bigEndian: true), .utf16BigEndian),
            ([0xFF, 0xFE, 0x00, 0x00] + utf32(text, bigEndian: false), .utf32LittleEndian),
            ([0x00, 0x00, 0xFE, 0xFF] + utf32(text, bigEndian: true), .utf32BigEndian),
        ]
        for (bytes, charset) in cases {
            // the mark wins over a header that says otherwise
            for header in [nil, "text/plain", "text/plain; charset=iso-8859-1"] {
                let decoded = try #require(DecodedText(decoding: bytes, contentType: header))
                #expect(decoded == DecodedText(string: text, charset: charset, source: .byteOrderMark), "\(charset)")
            }
        }
    }

    @Test func theContentTypeCharsetInAnySpellingElseUTF8() throws {
        let latin = [UInt8]([0x63, 0x61, 0x66, 0xE9])
        for header in [
            "text/plain; charset=ISO-8859-1", "text/plain;charset=\"latin1\"", "TEXT/HTML; Charset = us-ascii",
            "text/plain; format=flowed; charset=windows-1252; charset=utf-8",
        ] {
            #expect(DecodedText(decoding: latin, contentType: header)?.string == "café", "\(header)")
        }
        #expect(
            DecodedText(decoding: utf16("ab", bigEndian: true), contentType: "text/plain; charset=UTF-16BE")?.string
                == "ab")
        #expect(
            DecodedText(decoding: utf16("ab", bigEndian: false), contentType: "text/plain; charset=utf-16")?.string
                == "ab")
        #expect(
            DecodedText(decoding: utf32("ab", bigEndian: true), contentType: "text/plain; charset=utf-32")?.string
                == "ab")
        let plain = try #require(DecodedText(decoding: Array(text.utf8), contentType: "application/json"))
        #expect(plain == DecodedText(string: text, charset: .utf8, source: .defaultCharset))
        #expect(DecodedText(decoding: latin, contentType: "text/plain; charset=shift_jis") == nil)
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        #expect(DecodedText(decoding: [0x61, 0xFF, 0x62], contentType: nil)?.string == "a\u{FFFD}b")
        #expect(DecodedText(decoding: [0xFF, 0xFE, 0x61, 0x00, 0x62], contentType: nil)?.string == "a\u{FFFD}")
        #expect(DecodedText(decoding: [0xFF, 0xFE, 0x00, 0xD8, 0x61, 0x00], contentType: nil)?.string == "\u{FFFD}a")
        #expect(
            DecodedText(decoding: [0xFF, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00], contentType: nil)?.string
                == "\u{FFFD}")
        // windows-1252: € at 0x80, and the five undefined bytes as the controls of the same value
        let undefined = DecodedText(
            decoding: [0x80, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0x9F], contentType: "text/plain; charset=cp1252")
        #expect(undefined?.string.unicodeScalars.map(\.value) == [0x20AC, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0x178])
        #expect(DecodedText(decoding: [UInt8](), contentType: nil)?.string == "")
    }

    @Test func mediaTypesParse() throws {
        let type = try #require(MediaType("Text/HTML ; charset=\"UTF-8\" ; q"))
        #expect(type.description == "text/html" && type.charset == "UTF-8" && type.isText)
        #expect(MediaType("application/vnd.api+json")?.isText == true)
        #expect(MediaType("image/png")?.isText == false)
        #expect(MediaType("nonsense") == nil && MediaType("") == nil && MediaType("a/b/c") == nil)
    }
}
