/// The `Timeout` header of LOCK (RFC 4918 §10.7).
package enum LockTimeout {
    /// The longest timeout RFC 4918 allows a client to ask for, in seconds (2³² − 1).
    package static let maximumSeconds = 4_294_967_295

    /// The timeout a client asks for, in seconds: the first entry of the comma-separated list this
    /// server understands (`Second-N`, `Infinite`, any case). `nil` means "the server's maximum":
    /// for `Infinite`, a missing header, or a list of which no entry is understood (RFC 4918
    /// says to ignore what it cannot use). `N` past ``maximumSeconds`` is clamped to it; the
    /// caller clamps to its own maximum. Never throws.
    package static func parse(_ value: String?) -> Int? {
        guard let value else { return nil }
        for entry in value.split(separator: ",") {
            let text = String(entry).trimmingSpaces.lowercased()
            if text == "infinite" { return nil }
            guard text.hasPrefix("second-") else { continue }
            let digits = text.dropFirst("second-".count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
            let significant = digits.drop { $0 == "0" }
            guard significant.count <= 10, let seconds = Int(significant.isEmpty ? "0" : significant) else {
                return maximumSeconds
            }
            return min(seconds, maximumSeconds)
        }
        return nil
    }
}
