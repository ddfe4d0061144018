import SandboxCore
import SandboxStore
import Testing

@testable import SandboxBackup

/// What a hostile or broken S3 server can answer, read without a server: each answer either reads
/// as the server meant it or is a precise error — never a crash, a key the server did not list,
/// or a shorter list.
struct S3XMLTests {
    static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

    static func listing(_ contents: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="\(namespace)"><Name>bucket</Name><Prefix>p/</Prefix>\
        <KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>\
        <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>\
        \(contents)</ListBucketResult>
        """
    }

    static func refusal(_ xml: String) -> SandboxError? {
        do throws(SandboxError) {
            _ = try S3XML.values(of: "Key", in: xml)
            return nil
        } catch {
            return error
        }
    }

    @Test func aListingReadsItsKeysAndToken() throws {
        let xml = Self.listing("<Contents><Key>p/a</Key><Size>1</Size></Contents><Contents><Key>p/b</Key></Contents>")
        #expect(try S3XML.values(of: "Key", in: xml) == ["p/a", "p/b"])
        #expect(try S3XML.value(of: "IsTruncated", in: xml) == "true")
        #expect(
            try S3XML.value(of: "NextContinuationToken", in: xml) == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
    }

    /// A key holding markup, escaped or in a CDATA section, is that key: the substring scanner
    /// cut the CDATA one at its `</Key>`.
    @Test func aKeyHoldingMarkupIsThatKey() throws {
        let escaped = Self.listing("<Contents><Key>p/a&lt;/Key&gt;&lt;Key&gt;b</Key></Contents>")
        #expect(try S3XML.values(of: "Key", in: escaped) == ["p/a</Key><Key>b"])
        let cdata = Self.listing("<Contents><Key><![CDATA[p/a</Key><Key>b]]></Key></Contents>")
        #expect(try S3XML.values(of: "Key", in: cdata) == ["p/a</Key><Key>b"])
    }

    /// The parser replaces every reference (decimal, hexadecimal, the five entities); one it
    /// cannot (an undeclared entity, a surrogate, NUL) refuses the answer: the scanner kept them
    /// as text, a key that does not exist.
    @Test func referencesAreReplacedByTheParser() throws {
        let xml = Self.listing("<Contents><Key>p/&#x41;&#66;&amp;&lt;&gt;&quot;&apos;&#x1F600;</Key></Contents>")
        #expect(try S3XML.values(of: "Key", in: xml) == ["p/AB&<>\"'\u{1F600}"])
        for bad in ["&nbsp;", "&#xD800;", "&#0;", "&#x110000;", "&amp"] {
            let error = Self.refusal(Self.listing("<Contents><Key>p/\(bad)</Key></Contents>"))
            #expect(error?.code == .io, "\(bad)")
        }
    }

    /// A comment is not an element: the scanner read the key inside one.
    @Test func aCommentHoldsNoKey() throws {
        let xml = Self.listing("<!-- <Key>p/evil</Key> --><Contents><Key>p/real</Key></Contents>")
        #expect(try S3XML.values(of: "Key", in: xml) == ["p/real"])
    }

    /// Attributes, a prefix bound to S3's namespace and a foreign namespace: the scanner missed
    /// the first two keys and took the third.
    @Test func namespacesAndAttributesAreRead() throws {
        let xml = Self.listing(
            """
            <Contents><Key note="&lt;Key&gt;x&lt;/Key&gt;">p/a</Key></Contents>\
            <s3:Contents xmlns:s3="\(Self.namespace)"><s3:Key>p/b</s3:Key></s3:Contents>\
            <x:Key xmlns:x="urn:elsewhere">p/foreign</x:Key>
            """)
        #expect(try S3XML.values(of: "Key", in: xml) == ["p/a", "p/b"])
    }

    /// A DTD is refused before parsing, so no entity is ever expanded (a billion laughs) or
    /// fetched (an external entity).
    @Test func aDocumentTypeIsRefused() {
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\
            <ListBucketResult><Contents><Key>&b;</Key></Contents></ListBucketResult>
            """
        let external = """
            <?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\
            <ListBucketResult><Contents><Key>&x;</Key></Contents></ListBucketResult>
            """
        for xml in [laughs, external] {
            let error = Self.refusal(xml)
            #expect(error?.code == .io)
            #expect(error?.message.contains("document type") == true)
        }
    }

    /// Past a bound (depth, elements, text, size) the answer is refused, not read in part.
    @Test func boundsAreErrors() {
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(Self.refusal(Self.listing(deep))?.message.contains("nests elements over 16 deep") == true)
        let many = String(repeating: "<Contents><Key>k</Key></Contents>", count: 60_000)
        #expect(Self.refusal(Self.listing(many))?.message.contains("holds over 100000 elements") == true)
        let long = Self.listing("<Contents><Key>" + String(repeating: "k", count: 65_537) + "</Key></Contents>")
        #expect(Self.refusal(long)?.message.contains("run of text over 65536 bytes") == true)
        let huge = Self.listing(String(repeating: " ", count: 16 << 20))
        #expect(Self.refusal(huge)?.code == .tooLarge)
    }

    /// A cut or broken answer is an error: the scanner returned the keys before the cut, a
    /// shorter list.
    @Test func aBrokenAnswerIsAnError() {
        let full = Self.listing("<Contents><Key>p/a</Key></Contents><Contents><Key>p/b</Key></Contents>")
        for cut in [full.count / 2, full.count - 30, full.count - 1] {
            #expect(Self.refusal(String(full.prefix(cut)))?.code == .io, "cut at \(cut)")
        }
        for broken in [
            "", "<html><body>502 Bad Gateway</body>", "<a></b>",
            Self.listing("<Contents><Key>p/a<b/></Key></Contents>"),
            Self.listing("<u:Key>p/a</u:Key>"), "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>", "<?x?><a/>",
            "<?xml version=\"1.0\"?><a><?xmCollect?></a>", "<?xmlx?><a/>",
        ] {
            #expect(Self.refusal(broken)?.code == .io, "\(broken.prefix(80))")
        }
    }

    /// An error answer's fields, and none from a body that is not XML.
    @Test func errorFields() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The key &lt;k&gt; does not exist.</Message></Error>
            """
        #expect(S3XML.errorField("Code", in: xml) == "NoSuchKey")
        #expect(S3XML.errorField("Message", in: xml) == "The key <k> does not exist.")
        #expect(S3XML.errorField("Code", in: "<html>Bad Gateway") == nil)
        #expect(S3XML.errorField("Code", in: "") == nil)
    }
}
