import SandboxCore

/// An app that a device-wide operation (``SandboxHome/restart()``, ``SandboxHome/purge(bytes:)``,
/// ``SandboxHome/storageValues()``, ``SandboxHome/openContainers()``) could not process.
///
/// One app's broken container (its `tmp` replaced by a link out, say) never stops the operation
/// for the others: the app is skipped, named in the report with the error, and the rest is done.
public struct SkippedApp: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app skipped.
    public var app: AppIdentifier
    /// The error's code, as ``/SandboxCore/SandboxError/Code`` spells it (`escapes-container`).
    public var code: String
    /// What failed, on which path, and the remedy.
    public var message: String

    /// The app `app`, skipped because of `error`, whose code and message the report keeps.
    public init(app: AppIdentifier, error: SandboxError) {
        self.app = app
        self.code = error.code.description
        self.message = error.message
    }

    /// The app, message and code in one line: `'com.example.notes' was skipped: … [code]`.
    public var description: String { "'\(app)' was skipped: \(message) [\(code)]" }
}

/// The containers of the installed apps that could be opened, and the apps that could not.
public struct DeviceContainers: Sendable {
    /// The apps' containers, sorted by app.
    public var containers: [Container]
    /// The apps whose containers could not be opened.
    public var skipped: [SkippedApp]
}

extension SandboxHome {
    /// Opens every installed app's containers, skipping (and naming) those that cannot be opened.
    ///
    /// - Throws: file-system errors listing `Containers/Data` itself.
    public func openContainers() throws(SandboxError) -> DeviceContainers {
        var result = DeviceContainers(containers: [], skipped: [])
        for app in try installedApps() {
            do throws(SandboxError) {
                result.containers.append(try container(for: app))
            } catch {
                result.skipped.append(SkippedApp(app: app, error: error))
            }
        }
        return result
    }

    /// Runs `body` on every installed app's container; an app whose container cannot be opened, or
    /// for which `body` throws, is skipped and returned, and the others are still processed.
    ///
    /// - Throws: file-system errors listing `Containers/Data` itself.
    func forEachContainer(_ body: (Container) throws(SandboxError) -> Void) throws(SandboxError) -> [SkippedApp] {
        let opened = try openContainers()
        var skipped = opened.skipped
        for container in opened.containers {
            do throws(SandboxError) {
                try body(container)
            } catch {
                skipped.append(SkippedApp(app: container.identifier, error: error))
            }
        }
        return skipped.sorted { $0.app < $1.app }
    }
}
