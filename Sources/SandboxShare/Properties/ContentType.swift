/// Media types by file-name extension, for `Content-Type` and `DAV:getcontenttype`.
package enum ContentType {
    /// The media type for a file named `name`, by its extension (case-insensitive);
    /// `application/octet-stream` for an unknown or missing one. Text types say UTF-8.
    package static func forName(_ name: String) -> String { of(name).type }

    /// Whether a browser would run code from a file named `name` served inline (HTML, SVG, XML,
    /// JavaScript…): the server sends those as attachments, so a shared file cannot script the
    /// share's own origin.
    package static func isActive(_ name: String) -> Bool { of(name).isActive }

    /// The media type for a file named `name` (``forName(_:)``) and whether it is active
    /// (``isActive(_:)``), in one look-up.
    package static func of(_ name: String) -> (type: String, isActive: Bool) {
        let bytes = name.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex else {
            return (defaultType, false)
        }
        return table[name[bytes.index(after: dot)...].lowercased()] ?? (defaultType, false)
    }

    /// The type of anything the table does not know.
    package static let defaultType = "application/octet-stream"

    private static let activeTypes: Set<String> = [
        "text/html", "image/svg+xml", "application/xml", "text/xml", "application/xhtml+xml", "text/javascript",
    ]

    /// Each known extension's type and whether it is active, worked out once.
    private static let table: [String: (type: String, isActive: Bool)] = types.mapValues { type in
        (type, activeTypes.contains(String(type.prefix { $0 != ";" })))
    }

    private static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "xhtml": "application/xhtml+xml", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "log": "text/plain; charset=utf-8", "csv": "text/csv; charset=utf-8", "xml": "application/xml",
        "plist": "application/x-plist", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "heic": "image/heic", "heif": "image/heif",
        "tif": "image/tiff", "tiff": "image/tiff", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "mp4": "video/mp4",
        "m4v": "video/mp4", "mov": "video/quicktime", "sqlite": "application/vnd.sqlite3",
    ]
}
