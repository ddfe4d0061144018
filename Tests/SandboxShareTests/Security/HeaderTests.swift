import Foundation
import Testing

/// `Host` (DNS rebinding), CORS and how uploaded pages are served.
@Suite struct HeaderTests {
    @Test func aForeignHostIsMisdirected() async throws {
        try await ShareServerProcess.with { server in
            for host in [
                "evil.example:\(server.port)", "evil.example", "127.0.0.1:\(server.port + 1)",
                "127.0.0.2:\(server.port)",
                "127.0.0.1.evil.example:\(server.port)",
            ] {
                let response = try await server.send("GET", "/", host: host)
                #expect(response.status == 421, "Host \(host): \(response)")
            }
            for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)"] {
                let response = try await server.send("PROPFIND", "/", headers: [("Depth", "0")], host: host)
                #expect(response.status == 207, "Host \(host): \(response)")
            }
        }
    }

    @Test func noResponseAllowsAnotherOrigin() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "text")
            let preflight = [
                ("Origin", "http://evil.example"), ("Access-Control-Request-Method", "PUT"),
                ("Access-Control-Request-Headers", "authorization, destination"),
            ]
            for credentials in [Credentials.valid, .none] {
                for (method, target) in [
                    ("OPTIONS", "/"), ("OPTIONS", "/file.txt"), ("GET", "/file.txt"), ("PROPFIND", "/"),
                ] {
                    let response = try await server.send(method, target, headers: preflight, credentials: credentials)
                    for name in [
                        "Access-Control-Allow-Origin", "Access-Control-Allow-Methods",
                        "Access-Control-Allow-Credentials",
                    ] {
                        #expect(
                            response.header(name) == nil, "\(method) \(target) \(credentials): \(name) in \(response)")
                    }
                }
            }
        }
    }

    @Test(arguments: ["page.html", "image.svg", "page.htm", "script.js", "data.xml", "noextension"])
    func uploadedFilesAreNeverRenderedAsPagesOfThisOrigin(name: String) async throws {
        try await ShareServerProcess.with { server in
            let put = try await server.send("PUT", "/\(name)", text: "<html><script>alert(1)</script></html>")
            #expect(put.status == 201, "PUT \(name): \(put)")
            let response = try await server.send("GET", "/\(name)")
            #expect(response.status == 200, "GET \(name): \(response)")
            #expect(response.header("X-Content-Type-Options")?.lowercased() == "nosniff", "\(name): \(response)")
            let attachment = response.header("Content-Disposition")?.lowercased().hasPrefix("attachment") == true
            let sandboxed = response.header("Content-Security-Policy")?.lowercased().contains("sandbox") == true
            #expect(attachment || sandboxed, "\(name) could render as a page: \(response)")
        }
    }
}
