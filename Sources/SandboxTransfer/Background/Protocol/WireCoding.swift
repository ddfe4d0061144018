import Foundation
import Sandbox

/// JSON for frame bodies: unknown fields ignored (Codable's default), failures as
/// ``SandboxCore/SandboxError/Code/protocolViolation`` naming what could not be read. Keys are sorted, so a
/// message has one encoding (JSONEncoder's own order varies from one encoding to the next).
package enum WireCoding {
    /// One encoder for every message: its options are set once, and encoding with it is
    /// thread-safe (a new encoder per message was ~2 % of sandboxd's time with 1,000 small tasks).
    private static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static let decoder = JSONDecoder()

    package static func encode(_ value: some Encodable) throws(SandboxError) -> [UInt8] {
        do {
            return try FrameEncoder.frame(Array(encoder.encode(value)))
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .protocolViolation, "A message could not be encoded: \(error).", underlying: .wrapping(error))
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(SandboxError) -> T {
        do {
            return try decoder.decode(type, from: Data(body))
        } catch {
            throw SandboxError(
                .protocolViolation, "A \(body.count)-byte message is not a valid \(T.self) (JSON): \(error).",
                underlying: .wrapping(error))
        }
    }

    /// The binding a `bind` frame carries, or `nil` when the frame is not a `bind`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolViolation`` when the frame is not JSON, or is a `bind`
    ///   without a binding.
    package static func binding(_ body: [UInt8]) throws(SandboxError) -> AppBinding? {
        struct Probe: Decodable {
            var type: String?
            var binding: AppBinding?
        }
        let probe = try decode(Probe.self, from: body)
        guard probe.type == ClientMessage.Kind.bind.rawValue else { return nil }
        guard let binding = probe.binding else {
            throw SandboxError(.protocolViolation, "A bind message carries no 'binding' object.")
        }
        return binding
    }

    /// The `protocolVersion` of a hello, read before anything else in it so a hello of another
    /// version gets a clear answer whatever its other fields are.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolVersion`` when the message is not a hello of
    ///   ``BackgroundProtocol/version``; ``SandboxCore/SandboxError/Code/protocolViolation`` when it is not JSON.
    package static func checkHelloVersion(_ body: [UInt8]) throws(SandboxError) {
        struct Probe: Decodable {
            var type: String?
            var protocolVersion: Int?
        }
        let probe = try decode(Probe.self, from: body)
        guard probe.type == ClientMessage.Kind.hello.rawValue else {
            throw SandboxError(
                .protocolViolation, "The first message must be a hello, not '\(probe.type ?? "(no type)")'.")
        }
        guard let version = probe.protocolVersion else {
            throw SandboxError(
                .protocolVersion,
                "The hello names no protocolVersion; this sandboxd speaks \(BackgroundProtocol.version).")
        }
        guard version == BackgroundProtocol.version else {
            let remedy =
                version > BackgroundProtocol.version
                ? "update sandboxd (stop the running one: it is older than the app's library)"
                : "rebuild the app with this version of the library"
            throw SandboxError(
                .protocolVersion,
                "The client speaks protocol version \(version), this sandboxd speaks \(BackgroundProtocol.version): \(remedy)."
            )
        }
    }
}
