import Sandbox

extension Container {
    /// The app's preferences (`UserDefaults.standard`), read from
    /// `Library/Preferences/<app-id>.plist`.
    ///
    /// - Throws: the errors of ``Preferences/init(container:)``.
    public func preferences() throws(SandboxError) -> Preferences {
        try Preferences(container: self)
    }
}
