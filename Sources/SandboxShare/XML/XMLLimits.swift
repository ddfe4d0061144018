/// The bounds on the XML request bodies this server parses (PROPFIND, PROPPATCH, LOCK).
package enum XMLLimits {
    /// Largest body read, in bytes (1 MiB); a longer one is the caller's 413.
    package static let maximumBodySize = 1 << 20
    /// Deepest element nesting accepted.
    package static let maximumDepth = 64
    /// Most elements accepted in one body.
    package static let maximumElements = 10_000
}
