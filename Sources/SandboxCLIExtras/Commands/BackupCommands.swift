import ArgumentParser
import Foundation
import Glibc
import Logging
import Sandbox
import SandboxBackup
import SandboxCLISupport

/// `REPO` and `--password-file`, shared by the backup commands.
struct RepositoryOptions: ParsableArguments {
    @Option(help: "A file holding the repository's password (its first line). Encrypts a new repository.")
    var passwordFile: String?

    /// The password from `--password-file`: the file's first line, without its newline.
    func password() throws(SandboxError) -> [UInt8]? {
        try passwordFile.map { (path) throws(SandboxError) in try Self.password(in: path) }
    }

    /// The first line of the file at `passwordFile`, without its newline.
    static func password(in passwordFile: String) throws(SandboxError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: passwordFile) else {
            throw SandboxError(.notFound, "The password file '\(passwordFile)' cannot be read.", path: passwordFile)
        }
        let line = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? Data()
        guard !line.isEmpty else {
            throw SandboxError(.invalidArgument, "The password file '\(passwordFile)' is empty.", path: passwordFile)
        }
        return Array(line)
    }
}

/// `--parallel N`, shared by the commands that move many objects (backup, restore, check, prune).
struct ParallelOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Requests to the repository at once (default: 8 for s3://, 2 for a directory).", valueName: "N"))
    var parallel: Int?

    func validate() throws {
        if let parallel, !(1...64).contains(parallel) {
            throw ValidationError("--parallel takes a number from 1 to 64, not \(parallel).")
        }
    }
}

/// `body`'s result, with `repository` closed after it returns or throws.
func closing<T>(_ repository: Repository, _ body: () async throws(SandboxError) -> T) async throws(SandboxError) -> T {
    do {
        let result = try await body()
        await repository.close()
        return result
    } catch {
        await repository.close()
        throw error
    }
}

/// Opens an existing repository at `path`: a directory, or `s3://bucket/prefix`, making `parallel`
/// requests at once (`nil`: the storage's default).
func openRepository(_ path: String, password: [UInt8]?, parallel: Int? = nil) async throws(SandboxError) -> Repository {
    try await Repository.open(
        RepositoryAddress(path).storage(creating: false, concurrency: parallel), password: password)
}

/// `sandbox backup`: a backup run (``BackupCreateCommand``, the default), and the commands that
/// read snapshots without restoring them.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.backup.name,
        abstract: ExtraCommand.backup.abstract,
        discussion: """
            `sandbox backup APP… REPO` backs up (`create`, the default); `backup ls`, `backup diff` and \
            `backup dump` read snapshots without restoring them; `backup copy` copies snapshots into another repository.
            """,
        subcommands: [
            BackupCreateCommand.self, BackupListCommand.self, BackupDiffCommand.self, BackupDumpCommand.self,
            BackupCopyCommand.self,
        ],
        defaultSubcommand: BackupCreateCommand.self)
}

struct BackupCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: ExtraCommand.backup.abstract,
        discussion: """
            Everything but the bundle, Library/Caches, tmp and items excluded from backup; SQLite databases through \
            SQLite's online backup; the keychain (restorable on this device only, unless the repository is \
            encrypted with --password-file, when items that are not ThisDeviceOnly move to other devices too).
            """)

    @Argument(
        help:
            "App identifiers, then the repository: a directory, or s3://BUCKET/PREFIX (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION from the environment)."
    )
    var arguments: [String]
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var parallelOption: ParallelOption
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard arguments.count >= 2 else { throw ValidationError("Give at least one app identifier and REPO.") }
    }

    func run() async throws {
        let apps = try arguments.dropLast().map { (raw) throws(SandboxError) in try AppIdentifier(raw) }
        let path = arguments[arguments.count - 1]
        let storage = try await RepositoryAddress(path).storage(
            creating: true, concurrency: parallelOption.parallel)
        let repository = try await Repository.openOrCreate(storage, password: try repositoryOptions.password())
        let printer = BackupProgressLine(json: output.json)
        let report: BackupReport
        do {
            report = try await Backup.run(apps: apps, from: SandboxHome(), to: repository) { printer.show($0) }
        } catch {
            await repository.close()
            throw error
        }
        await repository.close()
        try printer.end()
        if output.json { return try Output.json(BackupLine(event: "finished", report: report)) }
        for warning in report.warnings { StandardStreams.error("warning: \(warning)\n") }
        try Output.line(
            "snapshot \(report.snapshot.prefix(8)) saved\(report.incomplete.isEmpty ? "" : " incomplete"): \(report.files) items, \(Output.bytes(report.bytesTotal)) (\(Output.bytes(report.bytesRead)) read, \(Output.bytes(report.bytesStored)) stored)"
        )
        if !report.incomplete.isEmpty {
            StandardStreams.error(
                "warning: the snapshot is incomplete: \(report.incomplete.count) item(s) left out (\(report.incomplete.joined(separator: ", "))). Back up again once the app has let go of them.\n"
            )
        }
    }
}

