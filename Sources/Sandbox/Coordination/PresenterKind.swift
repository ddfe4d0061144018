/// What a live user of a container is (``ContainerPresenter``): it decides how each
/// ``CoordinatedOperation`` treats it (``CoordinationPolicy``).
public enum PresenterKind: String, Sendable, Codable, CaseIterable {
    /// `sandbox share`: a WebDAV and web server on the container's Documents.
    case share
    /// `sandboxd`: background downloads delivered into the container.
    case daemon
    /// `sandbox watch` or a folder monitor of the `SandboxWatch` module.
    case watch
    /// A program started by `sandbox run`, executing from the bundle with the container as home.
    case run
    /// A process using the library on the container (the `NSFilePresenter` role).
    case app
}
