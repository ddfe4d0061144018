import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox
import SandboxStore

/// The WebDAV methods (RFC 4918, classes 1 and 2) on one Documents folder.
///
/// Every file operation goes through ``documents``, a confined root that refuses every symlink:
/// nothing here opens a host path. The Inbox and names starting with `.` are hidden
/// (``SharePath/isHidden``): never listed, and 404 for every method, as request path or as
/// `Destination` — but for Finder's own files (``SharePath/isFinderMetadata``: `._name`,
/// `.DS_Store`), which a Mac must be able to write to copy a file. Nothing is cached: each
/// request sees the folder as the app left it.
struct DAVMethods: Sendable {
    /// The shared folder.
    let documents: ConfinedRoot
    let locks: LockManager
    let properties: DeadPropertyStore
    let readOnly: Bool
    let maximumUploadSize: Int64?
    /// The `Host` values (and `Destination` authorities) that name this server.
    let allowedAuthorities: Set<String>
    let logger: Logger
    /// The device's Data Protection, for uploads into a folder with a protection class; `nil` for a
    /// folder that is no container's (``ShareServer/init(documents:configuration:logger:)``).
    var dataProtection: DataProtection? = nil
    /// Admits the changes, and stops them while the share lets go of the container
    /// (``ShareCoordinator``).
    var writes = WriteGate()
    /// The server's scheme (``ShareConfiguration/scheme``): `Destination` and `If` URIs name this
    /// server only with it.
    var scheme = "http"

    /// The methods a read-only share allows.
    static let readMethods: [HTTPRequest.Method] = [.options, .get, .head, .propfind]
    /// The methods a writable share adds.
    static let writeMethods: [HTTPRequest.Method] = [
        .put, .delete, .mkcol, .copy, .move, .proppatch, .lock, .unlock,
    ]

    /// The methods that change the folder, each admitted by ``writes`` (LOCK only when it creates
    /// a file: ``lock(_:request:)``).
    static let changingMethods: [HTTPRequest.Method] = [.put, .delete, .mkcol, .copy, .move, .proppatch]

    var allowedMethods: [HTTPRequest.Method] { readOnly ? Self.readMethods : Self.readMethods + Self.writeMethods }

    /// The response to `request`, which came on a connection served by `eventLoop`.
    func respond(to request: Request, on eventLoop: any EventLoop) async throws(SandboxError) -> Response {
        let path = try target(of: request)
        let method = request.method
        if Self.changingMethods.contains(method) {
            return try await writes.admitting { ticket throws(SandboxError) in
                try await change(method, path, request: request, ticket: ticket)
            }
        }
        switch method {
        case .options: return options()
        case .get: return try await get(path, request: request, includingBody: true, on: eventLoop)
        case .head: return try await get(path, request: request, includingBody: false, on: eventLoop)
        case .propfind: return try await propfind(path, request: request)
        case .lock: return try await lock(path, request: request)
        case .unlock: return try unlock(path, request: request)
        default:
            throw SandboxError(
                .notImplemented,
                "\(method) is not a method this server implements; it speaks WebDAV: "
                    + allowedMethods.map(\.rawValue).joined(separator: ", ") + ".")
        }
    }

    /// The item `request` names, once the checks every method makes pass: the path is reachable
    /// (not hidden), the method allowed on a read-only share, the `If` header's conditions met.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/notFound`` for a hidden path,
    ///   ``SandboxCore/SandboxError/Code/forbidden`` for a change to a read-only share; the errors
    ///   of the path and of the `If` header.
    func target(of request: Request) throws(SandboxError) -> SharePath {
        let path = try SharePath(requestPath: request.uri.path)
        if path.isUnreachable {
            throw SandboxError(.notFound, "Nothing is shared at '\(path)'.", path: path.description)
        }
        if readOnly, Self.writeMethods.contains(request.method) {
            throw SandboxError(
                .forbidden, "This share is read-only: \(request.method) is refused.", path: path.description)
        }
        if let value = request.headers.fieldValue(.davIf) {
            try checkIfHeader(value, path: path)
        }
        return path
    }

    /// The response to a request of one of the ``changingMethods``, admitted by ``writes``.
    private func change(
        _ method: HTTPRequest.Method, _ path: SharePath, request: Request, ticket: WriteGate.Ticket
    ) async throws(SandboxError) -> Response {
        switch method {
        case .put: return try await put(path, request: request, ticket: ticket)
        case .delete: return try delete(path, request: request)
        case .mkcol: return try await mkcol(path, request: request)
        case .copy: return try transfer(path, request: request, move: false)
        case .move: return try transfer(path, request: request, move: true)
        default: return try await proppatch(path, request: request)
        }
    }

    private func options() -> Response {
        var headers = HTTPFields()
        headers[.dav] = "1, 2"
        headers[.allow] = allowedMethods.map(\.rawValue).joined(separator: ", ")
        headers[.msAuthorVia] = "DAV"
        return ShareResponses.empty(200, headers: headers)
    }
}

extension HTTPRequest.Method {
    static let propfind = method("PROPFIND")
    static let proppatch = method("PROPPATCH")
    static let mkcol = method("MKCOL")
    static let copy = method("COPY")
    static let move = method("MOVE")
    static let lock = method("LOCK")
    static let unlock = method("UNLOCK")

    private static func method(_ literal: StaticString) -> HTTPRequest.Method {
        guard let method = HTTPRequest.Method(literal.description) else {
            preconditionFailure("'\(literal)' is not an HTTP method")
        }
        return method
    }
}
