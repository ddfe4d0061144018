import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// iOS backup folders, as Finder and iTunes write them (unencrypted): `Manifest.plist`,
/// `Info.plist`, `Status.plist`, `Manifest.db` (SQLite; a `Files` row per item, its `file` column an
/// `MBFile` keyed archive) and each file's contents at `<fileID[0:2]>/<fileID>`, where the fileID
/// is the hex SHA-1 of `<domain>-<relativePath>`. An app's data container is the domain
/// `AppDomain-<app-id>`; an App Group's container `AppDomainGroup-<group-id>`.
///
/// **Export** writes the apps' domains and their groups' (each group once), read through the
/// confined roots while their users pause as for a backup, by iOS's backup rules: `Library/Caches`
/// and `tmp` are left out, and so is the keychain, always. The trees are copied as an Xcode
/// container export copies them (``XcodeContainer``: a symlink leading out of the container is
/// refused, FIFOs, sockets and devices are left out with a note, protected files are written in
/// the clear), into a hidden folder beside the backup's name, then listed, and the folder renamed
/// to the name: a killed export leaves no backup, or a part of one, under the name.
///
/// **Import** takes the domain `AppDomain-<app-id>` of a backup into the app's live container,
/// all or nothing, as an Xcode container import does (``XcodeContainer``): staged beside the
/// container, checked, swapped in with one exchange while the app's users are coordinated with as
/// for a restore; a failed or killed import leaves the old container as it was. Every row is
/// checked before a byte is staged (see ``importApp(_:into:from:password:limits:)``). An encrypted
/// backup is read with its password through its keybag (an encrypted source); nothing else differs.
public enum IOSBackup {
    static let exportingMarker = ".exporting-"
    /// The folder of an export's staging folder holding the domains' trees before they are listed.
    static let trees = ContainerPath(constant: ".trees")

    /// Writes the domains of `apps` (and of their App Groups) to a new backup folder at
    /// `hostPath`, which must not exist or must be an empty folder.
    ///
    /// The work runs on a thread of its own; the task awaits it.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when an app is not installed or the
    ///   folder's parent is missing; ``/SandboxCore/SandboxError/Code/alreadyExists`` when an item
    ///   other than an empty folder is at `hostPath`; ``/SandboxCore/SandboxError/Code/invalidArgument``
    ///   for a name in a container that is not UTF-8; ``SandboxCore/SandboxError/Code/invalidPackage``
    ///   for a symlink in a container leading out of it; `too-large` past `limits`;
    ///   `container-in-use` when a user does not pause; `protected-data-unavailable` when a
    ///   protected file's class is locked; file-system errors. Nothing is left under the name then.
    public static func export(
        apps: [AppIdentifier], from home: SandboxHome, to hostPath: String, limits: IOSBackupLimits = .default
    ) async throws(SandboxError) -> IOSBackupReport {
        try await OwnedThread.run(name: "sandbox-export") { () throws(SandboxError) in
            try export(apps: apps, from: home, to: hostPath, limits: limits)
        }
    }

