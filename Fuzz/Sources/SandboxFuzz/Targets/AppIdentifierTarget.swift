import Foundation
import Sandbox

extension FuzzTarget {
    /// `AppIdentifier(_:)`, directly and through `Codable` (identifiers are read back from JSON).
    ///
    /// A valid identifier is kept as written, is one safe, non-hidden directory name, and
    /// round-trips through JSON; whatever JSON decodes has passed the same validation.
    static let appIdentifier = FuzzTarget(name: "app-identifier") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        let identifier: AppIdentifier
        do throws(SandboxError) {
            identifier = try AppIdentifier(text)
        } catch {
            expectRefusal(
                code: error.code.rawValue, among: ["invalid-app-identifier"], message: error.message,
                for: "AppIdentifier(\(text.debugDescription))")
            checkDecoded(bytes)
            return
        }
        invariant(
            identifier.rawValue == text,
            "AppIdentifier changed \(text.debugDescription) to \(identifier.rawValue.debugDescription)")
        invariant(!text.hasPrefix("."), "the hidden name \(text.debugDescription) is a valid app identifier")
        do {
            let asPath = try ContainerPath(text)
            invariant(
                asPath.components == [text],
                "the app identifier \(text.debugDescription) is not one directory name: \(asPath.components)")
        } catch {
            invariant(false, "the app identifier \(text.debugDescription) is not a valid path: \(error)")
        }
        do {
            let decoded = try JSONDecoder().decode([AppIdentifier].self, from: JSONEncoder().encode([identifier]))
            invariant(decoded == [identifier], "\(text.debugDescription) does not round-trip through JSON")
        } catch {
            invariant(false, "the app identifier \(text.debugDescription) does not round-trip through JSON: \(error)")
        }
    }

    /// Identifiers decoded from JSON are valid ones.
    private static func checkDecoded(_ bytes: [UInt8]) {
        let decoded: [AppIdentifier]
        do {
            decoded = try JSONDecoder().decode([AppIdentifier].self, from: Data(bytes))
        } catch {
            return  // not a JSON array of valid identifiers: the common case, and a correct refusal
        }
        for identifier in decoded {
            do {
                invariant(
                    try AppIdentifier(identifier.rawValue) == identifier,
                    "JSON decoded \(identifier.rawValue.debugDescription) differently")
            } catch {
                invariant(false, "JSON decoded the invalid app identifier \(identifier.rawValue.debugDescription)")
            }
        }
    }
}
