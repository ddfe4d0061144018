import Foundation
import SandboxCore
import Testing

/// A subroot opened with `refusingSymlinks` (the sharing server's Documents): a symlink is a name
/// that means another place, so none is followed — not even one that stays inside — while the
/// link itself can still be described, renamed and removed.
@Suite struct SymlinkRefusalTests {
    @Test(arguments: bothResolutions)
    func noSymlinkIsFollowedBeneathARefusingSubroot(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("shared/real/file", "inside\n")
        try tmp.makeFile("shared/Inbox/delivered", "private\n")
        try tmp.makeSymlink("shared/alias", to: "real")
        try tmp.makeSymlink("shared/inbox-alias", to: "Inbox")
        try tmp.makeSymlink("shared/file-link", to: "real/file")
        let shared = try tmp.root(resolution).openSubroot(at: cpath("shared"), refusingSymlinks: true)
        #expect(shared.refusesSymlinks)

        for path in ["alias/file", "inbox-alias/delivered", "file-link"] {
            let error = #expect(throws: SandboxError.self, "\(path) (\(resolution))") {
                try shared.readContents(of: cpath(path))
            }
            #expect(error?.code == .symlinkLoop, "\(path): \(String(describing: error))")
        }
        #expect(throws: SandboxError.self) { try shared.writeContents(Array("x".utf8), to: cpath("alias/new")) }
        #expect(!FileManager.default.fileExists(atPath: tmp.host("shared/real/new")))
        #expect(throws: SandboxError.self) { try shared.openSubroot(at: cpath("alias")) }

        // The link itself: described as a link, renamed, removed; its target untouched.
        #expect(try shared.attributes(at: cpath("file-link"), followingSymlink: false)?.type == .symlink)
        try shared.renameItem(at: cpath("file-link"), to: "renamed-link")
        try shared.removeItem(at: cpath("renamed-link"))
        #expect(tmp.read("shared/real/file") == Array("inside\n".utf8))
        // The same tree through an ordinary subroot still follows the inside link.
        let ordinary = try tmp.root(resolution).openSubroot(at: cpath("shared"))
        #expect(try ordinary.readContents(of: cpath("alias/file")) == Array("inside\n".utf8))
    }
}
