import Sandbox
import SandboxCore

/// What one part of a snapshot is read from: an app's data container, or the container of an App
/// Group of the apps backed up (iOS's domain `AppDomainGroup-<group-id>`).
struct BackupSource {
    /// The part's name: the app's identifier, or ``AppSnapshot/groupPartName(_:)``.
    let name: String
    /// The container, confined.
    let root: ConfinedRoot
    /// The preferences file read under its lock: the app's, or the group's suite.
    let preferencesName: String
    /// Whose keychain record goes with the part: the app's, or the group's access group (read
    /// through the member that opened the group).
    let target: RestoreTarget

    init(_ container: Container) {
        name = container.identifier.rawValue
        root = container.root
        preferencesName = container.identifier.rawValue
        target = .app(container.identifier)
    }

    init(_ group: AppGroupContainer) {
        name = AppSnapshot.groupPartName(group.group)
        root = group.root
        preferencesName = group.group.rawValue
        target = .group(group.group, member: group.app)
    }
}

extension BackupRun {
    /// The containers of the App Groups the apps' verified bundles list, each once, sorted by group
    /// (made if no member used one yet, as a member's use would). An app whose membership cannot be
    /// read adds none, with a warning.
    mutating func groups(of containers: [Container]) throws(SandboxError) -> [AppGroupContainer] {
        var seen: Set<AppGroupIdentifier> = []
        var groups: [AppGroupContainer] = []
        for container in containers {
            let listed: [AppGroupIdentifier]
            do throws(SandboxError) {
                listed = try container.appGroups()
            } catch {
                warnings.append(
                    "'\(container.identifier)': its App Groups could not be read (\(error.message)); none was backed up for it."
                )
                continue
            }
            for group in listed where seen.insert(group).inserted {
                groups.append(try container.groupContainer(group))
            }
        }
        return groups.sorted { $0.group < $1.group }
    }
}
