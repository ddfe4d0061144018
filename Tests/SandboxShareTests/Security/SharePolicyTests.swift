import Foundation
import Glibc
import Sandbox
import Testing

/// The share asks the container's policy (``ContainerPolicy/fileSharing``) what it may list, read
/// and write, through the real server. Where the app's policy and file sharing's disagree — the
/// Inbox, which the app may read and delete — the stricter holds: the share neither shows nor
/// touches it.
@Suite struct SharePolicyTests {
    /// A request, the operation the policy judges it as, and the item in the container it names.
    static let requests: [(method: String, target: String, action: DirectoryPolicy.Action, item: String)] = [
        ("GET", "/a.txt", .read, "Documents/a.txt"),
        ("PUT", "/new.txt", .create, "Documents/new.txt"),
        ("PROPPATCH", "/a.txt", .modify, "Documents/a.txt"),
        ("MKCOL", "/Album", .create, "Documents/Album"),
        ("DELETE", "/b.txt", .delete, "Documents/b.txt"),
        ("GET", "/Inbox/mail.eml", .read, "Documents/Inbox/mail.eml"),
        ("PROPFIND", "/Inbox/", .read, "Documents/Inbox"),
        ("PUT", "/Inbox/new.txt", .create, "Documents/Inbox/new.txt"),
        ("PROPPATCH", "/Inbox/mail.eml", .modify, "Documents/Inbox/mail.eml"),
        ("MKCOL", "/Inbox/sub", .create, "Documents/Inbox/sub"),
        ("DELETE", "/Inbox/mail.eml", .delete, "Documents/Inbox/mail.eml"),
        ("DELETE", "/Inbox", .delete, "Documents/Inbox"),
    ]

    @Test func everyRequestIsAnsweredAsTheFileSharingPolicySays() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("a.txt", "a")
            try server.plant("b.txt", "b")
            try server.plant("Inbox/mail.eml", "delivered")
            let proppatch = """
                <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example"><D:set><D:prop>\
                <Z:color>blue</Z:color></D:prop></D:set></D:propertyupdate>
                """
            for request in Self.requests {
                let item = try ContainerPath(request.item)
                let allowed = ContainerPolicy.fileSharing.allows(request.action, at: item)
                let body: [UInt8] =
                    request.method == "PUT"
                    ? Array("written".utf8)
                    : request.method == "PROPPATCH" ? Array(proppatch.utf8) : []
                let response = try await server.send(
                    request.method, request.target, headers: [("Depth", "0")], body: body)
                if allowed {
                    #expect((200..<300).contains(response.status), "\(request.method) \(request.target): \(response)")
                } else {
                    #expect(response.status == 404, "\(request.method) \(request.target): \(response)")
                }
                if request.item.hasPrefix("Documents/Inbox") {
                    // The app may read and delete there; file sharing is the stricter of the two.
                    #expect(!allowed, "file sharing may \(request.action) \(request.item)")
                    let app = ContainerPolicy.app.allows(request.action, at: item)
                    #expect(app == (request.action == .read || request.action == .delete), "app \(request.action)")
                }
            }
            #expect(server.contents("Inbox/mail.eml") == "delivered", "the Inbox untouched")
            #expect(server.contents("Inbox/new.txt") == nil)
            #expect(!FileManager.default.fileExists(atPath: server.documents("Inbox/sub")))
            #expect(server.contents("new.txt") == "written" && server.contents("b.txt") == nil)
        }
    }

    /// A link the app planted in Documents that leads into the Inbox is judged where it leads:
    /// nothing of the Inbox is listed, read or written through it.
    @Test func aLinkIntoTheInboxLeadsNowhere() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("Inbox/mail.eml", "delivered")
            try server.plant("a.txt", "a")
            #expect(symlink("Inbox", server.documents("box")) == 0)
            #expect(symlink("Inbox/mail.eml", server.documents("mail-link.eml")) == 0)
            let home = try homeTree(server)
            for target in ["/box/mail.eml", "/box/", "/mail-link.eml"] {
                for method in ["GET", "HEAD", "PROPFIND"] {
                    let response = try await server.send(method, target, headers: [("Depth", "1")])
                    #expect([403, 404].contains(response.status), "\(method) \(target): \(response)")
                    #expect(!response.text.contains("delivered"), "\(method) \(target): \(response)")
                    if target == "/box/" { #expect(!response.text.contains("mail.eml"), "\(response)") }
                }
            }
            for target in ["/box/new.txt", "/box/mail.eml", "/mail-link.eml"] {
                for method in ["PUT", "PROPPATCH", "LOCK"] {
                    let response = try await server.send(method, target, body: method == "PUT" ? [1] : [])
                    #expect((400..<500).contains(response.status), "\(method) \(target): \(response)")
                }
            }
            let moveIn = try await server.send("MOVE", "/a.txt", headers: [("Destination", server.url("/box/a.txt"))])
            #expect((400..<500).contains(moveIn.status), "MOVE into the Inbox through a link: \(moveIn)")
            let moveOut = try await server.send(
                "MOVE", "/box/mail.eml", headers: [("Destination", server.url("/taken.eml"))])
            #expect((400..<500).contains(moveOut.status), "MOVE out of the Inbox through a link: \(moveOut)")
            #expect(try homeTree(server) == home, "nothing changed through a link")
            #expect(server.contents("Inbox/mail.eml") == "delivered")
            let listing = try await server.send("PROPFIND", "/", headers: [("Depth", "1")])
            #expect(listing.status == 207, "PROPFIND /: \(listing)")
            #expect(!listing.text.contains("mail.eml") && !listing.text.contains("box"), "\(listing.text.prefix(2000))")
        }
    }
}
