import Foundation
import Glibc
import HTTPTypes
import Sandbox
import Synchronization

/// The `Date` field every response carries (RFC 9110 §6.6.1), formatted once a second rather
/// than once a request.
final class DateField: Sendable {
    /// The server's one cache.
    static let shared = DateField()

    private struct Cached {
        var second: Int64
        var field: HTTPField
    }

    private let cached = Mutex<Cached?>(nil)

    /// The field for now.
    func current() -> HTTPField { field(at: Int64(time(nil))) }

    /// The field for the second `second` (since 1970): formatted when it differs from the last
    /// second asked for.
    func field(at second: Int64) -> HTTPField {
        cached.withLock { cached in
            if let cached, cached.second == second { return cached.field }
            let field = HTTPField(
                name: .date, value: HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(second))))
            cached = Cached(second: second, field: field)
            return field
        }
    }
}