/// A JSON line of `sandbox backup --json`.
struct BackupLine: Encodable {
    var event: String
    var progress: BackupProgress?
    var report: BackupReport?
}

/// Shows a backup's progress: a line rewritten on a terminal (standard error), JSON lines with
/// `--json` (standard output), nothing otherwise.
final class BackupProgressLine: @unchecked Sendable {
    // Unchecked: ``show(_:)`` is called on the backup's one thread only, and ``end()`` after the
    // backup returned (its thread's writes happen before the awaiting task resumes).
    private let json: Bool
    /// The first failure to write a JSON line (standard output closed, say), thrown by ``end()``.
    private var failure: (any Error)?
    private let terminal: Bool
    private var shown = false
    private var lastPhase: BackupPhase?
    private var lastTime = ContinuousClock.now

    init(json: Bool) {
        self.json = json
        terminal = !json && isatty(STDERR_FILENO) == 1
    }

    func show(_ progress: BackupProgress) {
        let now = ContinuousClock.now
        // At most ten lines a second, and every change of phase.
        guard progress.phase != lastPhase || now - lastTime > .milliseconds(100) else { return }
        lastPhase = progress.phase
        lastTime = now
        if json {
            guard failure == nil else { return }
            do {
                try Output.json(BackupLine(event: "progress", progress: progress))
            } catch {
                failure = error
            }
        } else if terminal {
            shown = true
            let fraction = progress.bytesTotal > 0 ? Double(progress.bytesDone) / Double(progress.bytesTotal) : 0
            let width = 24
            let filled = min(width, Int(fraction * Double(width)))
            StandardStreams.error(
                "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
                    + "\(progress.phase.rawValue) \(progress.app ?? "") \(progress.filesDone)/\(progress.filesTotal) files  "
                    + "\(Output.bytes(progress.bytesDone)) / \(Output.bytes(progress.bytesTotal))  stored \(Output.bytes(progress.bytesStored))\u{1B}[K"
            )
        }
    }

    /// Ends the line; throws the first failure to write progress.
    func end() throws {
        if shown { StandardStreams.error("\n") }
        if let failure { throw failure }
    }
}

struct SnapshotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.snapshots.name, abstract: ExtraCommand.snapshots.abstract)

    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let opened = try await openRepository(repository, password: try repositoryOptions.password())
        let (snapshots, sizes) = try await closing(opened) { () async throws(SandboxError) in
            let snapshots = try await opened.snapshots()
            return (snapshots, try await SnapshotBrowser.sizes(of: snapshots, from: opened))
        }
        if output.json {
            return try Output.json(
                snapshots.map {
                    SnapshotLine(
                        id: $0.id, time: $0.record.time, apps: $0.record.apps.map(\.app), host: $0.record.hostname,
                        incomplete: $0.record.incompleteItems, size: sizes[$0.id]?.total ?? 0,
                        added: sizes[$0.id]?.added ?? 0)
                })
        }
        try Output.line("ID\tTIME\tHOST\tAPPS\tSIZE\tADDED\tSTATE")
        for snapshot in snapshots {
            let left = snapshot.record.incompleteItems
            try Output.line(
                "\(snapshot.shortID)\t\(UTCTimestamp.iso8601(snapshot.record.time))\t\(snapshot.record.hostname)\t\(snapshot.record.apps.map(\.app).joined(separator: ","))\t\(Output.bytes(sizes[snapshot.id]?.total ?? 0))\t\(Output.bytes(sizes[snapshot.id]?.added ?? 0))\t\(left.isEmpty ? "complete" : "incomplete (\(left.count) left out: \(left.joined(separator: ", ")))")"
            )
        }
    }
}

