/// The commands that live in the `sandbox-extras` executable instead of `sandbox`: the ones that
/// link the sharing server (Hummingbird), the HTTP client (AsyncHTTPClient, SwiftNIO) or the backup
/// repository. `sandbox` starts in a few milliseconds because it does not link them; it lists these
/// commands in its help and hands each of them, arguments untouched, to `sandbox-extras` with
/// `execv` (see the front's `ExtrasExecutable`).
///
/// The one list of their names and abstracts: `sandbox --help` shows them, `sandbox-extras` names
/// its commands with them.
package enum ExtraCommand: String, CaseIterable, Sendable {
    case download, downloads, fetch, share, backup, snapshots, check, restore, prune
    case export
    case `import`

    /// The command's name on the command line.
    package var name: String { rawValue }

    /// The one-line summary `sandbox --help` prints.
    package var abstract: String {
        switch self {
        case .download: "Download a URL into a container's Caches (or Documents), resumably."
        case .downloads: "List an app's downloads and their states."
        case .fetch: "Fetch a URL into memory (a data task) and print its body."
        case .share: "Share an app's Documents folder over WebDAV (iTunes File Sharing), until interrupted."
        case .backup: "Back up apps' containers into a repository (made if missing): one snapshot per run."
        case .snapshots: "List a repository's snapshots, oldest first."
        case .check: "Check a repository's structure; with --read-data, also re-hash every blob."
        case .restore: "Restore an app's container from a snapshot (the latest by default), all or nothing."
        case .prune:
            "Remove the snapshots no --keep rule keeps (restic's forget rules) and the blobs nothing refers to."
        case .export: "Write an app's data container as an Xcode container package (.xcappdata)."
        case .import: "Replace an app's data container with an Xcode container package's (.xcappdata), all or nothing."
        }
    }

    /// The extra command `arguments` (without the program's name) ask for: `share …`, or
    /// `help share …`; `nil` for any other command line.
    package static func requested(by arguments: some Collection<String>) -> ExtraCommand? {
        guard let first = arguments.first else { return nil }
        if first == "help" { return arguments.dropFirst().first.flatMap(Self.init(rawValue:)) }
        return Self(rawValue: first)
    }
}
