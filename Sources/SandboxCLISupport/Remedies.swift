import Foundation
import Sandbox

/// The command-line remedies added to a library failure's message: the libraries say what failed
/// and what to do in general; only the CLI knows which of its commands does it.
package enum Remedies {
    private static let byCode: [String: String] = [
        "not-found": "List the folder with `sandbox ls <app-id> <folder>`.",
        "no-space": "`sandbox purge` frees caches and temporary files.",
        "directory-not-empty": "`sandbox rm --recursive` removes it with its contents.",
    ]

    /// `sandbox: <message> <remedy> (<cause>) [<code>]`, the one line a failure prints.
    package static func line(for failure: any SandboxFailure) -> String {
        var text = failure.description
        let suffix = " [\(failure.codeName)]"
        if let remedy = byCode[failure.codeName], !text.contains("`sandbox "), text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
            text += " " + remedy + suffix
        }
        return "sandbox: " + text
    }
}
