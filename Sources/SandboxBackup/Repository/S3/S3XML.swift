import Foundation

/// The few values read from S3's XML answers (ListObjectsV2, InitiateMultipartUpload, errors):
/// the text of elements by name, entities decoded. S3's answers are flat enough that a full
/// parser is not needed, and no XML parser is in this package's dependencies.
enum S3XML {
    /// The text of every `<name>…</name>` in `xml`, in order.
    static func values(of name: String, in xml: String) -> [String] {
        var result: [String] = []
        let open = "<\(name)>"
        let close = "</\(name)>"
        var rest = xml[...]
        while let start = rest.range(of: open) {
            let after = rest[start.upperBound...]
            guard let end = after.range(of: close) else { break }
            result.append(unescaped(String(after[..<end.lowerBound])))
            rest = after[end.upperBound...]
        }
        return result
    }

    static func value(of name: String, in xml: String) -> String? { values(of: name, in: xml).first }

    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                if entity.hasPrefix("#x"), let code = UInt32(entity.dropFirst(2), radix: 16),
                    let scalar = Unicode.Scalar(code)
                {
                    out.unicodeScalars.append(scalar)
                } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()),
                    let scalar = Unicode.Scalar(code)
                {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += "&" + entity + ";"
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// `text` with `&`, `<`, `>`, `"` escaped, for a request body.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
