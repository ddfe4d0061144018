import HTTPTypes
import Hummingbird
import Sandbox

extension DAVMethods {
    /// MKCOL: creates a collection. 201; 405 when something exists at the path, 409 without a
    /// parent collection, 415 with a body (this server defines no MKCOL body).
    func mkcol(_ path: SharePath, request: Request) async throws(SandboxError) -> Response {
        try requireVisibleName(path, for: .create)
        let hasBody =
            (request.headers.fieldValue(.contentLength).flatMap(Int.init) ?? 0) > 0
            || request.headers.fieldValue(.transferEncoding) != nil
        if hasBody {
            throw SandboxError(
                .unsupportedMediaType, "MKCOL takes no body here; send it without one.", path: path.description)
        }
        if try item(at: path) != nil {
            throw SandboxError(.methodNotAllowed, "'\(path)' already exists.", path: path.description)
        }
        try createCollection(path, request: request)
        return ShareResponses.empty(201)
    }

    /// Creates the collection `path` in an existing parent, unless a lock refuses it.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/conflict`` without a parent collection,
    ///   ``SandboxCore/SandboxError/Code/locked``, and the file system's failure (`already-exists` as
    ///   ``SandboxCore/SandboxError/Code/methodNotAllowed``).
    func createCollection(_ path: SharePath, request: Request) throws(SandboxError) {
        try requireVisibleName(path, for: .create)
        try requireParentCollection(of: path)
        try checkLocks(path, recursive: false, request: request)
        do throws(SandboxError) {
            try documents.createDirectory(at: path.containerPath)
        } catch {
            throw .fileSystem(error, path: path, doing: "create the collection")
        }
    }

    /// DELETE: removes a file, or a collection with everything in it (`Depth` must be infinity
    /// or absent for a collection). 204; locks on the removed items end with them.
    func delete(_ path: SharePath, request: Request) throws(SandboxError) -> Response {
        try requireVisibleName(path, for: .delete)
        let item = try existingItem(at: path)
        if item.isCollection, try Depth.parse(request.headers.fieldValue(.depth), default: .infinity) != .infinity {
            throw SandboxError(
                .malformedRequest, "DELETE of a collection removes all of it: send Depth: infinity or none.",
                path: path.description)
        }
        try checkPreconditions(request, existing: item)
        try checkLocks(path, recursive: item.isCollection, request: request)
        do throws(SandboxError) {
            try documents.removeItem(at: path.containerPath, recursively: true)
        } catch {
            throw .fileSystem(error, path: path, doing: "delete")
        }
        locks.removeLocks(within: path)
        return ShareResponses.empty(204)
    }
}
