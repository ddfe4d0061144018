import Hummingbird
import NIOCore
import Sandbox
import SandboxStore

/// The item a request names, as the share sees it.
struct SharedItem: Sendable {
    let path: SharePath
    let attributes: FileAttributes
    var isCollection: Bool { attributes.type == .directory }
    var entityTag: String { EntityTag.of(attributes) }
    var snapshot: ItemSnapshot { ItemSnapshot(path: path, attributes: attributes, isCollection: isCollection) }
}

extension DAVMethods {
    /// The item at `path`, or `nil` when there is none the share shows: missing, hidden (but for
    /// Finder's own files, ``SharePath/isFinderMetadata``), a symlink, a device or socket.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` for a file-system failure (a file in the way of a parent is "none").
    func item(at path: SharePath) throws(SandboxError) -> SharedItem? {
        if path.isUnreachable { return nil }
        do throws(SandboxError) {
            guard let attributes = try documents.attributes(at: path.containerPath, followingSymlink: false),
                attributes.type == .regular || attributes.type == .directory
            else { return nil }
            return SharedItem(path: path, attributes: attributes)
        } catch  where error.code == .notADirectory || error.code == .symlinkLoop {
            return nil
        } catch {
            throw .fileSystem(error, path: path.description, doing: "look at")
        }
    }

    /// What the share shows in the collection at `path`, unsorted: its files and folders, without
    /// hidden names, symlinks, devices, names that are not UTF-8 (they cannot be sent in an href
    /// or a JSON string) and names with control characters or backslashes; none when the
    /// collection was removed meanwhile.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` for a file-system failure.
    func children(of path: SharePath) throws(SandboxError) -> [SharedItem] {
        let entries: [DirectoryEntry]
        do throws(SandboxError) {
            entries = try documents.contentsOfDirectory(at: path.containerPath, prefetchingAttributes: true)
        } catch  where error.code == .notFound {
            return []  // removed while we looked
        } catch {
            throw .fileSystem(error, path: path, doing: "list")
        }
        var result: [SharedItem] = []
        result.reserveCapacity(entries.count)
        for entry in entries {
            // A name with a control character or a backslash is one no request could name again
            // (``SharePath/init(requestPath:)`` refuses it): not shown, like one that is not UTF-8.
            guard let name = entry.fileName.string, SharePath.isValidName(Array(name.utf8)),
                let attributes = entry.attributes, attributes.type == .regular || attributes.type == .directory
            else { continue }
            let child = path.appending(name)
            if child.isHidden { continue }
            result.append(SharedItem(path: child, attributes: attributes))
        }
        return result
    }

    /// ``item(at:)``, required.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is none.
    func existingItem(at path: SharePath) throws(SandboxError) -> SharedItem {
        guard let item = try item(at: path) else {
            throw SandboxError(.notFound, "Nothing is shared at '\(path)'.", path: path.description)
        }
        return item
    }

    /// Refuses `action` (creating, changing or removing) at `path` when the share hides that name
    /// (as if it did not exist), when it is the shared folder itself, or when the container's
    /// policy for file sharing (``/Sandbox/ContainerPolicy/fileSharing``) refuses it there.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for the Inbox and names starting with `.` (but
    ///   Finder's `._name` and `.DS_Store`, ``SharePath/isFinderMetadata``),
    ///   ``SandboxCore/SandboxError/Code/forbidden`` for the root and where the policy allows
    ///   reading but not `action`.
    func requireVisibleName(_ path: SharePath, for action: DirectoryPolicy.Action) throws(SandboxError) {
        if path.isUnreachable {
            throw SandboxError(.notFound, "Nothing is shared at '\(path)'.", path: path.description)
        }
        if path.isRoot {
            throw SandboxError(.forbidden, "The shared folder itself cannot be replaced or removed.", path: "/")
        }
        do throws(SandboxError) {
            try ContainerPolicy.fileSharing.check(action, at: path.pathInContainer)
        } catch {
            let (code, _) = SandboxError.classify(error.code)
            throw SandboxError(
                code, "The share may not do that at '\(path)': \(error.message)", path: path.description,
                underlying: .error(error))
        }
    }

    /// Requires `path`'s parent to be an existing collection (RFC 4918: 409 otherwise).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/conflict``.
    func requireParentCollection(of path: SharePath) throws(SandboxError) {
        guard let parent = try item(at: path.parent), parent.isCollection else {
            throw SandboxError(
                .conflict, "The collection '\(path.parent)' does not exist; create it first (MKCOL).",
                path: path.description)
        }
    }

