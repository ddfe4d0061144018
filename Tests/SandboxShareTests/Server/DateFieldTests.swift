import Foundation
import HTTPTypes
import Sandbox
import Testing

@testable import SandboxShare

/// The `Date` field is formatted once a second: the same second gives the same field, a new
/// second a new one, and a response carries the current date.
@Suite struct DateFieldTests {
    @Test func aNewSecondGivesANewField() {
        let cache = DateField()
        let second: Int64 = 784_111_777
        #expect(cache.field(at: second) == HTTPField(name: .date, value: "Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(cache.field(at: second).value == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(cache.field(at: second + 1).value == "Sun, 06 Nov 1994 08:49:38 GMT")
        #expect(cache.field(at: second).value == "Sun, 06 Nov 1994 08:49:37 GMT", "an earlier second again")
        #expect(cache.field(at: second + 86_400).value == "Mon, 07 Nov 1994 08:49:37 GMT")
    }

    @Test func theCurrentFieldIsNow() throws {
        let before = Int64(Date().timeIntervalSince1970.rounded(.down))
        let value = DateField().current().value
        let after = Int64(Date().timeIntervalSince1970.rounded(.down))
        let parsed = try #require(HTTPDate.parse(value))
        let seconds = Int64(parsed.timeIntervalSince1970)
        #expect(seconds >= before && seconds <= after, "\(value)")
    }

    /// Every response of the server has one `Date` field, now's.
    @Test func responsesCarryTheDate() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "hello")
            for (method, path) in [("GET", "/file.txt"), ("OPTIONS", "/"), ("PROPFIND", "/"), ("GET", "/missing")] {
                let response = try await server.send(method, path)
                let value = try #require(response.header("Date"), "\(method) \(path)")
                let date = try #require(HTTPDate.parse(value))
                #expect(abs(date.timeIntervalSinceNow) < 600, "\(method) \(path): \(value)")
            }
        }
    }
}
