import Foundation
import Testing

@testable import SandboxTransfer

@Suite struct ContentDispositionTests {
    @Test(arguments: [
        ("attachment; filename=\"report.pdf\"", "report.pdf"),
        ("attachment; filename=report.pdf", "report.pdf"),
        ("ATTACHMENT; FILENAME=\"a b.txt\"", "a b.txt"),
        ("attachment; filename*=UTF-8''%e2%82%ac%20rates.txt", "€ rates.txt"),
        ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
        ("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf; filename=\"fallback.txt\"", "résumé.pdf"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates.txt", "£ rates.txt"),
        ("attachment; filename=\"quoted \\\"name\\\".txt\"", "quoted \"name\".txt"),
        ("inline; filename = \"spaced.txt\" ", "spaced.txt"),
        ("attachment; foo=\"bar; baz\"; filename=\"after.txt\"", "after.txt"),
    ])
    func filenames(header: String, expected: String) {
        #expect(ContentDisposition(header)?.filename == expected)
    }

    @Test func badExtendedValueFallsBackToFilename() {
        let parsed = ContentDisposition("attachment; filename*=UTF-8''%ZZbad; filename=\"good.txt\"")
        #expect(parsed?.extendedFilename == nil)
        #expect(parsed?.filename == "good.txt")
        #expect(ContentDisposition("attachment; filename*=KOI8-R''%C1")?.filename == nil)
        #expect(ContentDisposition("attachment; filename*=UTF-8''%FF%FE")?.filename == nil)
    }

    @Test func typeOnly() {
        #expect(ContentDisposition("inline")?.type == "inline")
        #expect(ContentDisposition("inline")?.filename == nil)
        #expect(ContentDisposition("") == nil)
    }

    @Test(arguments: [
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment; filename=\"..\"", "x.bin"),
        ("attachment; filename=\"C:\\\\Windows\\\\evil.exe\"", "evil.exe"),
        ("attachment; filename*=UTF-8''%2e%2e%2fescape.txt", "escape.txt"),
        ("attachment; filename=\"  .hidden. \"", "hidden"),
        ("attachment; filename=\"tab\tand\u{7F}del.txt\"", "tabanddel.txt"),
        ("attachment; filename*=UTF-8''a%00b.txt", "ab.txt"),
    ])
    func suggestedNamesNeverEscape(header: String, expected: String) throws {
        let url = try #require(URL(string: "http://h/dir/x.bin"))
        let name = SuggestedFilename.make(contentDisposition: header, url: url)
        #expect(name == expected)
        #expect(!name.contains("/") && name != "." && name != "..")
    }

    @Test func urlFallbacks() throws {
        #expect(
            SuggestedFilename.make(contentDisposition: nil, url: URL(string: "http://h/a/b%20c.zip?x=1")) == "b c.zip")
        #expect(SuggestedFilename.make(contentDisposition: nil, url: URL(string: "http://h/")) == "download")
        #expect(SuggestedFilename.make(contentDisposition: "inline", url: URL(string: "http://h/%2e%2e")) == "download")
    }

    /// The URL's name is percent-decoded once: `%25` is a literal `%`.
    @Test func urlNamesAreDecodedOnce() {
        #expect(
            SuggestedFilename.make(contentDisposition: nil, url: URL(string: "http://h/foo%2541.html")) == "foo%41.html"
        )
        #expect(SuggestedFilename.make(contentDisposition: nil, url: URL(string: "http://h/100%25.txt")) == "100%.txt")
        #expect(SuggestedFilename.make(contentDisposition: nil, url: URL(string: "http://h/a%252Fb")) == "a%2Fb")
    }

    /// Fuzz `content-disposition/prepended-mark-keeps-slash`, `combining-mark-after-backslash`: a
    /// mark that joins a separator into one Character must not hide it.
    @Test(arguments: [
        ("attachment; filename=\"x\u{600}/passwd\"", "passwd"),
        ("attachment; filename=\"x\\\u{595}passwd\"", "\u{595}passwd"),
        ("attachment; filename=\"a/\u{301}b.txt\"", "\u{301}b.txt"),
    ])
    func marksDoNotHideSeparators(header: String, expected: String) throws {
        let url = try #require(URL(string: "http://h/dir/x.bin"))
        let name = SuggestedFilename.make(contentDisposition: header, url: url)
        #expect(name == expected)
        #expect(!name.utf8.contains(0x2F) && !name.utf8.contains(0x5C))
    }

    /// Fuzz `content-disposition/truncation-leaves-trailing-space`: cutting to 255 bytes must not
    /// leave a name ending in a space or dot, nor must numbering.
    @Test func truncationLeavesNoTrailingSpaceOrDot() throws {
        let spaced = try #require(SuggestedFilename.sanitize(String(repeating: "a", count: 254) + " b"))
        #expect(spaced == String(repeating: "a", count: 254))
        let dotted = try #require(
            SuggestedFilename.sanitize(String(repeating: "a", count: 254) + "." + String(repeating: "b", count: 20)))
        #expect(dotted == String(repeating: "a", count: 254))
        let numbered = SuggestedFilename.numbered(String(repeating: "a", count: 255), 3)
        #expect(numbered.utf8.count <= 255 && numbered.hasSuffix(" (3)"))
    }

    @Test func longNamesKeepTheirExtension() {
        let long = String(repeating: "é", count: 300) + ".tar"
        let name = SuggestedFilename.sanitize(long)
        #expect(name.map { $0.utf8.count <= 255 } == true)
        #expect(name?.hasSuffix(".tar") == true)
        #expect(SuggestedFilename.numbered("a.txt", 2) == "a (2).txt")
        #expect(SuggestedFilename.numbered("noext", 1) == "noext (1)")
    }
}
