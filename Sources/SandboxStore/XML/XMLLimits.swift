/// The bounds ``XMLDocumentParser`` holds a document to; each reader of outside XML picks its own
/// (the share's WebDAV request bodies, the answers of an S3 server).
package struct XMLLimits: Sendable, Equatable {
    /// Largest document read, in bytes; a longer one is refused before parsing (`too-large`).
    package var maximumBodySize: Int
    /// Deepest element nesting accepted.
    package var maximumDepth: Int
    /// Most elements accepted in one document.
    package var maximumElements: Int
    /// Longest run of character data accepted between two tags, in UTF-8 bytes after entities
    /// and CDATA sections are replaced.
    package var maximumTextSize: Int

    package init(maximumBodySize: Int, maximumDepth: Int, maximumElements: Int, maximumTextSize: Int) {
        self.maximumBodySize = maximumBodySize
        self.maximumDepth = maximumDepth
        self.maximumElements = maximumElements
        self.maximumTextSize = maximumTextSize
    }
}
