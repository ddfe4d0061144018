import Crypto
import Foundation
import SandboxCore

/// The keys a request is signed with.
public struct S3Credentials: Sendable, Hashable {
    /// The access key id.
    public var accessKey: String
    /// The secret key.
    public var secretKey: String
    /// A temporary session's token (`x-amz-security-token`), when there is one.
    public var sessionToken: String?

    /// Keys, with the token of a temporary session when there is one.
    public init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for header-signed requests, as S3 wants it: the
/// path is encoded once and never normalised (S3 keys may hold `//`, `..` and spaces), the query
/// is encoded and sorted by name then value, header values are trimmed with inner runs of spaces
/// folded, repeated headers are joined with commas in the order given.
struct SigV4Signer: Sendable {
    let credentials: S3Credentials
    let region: String
    let service: String

    /// One request to sign. `path` is as the object is named (not percent-encoded); `headers`
    /// include `host` and leave out `x-amz-date`, which ``sign(_:at:)`` adds.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [(String, String)]
        var headers: [(String, String)]
        /// The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
        var payloadHash: String
    }

    /// What signing produced: the headers to add to the request, and the steps, for tests.
    struct Signed: Sendable {
        var headers: [(String, String)]
        var canonicalRequest: String
        var stringToSign: String
        var signature: String
        var authorization: String
    }

    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    func sign(_ request: Request, at date: Date) -> Signed {
        let stamp = UTCTimestamp.basic(date)
        let day = UTCTimestamp.basicDay(date)
        var added = [("x-amz-date", stamp)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let canonical = Self.canonicalRequest(request, adding: added)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp, scope, Hex.string(SHA256.hash(data: Data(canonical.request.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Hex.string(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return Signed(
            headers: added + [("Authorization", authorization)], canonicalRequest: canonical.request,
            stringToSign: stringToSign, signature: signature, authorization: authorization)
    }

    static func canonicalRequest(
        _ request: Request, adding added: [(String, String)]
    ) -> (request: String, signedHeaders: String) {
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers + added {
            headers[name.lowercased(), default: []].append(trimmed(value))
        }
        let names = headers.keys.sorted()
        let headerLines = names.map { "\($0):\(headers[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let query = request.query.map { (encode($0.0, keepingSlash: false), encode($0.1, keepingSlash: false)) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let text = [
            request.method, encode(request.path, keepingSlash: true), query, headerLines, signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// RFC 3986 encoding as SigV4 wants it: every byte but `A–Z a–z 0–9 - . _ ~` (and `/` in a
    /// path) as `%XX` with upper-case hex, UTF-8 first.
    static func encode(_ text: String, keepingSlash: Bool) -> String {
        PercentEncoding.encode(text) { PercentEncoding.isUnreserved($0) || (keepingSlash && $0 == UInt8(ascii: "/")) }
    }

    /// A header value without leading and trailing spaces, inner runs of spaces as one.
    static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
