import Foundation
import SandboxCore
import Testing

@Suite struct HTTPDateFormatTests {
    @Test func formatsAnIMFFixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_868_799.999)) == "Tue, 29 Feb 2000 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    /// Every 37th day from 1422 to 2517 formats to text that parses back to the same second.
    @Test func roundTripsThroughParse() {
        for day in stride(from: Int64(-200_000), to: 200_000, by: 37) {
            let date = Date(timeIntervalSince1970: TimeInterval(day * 86_400 + 45_296))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }
}
