import Foundation

/// The user name and password of an `Authorization: Basic …` header (RFC 7617).
///
/// Parsed here rather than with Hummingbird's helper, which drops an empty user name or password
/// and so cannot read `:code`.
package struct BasicAuthorization: Sendable, Equatable {
    package var user: String
    package var password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Most bytes of a header value read: a longer one is not credentials.
    static let maximumLength = 4096

    /// The credentials in `header`, or `nil` when it is missing, not Basic, not base64, or not
    /// `user:password` in UTF-8.
    package init?(header: String?) {
        guard let header, header.utf8.count <= Self.maximumLength else { return nil }
        let parts = header.trimmingSpaces.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(String(parts[1]).trimmingSpaces)),  // 1*SP (RFC 9110 §11.4)
            let text = String(validating: decoded, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }
}
