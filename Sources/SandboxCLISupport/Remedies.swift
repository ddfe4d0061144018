import Foundation
import Sandbox
import SandboxStore

/// The command-line remedies added to a library failure's message, chosen by the failure's code:
/// the libraries say what failed and what to do in general, and name no command; only the CLI
/// knows which of its commands does it.
///
/// A remedy is added only where it fits: most are about an item in a container (a path under its
/// home, as the file system reported it), not a host file, a keychain item, a repository or a
/// snapshot; some fit one command only.
package enum Remedies {
    /// What a remedy is about, checked against the failure's path.
    package enum Scope: Sendable {
        /// Any failure of the code.
        case any
        /// An item in a container (``isInContainer(_:)``).
        case containerItem
        /// An item of Library/Preferences.
        case preferences
        /// An app, named by its identifier.
        case app
    }

    /// What to do, for which commands (`nil`: any) and which paths.
    package struct Remedy: Sendable {
        let text: String
        let commands: Set<String>?
        let scope: Scope

        package init(text: String, commands: Set<String>? = nil, scope: Scope = .containerItem) {
            self.text = text
            self.commands = commands
            self.scope = scope
        }
    }

    /// The remedies of each code of the layers `sandbox` links, the first that fits wins;
    /// `sandbox-extras` adds its layers' (``line(for:command:adding:)``).
    static let byCode: [SandboxError.Code: [Remedy]] = [
        .notFound: [
            Remedy(text: "List the folder with `sandbox ls <app-id> <folder>`."),
            Remedy(
                text: "`sandbox list` shows the installed apps; `sandbox create <app-id>` makes a container.",
                scope: .app),
        ],
        .noSpace: [Remedy(text: "`sandbox purge` frees caches and temporary files.")],
        .containerInUse: [
            Remedy(text: "`sandbox users <app-id>` lists what uses the app's containers.", scope: .app)
        ],
        // Only `rm` was asked to remove something: for `mv` or `cp` onto a folder, removing it is
        // not the remedy but a loss.
        .directoryNotEmpty: [Remedy(text: "`sandbox rm --recursive` removes it with its contents.", commands: ["rm"])],
        .alreadyExists: [
            Remedy(text: "`sandbox uninstall <app-id>` removes it.", commands: ["create"], scope: .app)
        ],
        .readOnly: [Remedy(text: "`sandbox defaults` writes preferences.", scope: .preferences)],
        .protectedDataUnavailable: [
            Remedy(text: "`sandbox unlock` unlocks the device (the passcode on standard input).", scope: .any)
        ],
        .untrustedKey: [Remedy(text: "`sandbox trust KEYFILE.pub` trusts a public key.", scope: .any)],
        .signatureInvalid: [
            Remedy(
                text: "`sandbox sign BUNDLE-DIR --key KEYFILE` signs it; `sandbox keygen KEYFILE` makes a key.",
                scope: .any)
        ],
        .fileSharingDisabled: [
            Remedy(
                text:
                    "`sandbox create <app-id> --file-sharing` makes a placeholder app that declares it; for a signed bundle, `sandbox sign` it again after the change and `sandbox update <app-id> --bundle DIR`.",
                scope: .any)
        ],
        .documentTypeNotAccepted: [
            Remedy(
                text:
                    "`sandbox list --json` shows the app's document types; `sandbox update <app-id> --bundle DIR` installs a bundle that declares one.",
                scope: .any)
        ],
        .bundleModified: [
            Remedy(
                text: "`sandbox sign BUNDLE-DIR --key KEYFILE` signs it again.", commands: ["create", "update"],
                scope: .any),
            Remedy(text: "`sandbox update <app-id> --bundle DIR` reinstalls it.", scope: .any),
        ],
        .notAGroupMember: [
            Remedy(
                text:
                    "`sandbox sign BUNDLE-DIR --key KEYFILE --entitlements FILE` signs the group into the bundle; `sandbox update <app-id> --bundle BUNDLE-DIR` installs it.",
                scope: .any)
        ],
    ]

    /// `sandbox: <message> <remedy> (<cause>) [<code>]`, the one line a failure prints.
    ///
    /// - Parameters:
    ///   - command: the command that failed (its name, e.g. `rm`), when known.
    ///   - more: the remedies of the codes of the layers only this binary links.
    package static func line(
        for error: SandboxError, command: String? = nil, adding more: [SandboxError.Code: [Remedy]] = [:]
    ) -> String {
        var text = error.description
        let suffix = " [\(error.code)]"
        if let remedy = remedy(for: error, command: command, adding: more), text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
            text += " " + remedy + suffix
        }
        return "sandbox: " + text
    }

    /// The remedy that fits `error` of `command`, if any.
    static func remedy(
        for error: SandboxError, command: String?, adding more: [SandboxError.Code: [Remedy]] = [:]
    ) -> String? {
        let path = error.path ?? error.underlying?.sandboxError?.path
        return (more[error.code] ?? byCode[error.code])?.first { remedy in
            if let commands = remedy.commands, !commands.contains(command ?? "") { return false }
            return fits(remedy.scope, path)
        }?.text
    }

    private static func fits(_ scope: Scope, _ path: String?) -> Bool {
        switch scope {
        case .any: true
        case .containerItem: path.map(isInContainer) ?? false
        case .preferences: path.map { isInContainer($0) && $0.hasPrefix("Library/Preferences") } ?? false
        case .app: path.map(isAppIdentifier) ?? false
        }
    }

    /// Whether `path` is an app's identifier (reverse DNS), as the failures about an app name it.
    static func isAppIdentifier(_ path: String) -> Bool {
        do {
            _ = try AppIdentifier(path)
            return true
        } catch {
            return false  // the answer: not an identifier
        }
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
