import Sandbox

extension SharePath {
    /// The bytes of `raw` with each `%XX` escape decoded once, refusing escapes that are malformed
    /// or that hide a separator (`%2F`, `%5C`), and control characters written raw or encoded.
    static func percentDecoded(_ raw: String) throws(SandboxError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            var decoded = byte
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(Hex.value(of:)),
                    let low = iterator.next().flatMap(Hex.value(of:))
                else {
                    throw refusal(raw, "has a '%' that is not followed by two hexadecimal digits; encode '%' as %25")
                }
                decoded = high << 4 | low
                guard decoded != UInt8(ascii: "/"), decoded != UInt8(ascii: "\\") else {
                    throw refusal(raw, "encodes '/' or '\\' inside a name; names may not contain them")
                }
            } else if byte == UInt8(ascii: "\\") {
                throw refusal(raw, "contains a backslash; names may not contain one, and '/' separates them")
            }
            guard decoded >= 0x20, decoded != 0x7F else {
                throw refusal(raw, "contains a control character (NUL included); names may not contain one")
            }
            bytes.append(decoded)
        }
        return bytes
    }

    /// A decoded name, checked: not empty, `.` or `..`, at most 255 bytes, valid UTF-8.
    static func checkedName(_ part: ArraySlice<UInt8>, in raw: String) throws(SandboxError) -> String {
        guard !part.isEmpty else {
            throw refusal(raw, "has an empty name ('//'); remove the doubled '/'")
        }
        guard !part.elementsEqual(".".utf8), !part.elementsEqual("..".utf8) else {
            throw refusal(raw, "has a '.' or '..' name; name the item directly")
        }
        guard part.count <= maximumNameLength else {
            throw refusal(raw, "has a name of \(part.count) bytes; names may have at most \(maximumNameLength)")
        }
        guard !part.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else {
            throw refusal(raw, "has a control character or a backslash in a name; rename the item")
        }
        guard let name = String(validating: part, as: UTF8.self) else {
            throw refusal(raw, "is not valid UTF-8 once decoded; encode names as UTF-8")
        }
        return name
    }

    /// Whether `bytes` can be one name of a path: what ``checkedName(_:in:)`` accepts, and no
    /// separator or control character.
    static func isValidName(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.count <= maximumNameLength && !bytes.elementsEqual(".".utf8)
            && !bytes.elementsEqual("..".utf8)
            && !bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
    }

    static func refusal(_ raw: String, _ problem: String) -> SandboxError {
        SandboxError(.malformedRequest, "The path '\(raw.prefix(64))' \(problem).", path: String(raw.prefix(64)))
    }
}
