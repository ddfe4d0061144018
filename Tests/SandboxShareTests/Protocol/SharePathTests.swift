import Sandbox
import Testing

@testable import SandboxShare

@Suite struct SharePathTests {
    @Test(arguments: [
        ("/", [String](), true), ("/a", ["a"], false), ("/a/b/", ["a", "b"], true),
        ("/a%20b/c%2Bd", ["a b", "c+d"], false), ("/%C3%A9t%C3%A9", ["été"], false), ("/été", ["été"], false),
        // Double encoding decodes once: the literal names '%2e' and '%2e%2e', which are legal.
        ("/%252e", ["%2e"], false), ("/%252e%252e/x", ["%2e%2e", "x"], false), ("/...", ["..."], false),
        ("/a.b/.c.", ["a.b", ".c."], false), ("/%7E~", ["~~"], false),
    ])
    func decodesOnceAndSplits(raw: String, names: [String], slash: Bool) throws {
        let path = try SharePath(requestPath: raw)
        #expect(path.names.map { Array($0.utf8) } == names.map { Array($0.utf8) })
        #expect(path.endsWithSlash == slash)
    }

    @Test(arguments: [
        "", "a/b", "..", "http://host/a",  // not an absolute path
        "/..", "/../etc/passwd", "/a/../..", "/a/./b", "/.", "/a/..", "/a/.",  // dot segments
        "/%2e%2e", "/%2E%2E/x", "/%2e", "/.%2e/x", "/%2e./x",  // encoded dot segments
        "/%2e%2e%2f", "/..%2f", "/a%2fb", "/a%2Fb", "/a%5cb", "/a%5C..%5Cb", "/a\\b", "/..\\x",  // separators
        "/a%00b", "/a%00", "/%0a", "/%0D", "/%1f", "/%7f", "/a\u{0}b", "/a\nb", "/a\tb", "/\u{7F}",  // controls
        "//", "/a//b", "//a", "/a///",  // empty names
        "/%", "/%2", "/%zz", "/%2g", "/a%", "/%%32%65",  // malformed escapes
        "/%C0%AE%C0%AE/x", "/%C0%AF", "/%E0%80%AE", "/%C1%9C", "/%ED%A0%80", "/%FF", "/%C3", "/%80",  // bad UTF-8
        "/%F4%90%80%80",  // past U+10FFFF
    ])
    func refusesHostilePaths(raw: String) {
        #expect {
            try SharePath(requestPath: raw)
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }

    @Test func limitsNameAndPathLength() throws {
        let longest = String(repeating: "n", count: 255)
        #expect(try SharePath(requestPath: "/" + longest).names == [longest])
        #expect(throws: SandboxError.self) { try SharePath(requestPath: "/" + longest + "n") }
        // 255 bytes once decoded, 765 as sent: the name limit counts decoded bytes.
        #expect(try SharePath(requestPath: "/" + String(repeating: "%41", count: 255)).names[0].utf8.count == 255)
        let names = Array(repeating: String(repeating: "x", count: 200), count: 20)
        let exact = "/" + names.joined(separator: "/") + "/" + String(repeating: "y", count: 4096 - 4021)
        #expect(exact.utf8.count == 4096)
        #expect(try SharePath(requestPath: exact).names.count == 21)
        #expect(throws: SandboxError.self) { try SharePath(requestPath: exact + "y") }
        #expect(throws: SandboxError.self) { try SharePath(requestPath: String(repeating: "/a", count: 100_000)) }
    }

    @Test func messagesNameTheInputCapped() {
        let raw = "/" + String(repeating: "z", count: 300) + "/%2e%2e"
        do {
            _ = try SharePath(requestPath: raw)
            Issue.record("accepted \(raw)")
        } catch {
            #expect(error.code == .malformedRequest)
            #expect(error.message.contains("zzzz"))
            #expect(error.message.count < 200)
        }
    }

    @Test func hidesTheInboxAndDotNames() throws {
        #expect(try SharePath(requestPath: "/Inbox").isHidden)
        #expect(try SharePath(requestPath: "/Inbox/a.pdf").isHidden)
        #expect(try SharePath(requestPath: "/.DS_Store").isHidden)
        #expect(try SharePath(requestPath: "/a/._b").isHidden)
        #expect(try SharePath(requestPath: "/%2Egit/config").isHidden)
        #expect(try !SharePath(requestPath: "/inbox").isHidden)
        #expect(try !SharePath(requestPath: "/a/Inbox").isHidden)
        #expect(try !SharePath(requestPath: "/Inboxes").isHidden)
        #expect(!SharePath.root.isHidden)
    }

    @Test func navigates() throws {
        let path = try SharePath(requestPath: "/a/b/c")
        #expect(path.parent == (try SharePath(requestPath: "/a/b/")))
        #expect(path.lastName == "c")
        #expect(SharePath.root.parent == .root && SharePath.root.isRoot && SharePath.root.lastName == nil)
        #expect(SharePath.root.appending("x").appending("y") == (try SharePath(requestPath: "/x/y")))
        let a = try SharePath(requestPath: "/a")
        #expect(path.isDescendant(of: .root) && path.isDescendant(of: a))
        #expect(!path.isDescendant(of: path))
        #expect(!(try SharePath(requestPath: "/ab")).isDescendant(of: try SharePath(requestPath: "/a")))
        #expect(path.description == "/a/b/c" && SharePath.root.description == "/")
    }

    @Test func comparesBytesNotCanonicalEquivalence() throws {
        let composed = try SharePath(requestPath: "/%C3%A9")  // é, NFC
        let decomposed = try SharePath(requestPath: "/e%CC%81")  // e + combining acute, NFD
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(!decomposed.isDescendant(of: composed))
        #expect(try SharePath(requestPath: "/a/") == (try SharePath(requestPath: "/a")))
    }

    @Test func mapsToTheContainerPathBeneathDocuments() throws {
        #expect(SharePath.root.containerPath == ContainerPath.root)
        let path = try SharePath(requestPath: "/a%20b/%252e")
        #expect(path.containerPath.names.map(\.bytes) == [Array("a b".utf8), Array("%2e".utf8)])
        let unicode = try SharePath(requestPath: "/caf%C3%A9/%E6%97%A5%E8%A8%98.txt")
        #expect(unicode.containerPath.names.map(\.bytes) == [Array("café".utf8), Array("日記.txt".utf8)])
        #expect(unicode.containerPath.description == "café/日記.txt")
    }

    @Test(arguments: [
        ("/", false, "/"), ("/", true, "/"), ("/a/b", false, "/a/b"), ("/a/b", true, "/a/b/"),
        ("/a%20b", false, "/a%20b"), ("/%25", false, "/%25"), ("/%3F%23", false, "/%3F%23"),
        ("/%C3%A9", false, "/%C3%A9"), ("/!$&'()*+,;=:@-._~", false, "/!$&'()*+,;=:@-._~"),
        ("/a%22%3C%3E%5B%5D%7B%7D%7C%5E%60", false, "/a%22%3C%3E%5B%5D%7B%7D%7C%5E%60"),
    ])
    func hrefsEncodeEachNameAsAPathSegment(raw: String, isCollection: Bool, href: String) throws {
        let path = try SharePath(requestPath: raw)
        #expect(path.href(isCollection: isCollection) == href)
        #expect(try SharePath(requestPath: path.href(isCollection: isCollection)) == path, "round trip")
    }
}
