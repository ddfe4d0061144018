import Foundation
import Sandbox
import SandboxTransfer

extension FuzzTarget {
    /// `ContentRange(_:)`: the `Content-Range` of a 206 or 416 answer.
    ///
    /// A range that parses is ordered, inside the complete length, has a positive count, and its
    /// canonical spelling parses to the same range.
    static let contentRange = FuzzTarget(name: "content-range") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let range = ContentRange(text) else { return }
        let length = range.completeLength.map(String.init) ?? "*"
        let canonical: String
        switch (range.first, range.last) {
        case (let first?, let last?):
            invariant(first >= 0 && first <= last, "\(text.debugDescription) parsed as \(first)-\(last)")
            invariant(
                range.completeLength.map { last < $0 } ?? true,
                "\(text.debugDescription) parsed past its complete length")
            invariant(
                (range.count ?? 0) >= 1, "\(text.debugDescription) counts \(String(describing: range.count)) bytes")
            canonical = "bytes \(first)-\(last)/\(length)"
        case (nil, nil):
            invariant(
                range.completeLength != nil && range.count == nil,
                "\(text.debugDescription) parsed as an unsatisfied range without a length")
            canonical = "bytes */\(length)"
        default:
            invariant(false, "\(text.debugDescription) parsed with only one bound")
            return
        }
        invariant(
            ContentRange(canonical) == range,
            "\(canonical) does not parse back to the range of \(text.debugDescription)")
    }

    /// `ContentDisposition(_:)` and `SuggestedFilename`: the name a server suggests for a download.
    ///
    /// Whatever the header, the suggested name is one valid file name, at most 255 bytes, with no
    /// control characters and no leading or trailing dot or space; so are its numbered variants.
    static let contentDisposition = FuzzTarget(name: "content-disposition") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        if let disposition = ContentDisposition(text) {
            invariant(
                !disposition.type.isEmpty && disposition.type == disposition.type.lowercased(),
                "\(text.debugDescription) has the type \(disposition.type.debugDescription)")
            if let name = disposition.filename, let safe = SuggestedFilename.sanitize(name) {
                checkSafeName(safe, from: text)
            }
        }
        let suggested = SuggestedFilename.make(
            contentDisposition: text, url: URL(string: "https://example.com/files/report.pdf"))
        checkSafeName(suggested, from: text)
        checkSafeName(SuggestedFilename.numbered(suggested, 12), from: text)
    }

    private static func checkSafeName(_ name: String, from header: String) {
        do throws(SandboxError) {
            _ = try FileName(name)
        } catch {
            invariant(
                false,
                "\(header.debugDescription) suggests \(name.debugDescription), which is no file name: \(error.message)")
        }
        invariant(
            name.utf8.count <= SuggestedFilename.maximumLength,
            "\(header.debugDescription) suggests a name of \(name.utf8.count) bytes")
        invariant(
            !name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
            "\(header.debugDescription) suggests \(name.debugDescription), with control characters")
        invariant(
            !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(UInt8(ascii: "\\")),
            "\(header.debugDescription) suggests \(name.debugDescription), with a separator")
        for end in [name.unicodeScalars.first, name.unicodeScalars.last] {
            invariant(
                end != "." && end != " ",
                "\(header.debugDescription) suggests \(name.debugDescription), which starts or ends with a dot or space"
            )
        }
    }

    /// `Validator.strongValidator(etag:lastModified:date:)`: which validator guards a resume.
    /// The input is three lines: `ETag`, `Last-Modified`, `Date` (an empty line is no header).
    ///
    /// An entity tag is chosen only when strong (and is the header, trimmed); a date only when
    /// there is no entity tag at all, and a `Date` to show it strong.
    static let validator = FuzzTarget(name: "validator") { bytes in
        let lines = String(decoding: bytes, as: UTF8.self).split(
            separator: "\n", maxSplits: 2, omittingEmptySubsequences: false
        ).map(String.init)
        func header(_ index: Int) -> String? { index < lines.count && !lines[index].isEmpty ? lines[index] : nil }
        let etag = header(0)
        let lastModified = header(1)
        let date = header(2)
        let trimmedTag = etag?.trimmingCharacters(in: .whitespaces)
        switch Validator.strongValidator(etag: etag, lastModified: lastModified, date: date) {
        case .entityTag(let tag)?:
            invariant(
                tag == trimmedTag && Validator.isStrongEntityTag(tag),
                "\(lines) chose the entity tag \(tag.debugDescription)")
            invariant(!tag.hasPrefix("W/"), "\(lines) chose a weak entity tag")
        case .lastModified(let value)?:
            invariant(trimmedTag?.isEmpty ?? true, "\(lines) chose a date although the response has an entity tag")
            invariant(date != nil, "\(lines) chose a date without a Date header to show it strong")
            invariant(
                value == lastModified?.trimmingCharacters(in: .whitespaces),
                "\(lines) chose the date \(value.debugDescription)")
        case nil:
            invariant(
                !(trimmedTag.map(Validator.isStrongEntityTag) ?? false),
                "\(lines) has a strong entity tag but no validator was chosen")
        }
    }
}
