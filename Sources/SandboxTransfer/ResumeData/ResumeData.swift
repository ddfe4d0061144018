import Foundation
import SandboxCore

/// How to continue a download: a versioned, self-validating `Codable` document of our own (never
/// an opaque archive like the one iOS 10 and 11 broke).
///
/// It holds the URL, the strong ``Validator`` of the version being downloaded, the expected length,
/// and the identity of the partial file inside the session's folder. It holds **no byte offset**:
/// the offset is the partial file's actual length when the download resumes, so there is no second
/// copy of it to drift (the iOS 11 `NSURLSessionResumeByteRange` bug).
///
/// Encode it with ``encoded()`` and decode it with ``init(decoding:)``, which checks it.
public struct ResumeData: Sendable, Hashable, Codable {
    /// The format this library writes. Older versions are read; newer ones are refused.
    public static let currentVersion = 1

    /// The format version.
    public var version: Int
    /// The session that owns the partial file.
    public var sessionIdentifier: String
    /// The task's identifier in that session.
    public var taskIdentifier: Int
    /// The URL the download was started with; a resumed request goes there again (and follows
    /// redirects anew).
    public var originalURL: String
    /// The URL the bytes came from, after redirects (for diagnostics).
    public var finalURL: String?
    /// The version being downloaded; `nil` when the server sent no strong validator, in which case
    /// the download restarts from zero instead of resuming.
    public var validator: Validator?
    /// The representation's complete length, when known.
    public var expectedLength: Int64?
    /// The partial file.
    public var partialFile: PartialFileIdentity
    /// The digest the finished file must have, if one was asked for.
    public var expectedDigest: ExpectedDigest?
    /// Request headers to send again (never credentials).
    public var headers: [String: String]
    /// When the download was first created, to the whole second (the precision the document
    /// stores, so that what is decoded encodes to the same document; a finer value is truncated).
    public var createdAt: Date {
        didSet { createdAt = Self.wholeSeconds(createdAt) }
    }

    /// Resume data for the partial file `partialFile` of task `taskIdentifier` in session
    /// `sessionIdentifier`; each value as its property says. `createdAt` is kept to the whole second.
    public init(
        sessionIdentifier: String,
        taskIdentifier: Int,
        originalURL: String,
        finalURL: String? = nil,
        validator: Validator?,
        expectedLength: Int64?,
        partialFile: PartialFileIdentity,
        expectedDigest: ExpectedDigest? = nil,
        headers: [String: String] = [:],
        createdAt: Date = Date()
    ) {
        self.version = Self.currentVersion
        self.sessionIdentifier = sessionIdentifier
        self.taskIdentifier = taskIdentifier
        self.originalURL = originalURL
        self.finalURL = finalURL
        self.validator = validator
        self.expectedLength = expectedLength
        self.partialFile = partialFile
        self.expectedDigest = expectedDigest
        self.headers = headers
        self.createdAt = Self.wholeSeconds(createdAt)
    }

