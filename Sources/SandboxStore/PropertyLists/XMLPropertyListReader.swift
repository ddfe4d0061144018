import Foundation
import SandboxCore

/// Reads an XML property list (UTF-8) into a ``PreferenceValue`` — our own small reader, so that
/// untrusted XML never reaches Foundation's recursive scanner (which overflows the stack at
/// 10,000 levels).
///
/// It reads what Apple's and Python's writers produce: an optional `<?xml?>` declaration,
/// `<!DOCTYPE plist …>` (without an internal subset: no entity declarations are read), comments,
/// `<plist>` around the value or not; `dict`, `key`, `array`, `string`, `integer` (decimal or
/// `0x` hex, −2⁶³…2⁶⁴−1 exactly), `real` (`-0.0`, `nan`, `inf`, `+infinity` included: a real stays
/// a real), `date` (proleptic Gregorian, see ``PropertyListDate``), `data` (base64), `true`,
/// `false`; the five XML entities, character references and CDATA sections. Line ends are
/// normalized to `\n` as XML requires.
///
/// One pass, iterative, bounded by ``PropertyListLimits``: time is linear in the input.
///
/// It is not built on the package's XML reader (``XMLDocumentParser``, which reads WebDAV bodies
/// and S3 answers), and should stay apart: that reader builds a whole tree through libxml2 and
/// refuses any `<!DOCTYPE`, while property lists carry one; libxml2 stops at 256 levels, below
/// the 512 ``PropertyListLimits`` accept; its bounds are the document's (bytes, depth, elements,
/// text), while ``PropertyListLimits`` bound the value as it is assembled (the bytes produced,
/// counted the same way as the binary reader, which shares ``PropertyListAssembler``) in the same
/// pass as the tokenizing, so a whole tree is never held; and libxml2 is not instrumented for
/// the `xml-plist` fuzz target, whose coverage of this Swift tokenizer would be lost. There is no
/// Swift tokenizer on the other side to share.
struct XMLPropertyListReader {
    private let bytes: [UInt8]
    private var position = 0
    private var assembler: PropertyListAssembler
    /// The containers open, innermost last, to match end tags.
    private var open: [String] = []

    static func read(
        _ bytes: [UInt8], limits: PropertyListLimits = .default
    ) throws(PropertyListReadFailure) -> PreferenceValue {
        var reader = XMLPropertyListReader(bytes: bytes, assembler: PropertyListAssembler(limits: limits))
        return try reader.run()
    }

    private init(bytes: [UInt8], assembler: PropertyListAssembler) {
        self.bytes = bytes
        self.assembler = assembler
    }

    private mutating func run() throws(PropertyListReadFailure) -> PreferenceValue {
        do {
            return try readDocument()
        } catch {
            var located = error
            if located.offset == nil { located.offset = position }  // the assembler's refusals
            throw located
        }
    }

