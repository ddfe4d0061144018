/// Uniform type identifiers for the common file name extensions, and what each conforms to: enough
/// for ``DocumentType/accepts(fileName:)`` to judge "Open In…" as iOS does for the usual documents.
///
/// A file whose extension is not in the table is `public.data` (iOS gives it a dynamic type that
/// conforms to `public.data`), as is a file without an extension. Identifiers are compared in
/// lowercase, as iOS compares them.
public enum UniformType {
    /// The type of a file named `fileName`, by its extension: e.g. `com.adobe.pdf` for `a.PDF`.
    public static func identifier(forFileName fileName: String) -> String {
        fileExtension(of: fileName).flatMap { byExtension[$0] } ?? "public.data"
    }

    /// `identifier` and every type it conforms to, itself first (e.g. `public.jpeg`,
    /// `public.image`, `public.data`, `public.content`, `public.item`).
    public static func conformingTypes(of identifier: String) -> [String] {
        var result: [String] = []
        var pending = [identifier.lowercased()]
        while let next = pending.first {
            pending.removeFirst()
            guard !result.contains(next) else { continue }
            result.append(next)
            pending += parents[next] ?? []
        }
        return result
    }

    /// The lowercased extension of `fileName` (after its last `.`, not a leading one), or `nil`.
    static func fileExtension(of fileName: String) -> String? {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
        let value = fileName[fileName.index(after: dot)...]
        return value.isEmpty ? nil : value.lowercased()
    }

    /// The type of each extension.
    static let byExtension: [String: String] = [
        "txt": "public.plain-text", "text": "public.plain-text", "md": "net.daringfireball.markdown",
        "markdown": "net.daringfireball.markdown", "csv": "public.comma-separated-values-text",
        "html": "public.html", "htm": "public.html", "xml": "public.xml", "json": "public.json",
        "rtf": "public.rtf", "pdf": "com.adobe.pdf", "jpg": "public.jpeg", "jpeg": "public.jpeg",
        "png": "public.png", "gif": "com.compuserve.gif", "heic": "public.heic", "tif": "public.tiff",
        "tiff": "public.tiff", "mp3": "public.mp3", "m4a": "com.apple.m4a-audio",
        "wav": "com.microsoft.waveform-audio", "mp4": "public.mpeg-4", "mov": "com.apple.quicktime-movie",
        "zip": "public.zip-archive", "epub": "org.idpf.epub-container",
        "docx": "org.openxmlformats.wordprocessingml.document", "xlsx": "org.openxmlformats.spreadsheetml.sheet",
        "pptx": "org.openxmlformats.presentationml.presentation", "doc": "com.microsoft.word.doc",
    ]

    /// What each type conforms to directly; `public.item` and `public.content` conform to nothing.
    static let parents: [String: [String]] = [
        "public.data": ["public.item"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "net.daringfireball.markdown": ["public.plain-text"],
        "public.delimited-values-text": ["public.text"],
        "public.comma-separated-values-text": ["public.delimited-values-text"],
        "public.html": ["public.text"],
        "public.xml": ["public.text"],
        "public.json": ["public.text"],
        "public.rtf": ["public.text"],
        "public.composite-content": ["public.content"],
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"], "public.png": ["public.image"], "com.compuserve.gif": ["public.image"],
        "public.heic": ["public.image"], "public.tiff": ["public.image"],
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.audio": ["public.audiovisual-content"],
        "public.mp3": ["public.audio"], "com.apple.m4a-audio": ["public.audio"],
        "com.microsoft.waveform-audio": ["public.audio"],
        "public.movie": ["public.audiovisual-content"],
        "public.mpeg-4": ["public.movie"], "com.apple.quicktime-movie": ["public.movie"],
        "public.archive": ["public.data"],
        "com.pkware.zip-archive": ["public.archive"],
        "public.zip-archive": ["com.pkware.zip-archive"],
        "org.idpf.epub-container": ["public.zip-archive", "public.composite-content"],
        "org.openxmlformats.openxml": ["public.zip-archive"],
        "org.openxmlformats.wordprocessingml.document": ["org.openxmlformats.openxml", "public.composite-content"],
        "org.openxmlformats.spreadsheetml.sheet": ["org.openxmlformats.openxml", "public.composite-content"],
        "org.openxmlformats.presentationml.presentation": [
            "org.openxmlformats.openxml", "public.composite-content",
        ],
        "com.microsoft.word.doc": ["public.data", "public.composite-content"],
    ]
}
