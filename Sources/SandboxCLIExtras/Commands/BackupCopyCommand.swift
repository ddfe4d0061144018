import ArgumentParser
import Foundation
import Sandbox
import SandboxBackup
import SandboxCLISupport

/// `sandbox backup copy [SNAPSHOT…] FROM TO`: snapshots copied into another repository.
struct BackupCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy snapshots into another repository (local or S3, encrypted or not).",
        discussion: """
            Copies the snapshots named (all, or those holding --app, when none is named) from FROM into TO, \
            creating TO when it does not exist (encrypted when --to-password-file is given). Blobs TO lacks are \
            read, checked, and sealed under TO's key in memory; nothing is written to disk in plaintext. A \
            snapshot TO already holds a copy of is skipped.
            """)

    @Argument(
        help:
            "Snapshot ids (or unique prefixes of at least 4 digits), then FROM and TO: directories, or s3://BUCKET/PREFIX."
    )
    var arguments: [String]
    @Option(help: "Copy only the snapshots holding this app.") var app: String?
    @Option(help: "A file holding FROM's password (its first line).") var passwordFile: String?
    @Option(help: "A file holding TO's password (its first line). Encrypts a new TO.") var toPasswordFile: String?
    @OptionGroup var parallelOption: ParallelOption
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard arguments.count >= 2 else { throw ValidationError("Give FROM and TO.") }
    }

    func run() async throws {
        let snapshots = Array(arguments.dropLast(2))
        let source = try await openRepository(
            arguments[arguments.count - 2],
            password: try passwordFile.map { (path) throws(SandboxError) in try RepositoryOptions.password(in: path) },
            parallel: parallelOption.parallel)
        let report = try await closing(source) { () async throws(SandboxError) in
            let storage = try await RepositoryAddress(arguments[arguments.count - 1]).storage(
                creating: true, concurrency: parallelOption.parallel)
            let destination = try await Repository.openOrCreate(
                storage,
                password: try toPasswordFile.map { (path) throws(SandboxError) in
                    try RepositoryOptions.password(in: path)
                })
            return try await closing(destination) { () async throws(SandboxError) in
                try await SnapshotCopy.run(snapshots: snapshots, app: app, from: source, to: destination)
            }
        }
        if output.json { return try Output.json(CopyLine(report)) }
        for id in report.alreadyCopied { try Output.line("snapshot \(id.prefix(8)) already copied") }
        for copied in report.copied {
            try Output.line("snapshot \(copied.source.prefix(8)) copied as \(copied.destination.prefix(8))")
        }
        try Output.line("\(report.blobsRead) blobs read, \(Output.bytes(report.bytesWritten)) written")
    }
}

/// The JSON of `sandbox backup copy --json`.
struct CopyLine: Encodable {
    struct Copied: Encodable {
        var source: String
        var destination: String
    }

    var copied: [Copied]
    var alreadyCopied: [String]
    var blobsRead: Int
    var bytesWritten: Int64

    init(_ report: CopyReport) {
        copied = report.copied.map { Copied(source: $0.source, destination: $0.destination) }
        alreadyCopied = report.alreadyCopied
        blobsRead = report.blobsRead
        bytesWritten = report.bytesWritten
    }
}
