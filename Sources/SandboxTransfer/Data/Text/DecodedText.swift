import Foundation

/// A body decoded as text, and how its charset was chosen.
///
/// The charset comes from, in order: a byte-order mark at the start of the body (UTF-8, UTF-16 or
/// UTF-32, either byte order; it is not part of the text), as browsers decode (WHATWG Encoding
/// Standard, "decode"): the mark is proof, the header a claim; then the `charset` parameter of
/// `Content-Type` (``TextCharset/init(label:)``); then UTF-8. Bytes that are not valid in the
/// charset become U+FFFD REPLACEMENT CHARACTER: decoding never fails on the bytes, only on a
/// charset it does not support.
public struct DecodedText: Sendable, Hashable {
    /// Where the charset came from.
    public enum Source: String, Sendable, Hashable {
        /// A byte-order mark at the start of the body.
        case byteOrderMark = "byte-order-mark"
        /// The `charset` parameter of `Content-Type`.
        case contentType = "content-type"
        /// Neither: UTF-8.
        case defaultCharset = "default"
    }

    /// The text.
    public var string: String
    /// The charset it was decoded from.
    public var charset: TextCharset
    /// Where ``charset`` came from.
    public var source: Source

    /// Decodes `body`, whose `Content-Type` header is `contentType`, as the type's documentation
    /// says; `nil` when the header names a charset ``TextCharset`` does not support and the body
    /// has no byte-order mark.
    public init?(decoding body: some ContiguousBytes, contentType: String?) {
        let label = contentType.flatMap(MediaType.init)?.charset
        let decoded: DecodedText? = body.withUnsafeBytes { bytes in
            if let (charset, length) = TextCharset.byteOrderMark(of: bytes) {
                let text = charset.decode(UnsafeRawBufferPointer(rebasing: bytes[length...]))
                return DecodedText(string: text, charset: charset, source: .byteOrderMark)
            }
            guard let label else {
                return DecodedText(string: TextCharset.utf8.decode(bytes), charset: .utf8, source: .defaultCharset)
            }
            guard let charset = TextCharset(label: label) else { return nil }
            return DecodedText(string: charset.decode(bytes), charset: charset, source: .contentType)
        }
        guard let decoded else { return nil }
        self = decoded
    }

    /// A decoded text, as given.
    public init(string: String, charset: TextCharset, source: Source) {
        self.string = string
        self.charset = charset
        self.source = source
    }
}
