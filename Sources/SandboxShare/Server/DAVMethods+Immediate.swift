import Hummingbird
import Sandbox

extension DAVMethods {
    /// The response to the GET or HEAD `request` when it can be made without waiting — the file
    /// is plain and, for a GET, at most ``inlineReadLimit`` bytes the page cache holds — or a
    /// refusal; `nil` when the request needs ``respond(to:on:)`` (a protected file, bytes not
    /// cached, a larger file), having changed nothing.
    ///
    /// The checks and the answer are ``respond(to:on:)``'s own: ``target(of:)``,
    /// ``openForGet(_:)`` (beneath the root, no symlink), ``FileContents/knownPlain(_:size:dataProtection:firstBytes:)``,
    /// ``answer(_:attributes:read:_:request:includingBody:)``.
    ///
    /// - Throws: as ``respond(to:on:)`` does for GET and HEAD.
    func immediateResponse(to request: Request) throws(SandboxError) -> ImmediateResponse? {
        let includingBody: Bool
        switch request.method {
        case .get: includingBody = true
        case .head: includingBody = false
        default: return nil
        }
        let path = try target(of: request)
        let (file, attributes) = try openForGet(path)
        let read = includingBody ? Self.prefetch(file, size: attributes.size) : nil
        guard includingBody ? attributes.size == 0 || read != nil : true,
            let contents = FileContents.knownPlain(
                file, size: attributes.size, dataProtection: dataProtection, firstBytes: read?.readableBytesView),
            case .complete(let response) = answer(
                contents, attributes: attributes, read: read, path, request: request, includingBody: includingBody)
        else {
            closeQuietly(file)
            return nil
        }
        return response
    }
}
