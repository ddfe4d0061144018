import Foundation
import Testing

@testable import SandboxShare

/// The pairing link's token and its one use, without a server.
@Suite struct PairingLinkTests {
    @Test func tokensAreRandomBase64URLOf256Bits() {
        let tokens = (0..<1000).map { _ in PairingToken.generate().value }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(PairingToken.isWellFormed(Substring(token)), "\(token)")
            let base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
            #expect(Data(base64Encoded: base64)?.count == 32, "\(token)")
        }
        #expect(PairingToken(value: "abc").path == "/.sandbox/pair/abc")
    }

    @Test func aLinkLogsInOnceWithinItsLifetime() {
        let start = ContinuousClock.now
        let token = PairingToken.generate()
        let link = PairingLink(token: token, certificateFingerprint: nil, now: start)
        #expect(link.claim(Substring(token.value), now: start + .seconds(1)) == .paired)
        #expect(link.claim(Substring(token.value), now: start + .seconds(2)) == .used)
        #expect(link.claim(Substring(token.value), now: start + PairingToken.lifetime) == .used)
    }

    @Test func anExpiredLinkIsRefusedAndStaysUnused() {
        let start = ContinuousClock.now
        let token = PairingToken.generate()
        let link = PairingLink(token: token, certificateFingerprint: nil, now: start)
        #expect(link.claim(Substring(token.value), now: start + PairingToken.lifetime) == .expired)
        #expect(link.claim(Substring(token.value), now: start + PairingToken.lifetime + .seconds(1)) == .expired)
    }

    @Test(arguments: [
        "", "short", String(repeating: "A", count: 42), String(repeating: "A", count: 44),
        String(repeating: "A", count: 42) + "=", String(repeating: "A", count: 42) + "+",
        String(repeating: "A", count: 42) + "/", String(repeating: "A", count: 42) + "%",
        String(repeating: "A", count: 41) + "é", String(repeating: "A", count: 42) + "\u{0}",
    ])
    func malformedTokensAreUnknown(candidate: String) {
        #expect(!PairingToken.isWellFormed(Substring(candidate)))
        let link = PairingLink(token: PairingToken.generate(), certificateFingerprint: nil)
        #expect(link.claim(Substring(candidate)) == .unknown)
    }

    @Test func anotherWellFormedTokenIsUnknownAndSpendsNothing() {
        let token = PairingToken.generate()
        let link = PairingLink(token: token, certificateFingerprint: nil)
        let altered = (token.value.hasPrefix("A") ? "B" : "A") + token.value.dropFirst()
        #expect(link.claim(Substring(altered)) == .unknown)
        #expect(link.claim(Substring(PairingToken.generate().value)) == .unknown)
        #expect(link.claim(Substring(token.value)) == .paired)
    }

    /// Many claims of the right token at once, on as many threads: exactly one wins.
    @Test func parallelClaimsLetExactlyOneThrough() async {
        for _ in 0..<20 {
            let token = PairingToken.generate()
            let link = PairingLink(token: token, certificateFingerprint: nil)
            let outcomes = await withTaskGroup(of: PairingLink.Outcome.self) { group in
                for _ in 0..<16 { group.addTask { link.claim(Substring(token.value)) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .paired }.count == 1, "\(outcomes)")
            #expect(outcomes.filter { $0 == .used }.count == 15, "\(outcomes)")
        }
    }

    @Test func theAccessLogNeverSeesAToken() {
        let token = PairingToken.generate()
        #expect(PairingToken.redacted(token.path) == "/.sandbox/pair/…")
        #expect(!PairingToken.redacted(token.path + "/x").contains(token.value))
        #expect(PairingToken.redacted("/Documents/a.txt") == "/Documents/a.txt")
    }
}
