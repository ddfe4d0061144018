import HTTPTypes
import Hummingbird
import Sandbox

extension DAVMethods {
    /// The longest lock this server grants, and what `Infinite` means: an hour. A client refreshes.
    static let maximumLockSeconds = 3600

    /// LOCK (RFC 4918 §9.10): a new write lock, exclusive or shared, `Depth: 0` or infinity (the
    /// default), with the `Timeout` asked for up to an hour; or, without a body, a refresh of the
    /// lock whose token the `If` header submits. A LOCK of an unmapped name creates an empty file
    /// there (201). The answer carries `Lock-Token` and the `lockdiscovery` property.
    func lock(_ path: SharePath, request: Request) async throws(SandboxError) -> Response {
        try requireVisibleName(path, for: .create)
        let body = try await xmlBody(of: request)
        let lockRequest = try LockRequest.parse(body)
        let asked = LockTimeout.parse(request.headers.fieldValue(.timeout)) ?? Self.maximumLockSeconds
        let seconds = min(asked, Self.maximumLockSeconds)
        guard let lockRequest else {
            let tokens = try submittedTokens(request)
            guard tokens.count == 1, let token = tokens.first else {
                throw SandboxError(
                    .malformedRequest, "A LOCK without a body refreshes a lock: submit its token, and only it, in If.",
                    path: path.description)
            }
            _ = try existingItem(at: path)
            let refreshed = try locks.refresh(token: token, path: path, timeoutSeconds: seconds)
            return discovery(refreshed, status: 200)
        }
        let depth = try Depth.parse(request.headers.fieldValue(.depth), default: .infinity)
        guard depth != .one else {
            throw SandboxError(.malformedRequest, "LOCK takes Depth 0 or infinity, not 1.", path: path.description)
        }
        var created = false
        let existing = try item(at: path)
        if existing == nil {
            try requireParentCollection(of: path)
            try checkLocks(path, recursive: false, request: request)
            // A change like a PUT: admitted only while the share holds the container.
            created = try await writes.admitting { _ throws(SandboxError) -> Bool in
                do throws(SandboxError) {
                    try documents.writeContents([], to: path.containerPath, options: [.atomic, .withoutOverwriting])
                    return true
                } catch  where error.code == .alreadyExists {
                    return false  // made meanwhile: lock what is there
                } catch {
                    throw .fileSystem(error, path: path, doing: "create the locked file")
                }
            }
        }
        let granted = try locks.lock(
            path, isCollection: existing?.isCollection ?? false, scope: lockRequest.scope, depth: depth,
            owner: lockRequest.owner, timeoutSeconds: seconds)
        return discovery(granted, status: created ? 201 : 200)
    }

    /// UNLOCK (RFC 4918 §9.11): ends the lock whose token `Lock-Token` names. 204.
    func unlock(_ path: SharePath, request: Request) throws(SandboxError) -> Response {
        guard let header = request.headers.fieldValue(.lockToken)?.trimmingSpaces, header.hasPrefix("<"),
            header.hasSuffix(">"),
            header.count > 2
        else {
            throw SandboxError(.malformedRequest, "UNLOCK needs a Lock-Token header: <token>.", path: path.description)
        }
        _ = try existingItem(at: path)
        try locks.unlock(token: String(header.dropFirst().dropLast()), path: path)
        return ShareResponses.empty(204)
    }

    private func discovery(_ lock: ActiveLock, status: Int) -> Response {
        let body =
            #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
            + #"<D:prop xmlns:D="DAV:"><D:lockdiscovery>"# + lock.activeLockXML(now: locks.now)
            + "</D:lockdiscovery></D:prop>\n"
        var headers = HTTPFields()
        headers[.lockToken] = "<\(lock.token)>"
        return ShareResponses.xml(Array(body.utf8), status: status, headers: headers)
    }
}
