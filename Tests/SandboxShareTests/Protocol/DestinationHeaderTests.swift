import Sandbox
import Testing

@testable import SandboxShare

@Suite struct DestinationHeaderTests {
    let authorities: Set<String> = ["127.0.0.1:8080", "localhost:8080", "Device.local", "[::1]:8080"]

    @Test(arguments: [
        ("http://127.0.0.1:8080/a/b", "/a/b"), ("HTTP://LOCALHOST:8080/a%20b/", "/a b"),
        ("http://device.local/c", "/c"), ("http://device.local:80/c", "/c"),
        ("http://device.local:/c", "/c"), ("http://[::1]:8080/v6", "/v6"),
        ("/plain/path", "/plain/path"), ("  /spaced ", "/spaced"), ("http://127.0.0.1:8080", "/"),
        ("http://127.0.0.1:8080/%252e%252e", "/%2e%2e"),
    ])
    func resolvesThisServersURIs(value: String, path: String) throws {
        #expect(try DestinationHeader.parse(value, allowedAuthorities: authorities).description == path)
    }

    @Test(arguments: [
        "http://evil.example/a", "http://127.0.0.1:9090/a", "http://127.0.0.1/a", "https://device.local:8443/a",
        "ftp://127.0.0.1:8080/a", "http://[::1]/a", "http://127.0.0.1:8080.evil.example/a",
        // This server speaks plain HTTP: an https URI names another server, even on the same port.
        "https://localhost:8080/x", "https://device.local:443/c",
    ])
    func refusesOtherServersWithBadGateway(value: String) {
        #expect {
            try DestinationHeader.parse(value, allowedAuthorities: authorities)
        } throws: { error in
            (error as? SandboxError)?.code == .badGateway && (error as? SandboxError)?.code.httpStatus == 502
        }
    }

    @Test(arguments: [
        "", "a/b", "//127.0.0.1:8080/a", "http:/a", "http:", "http://", "http:///a",
        "http://user@127.0.0.1:8080/a", "http://user:pw@127.0.0.1:8080/a", "http://evil@127.0.0.1:8080/a",
        "/a?b=c", "/a#frag", "http://127.0.0.1:8080/a?x", "http://127.0.0.1:8080/../etc",
        "http://127.0.0.1:8080/%2e%2e/x", "http://127.0.0.1:8080/a%2fb", "http://127.0.0.1:8080/a%00",
        "/a\\b", "/%C0%AE%C0%AE/", "http://127.0.0.1:8080//a", "1http://x/a",
    ])
    func refusesMalformedDestinations(value: String) {
        #expect {
            try DestinationHeader.parse(value, allowedAuthorities: authorities)
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }

    @Test func overwriteIsTOrF() throws {
        #expect(try Overwrite.parse(nil))
        #expect(try Overwrite.parse("T"))
        #expect(try Overwrite.parse(" t "))
        #expect(try !Overwrite.parse("F"))
        #expect(try !Overwrite.parse("f"))
        for bad in ["", "TRUE", "0", "1", "T F", "\u{0}", String(repeating: "F", count: 1000)] {
            #expect(throws: SandboxError.self) { try Overwrite.parse(bad) }
        }
    }

    @Test(arguments: [
        (String?.none, Int?.none), ("Infinite", nil), ("Second-60", 60), ("second-0", 0), (" Second-3600 ", 3600),
        ("Infinite, Second-4100000000", nil), ("Second-600, Infinite", 600), ("Bogus, Second-5", 5),
        ("Second-, Second-x, Second--1, Second-7", 7), ("Second-99999999999999999999999999", 4_294_967_295),
        ("Second-4294967296", 4_294_967_295), ("Second-000000000000000000000042", 42), ("", nil), ("garbage", nil),
        ("Second-１２", nil), (",,,", nil),
    ])
    func lockTimeoutTakesTheFirstUnderstoodEntry(value: String?, seconds: Int?) {
        #expect(LockTimeout.parse(value) == seconds)
    }
}
