import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// Xcode's container packages (`.xcappdata`), the layout of its "Download Container…" and
/// "Replace Container…": `AppDataInfo.plist` (``AppDataInfo``) and `AppData/`, a copy of the data
/// container (`Documents`, `Library`, `tmp`, …). The bundle is never in one.
///
/// **Export** copies the live container, while its users pause as for a backup, into a hidden
/// folder beside the package's name, then renames it to that name (never over an item there): a
/// killed export leaves no package, or a part of one, under the name. Everything is copied —
/// `Library/Caches` and `tmp` too, as Xcode does — but the preferences' lock file. Protected
/// files (``/SandboxStore/DataProtection``) are written in the clear, which is what Xcode can
/// read, and keep their folders' and their own class attributes, so that an import seals them
/// again (see `AppDataCopier+Protection`); a class that is locked refuses the export.
///
/// **Import** replaces the app's data container as ``Restore`` does, with its staging and its one
/// exchange (`renameat2(RENAME_EXCHANGE)`): the package's `AppData` is copied into a staging
/// folder beside the container, the container folders it lacks are made empty (`Library/Caches`,
/// `tmp`, the Inbox and `Library/Preferences` are optional in a package), and the staged
/// container is swapped in. A plain file is sealed on its way in with its own class attribute, else
/// its folder's default class, as a restore seals one; a file sealed already is taken only when
/// this device's keys open it. A failed or killed import leaves the old container as it was. The
/// bundle stays as installed. The app's live users are coordinated with as for a restore
/// (``/Sandbox/CoordinatedOperation/restore``: an import replaces the container exactly as a
/// restore does, so each kind of user answers it as it answers a restore — an app lets go and
/// reopens, a program under `sandbox run` refuses it).
///
/// A package is data from outside and is checked as it is copied (`AppDataCopier`): symlinks
/// leading out of `AppData`, hard links, FIFOs, sockets and devices, container folders that are
/// not folders, and more items or bytes than ``XcodeContainerLimits`` are refused with
/// ``SandboxCore/SandboxError/Code/invalidPackage`` (limits: `too-large`), before the exchange.
/// Names are kept byte for byte. iOS's container identity file
/// (`.com.apple.mobile_container_manager.metadata.plist`) is left out.
public enum XcodeContainer {
    static let appData = ContainerPath(constant: "AppData")
    static let exportingMarker = ".exporting-"
    /// iOS's record of which container a folder is: the source device's, never this one's.
    static let containerIdentityFile = ContainerPath(
        constant: ".com.apple.mobile_container_manager.metadata.plist")

    /// Writes the data container of `app` to a new package at `hostPath` (a name ending in
    /// `.xcappdata`, in an existing folder).
    ///
    /// The work runs on a thread of its own; the task awaits it.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed or the
    ///   package's folder is missing; ``/SandboxCore/SandboxError/Code/alreadyExists`` when an
    ///   item is at `hostPath`; ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name not
    ///   ending in `.xcappdata`; ``SandboxCore/SandboxError/Code/invalidPackage`` for a symlink in
    ///   the container leading out of it; `too-large` past `limits`;
    ///   `container-in-use` when a user of the container does not
    ///   pause; `protected-data-unavailable` when a protected
    ///   file's class is locked (naming its folder); file-system errors. Nothing is left under the
    ///   package's name then.
    public static func export(
        app: AppIdentifier, from home: SandboxHome, to hostPath: String, limits: XcodeContainerLimits = .default
    ) async throws(SandboxError) -> XcodeContainerReport {
        try await OwnedThread.run(name: "sandbox-export") { () throws(SandboxError) in
            try export(app: app, from: home, to: hostPath, limits: limits)
        }
    }

