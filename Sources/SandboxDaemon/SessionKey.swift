/// A background session: an app and the identifier it gave its session.
struct SessionKey: Hashable, Sendable, CustomStringConvertible {
    var app: String
    var session: String

    var description: String { "\(app)/\(session)" }
}
