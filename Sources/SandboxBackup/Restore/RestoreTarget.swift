import Sandbox
import SandboxCore
import SandboxStore

/// What one exchange of a restore replaces, with the keychain that goes with it: an app's data
/// container (`Containers/Data/<app-id>`, the app's keychain), or the container of an App Group
/// restored with a member app (`Containers/Shared/AppGroup/<group-id>`, the group's keychain
/// access group). Its staging directories are hidden folders beside the live container,
/// `.restoring-<token>-<name>`, with the keychain's rollback record (``KeychainRollback``) at
/// that name and `.keychain`.
enum RestoreTarget: Sendable, Hashable, CustomStringConvertible {
    case app(AppIdentifier)
    /// A group's container, restored with its member `member` (through which its keychain opens).
    case group(AppGroupIdentifier, member: AppIdentifier)

    /// The folder holding the live container and its staging directories.
    var folder: ContainerPath {
        switch self {
        case .app: Restore.dataContainers
        case .group: SandboxHome.groupContainers
        }
    }

    /// The live container's name in ``folder``.
    var name: String {
        switch self {
        case .app(let app): app.rawValue
        case .group(let group, _): group.rawValue
        }
    }

    /// The live container.
    var live: ContainerPath { folder.appendingTrusted(name) }

    /// The part of a snapshot that holds it: the app's identifier, or `AppDomainGroup-<group-id>`.
    var partName: String {
        switch self {
        case .app(let app): app.rawValue
        case .group(let group, _): AppSnapshot.groupPartName(group)
        }
    }

    /// The container's own folders a restore makes where the snapshot lacks them.
    var layout: [ContainerPath] {
        switch self {
        case .app: RestorePlan.containerDirectories
        case .group: AppGroupContainer.layout
        }
    }

    var description: String {
        switch self {
        case .app(let app): "'\(app)'"
        case .group(let group, _): "App Group '\(group)'"
        }
    }

    /// A new staging directory's name.
    func makeStageName() -> String { "\(Restore.stagePrefix)\(RandomToken.make())-\(name)" }

    /// Whether `entry` of ``folder`` is one of its staging directories (`.restoring-<token>-<name>`;
    /// the token has no `-`, so another name ending in this one is not taken for it).
    func isStage(_ entry: String) -> Bool {
        guard entry.hasPrefix(Restore.stagePrefix) else { return false }
        let rest = entry.dropFirst(Restore.stagePrefix.count)
        guard let dash = rest.firstIndex(of: "-") else { return false }
        return rest[rest.index(after: dash)...] == name
    }

    /// Every item of its keychain.
    func keychainItems(home: SandboxHome) throws(SandboxError) -> [KeychainItem] {
        switch self {
        case .app(let app): try KeychainBackupAccess.items(home: home, app: app)
        case .group(let group, let member): try KeychainBackupAccess.items(home: home, app: member, group: group)
        }
    }

    /// Replaces every item of its keychain with `items`.
    func replaceKeychain(_ items: [KeychainItem], home: SandboxHome) throws(SandboxError) {
        switch self {
        case .app(let app): try KeychainBackupAccess.replaceItems(items, home: home, app: app)
        case .group(let group, let member):
            try KeychainBackupAccess.replaceItems(items, home: home, app: member, group: group)
        }
    }
}
