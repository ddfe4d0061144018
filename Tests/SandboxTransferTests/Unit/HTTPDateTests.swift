import Foundation
import SandboxCore
import Testing

@testable import SandboxTransfer

@Suite struct HTTPDateTests {
    /// RFC 9110 §5.6.7's three forms of 784 111 777 s (Sun, 06 Nov 1994 08:49:37 GMT).
    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func parsesTheThreeForms(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test func computesCivilDays() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 23:59:59 GMT") == Date(timeIntervalSince1970: 951_868_799))
        #expect(HTTPDate.parse("Fri, 31 Dec 1999 23:59:60 GMT") == Date(timeIntervalSince1970: 946_684_800))
        #expect(HTTPDate.parse("Mon, 01 Mar 2100 00:00:00 GMT") == Date(timeIntervalSince1970: 4_107_542_400))
    }

    /// Fuzz `validator/dateformatter-traps-on-combining-mark`: `DateFormatter` trapped on
    /// `S\u{5B8}`; non-ASCII text is refused before anything looks at it.
    @Test(arguments: [
        "S\u{5B8}", "\nS\u{5B8}", "Sun, 06 Nov 1994 08:49:37 GMT\u{301}", "Sun, 06 Nov 1994 08:49:37 GM\u{1D40}",
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sunday, 06-Nov-94 08:49:37 PST",
        "Sun Nov 6 08:49:37 1994",
        "Sun, -6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08-49-37 GMT", "Sunday,",
    ])
    func refusesWhatIsNoHTTPDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func strongValidatorSurvivesHostileDates() {
        #expect(
            Validator.strongValidator(etag: nil, lastModified: "S\u{5B8}", date: "Tue, 15 Nov 1994 09:00:00 GMT") == nil
        )
        #expect(
            Validator.strongValidator(etag: nil, lastModified: "Tue, 15 Nov 1994 08:12:31 GMT", date: "S\u{5B8}") == nil
        )
    }
}
