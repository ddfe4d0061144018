import Foundation

/// What an app (or the CLI) sends to `sandboxd`: one JSON object per frame, `type` saying which.
///
/// The first message is a `hello` (``Hello``); then requests, each with a `requestID` the daemon's
/// answer repeats, and `acknowledge` for each event handled.
struct ClientMessage: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        /// The handshake: protocol version, app, session, home.
        case hello
        /// Start a background download (``request``); answered by `submitted`.
        case submit
        /// List the session's tasks (all of the app's sessions when the hello named none).
        case list
        /// Cancel task ``taskID``; answered by `done`.
        case cancel
        /// Events up to ``sequence`` were handled: the daemon never sends them again.
        case acknowledge
        /// The daemon's status; answered by `status`.
        case status
    }

    var type: Kind
    /// The protocol version, on a `hello` (kept at the top level, so any future hello can be checked).
    var protocolVersion: Int?
    var hello: Hello?
    var requestID: Int?
    var request: BackgroundRequest?
    var taskID: Int?
    var sequence: Int64?

    static func hello(_ hello: Hello) -> ClientMessage {
        ClientMessage(type: .hello, protocolVersion: BackgroundProtocol.version, hello: hello)
    }
    static func submit(_ request: BackgroundRequest, id: Int) -> ClientMessage {
        ClientMessage(type: .submit, requestID: id, request: request)
    }
    static func list(id: Int) -> ClientMessage { ClientMessage(type: .list, requestID: id) }
    static func cancel(task: Int, id: Int) -> ClientMessage {
        ClientMessage(type: .cancel, requestID: id, taskID: task)
    }
    static func acknowledge(_ sequence: Int64) -> ClientMessage {
        ClientMessage(type: .acknowledge, sequence: sequence)
    }
    static func status(id: Int) -> ClientMessage { ClientMessage(type: .status, requestID: id) }

    /// The handshake's content.
    struct Hello: Codable, Sendable, Equatable {
        /// The app identifier whose container the tasks write into.
        var app: String
        /// The background session's identifier; `nil` for a client that only lists or asks for
        /// status (the CLI).
        var session: String?
        /// The sandbox home's host path: a daemon serving another home refuses the client.
        var home: String
        /// Whether this client receives the session's events (one attached client per session:
        /// a newer one replaces the older).
        var attach: Bool
    }
}

/// A background download as the app asks for it.
struct BackgroundRequest: Codable, Sendable, Equatable {
    var url: String
    var headers: [String: String]
    var expectedDigest: ExpectedDigest?
    /// Where the daemon moves the finished file itself; `nil` leaves it in the session's staging
    /// folder for the app to move when it handles `didFinishDownloading`.
    var destination: DownloadDestination?

    init(_ request: DownloadRequest) {
        url = request.url.absoluteString
        headers = request.headers
        expectedDigest = request.expectedDigest
        destination = request.destination
    }
}