    /// The request's XML body, up to ``SandboxStore/XMLLimits/webDAV``'s size.
    ///
    /// - Throws: `too-large` past the cap.
    func xmlBody(of request: Request) async throws(SandboxError) -> [UInt8] {
        try await Self.smallBody(of: request, limit: XMLLimits.webDAV.maximumBodySize, kind: "XML body")
    }

    /// A request body read whole, up to `limit` bytes.
    ///
    /// - Throws: `too-large` past the cap (announced or sent),
    ///   ``SandboxCore/SandboxError/Code/malformedRequest`` when the body cannot be read.
    static func smallBody(of request: Request, limit: Int, kind: String) async throws(SandboxError) -> [UInt8] {
        if let length = request.headers.fieldValue(.contentLength).flatMap(Int.init), length > limit {
            throw SandboxError(.tooLarge, "The \(kind) is \(length) bytes; this server reads at most \(limit).")
        }
        var collected: [UInt8] = []
        do {
            for try await buffer in request.body {
                guard collected.count + buffer.readableBytes <= limit else {
                    throw SandboxError(.tooLarge, "The \(kind) is over \(limit) bytes, the most this server reads.")
                }
                collected.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.malformedRequest, "The request body could not be read.", underlying: .wrapping(error))
        }
        return collected
    }

    /// Refuses a write whose `If-Match` / `If-None-Match` / `If-Unmodified-Since` do not hold for
    /// `existing` (`nil`: no item at the path).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/preconditionFailed``.
    func checkPreconditions(_ request: Request, existing: SharedItem?) throws(SandboxError) {
        let modified = existing?.attributes.modificationDate
        if Preconditions.evaluate(request.headers, etag: existing?.entityTag, modified: modified, isRead: false) != nil
        {
            throw SandboxError(
                .preconditionFailed, "The request's preconditions (If-Match, If-None-Match) do not hold.")
        }
    }

    /// The lock tokens the request submits in its `If` header.
    func submittedTokens(_ request: Request) throws(SandboxError) -> Set<String> {
        guard let value = request.headers.fieldValue(.davIf) else { return [] }
        return try IfHeader.parse(value, allowedAuthorities: allowedAuthorities, scheme: scheme).submittedTokens
    }

    /// Refuses a change to `path` (and, when `recursive`, to everything beneath it) that a lock
    /// covers unless the request submitted the lock's token.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/locked`` with `lock-token-submitted`.
    func checkLocks(_ path: SharePath, recursive: Bool, request: Request) throws(SandboxError) {
        try locks.checkWrite(path, recursive: recursive, submitted: try submittedTokens(request))
    }

    /// Evaluates an `If` header (RFC 4918 §10.4) against the items' entity tags and locks.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` when it does not parse,
    ///   ``SandboxCore/SandboxError/Code/preconditionFailed`` when no list holds.
    func checkIfHeader(_ value: String, path: SharePath) throws(SandboxError) {
        let header = try IfHeader.parse(value, allowedAuthorities: allowedAuthorities, scheme: scheme)
        // The state of every resource the header names, looked up first: a failure to look is
        // the request's error, not a condition that silently fails.
        var states: [SharePath: ResourceState] = [:]
        for resource in [path] + header.lists.compactMap(\.taggedPath) where states[resource] == nil {
            states[resource] = ResourceState(
                etag: try item(at: resource)?.entityTag,
                lockTokens: Set(locks.locks(covering: resource).map(\.token)))
        }
        let holds = IfEvaluation.evaluate(header, requestPath: path) { resource in
            states[resource] ?? ResourceState(etag: nil, lockTokens: [])
        }
        guard holds else {
            throw SandboxError(
                .preconditionFailed, "The If header's conditions do not hold for '\(path)'.", path: path.description)
        }
    }
}

extension SandboxError {
    /// Wraps a core error met while `action` on `path`.
    static func fileSystem(_ error: SandboxError, path: SharePath, doing action: String) -> SandboxError {
        .fileSystem(error, path: path.description, doing: action)
    }
}

extension IfHeader.List {
    /// The resource a tagged list names on this server, or `nil` (untagged, or another server).
    fileprivate var taggedPath: SharePath? {
        if case .path(let path) = resource { path } else { nil }
    }
}
