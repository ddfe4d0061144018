import Foundation
import FoundationXML
import SandboxCore

/// The one reader of XML from outside (the share's WebDAV request bodies, an S3 server's answers):
/// parses a document into an ``XMLElementNode`` tree, safely: no DTD (so no external entity and no
/// entity expansion), UTF-8 only, bounded by ``XMLLimits`` (size, depth, element count, text),
/// namespaces required to be well-formed. Entity and character references and CDATA sections are
/// replaced by the parser (libxml2, through FoundationXML).
///
/// The property-list reader (`XMLPropertyListReader`) is not built on it: see the comment at its
/// top.
package enum XMLDocumentParser {
    /// The root element of `body`.
    ///
    /// - Parameters:
    ///   - what: names the document in messages ("The \(what) body …").
    ///   - limits: the bounds the document is held to.
    ///   - refusal: the code of the error for a document refused.
    /// - Throws: `too-large` for a body over ``XMLLimits/maximumBodySize``; `refusal` for a body
    ///   that is empty, not UTF-8 (or declares another encoding), holds a `<!DOCTYPE` or
    ///   `<!ENTITY` anywhere, nests over ``XMLLimits/maximumDepth`` elements, holds over
    ///   ``XMLLimits/maximumElements`` or a run of text over ``XMLLimits/maximumTextSize`` bytes,
    ///   binds a prefix to the empty namespace or uses an undeclared prefix, or is not well-formed.
    package static func parse(
        _ body: [UInt8], what: String, limits: XMLLimits, refusal: SandboxError.Code
    ) throws(SandboxError) -> XMLElementNode {
        guard body.count <= limits.maximumBodySize else {
            throw SandboxError(
                .tooLarge, "The \(what) body is over \(limits.maximumBodySize) bytes; send a smaller one.")
        }
        try checkPreamble(body, what: what, refusal: refusal)
        let builder = XMLTreeBuilder(limits: limits)
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let problem = builder.problem {
            throw malformed(what, problem, code: refusal)
        }
        guard parsed, let root = builder.root else {
            let code = (parser.parserError as? NSError)?.code ?? 0
            throw malformed(what, "is not well-formed XML (parser error \(code))", code: refusal)
        }
        return root
    }

    /// Refuses, before parsing, what the parser must never see: an empty body, a byte sequence
    /// that is not UTF-8 (which also refuses UTF-16 and UTF-32, whose ASCII characters hold
    /// NUL bytes, so that a DTD cannot hide from the check below), a declared encoding other than
    /// UTF-8, and any DTD or entity declaration.
    private static func checkPreamble(
        _ body: [UInt8], what: String, refusal: SandboxError.Code
    ) throws(SandboxError) {
        guard let text = String(validating: body, as: UTF8.self), !text.utf8.contains(0) else {
            throw malformed(what, "is not UTF-8 text; send it encoded as UTF-8", code: refusal)
        }
        guard text.contains(where: { !$0.isWhitespace }) else { throw malformed(what, "is empty", code: refusal) }
        let lowered = text.lowercased().drop { $0 == "\u{FEFF}" }  // a byte-order mark may precede the declaration
        guard !lowered.contains("<!doctype"), !lowered.contains("<!entity") else {
            throw malformed(what, "holds a document type or entity declaration, which is refused", code: refusal)
        }
        // A processing instruction without data (`<?x?>`) crashes FoundationXML (it takes the
        // length of a null string); none is needed, so none is let through but the declaration.
        var afterDeclaration = lowered[...]
        if lowered.hasPrefix("<?xml"), lowered.dropFirst(5).first?.isWhitespace == true,
            let end = lowered.range(of: "?>")
        {
            afterDeclaration = lowered[end.upperBound...]
        }
        guard !afterDeclaration.contains("<?") else {
            throw malformed(what, "holds a processing instruction, which is refused", code: refusal)
        }
        if lowered.hasPrefix("<?xml"), let end = lowered.range(of: "?>") {
            let declaration = lowered[..<end.lowerBound]
            if let encoding = declaration.range(of: "encoding") {
                let value = declaration[encoding.upperBound...].drop { " \t\r\n=\"'".contains($0) }
                    .prefix { !" \t\r\n\"'".contains($0) }
                guard value == "utf-8" || value == "utf8" || value == "us-ascii" else {
                    throw malformed(
                        what, "declares the encoding '\(value.prefix(32))'; send it encoded as UTF-8", code: refusal)
                }
            }
        }
    }

    /// The refusal of the document `what`: "The \(what) body \(problem)."
    package static func malformed(_ what: String, _ problem: String, code: SandboxError.Code) -> SandboxError {
        SandboxError(code, "The \(what) body \(problem).")
    }
}
