import Foundation

/// Writes a ``PreferenceValue`` as an XML property list, as Apple's writer lays it out (tabs,
/// `<dict/>` for an empty dictionary, keys sorted so the output is stable).
///
/// Types round-trip through ``XMLPropertyListReader``: a real is written as a real (`2.0`, `-0.0`,
/// `+infinity`, `nan`), an unsigned integer exactly, a date in whole seconds (rounded down, as on
/// Apple platforms) on the proleptic Gregorian calendar, `\r` as `&#13;` (a reader would turn a
/// raw one into `\n`). A string holding a character XML 1.0 cannot carry (a control character
/// other than tab and line ends) is refused rather than written damaged.
enum XMLPropertyListWriter {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The document for `value`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/encodingFailed`` for a string XML cannot hold, a date that is
    ///   not finite, or nesting deeper than `maximumDepth`.
    static func write(
        _ value: PreferenceValue, maximumDepth: Int = PropertyListLimits.default.maximumDepth
    ) throws(SandboxError) -> [UInt8] {
        var output = header
        try write(value, indent: 0, maximumDepth: maximumDepth, to: &output)
        output += "</plist>\n"
        return Array(output.utf8)
    }

    private static func write(
        _ value: PreferenceValue, indent: Int, maximumDepth: Int, to output: inout String
    ) throws(SandboxError) {
        let tabs = String(repeating: "\t", count: indent)
        switch value {
        case .string(let string):
            output += "\(tabs)<string>\(try escaped(string))</string>\n"
        case .integer(let integer):
            output += "\(tabs)<integer>\(integer)</integer>\n"
        case .unsignedInteger(let integer):
            output += "\(tabs)<integer>\(integer)</integer>\n"
        case .double(let double):
            output += "\(tabs)<real>\(real(double))</real>\n"
        case .bool(let bool):
            output += "\(tabs)<\(bool ? "true" : "false")/>\n"
        case .date(let date):
            guard let text = PropertyListDate.format(date.timeIntervalSinceReferenceDate) else {
                throw SandboxError(
                    .encodingFailed,
                    "The date \(date.timeIntervalSinceReferenceDate) (seconds since 2001) has no XML property-list form; store a finite date within a billion years."
                )
            }
            output += "\(tabs)<date>\(text)</date>\n"
        case .data(let data):
            output += "\(tabs)<data>\(data.base64EncodedString())</data>\n"
        case .array(let values):
            guard !values.isEmpty else {
                output += "\(tabs)<array/>\n"
                return
            }
            try requireDepth(indent, maximumDepth)
            output += "\(tabs)<array>\n"
            for element in values { try write(element, indent: indent + 1, maximumDepth: maximumDepth, to: &output) }
            output += "\(tabs)</array>\n"
        case .dictionary(let values):
            guard !values.isEmpty else {
                output += "\(tabs)<dict/>\n"
                return
            }
            try requireDepth(indent, maximumDepth)
            output += "\(tabs)<dict>\n"
            for (key, element) in values.sorted(by: { $0.key < $1.key }) {
                output += "\(tabs)\t<key>\(try escaped(key))</key>\n"
                try write(element, indent: indent + 1, maximumDepth: maximumDepth, to: &output)
            }
            output += "\(tabs)</dict>\n"
        }
    }

    /// A real as the reader parses it back to the same bits: Swift's shortest exact spelling, and
    /// CoreFoundation's words for the values without digits.
    static func real(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        return value.description
    }

    private static func requireDepth(_ indent: Int, _ maximumDepth: Int) throws(SandboxError) {
        guard indent < maximumDepth else {
            throw SandboxError(
                .encodingFailed,
                "The value nests arrays and dictionaries more than \(maximumDepth) levels deep, which property lists here do not hold; flatten it."
            )
        }
    }

    /// `text` with `&`, `<`, `>` and `\r` escaped.
    private static func escaped(_ text: String) throws(SandboxError) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\r": result += "&#13;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                guard scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF else {
                    throw SandboxError(
                        .encodingFailed,
                        "The string '\(text.prefix(40))' holds the character U+\(Hex.string(of: scalar.value, uppercase: true)), which an XML property list cannot carry; write the binary format."
                    )
                }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
