import Foundation

/// The page's files (HTML, CSS, script), read once at start from the resource bundle SwiftPM puts
/// beside the executable (`Sandbox_SandboxShare.resources`).
///
/// A binary copied without its bundle still shares over WebDAV; the page then answers 500 with
/// ``missingReason``, which says what to install.
struct WebAssets: Sendable {
    static let bundleName = "Sandbox_SandboxShare.resources"

    /// Name → bytes, e.g. `app.js`.
    let files: [String: [UInt8]]
    /// Why there are no files, when there are none.
    let missingReason: String?

    /// The files of the first resource folder found beside the running executable.
    static func load() -> WebAssets {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(bundleName))
        for bundle in candidates {
            let folder = bundle.appendingPathComponent("Resources")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                continue  // not this candidate: the next is tried, and the miss reported below
            }
            var files: [String: [UInt8]] = [:]
            for name in names where !name.hasPrefix(".") {
                if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                    files[name] = Array(data)
                }
            }
            if files["index.html"] != nil, files["login.html"] != nil {
                return WebAssets(files: files, missingReason: nil)
            }
        }
        let looked = candidates.map(\.path).joined(separator: ", ")
        return WebAssets(
            files: [:],
            missingReason:
                "The web page's files are missing: install \(bundleName) beside the sandbox executable "
                + "(looked in \(looked)). WebDAV works without them.")
    }

    /// The content type of an asset, by its extension.
    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }
}
