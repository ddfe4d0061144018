import Foundation
import Testing

/// Request paths that try to leave Documents, sent byte for byte.
@Suite struct TraversalTests {
    /// Each reaches `<container>/Library/secret.txt` (beside Documents) if decoded twice,
    /// normalised after decoding, or read with `\` as a separator.
    static let targets = [
        "/../Library/secret.txt", "/%2e%2e/Library/secret.txt", "/%2E%2E/Library/secret.txt",
        "/a/..%2f..%2fLibrary/secret.txt", "/..%2fLibrary%2fsecret.txt", "/%2e%2e%2fLibrary%2fsecret.txt",
        "/%252e%252e/Library/secret.txt", "/..\\Library\\secret.txt", "/..%5cLibrary%5csecret.txt",
        "/%c0%ae%c0%ae/Library/secret.txt", "/%c0%af..%c0%afLibrary/secret.txt", "/./../Library/secret.txt",
        "/Inbox/../../Library/secret.txt", "//../Library/secret.txt",
        "/a/../../../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/file.txt%00.png", "/%00", "/a%00/../../Library/secret.txt",
    ]

    @Test func readsNeverReachOutside() async throws {
        try await ShareServerProcess.with { server in
            let secret = try plantSecret(server)
            try server.plant("file.txt", "inside")
            for target in Self.targets {
                for method in ["GET", "HEAD", "PROPFIND"] {
                    let response = try await server.send(method, target, headers: [("Depth", "1")])
                    #expect([400, 404].contains(response.status), "\(method) \(target): \(response)")
                    #expect(!response.text.contains(secret), "\(method) \(target) served the secret")
                    #expect(!response.text.contains("root:x:0:0"), "\(method) \(target) served /etc/passwd")
                }
            }
        }
    }

    @Test func writesNeverReachOutside() async throws {
        try await ShareServerProcess.with { server in
            let secret = try plantSecret(server)
            let home = try homeTree(server)
            for target in Self.targets {
                for method in ["PUT", "MKCOL", "DELETE", "PROPPATCH", "LOCK"] {
                    let body = method == "PUT" ? Array("overwritten".utf8) : []
                    let response = try await server.send(method, target, body: body)
                    // %252e%252e is the legal name "%2e%2e" once decoded once: 404/409 for its
                    // missing folder, which is not an escape.
                    #expect([400, 403, 404, 409].contains(response.status), "\(method) \(target): \(response)")
                }
            }
            #expect(try String(contentsOfFile: secretPath(server), encoding: .utf8) == secret)
            #expect(try homeTree(server) == home, "nothing created or removed anywhere in the home")
        }
    }

    /// `<container>/Library/secret.txt`, beside Documents; returns its contents.
    func plantSecret(_ server: ShareServerProcess) throws -> String {
        let secret = "secret-\(UUID().uuidString)"
        try Data(secret.utf8).write(to: URL(fileURLWithPath: secretPath(server)))
        return secret
    }

    func secretPath(_ server: ShareServerProcess) -> String {
        URL(fileURLWithPath: server.documents).deletingLastPathComponent().appendingPathComponent("Library/secret.txt")
            .path
    }
}
