import Crypto
import SandboxCore

/// A digest the finished file must have; computed while the bytes stream in, checked before the
/// file is handed over.
public struct ExpectedDigest: Sendable, Hashable, Codable {
    /// A hash function.
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
        case sha256 = "sha256"
        /// For servers that publish only SHA-1; not collision resistant.
        case sha1 = "sha1"
        /// For servers that publish only MD5; not collision resistant.
        case md5 = "md5"

        /// The digest's length in bytes.
        public var byteCount: Int {
            switch self {
            case .sha256: 32
            case .sha1: 20
            case .md5: 16
            }
        }
    }

    /// The hash function.
    public var algorithm: Algorithm
    /// The digest in lower-case hexadecimal.
    public var hex: String

    /// A digest from hexadecimal text (either case).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when `hex` is not `2 × byteCount` hex digits.
    public init(_ algorithm: Algorithm, hex: String) throws(SandboxError) {
        let lower = hex.lowercased()
        guard Self.isDigest(lower, of: algorithm) else {
            throw SandboxError(
                .invalidArgument,
                "'\(hex)' is not a \(algorithm.rawValue) digest: give \(algorithm.byteCount * 2) hexadecimal digits.")
        }
        self.algorithm = algorithm
        self.hex = lower
    }

    /// Decodes a digest and checks it as ``init(_:hex:)`` does (a synthesized decoder would not).
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `hex` is not `2 × byteCount` hex digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let algorithm = try container.decode(Algorithm.self, forKey: .algorithm)
        let hex = try container.decode(String.self, forKey: .hex)
        do {
            try self.init(algorithm, hex: hex)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .hex, in: container, debugDescription: error.message)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case algorithm, hex
    }

    /// Whether `hex` is `2 × byteCount` ASCII hexadecimal digits (either case).
    static func isDigest(_ hex: String, of algorithm: Algorithm) -> Bool {
        hex.utf8.count == algorithm.byteCount * 2
            && hex.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
            }
    }
}

/// A running hash of one of the ``ExpectedDigest/Algorithm``s.
struct StreamingDigest: Sendable {
    private enum State: Sendable {
        case sha256(SHA256)
        case sha1(Insecure.SHA1)
        case md5(Insecure.MD5)
    }

    private var state: State

    init(_ algorithm: ExpectedDigest.Algorithm) {
        switch algorithm {
        case .sha256: state = .sha256(SHA256())
        case .sha1: state = .sha1(Insecure.SHA1())
        case .md5: state = .md5(Insecure.MD5())
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .sha256(var hash):
            hash.update(bufferPointer: bytes)
            state = .sha256(hash)
        case .sha1(var hash):
            hash.update(bufferPointer: bytes)
            state = .sha1(hash)
        case .md5(var hash):
            hash.update(bufferPointer: bytes)
            state = .md5(hash)
        }
    }

    /// The digest in lower-case hexadecimal.
    func finalizeHex() -> String {
        let bytes: [UInt8] =
            switch state {
            case .sha256(let hash): Array(hash.finalize())
            case .sha1(let hash): Array(hash.finalize())
            case .md5(let hash): Array(hash.finalize())
            }
        return Hex.string(bytes)
    }
}
