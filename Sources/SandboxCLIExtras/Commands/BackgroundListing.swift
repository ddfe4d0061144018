import Foundation
import Sandbox
import SandboxDaemon
import SandboxTransfer

/// The background downloads `downloads` lists: through `sandboxd` while it runs, printed a page at
/// a time as the daemon answers (issue 31); from its queue, read-only, while it does not (the
/// daemon is not started just to list), with the bytes each interrupted task has on disk.
///
/// What the queue says is not trusted to name files: the partial files are measured through the
/// container's confined root from its sessions' checkpoints (a session name that is not one plain
/// name is not looked up), and a finished file's path that is not one in the container is not
/// printed.
struct BackgroundListing {
    var rows: [ListedDownload] = []
    /// Said on standard error after the rows: the daemon is not running, a partial file could not
    /// be measured.
    var notices: [String] = []
    /// Why the queue could not be read; the command fails with it after printing the rest.
    var failure: SandboxError?

    /// Prints the background downloads of `app`, installed as `container` in `home`, to `printer`;
    /// returns the notices and the failure to report after them (its rows are printed already).
    ///
    /// - Throws: the error writing standard output.
    static func print(
        _ app: AppIdentifier, container: Container, in home: SandboxHome, to printer: inout DownloadsPrinter
    ) async throws(SandboxError) -> BackgroundListing {
        var pages = 0
        var written: SandboxError?
        do throws(SandboxError) {
            try await BackgroundSession.forEachTaskPage(of: app, in: home) { page throws(SandboxError) in
                pages += 1
                do throws(SandboxError) {
                    for task in page { try printer.print(ListedDownload(task, daemonRunning: true)) }
                } catch {
                    written = error
                    throw error
                }
            }
            return BackgroundListing()
        } catch  where written != nil {
            throw error
        } catch  where error.code == .daemonUnavailable && pages == 0 {
            let listing = fromQueue(of: app, container: container, paths: DaemonPaths(home: home))
            for row in listing.rows { try printer.print(row) }
            return BackgroundListing(notices: listing.notices, failure: listing.failure)
        } catch {
            return BackgroundListing(failure: error)
        }
    }

    /// The tasks the queue at `paths` last recorded for `app`: the unfinished ones `interrupted`,
    /// with their partial file's size.
    static func fromQueue(of app: AppIdentifier, container: Container, paths: DaemonPaths) -> BackgroundListing {
        let queued: [QueuedBackgroundTask]
        do throws(SandboxError) {
            guard let tasks = try BackgroundQueueReader.tasks(of: app, paths: paths) else {
                return BackgroundListing()  // sandboxd never ran for this home: no background download
            }
            queued = tasks
        } catch {
            return BackgroundListing(failure: error)
        }
        var listing = BackgroundListing()
        var partials: [String: [Int: DownloadTaskSummary]] = [:]
        for session in Set(queued.filter { $0.info.state != .completed }.map(\.info.session)).sorted() {
            do throws(SandboxError) {
                let stored = try DownloadSession.storedTasks(
                    identifier: BackgroundQueueSchema.downloadSession(of: session), container: container)
                partials[session] = Dictionary(stored.map { ($0.taskIdentifier, $0) }) { first, _ in first }
            } catch {
                listing.notices.append(
                    "the partial files of the background session '\(session)' cannot be measured: \(error.message)")
            }
        }
        listing.rows = queued.map { task in
            var summary = DownloadTaskSummary(task.info)
            if !summary.state.isFinished {
                summary.state = .interrupted
                let partial = task.underlying.flatMap { partials[task.info.session]?[$0] }
                summary.bytesOnDisk = partial?.bytesOnDisk ?? 0
                summary.expectedLength = summary.expectedLength ?? partial?.expectedLength
            }
            return ListedDownload(summary, daemonRunning: false)
        }
        if !listing.rows.isEmpty {
            listing.notices.insert(
                "sandboxd is not running: its background downloads are listed as its queue '\(paths.queue)' last recorded them, with the bytes on disk; the interrupted ones continue when it starts (sandbox downloads \(app.rawValue) --wait).",
                at: 0)
        }
        return listing
    }
}

/// A row of `downloads`: a ``DownloadTaskSummary`` — a task of a session the process ran, or one
/// `sandboxd` owns — in one schema for both, whose sizes are named as the download lines name them
/// (`bytes`, `total`) and whose `error` is the error's code, with `message` beside it when known.
struct ListedDownload: Encodable {
    var sessionIdentifier: String
    var taskIdentifier: Int
    var url: String
    /// A ``DownloadTaskSummary/State``: `interrupted`, `paused`, `finishing`, `suspended`,
    /// `waiting`, `running`, `cancelling`, `completed`, `cancelled` or `failed`.
    var state: String
    /// The bytes on disk: the partial file's, or the finished file's.
    var bytes: Int64
    /// The whole file's size, when known.
    var total: Int64?
    var path: String?
    /// The error's code, when it failed or stopped.
    var error: String?
    /// The error's message, when known (a foreground task's; `sandboxd` keeps the code only).
    var message: String?
    /// When a foreground task's checkpoint last changed.
    var updatedAt: Date?
    var background: Bool
    /// A background task's: whether `sandboxd` listed it (`false`: read from the daemon's queue).
    var daemonRunning: Bool?

    /// The row of `summary`; `daemonRunning` for a task `sandboxd` owns (`nil` for a foreground
    /// one). A path is printed only when it is one in the container: the daemon's queue and a
    /// foreground session's checkpoint (a file in the app's container) both name it.
    init(_ summary: DownloadTaskSummary, daemonRunning: Bool? = nil) {
        sessionIdentifier = summary.sessionIdentifier
        taskIdentifier = summary.taskIdentifier
        url = summary.url
        state = summary.state.rawValue
        bytes = summary.bytesOnDisk
        total = summary.expectedLength
        path = summary.path.flatMap(Self.containerPath)
        error = summary.errorCode
        message = summary.errorMessage
        updatedAt = summary.updatedAt
        background = summary.isBackground
        self.daemonRunning = daemonRunning
    }

    /// `text` when it is a path in the container; `nil` (not printed) otherwise: a name from a file
    /// the app or the daemon wrote never makes the CLI print a path outside.
    private static func containerPath(_ text: String) -> String? {
        do throws(SandboxError) {
            return try ContainerPath(text).description
        } catch {
            return nil
        }
    }
}
