import SandboxCore

extension ContainerDirectory {
    /// Whether file sharing (Finder's and iTunes' file sharing on iOS; `sandbox share` here) shows
    /// what this directory holds: `Documents` does; its `Inbox`, where other apps deliver documents
    /// the app has not taken in yet, does not (iOS shows it to the app alone), and no other
    /// directory is shared at all. ``ContainerPolicy/fileSharing`` judges by it.
    public var isShownByFileSharing: Bool { self == .documents }
}