    /// ``export(apps:from:to:limits:)`` on the calling thread, which it blocks.
    package static func export(
        apps: [AppIdentifier], from home: SandboxHome, to hostPath: String, limits: IOSBackupLimits = .default
    ) throws(SandboxError) -> IOSBackupReport {
        let containers = try apps.map { (app) throws(SandboxError) in try home.container(for: app) }
        let (folder, name) = folderName(hostPath)
        let parent = try ConfinedRoot(openingDirectoryAt: folder)
        let final = try ContainerPath(name)
        let replacingEmpty = try requireEmptyOrAbsent(final, in: parent, shown: hostPath)
        // Folders of exports to this name that were killed.
        let stagePrefix = ".\(name)\(exportingMarker)"
        for entry in try parent.contentsOfDirectory(at: .root) where entry.name.hasPrefix(stagePrefix) {
            try parent.removeItem(at: try ContainerPath(entry.name), recursively: true)
        }
        let stage = try ContainerPath(stagePrefix + RandomToken.make())
        var export = IOSBackupExport(home: home, limits: limits)
        do throws(SandboxError) {
            try parent.createDirectory(at: stage)
            try parent.setPermissions(FilePermissions(rawValue: 0o700), at: stage)
            let output = try parent.openSubroot(at: stage, refusingSymlinks: true)
            try output.createDirectory(at: trees)
            for container in containers {
                try home.coordinating(.backup, of: container.identifier) { () throws(SandboxError) in
                    try export.copy(
                        IOSBackupItem.domain(of: container.identifier.rawValue), from: container.root,
                        skipping: preferencesLock(named: container.identifier.rawValue), into: output)
                }
            }
            for group in try groups(of: containers) {
                try home.coordinating(.backup, apps: try home.members(of: group.group)) { () throws(SandboxError) in
                    try export.copy(
                        AppSnapshot.groupPartName(group.group), from: group.root,
                        skipping: preferencesLock(named: group.group.rawValue), into: output)
                }
            }
            try export.index(output)
            try output.removeItem(at: trees, recursively: true)
            try IOSBackupManifestDatabase.write(export.items, to: output.hostPath + "/Manifest.db")
            let deviceIdentifier =
                containers.first.flatMap { AppDataInfo.describing(app: $0.identifier, home: home).deviceIdentifier }?
                .lowercased() ?? ""
            let info = IOSBackupFolderInfo(
                deviceIdentifier: deviceIdentifier, deviceName: ProcessInfo.processInfo.hostName, date: Date(),
                apps: apps.map { ($0.rawValue, "1.0") })
            for file in try info.files() {
                try output.writeContents(file.bytes, to: ContainerPath(file.name))
            }
            try output.synchronizeFileSystem()
            try parent.moveItem(from: stage, to: final, replacingExisting: replacingEmpty)
        } catch {
            _ = try? parent.removeItem(at: stage, recursively: true)  // the next export to the name sweeps it
            throw error
        }
        return IOSBackupReport(
            apps: apps.map(\.rawValue), folder: hostPath, domains: export.domains, items: export.items.count,
            bytes: export.bytes, notes: export.notes)
    }

    /// Whether an empty folder is at `path` (which the export replaces); throws for any other item.
    private static func requireEmptyOrAbsent(
        _ path: ContainerPath, in parent: ConfinedRoot, shown: String
    ) throws(SandboxError) -> Bool {
        guard try parent.itemExists(at: path) else { return false }
        let empty: Bool
        do throws(SandboxError) {
            empty = try parent.contentsOfDirectory(at: path).isEmpty
        } catch  where error.code == .notADirectory || error.code == .symlinkLoop {
            empty = false
        }
        guard empty else {
            throw SandboxError(
                .alreadyExists,
                "'\(shown)' exists and is not an empty folder; a backup is never written over an item. Choose another name, or remove it first.",
                path: shown)
        }
        return true
    }

    /// The App Group containers of `containers`' verified bundles, each once, by group.
    private static func groups(of containers: [Container]) throws(SandboxError) -> [AppGroupContainer] {
        var seen: Set<AppGroupIdentifier> = []
        var groups: [AppGroupContainer] = []
        for container in containers {
            for group in try container.appGroups() where seen.insert(group).inserted {
                groups.append(try container.groupContainer(group))
            }
        }
        return groups.sorted { $0.group < $1.group }
    }

    /// The folder and the name of a host path.
    static func folderName(_ hostPath: String) -> (folder: String, name: String) {
        var path = Substring(hostPath)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let folder = path.dropLast(name.count)
        return (folder.isEmpty ? "." : String(folder), name)
    }

    /// The preferences' lock file of the suite `name`: a running process's state, not data.
    static func preferencesLock(named name: String) -> ContainerPath {
        ContainerPath(constant: "Library/Preferences").appendingTrusted(
            PreferencesBackupAccess.fileNames(named: name).lock)
    }
}
