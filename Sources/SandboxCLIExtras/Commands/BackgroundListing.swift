import Foundation
import Sandbox
import SandboxDaemon
import SandboxTransfer

/// The background downloads `downloads` lists: through `sandboxd` while it runs; from its queue,
/// read-only, while it does not (the daemon is not started just to list), with the bytes each
/// interrupted task has on disk.
///
/// What the queue says is not trusted to name files: the partial files are measured through the
/// container's confined root from its sessions' checkpoints (a session name that is not one plain
/// name is not looked up), and a finished file's path that is not one in the container is not
/// printed.
struct BackgroundListing {
    var rows: [ListedDownload.BackgroundRow] = []
    /// Said on standard error after the rows: the daemon is not running, a partial file could not
    /// be measured.
    var notices: [String] = []
    /// Why the queue could not be read; the command fails with it after printing the rest.
    var failure: SandboxError?

    /// The background downloads of `app`, installed as `container` in `home`.
    static func of(_ app: AppIdentifier, container: Container, in home: SandboxHome) async -> BackgroundListing {
        do throws(SandboxError) {
            let tasks = try await BackgroundSession.tasks(of: app, in: home)
            return BackgroundListing(rows: tasks.map { ListedDownload.BackgroundRow($0, daemonRunning: true) })
        } catch  where error.code == .daemonUnavailable {
            return fromQueue(of: app, container: container, paths: DaemonPaths(home: home))
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
            var row = ListedDownload.BackgroundRow(task.info, daemonRunning: false)
            if task.info.state != .completed {
                row.state = "interrupted"
                let partial = task.underlying.flatMap { partials[task.info.session]?[$0] }
                row.bytesOnDisk = partial?.bytesOnDisk ?? 0
                row.expectedLength = row.expectedLength ?? partial?.expectedLength
            }
            return row
        }
        if !listing.rows.isEmpty {
            listing.notices.insert(
                "sandboxd is not running: its background downloads are listed as its queue '\(paths.queue)' last recorded them, with the bytes on disk; the interrupted ones continue when it starts (sandbox downloads \(app.rawValue) --wait).",
                at: 0)
        }
        return listing
    }
}

/// A row of `downloads`: a task of a session the process ran, or one `sandboxd` owns.
enum ListedDownload: Encodable {
    case foreground(DownloadTaskSummary)
    case background(BackgroundRow)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .foreground(let summary): try summary.encode(to: encoder)
        case .background(let row): try row.encode(to: encoder)
        }
    }

    /// A daemon-owned task with the keys of ``DownloadTaskSummary`` and `background: true`.
    struct BackgroundRow: Encodable {
        var sessionIdentifier: String
        var taskIdentifier: Int
        var url: String
        var state: String
        var bytesOnDisk: Int64
        var expectedLength: Int64?
        var path: String?
        var error: String?
        var background = true
        /// Whether `sandboxd` listed it; `false` when it is read from the daemon's queue.
        var daemonRunning: Bool

        init(_ info: BackgroundTaskInfo, daemonRunning: Bool) {
            self.daemonRunning = daemonRunning
            sessionIdentifier = info.session
            taskIdentifier = info.taskID
            url = info.url
            state =
                info.state != .completed
                ? info.state.rawValue : info.errorCode.map { $0 == "cancelled" ? "cancelled" : "failed" } ?? "completed"
            bytesOnDisk = info.bytesWritten
            expectedLength = info.expectedLength
            path = info.path.flatMap(Self.containerPath)
            error = info.errorCode
        }

        /// `text` when it is a path in the container; `nil` (not printed) otherwise: the daemon's
        /// queue names it, and a name from there never makes the CLI print a path outside.
        private static func containerPath(_ text: String) -> String? {
            do throws(SandboxError) {
                return try ContainerPath(text).description
            } catch {
                return nil
            }
        }
    }
}
