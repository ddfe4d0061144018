import HTTPTypes

/// The header names HTTP Types does not define: WebDAV's (RFC 4918 §10) and a few of HTTP's.
extension HTTPField.Name {
    static let dav = named("DAV")
    static let depth = named("Depth")
    static let destination = named("Destination")
    static let davIf = named("If")
    static let lockToken = named("Lock-Token")
    static let overwrite = named("Overwrite")
    static let timeout = named("Timeout")
    static let msAuthorVia = named("MS-Author-Via")
    static let xContentTypeOptions = named("X-Content-Type-Options")
    static let referrerPolicy = named("Referrer-Policy")
    static let xCSRFToken = named("X-CSRF-Token")
    static let secFetchSite = named("Sec-Fetch-Site")
    static let xOCMtime = named("X-OC-Mtime")
    static let ocChecksum = named("OC-Checksum")

    /// The name `literal`, which must be a valid header name (a token): checked when first used.
    private static func named(_ literal: StaticString) -> HTTPField.Name {
        guard let name = HTTPField.Name(literal.description) else {
            preconditionFailure("'\(literal)' is not an HTTP header name")
        }
        return name
    }
}
