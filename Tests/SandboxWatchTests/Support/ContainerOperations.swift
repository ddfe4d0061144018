import Sandbox
import SandboxCore

/// Runs `operation` on `app` coordinated, on a thread of its own; its error.
func coordinate(
    _ operation: CoordinatedOperation, of app: AppIdentifier, in home: SandboxHome,
    _ body: @escaping @Sendable () throws(SandboxError) -> Void
) async -> SandboxError? {
    do {
        try await OwnedThread.run(name: "operation") { () throws(SandboxError) in
            try home.coordinating(operation, of: app, timeout: .seconds(20), body)
        }
        return nil
    } catch {
        return error
    }
}

/// What a restore does to the data container: a new one, whose `Documents` holds `documents`
/// (each file holds its own name), exchanged with the live one; the old one removed.
func restoreContainer(of app: AppIdentifier, in home: SandboxHome, documents: [String]) throws(SandboxError) {
    let root = home.root
    let live = try ContainerPath("Containers/Data/\(app.rawValue)")
    let stage = try ContainerPath("Containers/Data/.restore-\(app.rawValue)")
    let folder = try stage.appending("Documents")
    try root.createDirectory(at: folder, withIntermediateDirectories: true)
    for name in documents { try root.writeContents(Array(name.utf8), to: try folder.appending(name)) }
    try root.exchangeItems(at: live, with: stage)
    try root.removeItem(at: stage, recursively: true)
}

/// What an uninstall does to the data container: removed.
func removeContainer(of app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
    try home.root.removeItem(at: try ContainerPath("Containers/Data/\(app.rawValue)"), recursively: true)
}
