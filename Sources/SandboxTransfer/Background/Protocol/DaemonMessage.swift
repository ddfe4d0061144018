/// What `sandboxd` sends to a client: one JSON object per frame, `type` saying which.
package struct DaemonMessage: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        /// The answer to `bind`: the connection acts for that app only.
        case bound
        /// The handshake's answer: the daemon's version and process.
        case welcome
        /// A request failed (``requestID`` set) or the connection is refused (then it closes).
        case failure
        /// A task was made: ``taskID``.
        case submitted
        /// The answer to `list`: ``tasks``, and ``nextCursor`` when more pages follow.
        case tasks
        /// A request without data succeeded.
        case done
        /// An event of the attached session: ``event``.
        case event
        /// Every queued event was sent (`URLSessionDidFinishEventsForBackgroundURLSession`).
        case allEventsDelivered
        /// The answer to `status`: ``status``.
        case status
    }

    package var type: Kind
    package var protocolVersion: Int?
    package var daemonPID: Int32?
    package var requestID: Int?
    package var code: String?
    package var message: String?
    package var taskID: Int?
    package var tasks: [DownloadTaskSummary.Wire]?
    package var event: BackgroundEventRecord?
    package var status: DaemonStatus?
    /// Where the next page of a `list` answer starts; `nil` on the last page.
    package var nextCursor: TaskCursor?

    package static let bound = DaemonMessage(type: .bound)
    package static func welcome(pid: Int32) -> DaemonMessage {
        DaemonMessage(type: .welcome, protocolVersion: BackgroundProtocol.version, daemonPID: pid)
    }
    package static func failure(_ error: SandboxError, requestID: Int? = nil) -> DaemonMessage {
        DaemonMessage(type: .failure, requestID: requestID, code: error.code.description, message: error.message)
    }
    package static func submitted(task: Int, requestID: Int) -> DaemonMessage {
        DaemonMessage(type: .submitted, requestID: requestID, taskID: task)
    }
    package static func tasks(
        _ tasks: [DownloadTaskSummary.Wire], next: TaskCursor? = nil, requestID: Int
    ) -> DaemonMessage {
        DaemonMessage(type: .tasks, requestID: requestID, tasks: tasks, nextCursor: next)
    }
    package static func done(requestID: Int) -> DaemonMessage { DaemonMessage(type: .done, requestID: requestID) }
    package static func event(_ event: BackgroundEventRecord) -> DaemonMessage {
        DaemonMessage(type: .event, event: event)
    }
    package static let allEventsDelivered = DaemonMessage(type: .allEventsDelivered)
    package static func status(_ status: DaemonStatus, requestID: Int) -> DaemonMessage {
        DaemonMessage(type: .status, requestID: requestID, status: status)
    }

    /// The error a `failure` carries.
    package var error: SandboxError {
        SandboxError(
            code.map(SandboxError.Code.init) ?? .protocolViolation,
            message ?? "sandboxd refused the request without saying why.")
    }
}

/// What `sandboxd --status` and the `status` request report.
public struct DaemonStatus: Codable, Sendable, Hashable {
    /// The daemon's process identifier.
    public var pid: Int32
    /// The protocol version it speaks.
    public var protocolVersion: Int
    /// The sandbox home it serves.
    public var home: String
    /// Connected clients.
    public var clients: Int
    /// Unfinished tasks, over all apps.
    public var activeTasks: Int
    /// Events queued for apps that have not handled them yet.
    public var queuedEvents: Int
    /// The tasks the daemon holds in memory (the running ones and the next to start, a bounded
    /// window a session); the other unfinished ones wait in its queue's rows. `nil` from a daemon
    /// before the window.
    package var residentTasks: Int?

    package init(pid: Int32, protocolVersion: Int, home: String, clients: Int, activeTasks: Int, queuedEvents: Int) {
        self.pid = pid
        self.protocolVersion = protocolVersion
        self.home = home
        self.clients = clients
        self.activeTasks = activeTasks
        self.queuedEvents = queuedEvents
    }
}