    /// ``export(app:from:to:limits:)`` on the calling thread, which it blocks.
    package static func export(
        app: AppIdentifier, from home: SandboxHome, to hostPath: String, limits: XcodeContainerLimits = .default
    ) throws(SandboxError) -> XcodeContainerReport {
        let container = try home.container(for: app)
        let (folder, name) = try packageName(hostPath)
        let parent = try ConfinedRoot(openingDirectoryAt: folder)
        let final = try ContainerPath(name)
        if try parent.itemExists(at: final) {
            throw SandboxError(
                .alreadyExists,
                "'\(hostPath)' exists; a package is never written over an item. Choose another name, or remove it first.",
                path: hostPath)
        }
        // Folders of exports to this name that were killed.
        let stagePrefix = ".\(name)\(exportingMarker)"
        for entry in try parent.contentsOfDirectory(at: .root) where entry.name.hasPrefix(stagePrefix) {
            try parent.removeItem(at: try ContainerPath(entry.name), recursively: true)
        }
        let stage = try ContainerPath(stagePrefix + RandomToken.make())
        var copier: AppDataCopier
        do throws(SandboxError) {
            try parent.createDirectory(at: stage)
            try parent.setPermissions(FilePermissions(rawValue: 0o700), at: stage)
            let package = try parent.openSubroot(at: stage, refusingSymlinks: true)
            try package.createDirectory(at: appData)
            copier = AppDataCopier(
                .exporting, limits: limits, source: container.homeDirectory,
                skipping: [preferencesLock(of: app)],
                protection: .init(
                    dataProtection: DataProtection(home: home), source: container.root,
                    output: try package.openSubroot(at: appData, refusingSymlinks: true)))
            let info = try PropertyList.encode(AppDataInfo.describing(app: app, home: home), format: .xml)
            try package.writeContents(info, to: ContainerPath(constant: "AppDataInfo.plist"))
            try home.coordinating(.backup, of: app) { () throws(SandboxError) in
                let input = try container.root.openDirectory(.root)
                let output = try package.openDirectory(appData)
                try copier.copy(from: input.rawValue, to: output.rawValue)
                try AppDataCopier.copyModeAndTimes(
                    from: input.rawValue, to: output.rawValue, path: package.displayPath(of: appData))
            }
            try package.synchronizeFileSystem()
            try parent.moveItem(from: stage, to: final)
        } catch {
            _ = try? parent.removeItem(at: stage, recursively: true)  // the next export to the name sweeps it
            throw error
        }
        return XcodeContainerReport(
            app: app.rawValue, package: hostPath, items: copier.items, bytes: copier.bytes, notes: copier.notes)
    }

    /// Replaces the data container of `app` (which must be installed) with the `AppData` of the
    /// package at `hostPath`.
    ///
    /// The work runs on a thread of its own; the task awaits it. It is not cancelled with the task.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidPackage`` for a package that is not one
    ///   (no `AppDataInfo.plist` or `AppData`) or holds what an import refuses, naming the item;
    ///   `too-large` past `limits`; ``/SandboxCore/SandboxError/Code/notFound`` when the app is not
    ///   installed; `container-in-use` while a program under
    ///   `sandbox run` uses the container (before any work);
    ///   `protected-data-unavailable` when a folder's class cannot
    ///   be sealed while the device is locked (naming the folder), or a sealed file cannot be
    ///   checked; `invalid-package` for a sealed file this device's keys do not open; file-system
    ///   errors. The container is unchanged whenever it throws.
    public static func importContainer(
        app: AppIdentifier, into home: SandboxHome, from hostPath: String, limits: XcodeContainerLimits = .default
    ) async throws(SandboxError) -> XcodeContainerReport {
        try await OwnedThread.run(name: "sandbox-import") { () throws(SandboxError) in
            try importContainer(app: app, into: home, from: hostPath, limits: limits)
        }
    }

    /// ``importContainer(app:into:from:limits:)`` on the calling thread, which it blocks.
    package static func importContainer(
        app: AppIdentifier, into home: SandboxHome, from hostPath: String, limits: XcodeContainerLimits = .default
    ) throws(SandboxError) -> XcodeContainerReport {
        _ = try home.container(for: app)  // installed: the bundle stays as it is
        try home.requireNoRefusal(of: .restore, for: app)  // before the work, not only at the exchange
        let package = try openPackage(hostPath)
        let info = try AppDataInfo.read(from: package)
        var notes: [String] = []
        if let other = info.bundleIdentifier, other != app.rawValue {
            notes.append("The package holds the data of '\(other)'; it was imported into '\(app)' as asked.")
        }
        let source: ConfinedRoot
        do {
            source = try package.openSubroot(at: appData, refusingSymlinks: true)
        } catch {
            let shown = package.displayPath(of: appData)
            throw SandboxError(
                .invalidPackage,
                "'\(shown)' \(error.code == .notFound ? "is missing" : "is not a folder"); an Xcode container package holds the app's data there. The package was not imported and the app's container is unchanged.",
                path: shown)
        }
        let copied = try replaceContainer(
            of: app, in: home, with: source, named: package.displayPath(of: appData), limits: limits)
        return XcodeContainerReport(
            app: app.rawValue, package: hostPath, items: copied.items, bytes: copied.bytes,
            notes: notes + copied.notes)
    }

