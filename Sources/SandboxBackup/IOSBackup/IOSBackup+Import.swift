import Sandbox
import SandboxCore
import SandboxStore

extension IOSBackup {
    /// Replaces the data container of `app` (which must be installed) with the domain
    /// `AppDomain-<app>` of the iOS backup folder at `hostPath`; every other domain of the backup
    /// (the device's, other apps') is left alone. An encrypted backup is read with `password`
    /// (its keybag unlocked, `Manifest.db` and each file decrypted as iOS encrypted them); every
    /// row is checked the same way whether the backup is encrypted or not.
    ///
    /// The work runs on a thread of its own (PBKDF2 at iOS's counts takes seconds); the task
    /// awaits it. It is not cancelled with the task.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/encryptedIOSBackup`` for an encrypted backup
    ///   without `password`; ``SandboxCore/SandboxError/Code/wrongPassword`` naming the folder when
    ///   `password` does not open it (or it is not encrypted);
    ///   ``SandboxCore/SandboxError/Code/iosBackupDamaged`` for encrypted data that does not
    ///   decrypt (a damaged keybag, key, padding or length, a file shorter than its row says);
    ///   ``SandboxCore/SandboxError/Code/invalidIOSBackup`` for a folder that is not a backup, a
    ///   `Manifest.db` that is not SQLite, or a row an import refuses (its relative path empty,
    ///   absolute, with `.` or `..`, or not UTF-8; a fileID that is not the SHA-1 of its domain and
    ///   path; a damaged `MBFile` archive; a FIFO, socket or device; a file missing or of another
    ///   size; a link leading out of the domain), naming it; `too-large` past `limits`;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed;
    ///   `container-in-use` while a program under `sandbox run` uses the container; the errors of
    ///   ``XcodeContainer/importContainer(app:into:from:limits:)`` for the staged tree;
    ///   file-system errors. The container is unchanged whenever it throws.
    public static func importApp(
        _ app: AppIdentifier, into home: SandboxHome, from hostPath: String, password: [UInt8]? = nil,
        limits: IOSBackupLimits = .default
    ) async throws(SandboxError) -> IOSBackupReport {
        try await OwnedThread.run(name: "sandbox-import") { () throws(SandboxError) in
            try importApp(app, into: home, from: hostPath, password: password, limits: limits)
        }
    }

    /// ``importApp(_:into:from:password:limits:)`` on the calling thread, which it blocks.
    package static func importApp(
        _ app: AppIdentifier, into home: SandboxHome, from hostPath: String, password: [UInt8]? = nil,
        limits: IOSBackupLimits = .default
    ) throws(SandboxError) -> IOSBackupReport {
        _ = try home.container(for: app)  // installed: the bundle stays as it is
        try home.requireNoRefusal(of: .restore, for: app)  // before the work, not only at the exchange
        let source: any IOSBackupFileSource =
            if let password {
                try IOSBackupEncryptedSource(opening: hostPath, password: password)
            } else {
                try IOSBackupFolder(opening: hostPath)
            }
        return try importApp(app, into: home, source: source, limits: limits)
    }

