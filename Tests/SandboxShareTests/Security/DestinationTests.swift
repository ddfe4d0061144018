import Foundation
import Testing

/// `Destination` headers of COPY and MOVE that point off this server or out of what is shared.
@Suite struct DestinationTests {
    @Test func anotherHostIsABadGateway() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("source.txt", "source")
            for method in ["COPY", "MOVE"] {
                for destination in [
                    "http://evil.example/x.txt", "http://127.0.0.1:\(server.port + 1)/x.txt",
                    "https://\(server.host)/x.txt",
                ] {
                    let response = try await server.send(method, "/source.txt", headers: [("Destination", destination)])
                    #expect(response.status == 502, "\(method) to \(destination): \(response)")
                }
            }
            #expect(server.documentsTree() == ["source.txt"])
        }
    }

    @Test func destinationsOutsideOrHiddenAreRefused() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("source.txt", "source")
            try server.plant("Inbox/delivered.txt", "delivered")
            let home = try homeTree(server)
            let paths = [
                "/../x.txt", "/%2e%2e/x.txt", "/a/..%2f..%2fx.txt", "/..%5cx.txt", "/Inbox/x.txt", "/Inbox",
                "/Inbox/delivered.txt", "/.hidden", "/.hidden/x.txt", "/x%00.txt", "/%c0%ae%c0%ae/x.txt",
            ]
            for method in ["COPY", "MOVE"] {
                for path in paths {
                    for destination in [server.url(path), path] {
                        let response = try await server.send(
                            method, "/source.txt", headers: [("Destination", destination), ("Overwrite", "T")])
                        #expect(
                            (400..<500).contains(response.status) && response.status != 401,
                            "\(method) to \(destination): \(response)")
                    }
                }
            }
            #expect(try homeTree(server) == home, "nothing moved, copied or removed")
            #expect(server.contents("Inbox/delivered.txt") == "delivered")
        }
    }
}
