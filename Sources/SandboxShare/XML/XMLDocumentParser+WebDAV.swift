import SandboxCore
import SandboxStore

extension XMLLimits {
    /// The bounds on the XML request bodies this server parses (PROPFIND, PROPPATCH, LOCK): 1 MiB
    /// (a longer body is the caller's 413), 64 levels, 10,000 elements; text is bounded by the
    /// body's size.
    package static let webDAV = XMLLimits(
        maximumBodySize: 1 << 20, maximumDepth: 64, maximumElements: 10_000, maximumTextSize: 1 << 20)
}

extension XMLDocumentParser {
    /// The root element of the request body `body`, held to ``SandboxStore/XMLLimits/webDAV``.
    ///
    /// - Throws: `too-large` for a body over the limit's size;
    ///   ``SandboxCore/SandboxError/Code/malformedRequest`` for one the parser refuses (see
    ///   ``SandboxStore/XMLDocumentParser/parse(_:what:limits:refusal:)``).
    package static func parse(_ body: [UInt8], what: String) throws(SandboxError) -> XMLElementNode {
        try parse(body, what: what, limits: .webDAV, refusal: .malformedRequest)
    }

    /// The `malformed-request` refusal of the `what` body: "The \(what) body \(problem)."
    static func malformed(_ what: String, _ problem: String) -> SandboxError {
        malformed(what, problem, code: .malformedRequest)
    }
}
