import Foundation
import Testing

@testable import SandboxShare

@Suite struct AuthTests {
    @Test func pairingCodesAreFreshAndUnambiguous() {
        let codes = (0..<1000).map { _ in PairingCode.generate() }
        #expect(Set(codes).count == codes.count)
        for code in codes {
            #expect(code.count == 14)
            #expect(code.split(separator: "-").map(\.count) == [4, 4, 4])
            #expect(code.allSatisfy { $0 == "-" || PairingCode.alphabet.contains($0) })
            #expect(!code.contains { "01ilo".contains($0) })
        }
    }

    @Test func credentialsMatchOnlyExactly() {
        let credentials = ShareCredentials(user: "sandbox", password: "k7m2-p9qx-3hwf")
        #expect(credentials.match(user: "sandbox", password: "k7m2-p9qx-3hwf"))
        #expect(!credentials.match(user: "sandbox", password: "k7m2-p9qx-3hw"))
        #expect(!credentials.match(user: "sandbox", password: "k7m2-p9qx-3hwfx"))
        #expect(!credentials.match(user: "Sandbox", password: "k7m2-p9qx-3hwf"))
        #expect(!credentials.match(user: "", password: "k7m2-p9qx-3hwf"))
        // The user/password boundary cannot be moved to forge a match.
        #expect(!credentials.match(user: "sandboxk", password: "7m2-p9qx-3hwf"))
    }

    @Test func basicAuthorizationParsesWhatClientsSend() {
        func header(_ text: String) -> String { "Basic " + Data(text.utf8).base64EncodedString() }
        #expect(
            BasicAuthorization(header: header("sandbox:code")) == BasicAuthorization(user: "sandbox", password: "code"))
        #expect(BasicAuthorization(header: header(":code")) == BasicAuthorization(user: "", password: "code"))
        #expect(BasicAuthorization(header: header("u:")) == BasicAuthorization(user: "u", password: ""))
        #expect(BasicAuthorization(header: header("u:pa:ss")) == BasicAuthorization(user: "u", password: "pa:ss"))
        #expect(BasicAuthorization(header: "basic " + Data("é:ü".utf8).base64EncodedString())?.user == "é")
    }

    @Test(arguments: [
        nil, "", "Basic", "Basic ", "Bearer abc", "Basic !!!!", "Basic dXNlcg==",  // no colon
        "Basic " + Data([0xFF, 0x3A, 0x61]).base64EncodedString(),  // not UTF-8
        "Basic " + String(repeating: "A", count: 10_000),
    ])
    func basicAuthorizationRefusesHostileHeaders(header: String?) {
        #expect(BasicAuthorization(header: header) == nil)
    }

    @Test func throttleBlocksAfterTheAllowanceAndDoublesTheBlock() {
        var throttle = FailureThrottle()
        let start = ContinuousClock.now
        for _ in 1..<FailureThrottle.allowance {
            #expect(throttle.recordFailure(from: "10.0.0.1", now: start) == nil)
        }
        #expect(throttle.blockRemaining(for: "10.0.0.1", now: start) == nil)
        #expect(throttle.recordFailure(from: "10.0.0.1", now: start) == .seconds(1), "the 10th failure blocks")
        #expect(throttle.recordFailure(from: "10.0.0.1", now: start) == .seconds(2))
        #expect(throttle.recordFailure(from: "10.0.0.1", now: start) == .seconds(4))
        #expect(throttle.blockRemaining(for: "10.0.0.1", now: start) == .seconds(4))
        #expect(throttle.blockRemaining(for: "10.0.0.1", now: start + .seconds(5)) == nil)
        #expect(throttle.blockRemaining(for: "10.0.0.2", now: start) == nil, "other clients are not blocked")
        for _ in 0..<100 { throttle.recordFailure(from: "10.0.0.1", now: start) }
        #expect(throttle.blockRemaining(for: "10.0.0.1", now: start) == FailureThrottle.longestBlock)
        throttle.recordSuccess(from: "10.0.0.1")
        #expect(throttle.failures(of: "10.0.0.1") == 0)
    }

    @Test func throttleMemoryIsBoundedWhenAddressesAreSprayed() {
        var throttle = FailureThrottle()
        let now = ContinuousClock.now
        for index in 0..<(FailureThrottle.maximumClients + 500) {
            throttle.recordFailure(from: "client-\(index)", now: now)
        }
        let remembered = (0..<(FailureThrottle.maximumClients + 500)).filter {
            throttle.failures(of: "client-\($0)") > 0
        }
        #expect(remembered.count == FailureThrottle.maximumClients)
    }
}