    /// Replaces the data container of `app` with a copy of the tree `source` (named `name` in
    /// messages), and the container of each of `groups` (App Groups `app` is a member of) with its
    /// tree, by an import's rules: each staged beside its container through ``AppDataCopier``, the
    /// container folders it lacks made, then put in place with one exchange each
    /// (``RestoreExchanges``, as a restore does: the groups first, the app last; a failure puts back
    /// every one already exchanged) while the live users of the app and of every member of the
    /// groups are coordinated with as for a restore. The containers are unchanged whenever it throws.
    package static func replaceContainer(
        of app: AppIdentifier, in home: SandboxHome, with source: ConfinedRoot, named name: String,
        groups: [(group: AppGroupIdentifier, source: ConfinedRoot, name: String)] = [], limits: XcodeContainerLimits
    ) throws(SandboxError) -> (items: Int, bytes: Int64, notes: [String]) {
        var notes: [String] = []
        // What killed restores and imports left (the keychain's record, staging folders).
        try Restore.recoverInterrupted(app: app, in: home)
        var apps = [app]
        for entry in groups { apps += try home.members(of: entry.group) }
        apps = Array(Set(apps)).sorted()
        for member in apps { try home.requireNoRefusal(of: .restore, for: member) }
        let trees =
            groups.map { (target: RestoreTarget.group($0.group, member: app), source: $0.source, name: $0.name) }
            + [(target: .app(app), source: source, name: name)]
        var staged: [ImportedContainer] = []
        var exchanges = RestoreExchanges(home: home)
        var (items, bytes) = (0, Int64(0))
        do throws(SandboxError) {
            for tree in trees {
                let container = ImportedContainer(tree.target)
                try home.root.createDirectory(at: tree.target.folder, withIntermediateDirectories: true)
                try home.root.createDirectory(at: container.stagePath)
                staged.append(container)
                let copied = try stage(
                    tree.source, named: tree.name, for: tree.target, at: container, in: home, limits: limits)
                items += copied.items
                bytes += copied.bytes
            }
            try home.coordinating(.restore, apps: apps) { () throws(SandboxError) in
                for container in staged { try exchanges.exchange(container) }
            }
        } catch {
            exchanges.rollBack(.discarding)
            for container in staged {
                do throws(SandboxError) {
                    try home.root.removeItem(at: container.stagePath, recursively: true)
                } catch let failure {
                    // The next restore or import sweeps it.
                    notes.append(failure.message)
                }
            }
            throw error
        }
        for container in staged {
            do throws(SandboxError) {
                try home.root.removeItem(at: container.stagePath, recursively: true, threads: Restore.removalThreads)
            } catch {
                notes.append(
                    "The replaced container of \(container.target) could not be removed from '\(home.root.displayPath(of: container.stagePath))' (\(error.message)); the next restore or import removes it."
                )
            }
        }
        return (items, bytes, notes)
    }

    /// Copies `source` into the new staging directory of `container`, with the folders of
    /// `target`'s layout it lacks, durable before the exchange publishes it.
    private static func stage(
        _ source: ConfinedRoot, named name: String, for target: RestoreTarget, at container: ImportedContainer,
        in home: SandboxHome, limits: XcodeContainerLimits
    ) throws(SandboxError) -> (items: Int, bytes: Int64) {
        try home.root.setPermissions(FilePermissions(rawValue: 0o700), at: container.stagePath)
        let staged = try home.root.openSubroot(at: container.stagePath, refusingSymlinks: true)
        let (skipping, layout): ([ContainerPath], [ContainerPath]) =
            switch target {
            case .app(let app):
                ([containerIdentityFile, preferencesLock(of: app)], Array(AppDataCopier.containerDirectories))
            case .group(let group, _): ([IOSBackup.preferencesLock(named: group.rawValue)], AppGroupContainer.layout)
            }
        var copier = AppDataCopier(
            .importing, limits: limits, source: name, skipping: Set(skipping),
            protection: .init(dataProtection: DataProtection(home: home), source: source, output: staged))
        let input = try source.openDirectory(.root)
        let output = try staged.openDirectory(.root)
        try copier.copy(from: input.rawValue, to: output.rawValue)
        for path in layout.sorted(by: { $0.description < $1.description }) where try !staged.directoryExists(at: path) {
            try staged.createDirectory(at: path, withIntermediateDirectories: true)
        }
        try staged.synchronizeFileSystem()
        return (copier.items, copier.bytes)
    }

    /// Opens the package at `hostPath` as a root that refuses every symlink.
    private static func openPackage(_ hostPath: String) throws(SandboxError) -> ConfinedRoot {
        do {
            return try ConfinedRoot(openingDirectoryAt: hostPath).openSubroot(at: .root, refusingSymlinks: true)
        } catch  where error.code == .notFound || error.code == .notADirectory {
            throw SandboxError(
                .invalidPackage,
                "'\(hostPath)' \(error.code == .notFound ? "does not exist" : "is not a folder"); an Xcode container package is a folder holding AppDataInfo.plist and AppData. Nothing was changed.",
                path: hostPath)
        }
    }

    /// The folder and the name of a new package's host path.
    private static func packageName(_ hostPath: String) throws(SandboxError) -> (folder: String, name: String) {
        var path = Substring(hostPath)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard name.hasSuffix(".xcappdata"), name.count > ".xcappdata".count else {
            throw SandboxError(
                .invalidArgument,
                "'\(hostPath)' does not end in '.xcappdata'; Xcode opens container packages by that extension. Name the package NAME.xcappdata.",
                path: hostPath)
        }
        let folder = path.dropLast(name.count)
        return (folder.isEmpty ? "." : String(folder), name)
    }

    /// The preferences' lock file: a running process's state, not data (a backup leaves it out).
    private static func preferencesLock(of app: AppIdentifier) -> ContainerPath {
        ContainerPath(constant: "Library/Preferences").appendingTrusted(
            PreferencesBackupAccess.fileNames(for: app).lock)
    }
}
