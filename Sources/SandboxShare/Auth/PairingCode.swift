/// The secret a person types to connect: printed by `sandbox share`, fresh each time the server
/// starts, used as the password of HTTP Basic.
///
/// Twelve characters from an alphabet without look-alikes (no `0`/`o`, `1`/`l`/`i`), grouped by
/// four for reading aloud: about 59 bits, drawn from the system's cryptographic generator
/// (`getrandom`). With the failure throttle (``FailureThrottle``) that is out of reach of guessing.
package enum PairingCode {
    /// The characters a code is made of.
    static let alphabet = Array("23456789abcdefghjkmnpqrstuvwxyz")

    /// A new random code such as `k7m2-p9qx-3hwf`.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }
}