struct SnapshotLine: Encodable {
    var id: String
    var time: Date
    var apps: [String]
    var host: String
    /// The items left out (`app: path`): the snapshot is incomplete when there are any.
    var incomplete: [String]
    /// The bytes of file contents the snapshot holds.
    var size: Int64
    /// The bytes of blobs no older snapshot refers to.
    var added: Int64
}

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.check.name,
        abstract: ExtraCommand.check.abstract,
        discussion: "Exits 1 when a problem is found, naming the files a missing or damaged blob affects.")

    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @Flag(help: "Read every blob and check it against its id.") var readData = false
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var parallelOption: ParallelOption
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let opened = try await openRepository(
            repository, password: try repositoryOptions.password(), parallel: parallelOption.parallel)
        let report = try await closing(opened) { () async throws(SandboxError) in
            try await Checker.check(opened, readingData: readData)
        }
        if output.json {
            try Output.json(report)
        } else {
            for problem in report.problems { StandardStreams.error("error: \(problem)\n") }
            for file in report.affectedFiles { StandardStreams.error("affected: \(file)\n") }
            for warning in report.warnings { StandardStreams.error("warning: \(warning)\n") }
            if report.duplicateBlobs > 0 {
                StandardStreams.error(
                    "note: \(report.duplicateBlobs) blob(s) are stored in more than one pack (backups that ran at the same time each stored them); prune keeps one copy.\n"
                )
            }
            try Output.line(
                "\(report.snapshots) snapshots, \(report.blobs) blobs\(readData ? ", \(report.blobsRead) read" : ""): \(report.isHealthy ? "no problems" : "\(report.problems.count) problem(s)")\(report.warnings.isEmpty ? "" : ", \(report.warnings.count) warning(s)")"
            )
        }
        if !report.isHealthy { throw ExitCode(ExitStatus.failure) }
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.restore.name,
        abstract: ExtraCommand.restore.abstract,
        discussion: """
            The container is rebuilt beside the old one and swapped in at once; the bundle is left as installed, \
            Library/Caches and tmp are empty. The App Groups of the snapshot the app's signed bundle lists are \
            restored with it, as every member then sees them. With --include, only those files or folders are restored, each built \
            beside the live item and swapped in at once; the rest of the container and the keychain stay. With \
            --to-inbox, one file is delivered into Documents/Inbox (numbered when its name is taken) for the app \
            to take in.
            """
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @Option(
        help:
            "The snapshot id (or a unique prefix of at least 4 digits); default: this device's latest that holds the app, or on a device that has none, the latest of the one device that backed it up."
    ) var snapshot: String?
    @Option(help: "Restore only this file or folder (relative to the container's home); repeatable.")
    var include: [String] = []
    @Option(help: "Deliver this one file of the snapshot into the app's Documents/Inbox instead.")
    var toInbox: String?
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var parallelOption: ParallelOption
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if toInbox != nil && !include.isEmpty {
            throw ValidationError("--include and --to-inbox cannot be combined; give one of them.")
        }
    }

    /// The snapshot named, else this device's latest that holds `app` (a new device's: the one
    /// other device's that backed it up).
    private func chosen(_ repository: Repository, app: AppIdentifier) async throws(SandboxError) -> Snapshot {
        guard let snapshot else { return try await repository.latestSnapshot(of: app, for: SandboxHome()) }
        return try await repository.snapshot(matching: snapshot)
    }

    func run() async throws {
        let opened = try await openRepository(
            repository, password: try repositoryOptions.password(), parallel: parallelOption.parallel)
        let app = try app.identifier()
        if let toInbox {
            let report = try await closing(opened) { () async throws(SandboxError) in
                try await Restore.deliverToInbox(
                    app: app, snapshot: try await chosen(opened, app: app), path: toInbox, from: opened,
                    into: SandboxHome())
            }
            if output.json { return try Output.json(report) }
            return try Output.line(
                "delivered \(report.item) of \(report.app) from \(report.snapshot.prefix(8)) to \(report.delivered): \(Output.bytes(report.bytes))"
            )
        }
        let logger = StandardErrorLogHandler.logger(label: "sandbox.restore")
        let report = try await closing(opened) { () async throws(SandboxError) in
            let chosen = try await chosen(opened, app: app)
            if include.isEmpty {
                return try await Restore.run(
                    app: app, snapshot: chosen, from: opened, into: SandboxHome(), logger: logger)
            }
            return try await Restore.run(
                app: app, snapshot: chosen, including: include, from: opened, into: SandboxHome(), logger: logger)
        }
        if output.json { return try Output.json(report) }
        for note in report.notes { StandardStreams.error("note: \(note)\n") }
        try Output.line(
            "restored \(report.app) from \(report.snapshot.prefix(8)): \(report.files) items, \(Output.bytes(report.bytes))\(report.keychainItems.map { ", \($0) keychain item(s)" } ?? "")"
        )
        for group in report.groups ?? [] {
            try Output.line(
                "restored group:\(group.group): \(group.files) items, \(Output.bytes(group.bytes))\(group.keychainItems.map { ", \($0) keychain item(s)" } ?? "")"
            )
        }
    }
}

struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.prune.name, abstract: ExtraCommand.prune.abstract,
        discussion: """
            restic's forget rules, per device and set of apps: each --keep rule keeps the newest snapshot of \
            each of its last N hours, days, ISO weeks, months or years (local time), or the N newest; \
            --keep-within keeps every snapshot within that span (2d3h, 1y6m) of the newest; the union is kept. \
            A count may be 'unlimited'. With no rule, nothing is removed. Packs of which more is unused than \
            --max-unused allows are rewritten, the emptiest first; loose blobs of older formats go into packs.
            """)

    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @Option(help: "Keep the N newest snapshots.") var keepLast: KeepCount?
    @Option(help: "Keep the newest snapshot of each of the last N hours.") var keepHourly: KeepCount?
    @Option(help: "Keep the newest snapshot of each of the last N days.") var keepDaily: KeepCount?
    @Option(help: "Keep the newest snapshot of each of the last N ISO weeks.") var keepWeekly: KeepCount?
    @Option(help: "Keep the newest snapshot of each of the last N months.") var keepMonthly: KeepCount?
    @Option(help: "Keep the newest snapshot of each of the last N years.") var keepYearly: KeepCount?
    @Option(help: "Keep every snapshot within this span of the newest (2d3h: y, m, d, h).") var keepWithin: String?
    @Option(
        help:
            "Rewrite partly used packs until at most this share of the repository is unused: a percentage (5%) or 'unlimited'."
    ) var maxUnused: MaxUnused = MaxUnused(percent: 5)
    @Flag(help: "Also merge packs under 80% of the target pack size.") var repackSmall = false
    @Flag(help: "List what would be kept (and why), removed and repacked; change nothing.") var dryRun = false
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var parallelOption: ParallelOption
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let policy = RetentionPolicy(
            last: keepLast?.value ?? 0, hourly: keepHourly?.value ?? 0, daily: keepDaily?.value ?? 0,
            weekly: keepWeekly?.value ?? 0, monthly: keepMonthly?.value ?? 0, yearly: keepYearly?.value ?? 0,
            within: try keepWithin.map { (text) throws(SandboxError) in try RetentionDuration(parsing: text) })
        try policy.validate()  // before the repository is opened: no rule removes nothing
        let opened = try await openRepository(
            repository, password: try repositoryOptions.password(), parallel: parallelOption.parallel)
        let report = try await closing(opened) { () async throws(SandboxError) in
            try await Pruner.prune(
                opened, policy: policy, dryRun: dryRun,
                repacking: RepackPolicy(maximumUnusedPercent: maxUnused.percent, repackSmall: repackSmall))
        }
        if output.json { return try Output.json(report) }
        for decision in report.snapshots {
            try Output.line(
                "\(decision.kept ? "keep" : "remove")\t\(decision.id.prefix(8))\t\(UTCTimestamp.iso8601(decision.time))\t\(decision.host)\t\(decision.apps.joined(separator: ","))\t\(decision.reasons.joined(separator: ", "))"
            )
        }
        let repacked =
            "\(report.packsRepacked) pack(s) (\(Output.bytes(report.bytesRepacked)) used) and \(report.looseBlobsPacked) loose blob(s)"
        if dryRun {
            return try Output.line(
                "would keep \(report.snapshotsKept) snapshot(s), remove \(report.snapshotsRemoved) and repack \(repacked) (dry run: nothing was removed or repacked)"
            )
        }
        try Output.line(
            "kept \(report.snapshotsKept) snapshot(s), removed \(report.snapshotsRemoved) and \(report.blobsRemoved) blob(s) (\(Output.bytes(report.bytesRemoved))), repacked \(repacked) into \(report.packsWritten) new pack(s); \(Output.bytes(report.unusedBytesLeft)) unused left"
        )
    }
}

/// `--max-unused`: a percentage from 0 to under 100 (`5%` or `5`), or `unlimited`.
struct MaxUnused: ExpressibleByArgument {
    var percent: Double?

    init(percent: Double?) {
        self.percent = percent
    }

    init?(argument: String) {
        if argument == "unlimited" {
            percent = nil
        } else if let number = Double(argument.hasSuffix("%") ? String(argument.dropLast()) : argument),
            number >= 0, number < 100
        {
            percent = number
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { percent.map { "\($0)%" } ?? "unlimited" }
}

/// A `--keep-…` count: a number of 0 or more, or `unlimited`.
struct KeepCount: ExpressibleByArgument {
    var value: Int

    init?(argument: String) {
        if argument == "unlimited" {
            value = RetentionPolicy.unlimited
        } else if let number = Int(argument), number >= 0 {
            value = number
        } else {
            return nil
        }
    }
}
