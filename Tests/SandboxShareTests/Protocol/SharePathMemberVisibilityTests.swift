import Testing

@testable import SandboxShare

/// ``SharePath/MemberVisibility`` judges a folder once and each member by its name: the same
/// verdict as ``SharePath/isHidden`` of the member's whole path, for folders at and around the
/// layout's directories and names that are, resemble or hide beneath them.
@Suite struct SharePathMemberVisibilityTests {
    static let folders = ["/", "/Inbox/", "/inbox/", "/a/", "/a/Inbox/", "/.hidden/", "/a/.b/c/", "/._x/", "/Library/"]
    static let names = [
        "Inbox", "inbox", "Inbox2", "Inbo", "x", "a", ".x", "._x", ".DS_Store", "Library", "Documents", "Preferences",
        "Caches", "tmp", "Ïnbox", "Inbox\u{301}",
    ]

    @Test func aMemberIsHiddenExactlyWhenItsPathIs() throws {
        for text in Self.folders {
            let folder = try SharePath(requestPath: text)
            let visibility = SharePath.MemberVisibility(folder: folder)
            for name in Self.names {
                let path = folder.appending(name)
                #expect(visibility.hides(name) == path.isHidden, "\(path)")
            }
        }
        #expect(SharePath.MemberVisibility(folder: .root).hides("Inbox"), "the Inbox is hidden")
        #expect(!SharePath.MemberVisibility(folder: .root).hides("x"))
    }
}
