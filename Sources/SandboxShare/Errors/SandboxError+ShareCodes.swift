import Sandbox
import SandboxStore

/// The codes of the sharing server's own failures. Each answers with an HTTP status
/// (``SandboxCore/SandboxError/Code/httpStatus``), so a handler throws and the server writes the
/// response in one place. A missing item is the core's `not-found` (404), a full disk its
/// `no-space` (507), a body past a cap the store's `too-large` (413).
extension SandboxError.Code {
    /// The request is malformed: a header, a path or an XML body that does not parse (400).
    public static let malformedRequest = Self("malformed-request")
    /// No valid credentials (401, with `WWW-Authenticate`).
    public static let unauthorized = Self("unauthorized")
    /// The request is understood and refused: a read-only share, a symlink, a name the share
    /// does not allow (403).
    public static let forbidden = Self("forbidden")
    /// The method does not apply to this item, e.g. MKCOL on an existing item (405).
    public static let methodNotAllowed = Self("method-not-allowed")
    /// The item's state conflicts with the request, e.g. a missing parent collection (409).
    public static let conflict = Self("conflict")
    /// 409: the name asked for is taken (the web page's create, rename and move).
    public static let nameTaken = Self("name-taken")
    /// A precondition failed: `If`, `If-Match`, `Overwrite: F` onto an existing item (412).
    public static let preconditionFailed = Self("precondition-failed")
    /// The request body's media type is not one this method takes, e.g. MKCOL with a body (415).
    public static let unsupportedMediaType = Self("unsupported-media-type")
    /// The `Range` lies wholly past the end of the file (416).
    public static let rangeNotSatisfiable = Self("range-not-satisfiable")
    /// The `Host` header names another server: DNS rebinding, or a wrong address (421).
    public static let misdirected = Self("misdirected-request")
    /// The item is locked and the request did not submit the lock's token (423).
    public static let locked = Self("locked")
    /// Too many failed logins from this client; wait and retry (429).
    public static let tooManyRequests = Self("too-many-requests")
    /// A failure of the server itself, e.g. an unexpected file-system error (500).
    public static let internalError = Self("internal-error")
    /// The method is not one the share implements (501).
    public static let notImplemented = Self("not-implemented")
    /// The destination is another server (502, RFC 4918 §9.8.5).
    public static let badGateway = Self("bad-gateway")
    /// A change refused for a moment: a lifecycle operation on the app (a restore, an uninstall,
    /// the device locking) has the share let go of the container; retry (503, with `Retry-After`).
    public static let unavailable = Self("unavailable")
    /// The certificate or key to serve HTTPS with cannot be used: not PEM, a key that is not the
    /// certificate's, expired or not yet valid. Found before the share listens; never an answer.
    public static let invalidCertificate = Self("invalid-certificate")
    /// The share cannot be announced on the network (DNS-SD): the system D-Bus or `avahi-daemon`
    /// is not running. The share is served all the same; never an answer.
    public static let discoveryUnavailable = Self("discovery-unavailable")
    /// `avahi-daemon` refused the share's announcement (a record it rejects); the share is served
    /// unannounced; never an answer.
    public static let discoveryFailed = Self("discovery-failed")

    /// The HTTP status a request failing with this code gets: 500 for a code the share does not
    /// answer with on its own.
    public var httpStatus: Int { Self.httpStatuses[self] ?? 500 }

    /// Whether this is one of the codes the share answers with on its own (with the store's
    /// `too-large`, 413): a failure a handler already answered, which
    /// passes through unchanged where a failure of the layers beneath is translated.
    package var isShareAnswer: Bool { Self.shareCodes.contains(self) }

    private static let shareCodes: Set<SandboxError.Code> = [
        .malformedRequest, .unauthorized, .forbidden, .methodNotAllowed, .conflict, .nameTaken, .preconditionFailed,
        .unsupportedMediaType, .rangeNotSatisfiable, .misdirected, .locked, .tooManyRequests, .internalError,
        .notImplemented, .badGateway, .unavailable, .tooLarge,
    ]

    private static let httpStatuses: [SandboxError.Code: Int] = [
        .malformedRequest: 400, .unauthorized: 401, .forbidden: 403, .notFound: 404, .methodNotAllowed: 405,
        .conflict: 409, .nameTaken: 409, .preconditionFailed: 412, .tooLarge: 413, .unsupportedMediaType: 415,
        .rangeNotSatisfiable: 416, .misdirected: 421, .locked: 423, .tooManyRequests: 429, .internalError: 500,
        .notImplemented: 501, .badGateway: 502, .unavailable: 503, .noSpace: 507,
    ]
}
