import Foundation
import SandboxCore

extension SandboxHome {
    /// Opens `app` as a launch does (its bundle checked against its signature, refused if changed)
    /// and prepares `command` to run confined to its container (``ConfinedLaunch``). Nothing is
    /// started until ``ConfinedLaunch/start(standardInput:standardOutput:standardError:passing:)``.
    ///
    /// - Throws: the errors of ``openApp(_:preferredLanguages:environment:)``
    ///   (``SandboxCore/SandboxError/Code/bundleModified`` for a tampered bundle) and of
    ///   ``ConfinedLaunch/init(app:command:options:environment:variables:)``.
    public func prepareRun(
        _ app: AppIdentifier,
        command: [String],
        options: ConfinementOptions = ConfinementOptions(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> ConfinedLaunch {
        let opened = try openApp(app, environment: environment)
        return try ConfinedLaunch(app: opened, command: command, options: options, environment: environment)
    }
}
