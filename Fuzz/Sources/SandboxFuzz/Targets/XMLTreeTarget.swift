import Foundation
@_spi(Fuzzing) import SandboxStore

extension FuzzTarget {
    /// The package's one reader of outside XML (`XMLDocumentParser`: the share's WebDAV request
    /// bodies, an S3 server's answers), held to small bounds so that inputs reach them.
    ///
    /// The first byte picks the bounds (depth 1–16, elements 1–64, text 0–… bytes); the rest is the
    /// document. Refusals are `too-large` or `corrupt`; a document read keeps every bound, and
    /// reads the same again. libxml2 itself is not instrumented: coverage is that of the tree
    /// builder and the checks around it.
    static let xmlTree = FuzzTarget(
        name: "xml-tree",
        run: { input in
            guard let first = input.first else { return }
            let bytes = Array(input.dropFirst())
            let depth = Int(first & 0x0F) + 1
            let elements = Int(first >> 4) * 4 + 4
            let text = Int(first) * 3
            let size = 4096
            let read = { () throws(SandboxError) -> SandboxStoreFuzzEntryPoints.XMLShape in
                try SandboxStoreFuzzEntryPoints.xmlShape(
                    bytes, maximumBodySize: size, maximumDepth: depth, maximumElements: elements,
                    maximumTextSize: text)
            }
            let shape: SandboxStoreFuzzEntryPoints.XMLShape
            do throws(SandboxError) {
                shape = try read()
            } catch {
                expectRefusal(
                    code: error.code.description, among: ["too-large", "corrupt"], message: error.message,
                    for: "the XML reader")
                invariant(
                    error.code != .tooLarge || bytes.count > size, "the XML reader refuses a body within its size")
                return
            }
            invariant(bytes.count <= size, "the XML reader read a body over its size")
            invariant(shape.depth <= depth, "the XML reader read elements nested past its bound")
            invariant(shape.elements <= elements, "the XML reader read more elements than its bound")
            invariant(shape.longestText <= text, "the XML reader read a run of text past its bound")
            do throws(SandboxError) {
                let again = try read()
                invariant(again == shape, "the XML reader reads the same bytes differently")
            } catch {
                invariant(false, "the XML reader refuses bytes it read before: \(error.message)")
            }
        },
        seeds: {
            [
                "propfind": [0xFF]
                    + Array(
                        "<?xml version=\"1.0\" encoding=\"utf-8\"?><D:propfind xmlns:D=\"DAV:\"><D:prop><D:getetag/></D:prop></D:propfind>"
                            .utf8),
                "s3-listing": [0x7F]
                    + Array(
                        "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Contents><Key>a&amp;&#x42;<![CDATA[</Key>]]></Key></Contents></ListBucketResult>"
                            .utf8),
                "doctype": [0xFF] + Array("<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>".utf8),
            ]
        })
}
