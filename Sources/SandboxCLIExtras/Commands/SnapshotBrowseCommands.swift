import ArgumentParser
import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCLISupport

/// `REPO SNAPSHOT`: a snapshot of a repository, as the browsing commands take it.
struct SnapshotArguments: ParsableArguments {
    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @Argument(help: "The snapshot: its id, a unique prefix of at least 4 digits, or 'latest'.") var snapshot: String
    @OptionGroup var repositoryOptions: RepositoryOptions

    /// Opens the repository and finds the snapshot, then runs `body`; the repository is closed after.
    func with<T>(
        _ body: (Repository, Snapshot) async throws(SandboxError) -> T
    ) async throws(SandboxError) -> T {
        let opened = try await openRepository(repository, password: try repositoryOptions.password())
        return try await closing(opened) { () async throws(SandboxError) in
            try await body(opened, try await opened.snapshot(matching: snapshot == "latest" ? nil : snapshot))
        }
    }
}

struct BackupListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a snapshot: its apps, an app's folders, or the items beneath PATH.",
        discussion: "Folders end in '/'; symbolic links show their target (never followed).")

    @OptionGroup var snapshot: SnapshotArguments
    @Argument(help: "An app the snapshot holds.") var app: String?
    @Argument(help: "A path in the app's container (relative, without '..').") var path: String?
    @Flag(help: "List everything beneath the path, not only its children.") var recursive = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (found, entries) = try await snapshot.with { (repository, found) async throws(SandboxError) in
            guard let app else { return (found, [SnapshotEntry]?.none) }
            return (
                found,
                try await SnapshotBrowser.list(found, app: app, path: path, recursive: recursive, from: repository)
            )
        }
        guard let entries else {
            if output.json { return try Output.json(found.record.apps) }
            for part in found.record.apps {
                try Output.line("\(part.app)\t\(part.files) items\t\(Output.bytes(part.bytes))")
            }
            return
        }
        if output.json { return try Output.json(entries) }
        for entry in entries {
            let name = entry.path + (entry.kind == .directory ? "/" : "")
            let size = entry.kind == .file ? Output.bytes(entry.size) : "-"
            try Output.line(
                "\(String(entry.mode, radix: 8))\t\(size)\t\(UTCTimestamp.iso8601(entry.modified))\t\(name)\(entry.target.map { " -> \($0)" } ?? "")"
            )
        }
    }
}

struct BackupDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "List what changed between two snapshots: + added, - removed, M modified.")

    @Argument(help: "The repository: a directory, or s3://BUCKET/PREFIX.") var repository: String
    @Argument(help: "The first snapshot (id, prefix or 'latest').") var first: String
    @Argument(help: "The second snapshot.") var second: String
    @OptionGroup var repositoryOptions: RepositoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let opened = try await openRepository(repository, password: try repositoryOptions.password())
        let changes = try await closing(opened) { () async throws(SandboxError) in
            let a = try await opened.snapshot(matching: first == "latest" ? nil : first)
            let b = try await opened.snapshot(matching: second == "latest" ? nil : second)
            return try await SnapshotBrowser.diff(a, b, from: opened)
        }
        if output.json { return try Output.json(changes) }
        for change in changes {
            let mark = change.change == .added ? "+" : change.change == .removed ? "-" : "M"
            let sizes = [change.sizeBefore, change.sizeAfter].compactMap { $0.map(Output.bytes) }.joined(
                separator: " -> ")
            try Output.line("\(mark)\t\(change.app)\t\(change.path)\t\(sizes)")
        }
        let added = changes.filter { $0.change == .added }.count
        let removed = changes.filter { $0.change == .removed }.count
        StandardStreams.error(
            "\(added) added, \(removed) removed, \(changes.count - added - removed) modified\n")
    }
}

struct BackupDumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write a file of a snapshot to standard output, streamed.",
        discussion: "Each chunk is checked against its id before it is written; memory stays at one chunk.")

    @OptionGroup var snapshot: SnapshotArguments
    @Argument(help: "An app the snapshot holds.") var app: String
    @Argument(help: "The file's path in the app's container (relative, without '..').") var path: String

    func run() async throws {
        _ = try await snapshot.with { (repository, found) async throws(SandboxError) in
            try await SnapshotBrowser.dump(found, app: app, path: path, from: repository, to: STDOUT_FILENO)
        }
    }
}