    private mutating func readDocument() throws(PropertyListReadFailure) -> PreferenceValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        var plist = PlistElement.notSeen
        while true {
            try skipMarkup()
            guard position < bytes.count else { break }
            guard plist != .closed else { throw failure("content after </plist>") }
            let tag = try readTag()
            if tag.isEnd {
                try end(tag.name, plist: &plist)
            } else if tag.name == "plist" {
                guard plist == .notSeen, open.isEmpty, assembler.depth == 0 else {
                    throw failure("a <plist> element inside another value")
                }
                plist = tag.isEmpty ? .closed : .open
            } else {
                try start(tag)
            }
        }
        guard plist != .open else { throw failure("the document ends before </plist>") }
        guard open.isEmpty else { throw failure("the document ends inside <\(open.last ?? "")>") }
        return try assembler.finish()
    }

    private enum PlistElement { case notSeen, open, closed }

    private mutating func start(_ tag: Tag) throws(PropertyListReadFailure) {
        switch tag.name {
        case "dict", "array":
            if tag.name == "dict" { try assembler.openDictionary() } else { try assembler.openArray() }
            if tag.isEmpty { try assembler.close() } else { open.append(tag.name) }
        case "true", "false":
            if !tag.isEmpty {
                guard try text(of: tag.name).isEmpty else { throw failure("<\(tag.name)> holds text") }
            }
            try assembler.add(.bool(tag.name == "true"))
        case "key":
            let key = tag.isEmpty ? "" : try text(of: "key")
            try assembler.key(key)
        case "string":
            let string = tag.isEmpty ? "" : try text(of: "string")
            try assembler.add(.string(string), payload: string.utf8.count)
        case "integer", "real", "date", "data":
            let text = tag.isEmpty ? "" : try text(of: tag.name)
            let (value, payload) = try scalar(tag.name, text)
            try assembler.add(value, payload: payload)
        default:
            throw failure("an element <\(tag.name)> that property lists do not have")
        }
    }

    private mutating func end(_ name: String, plist: inout PlistElement) throws(PropertyListReadFailure) {
        if name == "plist", plist == .open, open.isEmpty {
            plist = .closed
            return
        }
        guard open.last == name else { throw failure("</\(name)> does not close <\(open.last ?? "nothing")>") }
        open.removeLast()
        try assembler.close()
    }

    /// The value of a leaf element from its text.
    private func scalar(_ name: String, _ text: String) throws(PropertyListReadFailure) -> (PreferenceValue, Int) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "integer":
            guard let value = Self.integer(trimmed) else {
                throw failure("<integer>\(trimmed.prefix(40))</integer> is not an integer from -2^63 to 2^64-1")
            }
            return (value, 0)
        case "real":
            guard !trimmed.isEmpty, let value = Double(trimmed) else {
                throw failure("<real>\(trimmed.prefix(40))</real> is not a number")
            }
            return (.double(value), 0)
        case "date":
            guard let seconds = PropertyListDate.parse(trimmed) else {
                throw failure("<date>\(trimmed.prefix(40))</date> is not a date such as 2026-11-21T09:30:00Z")
            }
            return (.date(Date(timeIntervalSinceReferenceDate: seconds)), 0)
        default:
            guard let data = Data(base64Encoded: trimmed.filter { !$0.isWhitespace }) else {
                throw failure("<data> does not hold base64")
            }
            return (.data(data), data.count)
        }
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign, from −2⁶³ to 2⁶⁴−1.
    static func integer(_ text: String) -> PreferenceValue? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit), let magnitude = UInt64(digits, radix: radix) else {
            return nil
        }
        guard negative else { return PreferenceValue(magnitude) }
        guard magnitude <= 1 << 63 else { return nil }
        return .integer(magnitude == 1 << 63 ? Int.min : -Int(magnitude))
    }

    // MARK: Scanning

    private struct Tag {
        var name: String
        var isEnd: Bool
        /// `<name/>`.
        var isEmpty: Bool
    }

    /// Skips white space, comments, processing instructions and the DOCTYPE; refuses other text.
    private mutating func skipMarkup() throws(PropertyListReadFailure) {
        while position < bytes.count {
            switch bytes[position] {
            case let byte where Self.isSpace(byte):
                position += 1
            case UInt8(ascii: "<"):
                if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<?") {
                    try declaration()
                } else if starts(with: "<!DOCTYPE") {
                    try doctype()
                } else {
                    return
                }
            default:
                throw failure("text outside an element")
            }
        }
    }

    /// A processing instruction; the XML declaration's encoding must be UTF-8 (or ASCII).
    private mutating func declaration() throws(PropertyListReadFailure) {
        let start = position
        try skip(past: "?>", what: "a processing instruction")
        let text = String(decoding: bytes[start..<position], as: UTF8.self).lowercased()
        guard let range = text.range(of: "encoding") else { return }
        let rest = text[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let encoding = rest.prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(encoding)) else {
            throw failure("the encoding '\(encoding)' is not read: only UTF-8")
        }
    }

    /// `<!DOCTYPE …>`, refused when it has an internal subset (it could declare entities).
    private mutating func doctype() throws(PropertyListReadFailure) {
        switch nextUnquoted(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: ">") }) {
        case UInt8(ascii: ">"): return
        case nil: throw failure("the DOCTYPE is not closed")
        default: throw failure("a DOCTYPE with an internal subset (entity declarations) is not read")
        }
    }

    /// A start or end tag at `position` (which is at `<`); attributes are skipped.
    private mutating func readTag() throws(PropertyListReadFailure) -> Tag {
        let tagStart = position
        position += 1
        let isEnd = position < bytes.count && bytes[position] == UInt8(ascii: "/")
        if isEnd { position += 1 }
        let nameStart = position
        while position < bytes.count, !Self.endsName(bytes[position]) { position += 1 }
        let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
        guard !name.isEmpty else { throw failure("a '<' that starts no element", at: tagStart) }
        guard nextUnquoted(where: { $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "<") }) == UInt8(ascii: ">") else {
            throw failure("the tag <\(name.prefix(40))> is not closed", at: tagStart)
        }
        let isEmpty = bytes[nameStart..<position - 1].last { !Self.isSpace($0) } == UInt8(ascii: "/")
        guard !(isEnd && isEmpty) else { throw failure("a malformed end tag </\(name)/>", at: tagStart) }
        return Tag(name: name, isEnd: isEnd, isEmpty: isEmpty)
    }

    /// Moves past the first byte outside quotes for which `stop` holds, and returns it; `nil` at
    /// the end of the input.
    private mutating func nextUnquoted(where stop: (UInt8) -> Bool) -> UInt8? {
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if stop(byte) {
                return byte
            }
        }
        return nil
    }

    /// The text of a leaf element up to its end tag `</name>`: entities and character references
    /// decoded, CDATA taken as is, comments skipped, line ends normalized.
    private mutating func text(of name: String) throws(PropertyListReadFailure) -> String {
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "<"):
                if starts(with: "<![CDATA[") {
                    let start = position + 9
                    try skip(past: "]]>", what: "a CDATA section")
                    Self.appendNormalized(bytes[start..<position - 3], to: &text)
                } else if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else {
                    let tagStart = position
                    let tag = try readTag()
                    guard tag.isEnd, tag.name == name else {
                        throw failure("<\(name)> holds an element <\(tag.isEnd ? "/" : "")\(tag.name)>", at: tagStart)
                    }
                    // Not String(bytes:encoding:), which drops a leading U+FEFF: every scalar is kept.
                    guard let string = String(validating: text, as: UTF8.self) else {
                        throw failure("<\(name)> holds bytes that are not UTF-8")
                    }
                    return string
                }
            case UInt8(ascii: "&"):
                try entity(into: &text)
            default:
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&")
                { position += 1 }
                Self.appendNormalized(bytes[start..<position], to: &text)
            }
        }
        throw failure("the document ends inside <\(name)>")
    }

    /// `&…;` at `position`.
    private mutating func entity(into text: inout [UInt8]) throws(PropertyListReadFailure) {
        let start = position
        guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw failure("an '&' that starts no entity (write &amp;)", at: start)
        }
        let name = String(decoding: bytes[position + 1..<end], as: UTF8.self)
        position = end + 1
        let scalar: Unicode.Scalar?
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = Hex.integer(name.utf8.dropFirst(2), as: UInt32.self).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#"), name.dropFirst().allSatisfy(\.isASCII) {
                scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            } else {
                throw failure("the entity &\(name); is not one of XML's five (no others are declared)", at: start)
            }
        }
        guard let scalar, scalar.value != 0 else {
            throw failure("the character reference &\(name); names no character", at: start)
        }
        text.append(contentsOf: String(Character(scalar)).utf8)
    }

    /// Appends `raw` with `\r\n` and lone `\r` turned into `\n`, as XML parsers must.
    private static func appendNormalized(_ raw: ArraySlice<UInt8>, to text: inout [UInt8]) {
        guard raw.contains(0x0D) else { return text.append(contentsOf: raw) }
        var previousCR = false
        for byte in raw {
            if byte == 0x0A, previousCR {
                previousCR = false
                continue
            }
            previousCR = byte == 0x0D
            text.append(previousCR ? 0x0A : byte)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "<")
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        return text.withUTF8Buffer { prefix in (0..<count).allSatisfy { bytes[position + $0] == prefix[$0] } }
    }

    /// Moves past the first `terminator`.
    private mutating func skip(past terminator: StaticString, what: String) throws(PropertyListReadFailure) {
        let start = position
        while position < bytes.count {
            if starts(with: terminator) {
                position += terminator.utf8CodeUnitCount
                return
            }
            position += 1
        }
        throw failure("\(what) is not closed", at: start)
    }

    private func failure(_ description: String, at offset: Int? = nil) -> PropertyListReadFailure {
        var failure = PropertyListReadFailure.malformed(description)
        failure.offset = offset ?? position
        return failure
    }
}
