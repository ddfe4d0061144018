import Foundation
import Sandbox

/// What an app (or the CLI) sends to `sandboxd`: one JSON object per frame, `type` saying which.
///
/// The first message is a `hello` (``Hello``); then requests, each with a `requestID` the daemon's
/// answer repeats, and `acknowledge` for each event handled.
package struct ClientMessage: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        /// Binds the connection to an app (``binding``), before the hello: sent only by the system
        /// (``/Sandbox/DaemonBroker``), answered by `bound`.
        case bind
        /// The handshake: protocol version, app, session, home.
        case hello
        /// Start a background download (``request``); answered by `submitted`.
        case submit
        /// List the session's tasks (all of the app's sessions when the hello named none): a page
        /// of at most ``limit`` tasks after ``cursor`` (from the start without one), answered by
        /// `tasks` with the next page's cursor. Without a limit, the whole list when it fits in
        /// one page, else a failure asking for pages.
        case list
        /// Cancel task ``taskID``; answered by `done`.
        case cancel
        /// Events up to ``sequence`` were handled: the daemon never sends them again.
        case acknowledge
        /// The daemon's status; answered by `status`.
        case status
        /// Register (or, without arguments, remove) the command the daemon runs when the session's
        /// events are ready and no app is attached (``relaunch``); answered by `done`.
        case relaunch
    }

    package var type: Kind
    /// The protocol version, on a `hello` (kept at the top level, so any future hello can be checked).
    package var protocolVersion: Int?
    package var hello: Hello?
    package var requestID: Int?
    package var request: BackgroundRequest?
    package var taskID: Int?
    package var sequence: Int64?
    package var relaunch: RelaunchCommand?
    package var binding: AppBinding?
    /// A `list` page starts after this task.
    package var cursor: TaskCursor?
    /// The most tasks a `list` page may carry (the daemon carries fewer past its own bounds,
    /// ``TaskListPage``).
    package var limit: Int?

    package static func hello(_ hello: Hello) -> ClientMessage {
        ClientMessage(type: .hello, protocolVersion: BackgroundProtocol.version, hello: hello)
    }
    package static func submit(_ request: BackgroundRequest, id: Int) -> ClientMessage {
        ClientMessage(type: .submit, requestID: id, request: request)
    }
    package static func list(id: Int) -> ClientMessage { ClientMessage(type: .list, requestID: id) }
    /// The `list` page of at most `limit` tasks after `cursor` (from the first task when `nil`).
    package static func list(after cursor: TaskCursor?, limit: Int, id: Int) -> ClientMessage {
        ClientMessage(type: .list, requestID: id, cursor: cursor, limit: limit)
    }
    package static func cancel(task: Int, id: Int) -> ClientMessage {
        ClientMessage(type: .cancel, requestID: id, taskID: task)
    }
    package static func acknowledge(_ sequence: Int64) -> ClientMessage {
        ClientMessage(type: .acknowledge, sequence: sequence)
    }
    package static func status(id: Int) -> ClientMessage { ClientMessage(type: .status, requestID: id) }
    package static func relaunch(_ command: RelaunchCommand, id: Int) -> ClientMessage {
        ClientMessage(type: .relaunch, requestID: id, relaunch: command)
    }

    /// The handshake's content.
    package struct Hello: Codable, Sendable, Equatable {
        /// The app identifier whose container the tasks write into.
        package var app: String?
        /// The background session's identifier; `nil` for a client that only lists or asks for
        /// status (the CLI).
        package var session: String?
        /// The sandbox home's host path: a daemon serving another home refuses the client.
        package var home: String
        /// Whether this client receives the session's events (one attached client per session:
        /// a newer one replaces the older).
        package var attach: Bool
    }
}

/// A background download as the app asks for it.
package struct BackgroundRequest: Codable, Sendable, Equatable {
    package var url: String
    package var headers: [String: String]
    package var expectedDigest: ExpectedDigest?
    /// Where the daemon moves the finished file itself; `nil` leaves it in the session's staging
    /// folder for the app to move when it handles `didFinishDownloading`.
    package var destination: DownloadDestination?
    /// Whether the task waits while its host is unreachable instead of failing; `nil` (an older
    /// client) means yes, the default of background sessions.
    package var waitsForConnectivity: Bool?
    /// Whether the task runs only while no other task of the daemon runs; `nil` means no.
    package var isDiscretionary: Bool?

    package init(_ request: DownloadRequest, waitsForConnectivity: Bool = true, isDiscretionary: Bool = false) {
        url = request.url.absoluteString
        headers = request.headers
        expectedDigest = request.expectedDigest
        destination = request.destination
        self.waitsForConnectivity = waitsForConnectivity
        self.isDiscretionary = isDiscretionary
    }
}

/// What the daemon runs to bring an app back when its session's events are ready (iOS launching
/// the app in the background): the program and its arguments, in the app's container, killed
/// after the time limit.
package struct RelaunchCommand: Codable, Sendable, Equatable {
    /// The absolute path of the program, then its arguments; empty to remove the registration.
    package var arguments: [String]
    /// Seconds the program may run.
    package var timeLimitSeconds: Double
    /// Whether the relaunched program may use the network: set by the daemon from the registering
    /// connection's binding, never taken from the client.
    package var allowsNetwork: Bool?

    package init(arguments: [String], timeLimitSeconds: Double) {
        self.arguments = arguments
        self.timeLimitSeconds = timeLimitSeconds
    }

    /// The longest time limit a relaunch may ask for (iOS gives a relaunched app about 30 s).
    package static let maximumTimeLimitSeconds: Double = 600

    /// Checks what a client sent: a program (an absolute path) and a finite time limit within
    /// ``maximumTimeLimitSeconds``, or nothing (to remove the registration).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` naming the field.
    package func validate() throws(SandboxError) {
        guard let program = arguments.first else { return }
        guard timeLimitSeconds.isFinite, timeLimitSeconds > 0, timeLimitSeconds <= Self.maximumTimeLimitSeconds else {
            throw SandboxError(
                .invalidArgument,
                "A relaunch time limit must be more than 0 and at most \(Int(Self.maximumTimeLimitSeconds)) seconds, not \(timeLimitSeconds)."
            )
        }
        if !program.hasPrefix("/") {
            throw SandboxError(
                .invalidArgument, "A relaunch command names its program by absolute path, not '\(program)'.")
        }
    }
}
