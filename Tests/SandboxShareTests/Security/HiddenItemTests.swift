import Foundation
import Glibc
import Testing

/// The Inbox, dot-files and symbolic links inside Documents are not the client's to see or touch.
@Suite struct HiddenItemTests {
    static let methods = [
        "GET", "HEAD", "PUT", "DELETE", "MKCOL", "COPY", "MOVE", "PROPFIND", "PROPPATCH", "LOCK", "UNLOCK", "OPTIONS",
    ]

    @Test func theInboxAndDotFilesAre404ForEveryMethodAndNeverListed() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("Inbox/delivered.txt", "delivered")
            try server.plant(".hidden", "hidden")
            try server.plant(".dir/inside.txt", "hidden inside")
            try server.plant("visible/.nested", "hidden nested")
            let home = try homeTree(server)
            let targets = [
                "/Inbox", "/Inbox/", "/Inbox/delivered.txt", "/.hidden", "/.dir/inside.txt", "/visible/.nested",
                "/.new", "/Inbox/new.txt", "/visible/.new",
            ]
            for target in targets {
                for method in Self.methods {
                    let body = method == "PUT" ? Array("written".utf8) : []
                    let response = try await server.send(
                        method, target, headers: [("Destination", server.url("/copied.txt")), ("Depth", "0")],
                        body: body)
                    #expect(response.status == 404, "\(method) \(target): \(response)")
                }
            }
            #expect(try homeTree(server) == home, "nothing hidden created, changed or removed")
            let listing = try await server.send("PROPFIND", "/", headers: [("Depth", "infinity")])
            let shallow = try await server.send("PROPFIND", "/visible/", headers: [("Depth", "1")])
            for response in [listing, shallow] {
                #expect([207, 403].contains(response.status), "PROPFIND: \(response)")
                for name in ["Inbox", "delivered.txt", ".hidden", ".dir", "inside.txt", ".nested"] {
                    #expect(!response.text.contains(name), "PROPFIND lists \(name): \(response.text.prefix(2000))")
                }
            }
            let depthOne = try await server.send("PROPFIND", "/", headers: [("Depth", "1")])
            #expect(depthOne.status == 207 && depthOne.text.contains("visible"), "PROPFIND Depth 1: \(depthOne)")
            #expect(!depthOne.text.contains("Inbox") && !depthOne.text.contains(".hidden"))
        }
    }

    @Test func symbolicLinksToOutsideAreNotFollowed() async throws {
        try await ShareServerProcess.with { server in
            let container = URL(fileURLWithPath: server.documents).deletingLastPathComponent().path
            let outside = container + "/Library/outside.txt"
            let secret = "outside-\(UUID().uuidString)"
            try Data(secret.utf8).write(to: URL(fileURLWithPath: outside))
            symlink(outside, server.documents("link.txt"))
            symlink("/etc/hostname", server.documents("hostname"))
            symlink(container + "/Library", server.documents("library"))
            symlink("/etc", server.documents("etc"))
            let home = try homeTree(server)
            for target in ["/link.txt", "/hostname", "/library/outside.txt", "/etc/passwd", "/library/", "/etc/"] {
                for method in ["GET", "HEAD", "PROPFIND"] {
                    let response = try await server.send(method, target, headers: [("Depth", "1")])
                    #expect([403, 404].contains(response.status), "\(method) \(target): \(response)")
                    #expect(!response.text.contains(secret) && !response.text.contains("root:x:0:0"))
                }
            }
            for target in ["/link.txt", "/library/outside.txt", "/library/new.txt", "/etc/new.txt"] {
                for method in ["PUT", "DELETE", "PROPPATCH", "LOCK", "MKCOL"] {
                    let body = method == "PUT" ? Array("written through".utf8) : []
                    let response = try await server.send(method, target, body: body)
                    #expect((400..<500).contains(response.status), "\(method) \(target): \(response)")
                }
            }
            for (method, target) in [("COPY", "/link.txt"), ("MOVE", "/library")] {
                let response = try await server.send(method, target, headers: [("Destination", server.url("/taken"))])
                #expect([403, 404].contains(response.status), "\(method) \(target): \(response)")
            }
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == secret)
            #expect(try homeTree(server) == home, "nothing written through a link")
            #expect(!FileManager.default.fileExists(atPath: "/etc/new.txt"))
            let listing = try await server.send("PROPFIND", "/", headers: [("Depth", "1")])
            #expect(listing.status == 207, "PROPFIND /: \(listing)")
            for name in ["link.txt", "hostname", "library", "etc"] {
                #expect(!listing.text.contains(name), "PROPFIND lists the link \(name)")
            }
        }
    }
    /// What a Mac writes on a WebDAV volume: `._name` beside a file (its extended attributes —
    /// macOS turns any failure to create it into EPERM, so Finder's copy fails with -36) and
    /// `.DS_Store`. They can be written, read, locked, moved and deleted, and are never listed;
    /// the Inbox and the app's own dot-folders stay out of reach, Finder's names beneath them too.
    @Test func findersOwnFilesCanBeWrittenAndAreNeverListed() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("report.pdf", "the report")
            try server.plant("Folder/inside.txt", "inside")
            for target in ["/._report.pdf", "/.DS_Store", "/Folder/._inside.txt", "/Folder/.DS_Store", "/._."] {
                let written = "metadata of \(target)"
                let put = try await server.send("PUT", target, body: Array(written.utf8))
                #expect(put.status == 201, "PUT \(target): \(put)")
                let get = try await server.send("GET", target)
                #expect(get.status == 200 && get.text == written, "GET \(target): \(get)")
                let single = try await server.send("PROPFIND", target, headers: [("Depth", "0")])
                #expect(single.status == 207, "PROPFIND \(target): \(single)")
            }
            #expect(server.contents("._report.pdf") == "metadata of /._report.pdf")
            let lockInfo = """
                <D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>\
                <D:locktype><D:write/></D:locktype></D:lockinfo>
                """
            let lock = try await server.send(
                "LOCK", "/._report.pdf", headers: [("Depth", "0"), ("Timeout", "Second-60")], text: lockInfo)
            #expect(lock.status == 200, "LOCK: \(lock)")
            let token = lock.header("Lock-Token") ?? ""
            let unlock = try await server.send("UNLOCK", "/._report.pdf", headers: [("Lock-Token", token)])
            #expect(unlock.status == 204, "UNLOCK: \(unlock)")
            for folder in ["/", "/Folder/"] {
                for depth in ["1", "infinity"] {
                    let listing = try await server.send("PROPFIND", folder, headers: [("Depth", depth)])
                    #expect(listing.status == 207, "PROPFIND \(folder): \(listing)")
                    #expect(!listing.text.contains("._") && !listing.text.contains("DS_Store"), "\(listing.text)")
                }
            }
            let move = try await server.send(
                "MOVE", "/._report.pdf", headers: [("Destination", server.url("/._renamed.pdf"))])
            #expect(move.status == 201, "MOVE: \(move)")
            let delete = try await server.send("DELETE", "/._renamed.pdf")
            #expect(delete.status == 204, "DELETE: \(delete)")
            #expect(server.contents("._renamed.pdf") == nil && server.contents("._report.pdf") == nil)

            try server.plant(".app/state", "the app's own")
            let home = try homeTree(server)
            for target in ["/Inbox/._x", "/Inbox/.DS_Store", "/.app/._state", "/.app/.DS_Store", "/._", "/.other"] {
                for method in ["PUT", "GET", "PROPFIND", "MKCOL", "DELETE"] {
                    let response = try await server.send(method, target, body: method == "PUT" ? [1] : [])
                    #expect(response.status == 404, "\(method) \(target): \(response)")
                }
            }
            #expect(try homeTree(server) == home, "nothing created beneath a hidden folder")
        }
    }
}
