/// The folder a page session lives in: `/.sandbox/s/<scope>/`, `<scope>` being the session's own
/// random 256-bit name. The app page and everything it asks for are there, and the session
/// cookie's `Path` is that folder, so a browser sends the cookie nowhere else: not to `/`, and not
/// to another service on this host (cookies ignore ports), which is never asked for a folder whose
/// name it cannot know.
enum SessionFolder {
    static let prefix = "/.sandbox/s/"

    /// `/.sandbox/s/<scope>/`.
    static func path(of scope: String) -> String { prefix + scope + "/" }

    /// The scope and the rest of `path` when it is inside a session's folder
    /// (`/.sandbox/s/<scope>/<rest>`, the slash after the scope required), else `nil`.
    static func split(_ path: String) -> (scope: Substring, rest: Substring)? {
        guard path.hasPrefix(prefix) else { return nil }
        let inside = path.dropFirst(prefix.count)
        guard let slash = inside.firstIndex(of: "/"), slash > inside.startIndex else { return nil }
        return (inside[..<slash], inside[inside.index(after: slash)...])
    }
}
