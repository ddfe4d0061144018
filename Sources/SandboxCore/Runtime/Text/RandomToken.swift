/// The random part of a name this package makes up — a temporary file, a staging folder, a
/// scratch database: 64 random bits in lowercase base 36 (at most 13 characters of `0-9a-z`), so a
/// name stays short, is safe in any file system, and cannot be guessed by an app that plants files.
package enum RandomToken {
    /// A fresh token, e.g. `3w5e11264sgsf`.
    package static func make() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
