import Sandbox

extension Container {
    /// The app's preferences (`UserDefaults.standard`), read from
    /// `Library/Preferences/<app-id>.plist`.
    ///
    /// - Throws: the errors of ``Preferences/init(container:)``.
    public func preferences() throws(SandboxError) -> Preferences {
        try Preferences(container: self)
    }

    /// The preference suite of the App Group `group` (`UserDefaults(suiteName:)`), in the group's
    /// container: shared by its members, refused to others.
    ///
    /// - Throws: the errors of ``/Sandbox/Container/groupContainer(_:)`` (e.g.
    ///   `not-a-group-member`) and of ``Preferences/init(group:)``.
    public func preferences(suite group: AppGroupIdentifier) throws(SandboxError) -> Preferences {
        try Preferences(group: groupContainer(group))
    }
}
