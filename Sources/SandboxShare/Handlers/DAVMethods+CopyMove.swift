import HTTPTypes
import Hummingbird
import Sandbox
import SandboxStore

extension DAVMethods {
    /// COPY and MOVE (RFC 4918 §9.8–9.9). The `Destination` must be this server (else 502) and a
    /// shared name inside Documents (else 403). `Overwrite: F` onto an existing item is 412; with
    /// `T` (the default) the item there is removed first, and the answer is 204 instead of 201. A
    /// missing destination parent is 409. COPY takes `Depth: 0` (a collection without its
    /// members) or infinity; MOVE of a collection, infinity only. Locks do not travel: the
    /// source's end with a MOVE, and both sides must be unlocked or their tokens submitted.
    func transfer(_ source: SharePath, request: Request, move: Bool) throws(SandboxError) -> Response {
        let name = move ? "MOVE" : "COPY"
        guard let value = request.headers.fieldValue(.destination) else {
            throw SandboxError(.malformedRequest, "\(name) needs a Destination header.", path: source.description)
        }
        let destination = try DestinationHeader.parse(
            value, allowedAuthorities: allowedAuthorities, scheme: scheme)
        if move { try requireVisibleName(source, for: .delete) }
        let sourceItem = try existingItem(at: source)
        try requireVisibleName(destination, for: .create)
        guard destination != source else {
            throw SandboxError(
                .forbidden, "The source and the destination of \(name) are the same: '\(source)'.",
                path: source.description)
        }
        if sourceItem.isCollection, destination.isDescendant(of: source) {
            throw SandboxError(
                .conflict, "'\(source)' cannot be put inside itself ('\(destination)').", path: source.description)
        }
        let depth = try Depth.parse(request.headers.fieldValue(.depth), default: .infinity)
        if sourceItem.isCollection, depth == .one || (move && depth != .infinity) {
            throw SandboxError(
                .malformedRequest, "\(name) of a collection takes Depth: \(move ? "infinity" : "0 or infinity").",
                path: source.description)
        }
        let overwrite = try Overwrite.parse(request.headers.fieldValue(.overwrite))
        return try relocate(
            source, sourceItem, to: destination, move: move, depth: depth, overwrite: overwrite, request: request)
    }

    /// Moves or copies `source` (which is `sourceItem`) to `destination` in an existing parent
    /// collection, replacing what is there only when `overwrite`. Through Data Protection in a
    /// container's share (``transferItem(_:to:move:)``): a protected file keeps its class, a plain
    /// one copied or moved into a folder with a default class is sealed with it.
    ///
    /// - Returns: 201 (created) or 204 (replaced).
    /// - Throws: ``SandboxCore/SandboxError/Code/conflict`` without a parent collection,
    ///   ``SandboxCore/SandboxError/Code/preconditionFailed`` when the destination exists and not `overwrite`,
    ///   ``SandboxCore/SandboxError/Code/locked``, ``SandboxCore/SandboxError/Code/forbidden`` when the destination folder's
    ///   class cannot be written while the device is locked (nothing is changed), and the file
    ///   system's failure.
    func relocate(
        _ source: SharePath, _ sourceItem: SharedItem, to destination: SharePath, move: Bool, depth: Depth,
        overwrite: Bool, request: Request
    ) throws(SandboxError) -> Response {
        try requireParentCollection(of: destination)
        let existing = try item(at: destination)
        if existing != nil, !overwrite {
            throw SandboxError(
                .preconditionFailed, "'\(destination)' exists and Overwrite is F: nothing was changed.",
                path: destination.description)
        }
        if move { try checkLocks(source, recursive: true, request: request) }
        try checkLocks(destination, recursive: true, request: request)

        if existing != nil, !sourceItem.isCollection { try requireSealable(source, into: destination, move: move) }
        do throws(SandboxError) {
            if existing != nil {
                try documents.removeItem(at: destination.containerPath, recursively: true)
                locks.removeLocks(within: destination)
            }
            if !move, sourceItem.isCollection, depth == .zero {
                try documents.createDirectory(at: destination.containerPath)
                try properties.copy(from: source.containerPath, to: destination.containerPath)
            }
        } catch {
            throw .fileSystem(error, path: source, doing: move ? "move" : "copy")
        }
        if move || !sourceItem.isCollection || depth != .zero {
            try transferItem(source, to: destination, move: move)
        }
        if move { locks.removeLocks(within: source) }
        return ShareResponses.empty(existing == nil ? 201 : 204)
    }
}