    /// Imports `app`'s domain from `source` (an unencrypted folder, or a decrypting reader:
    /// ``IOSBackupEncryptedSource``), and the domains `AppDomainGroup-<group-id>` of the App Groups
    /// the app's installed, verified bundle is a member of; a group domain of a group it is not a
    /// member of is skipped with a note (iOS gives a group's container only to its members).
    ///
    /// Each row of these domains is checked before anything is staged (``IOSBackupRowCheck``): its
    /// relative path (UTF-8, not empty or absolute, no `.` or `..`), its fileID, its flags, its
    /// `MBFile` archive (bounded), its mode (never a FIFO, socket or device) and a link's target
    /// (relative and inside the domain: a link out is refused, as an Xcode package's is). Each
    /// domain is then made in a private scratch folder, each file checked to hold the size its
    /// row says, and taken into its container as an Xcode container import takes a package's
    /// `AppData` (``XcodeContainer/replaceContainer(of:in:with:named:groups:limits:)``: protected
    /// folders seal the files, hard links, limits; one exchange a container, as a restore makes
    /// them, coordinated with the live users of the app and of every member of the groups).
    package static func importApp(
        _ app: AppIdentifier, into home: SandboxHome, source: any IOSBackupFileSource, limits: IOSBackupLimits
    ) throws(SandboxError) -> IOSBackupReport {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = ContainerPath(constant: "Manifest.db")
        try source.copyManifestDatabase(to: database, in: scratch.root, maximumBytes: limits.maximumManifestBytes)
        let domain = IOSBackupItem.domain(of: app.rawValue)
        let shown = "\(source.displayName)/Manifest.db"
        var notes: [String] = []
        let groups = try memberGroups(
            of: try home.container(for: app), in: scratch.hostPath("Manifest.db"), shown: shown, notes: &notes)
        let domains = [domain] + groups.map { AppSnapshot.groupPartName($0) }
        let rows = try IOSBackupManifestDatabase.rows(
            in: scratch.hostPath("Manifest.db"), domains: domains, maximumRows: limits.maximumItems, shown: shown)
        var items: [String: [IOSBackupItem]] = [:]
        for row in rows {
            items[row.domain, default: []].append(try IOSBackupRowCheck.item(of: row, in: shown, limits: limits))
        }
        if items[domain, default: []].isEmpty {
            notes.append("The backup holds no item of '\(domain)': the app's container was replaced by an empty one.")
        }
        // Each domain's tree, made in the scratch folder: `AppData`, `Groups/<group-id>`.
        func tree(_ domain: String, at path: ContainerPath) throws(SandboxError) -> ConfinedRoot {
            try scratch.root.createDirectory(at: path, withIntermediateDirectories: true)
            let staged = try scratch.root.openSubroot(at: path, refusingSymlinks: true)
            var builder = IOSBackupTreeBuilder(root: staged, source: source, limits: limits)
            try builder.build(items[domain, default: []])
            return staged
        }
        let appTree = try tree(domain, at: ContainerPath(constant: "AppData"))
        var groupTrees: [(group: AppGroupIdentifier, source: ConfinedRoot, name: String)] = []
        for group in groups {
            let groupDomain = AppSnapshot.groupPartName(group)
            groupTrees.append(
                (
                    group,
                    try tree(groupDomain, at: ContainerPath(constant: "Groups").appendingTrusted(group.rawValue)),
                    "\(source.displayName) (\(groupDomain))"
                ))
        }
        let copied = try XcodeContainer.replaceContainer(
            of: app, in: home, with: appTree, named: "\(source.displayName) (\(domain))", groups: groupTrees,
            limits: limits.container)
        return IOSBackupReport(
            apps: [app.rawValue], folder: source.displayName, domains: domains, items: copied.items,
            bytes: copied.bytes, notes: notes + copied.notes)
    }

    /// The most App Group domains a backup's manifest is read with: an app is a member of a few.
    static let maximumGroupDomains = 1000

    /// The App Groups whose domains (`AppDomainGroup-<group-id>`) the backup's database at
    /// `database` holds and `container`'s verified bundle is a member of, sorted; a note in
    /// `notes` for each other group domain (skipped), or when the membership cannot be read.
    private static func memberGroups(
        of container: Container, in database: String, shown: String, notes: inout [String]
    ) throws(SandboxError) -> [AppGroupIdentifier] {
        // Candidates by prefix; each is then read back as a group's part name, its one spelling.
        let held = try IOSBackupManifestDatabase.domains(
            in: database, prefix: "AppDomainGroup-", maximum: maximumGroupDomains, shown: shown)
        guard !held.isEmpty else { return [] }
        let members: Set<AppGroupIdentifier>
        do throws(SandboxError) {
            members = Set(try container.appGroups())
        } catch {
            notes.append(
                "The backup's App Group domains were not imported: the groups of '\(container.identifier)' cannot be read (\(error.message))."
            )
            return []
        }
        var groups: [AppGroupIdentifier] = []
        for domain in held {
            let group: AppGroupIdentifier
            do throws(SandboxError) {
                group = try AppGroupIdentifier(groupPartName: domain)
            } catch {
                notes.append("The backup's domain '\(domain)' names no App Group; it was not imported.")
                continue
            }
            if members.contains(group) {
                groups.append(group)
            } else {
                notes.append(
                    "The backup holds App Group '\(group)', which '\(container.identifier)' is not a member of (its signed bundle does not list it); the group was not imported."
                )
            }
        }
        return groups.sorted()
    }
}
