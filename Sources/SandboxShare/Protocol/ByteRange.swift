import Sandbox

/// What a GET answers with, given its `Range` header (RFC 9110 §14.2).
package enum RangeSelection: Equatable, Sendable {
    /// The whole file (200).
    case whole
    /// One range of bytes, within the file (206).
    case partial(ClosedRange<Int64>)

    /// The selection a `Range` header asks for in a file of `size` bytes.
    ///
    /// One range is served: `bytes=0-4`, `bytes=5-` (to the end) or `bytes=-5` (the last 5); an end
    /// past the end of the file is clamped to it, a suffix longer than the file is the whole file.
    /// As RFC 9110 allows, the header is ignored (``whole``) when it is missing or invalid, names a
    /// unit other than `bytes`, or asks for several ranges (this server sends no multipart
    /// responses). Numbers too large for 64 bits count as "past the end", never as an error.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/rangeNotSatisfiable`` (416) when the one range lies wholly past
    ///   the end: a start at or past `size`, a suffix of 0, or any range of an empty file.
    package static func select(_ header: String?, size: Int64) throws(SandboxError) -> RangeSelection {
        guard let header, let spec = singleSpec(header) else { return .whole }
        let last = size - 1
        let range: ClosedRange<Int64>?
        switch (spec.first, spec.last) {
        case (.some(let first), let end):
            let clampedEnd = min(end ?? Int64.max, last)
            range = first <= last ? first...clampedEnd : nil
        case (.none, .some(let suffix)):
            range = suffix > 0 && size > 0 ? max(size - suffix, 0)...last : nil
        case (.none, .none):
            return .whole
        }
        guard let range else {
            throw SandboxError(
                .rangeNotSatisfiable,
                "The range '\(header.prefix(64))' lies past the end of the \(size)-byte file; ask for bytes within it.")
        }
        return .partial(range)
    }

    /// The one `first-last`, `first-` or `-suffix` of a `bytes=` header, numbers saturated at
    /// `Int64.max`; `nil` when the header is invalid, another unit, or holds several ranges.
    private static func singleSpec(_ header: String) -> (first: Int64?, last: Int64?)? {
        let text = header.trimmingSpaces
        guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "bytes" else { return nil }
        let specs = text[text.index(after: equals)...].split(separator: ",").map { String($0).trimmingSpaces }
            .filter { !$0.isEmpty }
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { return nil }
        let spec = specs[0]
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        switch (firstText.isEmpty, lastText.isEmpty) {
        case (true, true):
            return nil
        case (true, false):
            guard let suffix = number(lastText) else { return nil }
            return (nil, suffix)
        case (false, true):
            guard let first = number(firstText) else { return nil }
            return (first, nil)
        case (false, false):
            guard let first = number(firstText), let last = number(lastText), first <= last else { return nil }
            return (first, last)
        }
    }

    /// Decimal digits only, saturating at `Int64.max`.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int64.max : sum
        }
        return value
    }
}
