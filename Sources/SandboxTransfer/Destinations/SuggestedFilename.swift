import Foundation

/// The file name a finished download is given: the server's `Content-Disposition` (`filename*`,
/// then `filename`), else the URL's last path component (percent-decoded), else `download` —
/// sanitized so that it is one safe name inside the destination folder.
public enum SuggestedFilename {
    /// The name used when nothing better is known.
    public static let fallback = "download"
    /// The longest name produced, in UTF-8 bytes (most Linux file systems allow 255).
    public static let maximumLength = 255

    /// The suggested name for a response.
    ///
    /// - Parameters:
    ///   - contentDisposition: the `Content-Disposition` header value, if any.
    ///   - url: the URL the body came from (after redirects).
    public static func make(contentDisposition: String?, url: URL?) -> String {
        if let header = contentDisposition, let name = ContentDisposition(header)?.filename, let safe = sanitize(name) {
            return safe
        }
        if let url, let safe = sanitize(lastPathComponent(of: url)) {
            return safe
        }
        return fallback
    }

    /// One safe file name from untrusted text, or `nil` when nothing usable is left.
    ///
    /// Keeps only what follows the last `/` or `\` (found among the Unicode scalars, not the
    /// Characters: a combining or prepended mark must not hide a separator); drops control
    /// characters (C0, DEL, C1) and NUL; caps the length at ``maximumLength`` bytes, keeping the
    /// extension; then trims spaces and dots at the ends (so `..` and `.hidden` tricks vanish, and
    /// no cut leaves a name ending in a space or dot).
    public static func sanitize(_ name: String) -> String? {
        if isPlain(name) { return name }
        let scalars = name.unicodeScalars
        let afterSeparator =
            scalars.lastIndex { $0 == "/" || $0 == "\\" }.map { scalars.index(after: $0) } ?? scalars.startIndex
        let kept = scalars[afterSeparator...].filter { scalar in
            !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
        let cleaned = trimmed(String(String.UnicodeScalarView(kept)))
        guard !cleaned.isEmpty else { return nil }
        let result = trimmed(truncate(cleaned))
        return result.isEmpty ? nil : result
    }

    /// Whether `name` is already one safe name, as most are: printable ASCII without a separator,
    /// not too long, no space or dot at its ends (what ``sanitize(_:)`` would return unchanged,
    /// checked without its passes over the Unicode scalars and Foundation's trimming).
    private static func isPlain(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maximumLength,
            first != UInt8(ascii: " "), first != UInt8(ascii: "."), last != UInt8(ascii: " "), last != UInt8(ascii: ".")
        else { return false }
        return bytes.allSatisfy { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }
    }

    /// `name (n).ext` for the `n`th alternative when `name.ext` is taken.
    public static func numbered(_ name: String, _ number: Int) -> String {
        let (stem, ext) = split(name)
        return trimmed(truncate(stem, keeping: " (\(number))" + ext))
    }

    /// `name` without spaces and dots at its ends (compared as Unicode scalars).
    private static func trimmed(_ name: String) -> String {
        name.trimmingCharacters(in: CharacterSet(charactersIn: " ."))
    }

    /// The URL's last path component, percent-decoded once (`foo%2541.html` is `foo%41.html`);
    /// as written when its escapes are not valid UTF-8.
    static func lastPathComponent(of url: URL) -> String {
        guard let last = url.path(percentEncoded: true).split(separator: "/").last else { return "" }
        guard last.utf8.contains(UInt8(ascii: "%")) else { return String(last) }
        return String(last).removingPercentEncoding ?? String(last)
    }

    private static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
            name.distance(from: dot, to: name.endIndex) <= 16
        else {
            return (name, "")
        }
        return (String(name[..<dot]), String(name[dot...]))
    }

    private static func truncate(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        let (stem, ext) = split(name)
        return truncate(stem, keeping: ext)
    }

    /// `stem + suffix`, with `stem` cut at a character boundary so that the whole fits.
    private static func truncate(_ stem: String, keeping suffix: String) -> String {
        var stem = stem
        while stem.utf8.count + suffix.utf8.count > maximumLength, !stem.isEmpty { stem.removeLast() }
        return stem + suffix
    }
}
