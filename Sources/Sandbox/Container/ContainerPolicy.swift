import SandboxCore

/// The container's policy, in one place: whether an operation is allowed on an item of the data
/// container, judged where the item is, and the refusal that says why not.
///
/// It answers for a *resolved* path — `..` folded, links followed — by its place in the layout
/// (``ContainerDirectory/holding(_:)``) and that directory's rules (``DirectoryPolicy``); it reads
/// nothing on disk. ``Container/checkPolicy(allowing:at:)`` resolves a path as the app spelled it
/// and asks it; the share asks it for the paths it serves, which its confined root never lets a
/// link redirect.
///
/// Each surface has its policy: ``app`` for the app and what acts for it (the `sandbox` CLI, the
/// store's APIs), ``fileSharing`` for what file sharing shows a person (`sandbox share`). The
/// operations are ``DirectoryPolicy/Action``'s: `read` covers reading, listing and describing;
/// a move is ``checkMove(from:to:requested:)``, removing the source and creating the destination.
public struct ContainerPolicy: Sendable, Hashable {
    /// Who acts on the container.
    public enum Surface: String, Sendable, Hashable, CaseIterable {
        /// The app, and the tools acting for it: each directory's ``DirectoryPolicy/appAccess``.
        case app
        /// File sharing: only what ``ContainerDirectory/isShownByFileSharing`` (`Documents`, not its
        /// `Inbox`), and there only what the app may do.
        case fileSharing = "file-sharing"
    }

    /// The surface this policy answers for.
    public let surface: Surface

    /// The app's policy.
    public static let app = ContainerPolicy(surface: .app)
    /// File sharing's policy.
    public static let fileSharing = ContainerPolicy(surface: .fileSharing)

    /// The policy of `surface`.
    public init(surface: Surface) {
        self.surface = surface
    }

    /// Whether `action` is allowed on the item at the resolved path `location`: by the directory
    /// that holds it, and, for `.delete`, by every directory of the layout beneath it (removing a
    /// directory removes what it holds).
    public func allows(_ action: DirectoryPolicy.Action, at location: ContainerPath) -> Bool {
        refusal(action, at: location, requested: location) == nil
    }

    /// Whether `action` is allowed in `directory` itself or anything in it, such as the bundle,
    /// which has no path in the data container.
    public func allows(_ action: DirectoryPolicy.Action, in directory: ContainerDirectory) -> Bool {
        isShown(directory) && directory.policy.allows(action)
    }

    /// Refuses `action` on the item at the resolved path `location`, which the caller named
    /// `requested` (the message names both when they differ).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly`` where the app may not do it, naming
    ///   the directory's rule; ``/SandboxCore/SandboxError/Code/notFound`` where file sharing shows
    ///   nothing.
    public func check(
        _ action: DirectoryPolicy.Action, at location: ContainerPath, requested: ContainerPath? = nil
    ) throws(SandboxError) {
        if let refusal = refusal(action, at: location, requested: requested ?? location) { throw refusal }
    }

    /// Refuses moving or renaming the item at the resolved path `source` to the resolved path
    /// `destination`: removing it where it was and creating it where it goes must both be allowed.
    /// `requested` is the pair as the caller named it, for the message.
    ///
    /// - Throws: what ``check(_:at:requested:)`` throws, for either path.
    public func checkMove(
        from source: ContainerPath, to destination: ContainerPath,
        requested: (source: ContainerPath, destination: ContainerPath)? = nil
    ) throws(SandboxError) {
        let named = requested ?? (source, destination)
        let move = "moving '\(named.source)' to '\(named.destination)'"
        if let refusal = refusal(.delete, at: source, requested: named.source, doing: move) { throw refusal }
        if let refusal = refusal(.create, at: destination, requested: named.destination, doing: move) {
            throw refusal
        }
    }

    /// Why `action` at `location` (named `requested`) is refused, or `nil` when it is allowed (no
    /// message is made then: the share asks for every item it lists).
    func refusal(
        _ action: DirectoryPolicy.Action, at location: ContainerPath, requested: ContainerPath,
        doing operation: String? = nil
    ) -> SandboxError? {
        let directory = ContainerDirectory.holding(location)
        if !allows(action, in: directory) {
            let place = location == requested ? "'\(requested)'" : "'\(requested)' (which leads to '\(location)')"
            return refusal(action, at: requested, place: place, by: directory, doing: operation)
        }
        guard action == .delete else { return nil }
        for inner in ContainerDirectory.allCases where !allows(.delete, in: inner) {
            guard let innerPath = inner.path, innerPath.isDescendant(of: location), innerPath != location else {
                continue
            }
            return refusal(
                action, at: requested, place: "'\(requested)', which holds '\(innerPath)'", by: inner,
                doing: operation)
        }
        return nil
    }

    private func isShown(_ directory: ContainerDirectory) -> Bool {
        surface == .app || directory.isShownByFileSharing
    }

    private func refusal(
        _ action: DirectoryPolicy.Action, at path: ContainerPath, place: String, by directory: ContainerDirectory,
        doing operation: String?
    ) -> SandboxError {
        let verb =
            switch action {
            case .read: "reading"
            case .create: "creating"
            case .modify: "changing"
            case .delete: "removing"
            }
        // A move names both ends already: the place is added only when it says more (a link, `..`,
        // a directory held beneath).
        let doing = operation.map { place == "'\(path)'" ? $0 : "\($0) (\(place))" } ?? "\(verb) \(place)"
        let shown = directory.path.map { "'\($0)'" } ?? "the app's bundle"
        guard isShown(directory) else {
            let inside = ContainerDirectory.documents.path.flatMap { directory.path?.isDescendant(of: $0) } ?? false
            let reason =
                inside
                ? "file sharing shows 'Documents' but not \(shown), which only the app sees"
                : "file sharing shows only 'Documents'"
            return SandboxError(.notFound, "Refused \(doing): \(reason).", path: path.description)
        }
        let rule: String
        switch directory.policy.appAccess {
        case .readAndDelete:
            rule =
                "\(shown) is where other apps deliver documents: the app may only read and delete there. Move the document out of the Inbox to change it"
        case .preferencesAPI:
            rule = "\(shown) is written only through the preferences API"
        case .readOnly, .readWrite:
            rule = "\(shown) is read-only"
        }
        return SandboxError(.readOnly, "Refused \(doing): \(rule).", path: path.description)
    }
}
