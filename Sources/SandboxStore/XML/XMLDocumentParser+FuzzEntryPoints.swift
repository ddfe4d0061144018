import SandboxCore

/// Entry points for the fuzz targets (`Fuzz/`, FUZZING.md) into the store's parsers that have no
/// public entry of their own. Each only calls the parser the package itself uses; not for apps.
@_spi(Fuzzing) public enum SandboxStoreFuzzEntryPoints {
    /// The shape of a document ``XMLDocumentParser`` read, for checking its bounds.
    public struct XMLShape: Sendable, Equatable {
        /// Elements, the root included.
        public var elements: Int
        /// Deepest nesting (the root alone is 1).
        public var depth: Int
        /// Longest run of text, in UTF-8 bytes.
        public var longestText: Int
    }

    /// Reads `bytes` as the package reads outside XML (a WebDAV request body, an S3 answer), held
    /// to the given bounds.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with `too-large` or
    ///   ``SandboxCore/SandboxError/Code/corrupt`` (the code asked for the refusals here).
    public static func xmlShape(
        _ bytes: [UInt8], maximumBodySize: Int, maximumDepth: Int, maximumElements: Int, maximumTextSize: Int
    ) throws(SandboxError) -> XMLShape {
        let limits = XMLLimits(
            maximumBodySize: maximumBodySize, maximumDepth: maximumDepth, maximumElements: maximumElements,
            maximumTextSize: maximumTextSize)
        let root = try XMLDocumentParser.parse(bytes, what: "fuzzed", limits: limits, refusal: .corrupt)
        var shape = XMLShape(elements: 0, depth: 0, longestText: 0)
        var pending = [(root, 1)]
        while let (element, depth) = pending.popLast() {
            shape.elements += 1
            shape.depth = max(shape.depth, depth)
            for item in element.content {
                switch item {
                case .text(let text): shape.longestText = max(shape.longestText, text.utf8.count)
                case .element(let child): pending.append((child, depth + 1))
                }
            }
        }
        return shape
    }
}
