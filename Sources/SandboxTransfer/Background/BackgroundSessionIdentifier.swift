extension DownloadSession {
    /// The prefix of the identifier of the ``DownloadSession`` in which `sandboxd` runs a background
    /// session's tasks in the app's container, so that it never clashes with a foreground session
    /// of the app. The daemon names its sessions with it and listings tell them apart by it.
    package static let backgroundIdentifierPrefix = "background-"

    /// The identifier of the download session that runs background session `session`.
    package static func identifier(ofBackground session: String) -> String { backgroundIdentifierPrefix + session }

    /// Whether session `identifier` is one `sandboxd` runs for a background session (its tasks are
    /// ``BackgroundSession``'s, listed through the daemon with their stable identifiers).
    public static func isBackground(identifier: String) -> Bool { identifier.hasPrefix(backgroundIdentifierPrefix) }
}
