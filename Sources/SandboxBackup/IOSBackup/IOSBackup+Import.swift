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
    /// ``IOSBackupEncryptedSource``).
    ///
    /// Each row of the domain is checked before anything is staged (``IOSBackupRowCheck``): its
    /// relative path (UTF-8, not empty or absolute, no `.` or `..`), its fileID, its flags, its
    /// `MBFile` archive (bounded), its mode (never a FIFO, socket or device) and a link's target
    /// (relative and inside the domain: a link out is refused, as an Xcode package's is). The
    /// domain is then made in a private scratch folder, each file checked to hold the size its
    /// row says, and taken into the container as an Xcode container import takes a package's
    /// `AppData` (``XcodeContainer/replaceContainer(of:in:with:named:limits:)``: protected
    /// folders seal the files, hard links, limits, one exchange).
    package static func importApp(
        _ app: AppIdentifier, into home: SandboxHome, source: any IOSBackupFileSource, limits: IOSBackupLimits
    ) throws(SandboxError) -> IOSBackupReport {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = ContainerPath(constant: "Manifest.db")
        try source.copyManifestDatabase(to: database, in: scratch.root, maximumBytes: limits.maximumManifestBytes)
        let domain = IOSBackupItem.domain(of: app.rawValue)
        let shown = "\(source.displayName)/Manifest.db"
        let rows = try IOSBackupManifestDatabase.rows(
            in: scratch.hostPath("Manifest.db"), domains: [domain], maximumRows: limits.maximumItems, shown: shown)
        var items: [IOSBackupItem] = []
        for row in rows { items.append(try IOSBackupRowCheck.item(of: row, in: shown, limits: limits)) }
        var notes: [String] = []
        if items.isEmpty {
            notes.append("The backup holds no item of '\(domain)': the app's container was replaced by an empty one.")
        }
        let tree = ContainerPath(constant: "AppData")
        try scratch.root.createDirectory(at: tree)
        let staged = try scratch.root.openSubroot(at: tree, refusingSymlinks: true)
        var builder = IOSBackupTreeBuilder(root: staged, source: source, limits: limits)
        try builder.build(items)
        let copied = try XcodeContainer.replaceContainer(
            of: app, in: home, with: staged, named: "\(source.displayName) (\(domain))", limits: limits.container)
        return IOSBackupReport(
            apps: [app.rawValue], folder: source.displayName, domains: [domain], items: copied.items,
            bytes: copied.bytes, notes: notes + copied.notes)
    }
}