    /// `date` truncated to its second (toward the past), as the document's ISO 8601 form keeps it.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
    }

    /// Whether the download can continue where it stopped (it has a strong validator); without
    /// one, resuming restarts from zero.
    public var canContinue: Bool { validator != nil }

    /// The document as JSON.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidResumeData`` if a value cannot be encoded.
    public func encoded() throws(SandboxError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(self)
        } catch {
            throw SandboxError(
                .invalidResumeData, "Could not encode the resume data of \(originalURL).", url: originalURL,
                underlying: .wrapping(error))
        }
    }

    /// Decodes and checks resume data.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidResumeData`` when it is not JSON of this format, has a
    ///   newer version, a URL that is not absolute http(s), a weak or malformed entity tag, a
    ///   `Last-Modified` that is no HTTP date, a digest that is not hexadecimal of its algorithm's
    ///   length, a header whose name is not a token or whose value holds CR, LF, NUL or another
    ///   control character, a credentials header (`Authorization`, `Proxy-Authorization`,
    ///   `Cookie`), a negative length, or a partial file name that is not one plain name.
    public init(decoding data: Data) throws(SandboxError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var decoded: ResumeData
        do {
            decoded = try decoder.decode(ResumeData.self, from: data)
        } catch DecodingError.dataCorrupted(let context) {
            throw SandboxError(
                .invalidResumeData,
                "The resume data is unusable: \(context.debugDescription) Start the download again.",
                underlying: .wrapping(DecodingError.dataCorrupted(context)))
        } catch {
            throw SandboxError(
                .invalidResumeData, "The resume data is not in this library's format; start the download again.",
                underlying: .wrapping(error))
        }
        // Foundation's ISO 8601 parser also takes fractional seconds, which `encoded()` would drop.
        decoded.createdAt = Self.wholeSeconds(decoded.createdAt)
        try decoded.validate()
        self = decoded
    }

    /// Checks the values a decoder cannot.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidResumeData`` naming the rule that failed.
    public func validate() throws(SandboxError) {
        func invalid(_ reason: String) -> SandboxError {
            SandboxError(
                .invalidResumeData,
                "The resume data of \(originalURL) is unusable: \(reason). Start the download again.", url: originalURL)
        }
        guard version >= 1 else { throw invalid("version \(version) is not a version") }
        guard version <= Self.currentVersion else {
            throw invalid("version \(version) is newer than this library reads (\(Self.currentVersion))")
        }
        guard DownloadRequest.isSupported(URL(string: originalURL)) else {
            throw invalid("'\(originalURL)' is not an absolute http or https URL")
        }
        if case .entityTag(let tag) = validator, !Validator.isStrongEntityTag(tag) {
            throw invalid(
                "the entity tag \(tag.debugDescription) is not a well-formed strong one, so it cannot guard a resume")
        }
        if case .lastModified(let date) = validator, HTTPDate.parse(date) == nil {
            throw invalid("the Last-Modified validator '\(date.debugDescription)' is not an HTTP date")
        }
        if let digest = expectedDigest, !ExpectedDigest.isDigest(digest.hex, of: digest.algorithm) {
            throw invalid(
                "the \(digest.algorithm.rawValue) digest '\(digest.hex.debugDescription)' is not \(digest.algorithm.byteCount * 2) hexadecimal digits"
            )
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard HeaderSyntax.isToken(name) else {
                throw invalid("the header name \(name.debugDescription) is not an HTTP token")
            }
            guard !HeaderSyntax.isCredentials(name) else {
                throw invalid(
                    "it carries the credentials header \(name), which resume data never holds; give it in the new request instead"
                )
            }
            guard HeaderSyntax.isFieldValue(value) else {
                throw invalid(
                    "the value of the header \(name) holds a control character (CR, LF, NUL or another): \(value.debugDescription)"
                )
            }
        }
        if let expectedLength, expectedLength < 0 { throw invalid("the expected length \(expectedLength) is negative") }
        guard PartialFileIdentity.isPlainName(partialFile.name) else {
            throw invalid("the partial file name '\(partialFile.name)' is not one plain name")
        }
    }
}

/// Which file holds a download's bytes: a plain name inside the session's folder, with the inode
/// number and birth time it had, so that a different file put under the same name is not taken for
/// it (file systems reuse a freed inode number at once; the birth time tells them apart).
public struct PartialFileIdentity: Sendable, Hashable, Codable {
    /// The name inside the session's folder (`Library/Caches/com.sandbox.downloads/<session>/`).
    public var name: String
    /// The inode number when the data was made, if the file existed.
    public var inode: UInt64?
    /// The file's birth time (`statx`), in seconds since 1970, where the file system keeps one.
    public var birthTime: Double?

    /// The identity of the file `name` in the session's folder, with its inode number and birth time.
    public init(name: String, inode: UInt64?, birthTime: Double? = nil) {
        self.name = name
        self.inode = inode
        self.birthTime = birthTime
    }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
            && name.utf8.count <= 255
    }
}
