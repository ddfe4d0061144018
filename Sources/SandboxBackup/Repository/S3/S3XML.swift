import Foundation
import SandboxCore
import SandboxStore

/// The few values read from S3's XML answers (ListObjectsV2, InitiateMultipartUpload,
/// ListMultipartUploads, errors), parsed by the package's one XML reader
/// (``SandboxStore/XMLDocumentParser``): a key is what the server meant whatever it holds
/// (escaped markup, CDATA, character references), a comment or an attribute is never taken for
/// an element, and an answer that is not well-formed, or past the bounds, is an error rather than
/// a shorter list.
enum S3XML {
    /// The namespaces an S3 element may be in: S3's own, or none (error bodies, some servers).
    static let namespaces: Set<String> = ["http://s3.amazonaws.com/doc/2006-03-01/", ""]

    /// The bounds on an answer: a ListObjectsV2 page of 1,000 keys of up to 1,024 bytes each is
    /// well under them.
    static let limits = XMLLimits(
        maximumBodySize: 16 << 20, maximumDepth: 16, maximumElements: 100_000, maximumTextSize: 64 << 10)

    /// The text of every element `name` (in S3's namespace or none) in the answer `xml`, at any
    /// depth, in document order, entity and character references and CDATA sections replaced.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/io`` for an answer that is not well-formed XML,
    ///   holds a DTD, breaks a bound of ``limits``, or has an element `name` holding elements;
    ///   `too-large` for an answer over ``limits``' size.
    static func values(of name: String, in xml: String) throws(SandboxError) -> [String] {
        let root = try XMLDocumentParser.parse(Array(xml.utf8), what: "S3 answer", limits: limits, refusal: .io)
        var result: [String] = []
        var pending = [root]  // depth first, in document order: the next element last
        while let element = pending.popLast() {
            if element.name == name, namespaces.contains(element.namespace) {
                guard element.children.isEmpty else {
                    throw XMLDocumentParser.malformed(
                        "S3 answer", "has an element '\(name)' holding elements", code: .io)
                }
                result.append(element.text)
            } else {
                pending += element.children.reversed()
            }
        }
        return result
    }

    /// The text of the first element `name` in `xml` (see ``values(of:in:)``).
    ///
    /// - Throws: as ``values(of:in:)``.
    static func value(of name: String, in xml: String) throws(SandboxError) -> String? {
        try values(of: name, in: xml).first
    }

    /// The field `name` (`Code`, `Message`) of an error answer; `nil` when there is none, or when
    /// the body is not S3's XML at all (a proxy's HTML page, an empty body): the answer's status
    /// then tells what failed.
    static func errorField(_ name: String, in xml: String) -> String? {
        do throws(SandboxError) {
            return try value(of: name, in: xml)
        } catch {
            return nil
        }
    }

    /// `text` escaped for a request body.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
