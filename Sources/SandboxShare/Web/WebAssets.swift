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
        let main = Bundle.main.bundleURL.appendingPathComponent(bundleName)
        if !candidates.contains(where: { $0.standardizedFileURL == main.standardizedFileURL }) {
            candidates.append(main)
        }
        var misses: [String] = []
        for bundle in candidates {
            let folder = bundle.appendingPathComponent("Resources")
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            } catch {
                // Not this candidate: the next is tried, and every miss is reported below.
                misses.append("\(folder.path): \((error as NSError).localizedDescription)")
                continue
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
        return WebAssets(
            files: [:],
            missingReason:
                "The web page's files are missing: install \(bundleName) beside the sandbox executable "
                + "(\(misses.isEmpty ? "no index.html and login.html found" : misses.joined(separator: "; "))). "
                + "WebDAV works without them.")
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
