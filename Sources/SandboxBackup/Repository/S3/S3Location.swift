import SandboxCore

/// Where an S3 repository is: `s3://bucket/prefix`, with the endpoint, region and keys from the
/// environment.
///
/// | variable | meaning |
/// |---|---|
/// | `S3_ENDPOINT` | the gateway's URL, e.g. `http://127.0.0.1:7480` (default `https://s3.<region>.amazonaws.com`) |
/// | `S3_ACCESS_KEY` or `AWS_ACCESS_KEY_ID` | the access key id |
/// | `S3_SECRET_KEY` or `AWS_SECRET_ACCESS_KEY` | the secret key |
/// | `S3_REGION` or `AWS_REGION` | the region signed for (default `us-east-1`) |
/// | `AWS_SESSION_TOKEN` | a temporary session's token, when there is one |
///
/// Requests use path-style addressing (`<endpoint>/<bucket>/<key>`), which Ceph, MinIO and AWS
/// all accept.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// `http(s)://host[:port]`, without a trailing slash.
    public var endpoint: String
    /// The bucket.
    public var bucket: String
    /// The key prefix the repository lives under, without leading or trailing slashes; may be empty.
    public var prefix: String
    /// The region requests are signed for.
    public var region: String
    /// The keys requests are signed with.
    public var credentials: S3Credentials

    /// A location from its parts, unchecked (``parse(_:environment:)`` checks an address).
    public init(endpoint: String, bucket: String, prefix: String, region: String, credentials: S3Credentials) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
        self.credentials = credentials
    }

    /// The address, `s3://bucket/prefix`: never the keys.
    public var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    /// Whether `repository` names an S3 repository (`s3://…`).
    public static func isS3(_ repository: String) -> Bool { repository.hasPrefix("s3://") }

    /// Parses `s3://bucket[/prefix]` and reads the rest from `environment`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a malformed address, a
    ///   missing key, or an endpoint that is not `http://` or `https://`.
    public static func parse(_ repository: String, environment: [String: String]) throws(SandboxError) -> S3Location {
        guard isS3(repository) else {
            throw SandboxError(.invalidArgument, "'\(repository)' is not an s3:// address.", path: repository)
        }
        let rest = repository.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard !bucket.isEmpty, bucket.utf8.count <= 63,
            bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") })
        else {
            throw SandboxError(
                .invalidArgument,
                "'\(repository)' does not name a bucket: write s3://BUCKET/PREFIX (a bucket name is 3–63 lower-case letters, digits, '-' and '.').",
                path: repository)
        }
        func value(_ names: String...) -> String? {
            for name in names { if let value = environment[name], !value.isEmpty { return value } }
            return nil
        }
        let region = value("S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1"
        var endpoint = value("S3_ENDPOINT") ?? "https://s3.\(region).amazonaws.com"
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
            throw SandboxError(
                .invalidArgument,
                "S3_ENDPOINT '\(endpoint)' is not an http:// or https:// URL (for example http://127.0.0.1:7480).")
        }
        guard let access = value("S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"),
            let secret = value("S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY")
        else {
            throw SandboxError(
                .invalidArgument,
                "No keys for '\(repository)': set S3_ACCESS_KEY and S3_SECRET_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).",
                path: repository)
        }
        return S3Location(
            endpoint: endpoint, bucket: bucket, prefix: prefix, region: region,
            credentials: S3Credentials(accessKey: access, secretKey: secret, sessionToken: value("AWS_SESSION_TOKEN")))
    }

    /// The key of `object` under the prefix.
    func key(_ object: String) -> String { prefix.isEmpty ? object : prefix + "/" + object }
}
