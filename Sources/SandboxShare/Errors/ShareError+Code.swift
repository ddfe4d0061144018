import Sandbox

extension ShareError {
    /// A failure's kind, spelled in stable kebab-case, with the HTTP status it answers with. A
    /// struct, so that codes can be added: switch with a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable spelling used in messages and logs.
        public let rawValue: String
        /// The HTTP status a request failing with this code gets.
        public let status: Int

        private init(_ rawValue: String, status: Int) {
            self.rawValue = rawValue
            self.status = status
        }

        /// The stable, kebab-case spelling.
        public var description: String { rawValue }

        /// The request is malformed: a header, a path or an XML body that does not parse (400).
        public static let malformedRequest = Code("malformed-request", status: 400)
        /// No valid credentials (401, with `WWW-Authenticate`).
        public static let unauthorized = Code("unauthorized", status: 401)
        /// The request is understood and refused: a read-only share, a symlink, a name the share
        /// does not allow (403).
        public static let forbidden = Code("forbidden", status: 403)
        /// No such item, or one the share hides (the Inbox, dot-files) (404).
        public static let notFound = Code(SandboxError.Code.notFound.rawValue, status: 404)
        /// The method does not apply to this item, e.g. MKCOL on an existing item (405).
        public static let methodNotAllowed = Code("method-not-allowed", status: 405)
        /// The item's state conflicts with the request, e.g. a missing parent collection (409).
        public static let conflict = Code("conflict", status: 409)
        /// 409: the name asked for is taken (the web page's create, rename and move).
        public static let nameTaken = Code("name-taken", status: 409)
        /// A precondition failed: `If`, `If-Match`, `Overwrite: F` onto an existing item (412).
        public static let preconditionFailed = Code("precondition-failed", status: 412)
        /// The body is larger than the share accepts: an upload past `--max-upload`, an XML body
        /// past its cap (413).
        public static let tooLarge = Code("too-large", status: 413)
        /// The request body's media type is not one this method takes, e.g. MKCOL with a body (415).
        public static let unsupportedMediaType = Code("unsupported-media-type", status: 415)
        /// The `Range` lies wholly past the end of the file (416).
        public static let rangeNotSatisfiable = Code("range-not-satisfiable", status: 416)
        /// The `Host` header names another server: DNS rebinding, or a wrong address (421).
        public static let misdirected = Code("misdirected-request", status: 421)
        /// The item is locked and the request did not submit the lock's token (423).
        public static let locked = Code("locked", status: 423)
        /// Too many failed logins from this client; wait and retry (429).
        public static let tooManyRequests = Code("too-many-requests", status: 429)
        /// A failure of the server itself, e.g. an unexpected file-system error (500).
        public static let internalError = Code("internal-error", status: 500)
        /// The method is not one the share implements (501).
        public static let notImplemented = Code("not-implemented", status: 501)
        /// The file system is full; nothing was left behind (507).
        public static let noSpace = Code(SandboxError.Code.noSpace.rawValue, status: 507)
        /// The destination is another server (502, RFC 4918 §9.8.5).
        public static let badGateway = Code("bad-gateway", status: 502)
    }
}
