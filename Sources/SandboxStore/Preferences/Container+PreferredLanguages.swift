import Foundation
import Sandbox

extension Container {
    /// The app's preferred languages, most wanted first: its `AppleLanguages` preference (read
    /// through ``Preferences``, under the preferences file's lock), else the environment's
    /// (``/Sandbox/PreferredLanguages/fromEnvironment(_:)``). An empty list also falls back to the
    /// environment.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged preferences file,
    ///   ``SandboxCore/SandboxError/Code/typeMismatch`` when `AppleLanguages` is not a list of strings (the file
    ///   is left as it was in both cases), and the core's codes.
    public func preferredLanguages(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> [String] {
        let preferences = try self.preferences()
        guard let stored = preferences.storedValues[PreferredLanguages.preferenceKey] else {
            return PreferredLanguages.fromEnvironment(environment)
        }
        guard let languages = [String](preferenceValue: stored) else {
            throw SandboxError(
                .typeMismatch,
                "'\(PreferredLanguages.preferenceKey)' in '\(preferences.path)' is a \(stored.typeName), not a list of language tags. It was left as it was; write it again as a list of strings.",
                path: preferences.path.description
            )
        }
        return languages.isEmpty ? PreferredLanguages.fromEnvironment(environment) : languages
    }

    /// The bundle, read-only, for resource look-ups in the app's preferred languages
    /// (``preferredLanguages(environment:)``). Does not check the signature: open the app with
    /// ``/Sandbox/SandboxHome/openApp(_:preferredLanguages:environment:)`` for that.
    ///
    /// - Throws: the errors of ``preferredLanguages(environment:)``, and the core's codes.
    public func localizedBundle(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> AppBundle {
        let languages = try preferredLanguages(environment: environment)
        return try bundle(preferredLanguages: languages)
    }
}

extension SandboxHome {
    /// Opens an installed app as ``/Sandbox/SandboxHome/openApp(_:preferredLanguages:environment:)`` does, with its
    /// bundle set to the app's preferred languages (``Container/preferredLanguages(environment:)``).
    ///
    /// - Throws: the errors of both.
    public func openAppInPreferredLanguages(
        _ app: AppIdentifier, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> OpenedApp {
        let installed = try self.container(for: app)
        let languages = try installed.preferredLanguages(environment: environment)
        return try openApp(app, preferredLanguages: languages, environment: environment)
    }
}
