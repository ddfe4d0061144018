import Foundation
import Sandbox

/// The command-line remedies added to a library failure's message: the libraries say what failed
/// and what to do in general; only the CLI knows which of its commands does it.
///
/// A remedy is added only where it fits: each is about an item in a container (a path under its
/// home, as the file system reported it), not a host file, a keychain item, an app, a repository
/// or a snapshot, whose failures carry their own remedies; some fit one command only. A message
/// that already names a `sandbox` command keeps its own.
package enum Remedies {
    /// What to do, and for which commands (`nil`: any).
    private struct Remedy {
        let text: String
        let commands: Set<String>?
    }

    private static let byCode: [String: Remedy] = [
        "not-found": Remedy(text: "List the folder with `sandbox ls <app-id> <folder>`.", commands: nil),
        "no-space": Remedy(text: "`sandbox purge` frees caches and temporary files.", commands: nil),
        // Only `rm` was asked to remove something: for `mv` or `cp` onto a folder, removing it is
        // not the remedy but a loss.
        "directory-not-empty": Remedy(text: "`sandbox rm --recursive` removes it with its contents.", commands: ["rm"]),
    ]

    /// `sandbox: <message> <remedy> (<cause>) [<code>]`, the one line a failure prints.
    ///
    /// - Parameter command: the command that failed (its name, e.g. `rm`), when known.
    package static func line(for failure: SandboxError, command: String? = nil) -> String {
        var text = failure.description
        let suffix = " [\(failure.code.rawValue)]"
        if let remedy = remedy(for: failure, command: command), !text.contains("`sandbox "), text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
            text += " " + remedy + suffix
        }
        return "sandbox: " + text
    }

    /// The remedy that fits `failure` of `command`, if any.
    static func remedy(for failure: SandboxError, command: String?) -> String? {
        guard let remedy = byCode[failure.code.rawValue], let path = failure.fileSystemError?.path,
            isInContainer(path)
        else { return nil }
        if let commands = remedy.commands, !commands.contains(command ?? "") { return nil }
        return remedy.text
    }

    /// Whether `path` names an item in a container: relative, under one of its top-level folders
    /// (`Documents/a.txt`, `Library/Caches`, `tmp`) — not a host path, an app identifier or a
    /// repository's key.
    static func isInContainer(_ path: String) -> Bool {
        guard !path.hasPrefix("/"), let first = path.split(separator: "/").first else { return false }
        return topLevelNames.contains(String(first))
    }

    private static let topLevelNames: Set<String> = Set(
        ContainerDirectory.allCases.compactMap { $0.path?.names.first?.string })
}
