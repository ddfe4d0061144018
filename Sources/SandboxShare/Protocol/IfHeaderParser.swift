import Sandbox

/// The recursive-descent parser behind ``IfHeader/parse(_:allowedAuthorities:scheme:)``, over the
/// header's bytes.
struct IfHeaderParser {
    private let text: String
    private let bytes: [UInt8]
    private let allowedAuthorities: Set<String>
    private let scheme: String
    private var position = 0

    init(_ text: String, allowedAuthorities: Set<String>, scheme: String) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.allowedAuthorities = allowedAuthorities
        self.scheme = scheme
    }

    /// `1*No-tag-list | 1*Tagged-list`.
    mutating func parseLists() throws(SandboxError) -> [IfHeader.List] {
        var lists: [IfHeader.List] = []
        var tagged: Bool?
        skipSpaces()
        while position < bytes.count {
            let isTagged = bytes[position] == UInt8(ascii: "<")
            if let tagged, tagged != isTagged { throw failure("mixes tagged and untagged lists") }
            tagged = isTagged
            var resource = IfHeader.Tag.untagged
            if isTagged {
                resource = try parseResourceTag()
                skipSpaces()
                guard peek == UInt8(ascii: "(") else { throw failure("has a resource tag with no list after it") }
            }
            while peek == UInt8(ascii: "(") {
                lists.append(IfHeader.List(resource: resource, conditions: try parseList()))
                skipSpaces()
            }
            guard position == bytes.count || peek == UInt8(ascii: "<") else {
                throw failure("has '\(character)' where a list '(' or a resource tag '<' belongs")
            }
        }
        guard !lists.isEmpty else { throw failure("holds no list") }
        return lists
    }

    /// `"<" Simple-ref ">"`.
    private mutating func parseResourceTag() throws(SandboxError) -> IfHeader.Tag {
        let uri = try parseAngled(what: "resource tag")
        switch try ShareURI.resolve(uri, allowedAuthorities: allowedAuthorities, scheme: scheme) {
        case .local(let path): return .path(path)
        case .foreign: return .foreign
        }
    }

    /// `"(" 1*Condition ")"`.
    private mutating func parseList() throws(SandboxError) -> [IfHeader.Condition] {
        position += 1  // "("
        var conditions: [IfHeader.Condition] = []
        while true {
            skipSpaces()
            guard let byte = peek else { throw failure("has a list '(' that is never closed") }
            if byte == UInt8(ascii: ")") {
                position += 1
                guard !conditions.isEmpty else { throw failure("has an empty list '()'") }
                return conditions
            }
            conditions.append(try parseCondition())
        }
    }

    /// `["Not"] (State-token | "[" entity-tag "]")`.
    private mutating func parseCondition() throws(SandboxError) -> IfHeader.Condition {
        var negated = false
        if bytes[position...].prefix(3).map({ $0 | 0x20 }).elementsEqual("not".utf8) {
            negated = true
            position += 3
            skipSpaces()
        }
        switch peek {
        case UInt8(ascii: "<"):
            return IfHeader.Condition(negated: negated, kind: .stateToken(try parseAngled(what: "state token")))
        case UInt8(ascii: "["):
            return IfHeader.Condition(negated: negated, kind: .entityTag(try parseEntityTag()))
        default:
            throw failure("has '\(character)' where a condition ('<token>' or '[etag]') belongs")
        }
    }

    /// `"<" URI ">"`: the URI, which must be non-empty and hold no space, control character or `<`.
    private mutating func parseAngled(what: String) throws(SandboxError) -> String {
        let start = position + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: ">") {
            let byte = bytes[end]
            guard byte > 0x20, byte != 0x7F, byte != UInt8(ascii: "<") else {
                throw failure("has a \(what) holding a space, control character or '<'")
            }
            end += 1
        }
        guard end < bytes.count else { throw failure("has a \(what) '<' that is never closed") }
        guard end > start else { throw failure("has an empty \(what) '<>'") }
        position = end + 1
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `"[" entity-tag "]"` with `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`: the tag as sent.
    private mutating func parseEntityTag() throws(SandboxError) -> String {
        var index = position + 1
        if bytes.count - index >= 2, bytes[index] == UInt8(ascii: "W"), bytes[index + 1] == UInt8(ascii: "/") {
            index += 2
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw failure("has an entity tag that is not a quoted string; send [\"tag\"] or [W/\"tag\"]")
        }
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            // etagc = %x21 / %x23-7E / obs-text
            guard bytes[index] >= 0x21, bytes[index] != 0x7F else {
                throw failure("has an entity tag holding a space or control character")
            }
            index += 1
        }
        guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "]") else {
            throw failure("has an entity tag '[' that is not closed by '\"]'")
        }
        let tag = String(decoding: bytes[(position + 1)...index], as: UTF8.self)
        position = index + 2
        return tag
    }

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private var character: String {
        guard position < bytes.count else { return "the end" }
        return String(decoding: bytes[position...].prefix(8), as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    private func failure(_ problem: String) -> SandboxError {
        SandboxError(
            .malformedRequest,
            "The If header '\(text.prefix(64))' \(problem); see RFC 4918 §10.4 for its grammar.")
    }
}
