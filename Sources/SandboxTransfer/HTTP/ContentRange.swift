/// A `Content-Range` header value (RFC 9110 §14.4): `bytes first-last/complete`, or
/// `bytes */complete` in a 416 answer.
///
/// Parsing is tolerant where servers are sloppy (a missing `bytes` unit, `bytes=` instead of
/// `bytes `, `*` for an unknown complete length) and strict about the numbers: a range that ends
/// before it starts, past the complete length, or at `Int64.max` (its `count` and end offset
/// would overflow; no representation is that long) does not parse.
public struct ContentRange: Sendable, Hashable {
    /// The first byte's offset, or `nil` for an unsatisfied range (`*/complete`).
    public var first: Int64?
    /// The last byte's offset (inclusive), or `nil` for an unsatisfied range.
    public var last: Int64?
    /// The representation's complete length, or `nil` when the server sent `*`.
    public var completeLength: Int64?

    /// A range as given, unchecked; ``init(_:)`` is the checked way in from a header.
    public init(first: Int64?, last: Int64?, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Parses a header value; `nil` when it is not a byte range.
    public init?(_ value: String) {
        var text = Substring(value).trimmingSpaces()
        if text.lowercased().hasPrefix("bytes") {
            text = text.dropFirst(5)
            if text.first == "=" { text = text.dropFirst() }
            text = text.trimmingSpaces()
        }
        let halves = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let rangePart = halves[0].trimmingSpaces()
        let lengthPart = halves[1].trimmingSpaces()
        if lengthPart == "*" {
            completeLength = nil
        } else {
            guard let length = Int64(decimal: lengthPart) else { return nil }
            completeLength = length
        }
        if rangePart == "*" {
            guard completeLength != nil else { return nil }
            first = nil
            last = nil
            return
        }
        let bounds = rangePart.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(decimal: bounds[0].trimmingSpaces()),
            let last = Int64(decimal: bounds[1].trimmingSpaces()), first <= last, last < Int64.max
        else { return nil }
        if let completeLength, last >= completeLength { return nil }
        self.first = first
        self.last = last
    }

    /// How many bytes the range covers, or `nil` for an unsatisfied range.
    public var count: Int64? {
        guard let first, let last else { return nil }
        return last - first + 1
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}

extension Int64 {
    /// Only ASCII digits (no sign, no spaces), and no overflow.
    init?(decimal text: Substring) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
            return nil
        }
        self = value
    }
}
