import Foundation
import SandboxCore

/// A span of calendar time, as restic's `--keep-within` takes it: years, months, days and hours
/// (`1y5m7d2h`, `2d3h`, `36h`). Years, months and days are calendar steps in the local time zone
/// (a day across a change to summer time is 23 hours); hours are 3,600 seconds.
public struct RetentionDuration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The largest number one unit takes: 100,000 years is longer than any backup is kept.
    static let maximumCount = 100_000

    /// Calendar years.
    public var years: Int
    /// Calendar months.
    public var months: Int
    /// Calendar days.
    public var days: Int
    /// Hours of 3,600 seconds.
    public var hours: Int

    /// A duration of the given parts.
    public init(years: Int = 0, months: Int = 0, days: Int = 0, hours: Int = 0) {
        self.years = years
        self.months = months
        self.days = days
        self.hours = hours
    }

    /// Parses `text`: numbers each followed by a unit, `y`, `m` (months), `d` or `h`, each unit at
    /// most once (`2d3h`, `1y6m`).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` naming the text and the form
    ///   for an empty text, a number without a unit, an unknown or repeated unit, or a number over
    ///   100,000.
    public init(parsing text: String) throws(SandboxError) {
        self.init()
        guard !text.isEmpty else { throw Self.refused(text, "it is empty") }
        var seen: Set<Character> = []
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 6 else { throw Self.refused(text, "a number is over \(Self.maximumCount)") }
                continue
            }
            guard let count = Int(digits) else {
                throw Self.refused(text, "'\(character)' does not follow a number")
            }
            guard count <= Self.maximumCount else {
                throw Self.refused(text, "a number is over \(Self.maximumCount)")
            }
            guard seen.insert(character).inserted else { throw Self.refused(text, "'\(character)' is given twice") }
            switch character {
            case "y": years = count
            case "m": months = count
            case "d": days = count
            case "h": hours = count
            default: throw Self.refused(text, "'\(character)' is not a unit")
            }
            digits = ""
        }
        guard digits.isEmpty else { throw Self.refused(text, "the number \(digits) has no unit") }
    }

    /// Whether every part is zero.
    public var isZero: Bool { years == 0 && months == 0 && days == 0 && hours == 0 }

    /// The form ``init(parsing:)`` reads, zero parts left out (`2d3h`; `0h` for zero).
    public var description: String {
        let parts = [(years, "y"), (months, "m"), (days, "d"), (hours, "h")].filter { $0.0 != 0 }
        return parts.isEmpty ? "0h" : parts.map { "\($0.0)\($0.1)" }.joined()
    }

    /// The time this duration before `date`: years, months and days taken off the date's local
    /// calendar fields (a month that runs over, 31 March less a month, carries into the next one,
    /// 3 March), then the hours off the instant.
    func start(before date: Date, calendar: Calendar) -> Date {
        var fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let monthIndex = (fields.year ?? 1970) * 12 + (fields.month ?? 1) - 1 - years * 12 - months
        let dayOffset = (fields.day ?? 1) - 1 - days
        fields.year = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        fields.month = monthIndex - (fields.year ?? 0) * 12 + 1
        fields.day = 1
        let monthStart = calendar.date(from: fields) ?? date
        let day = calendar.date(byAdding: .day, value: dayOffset, to: monthStart) ?? monthStart
        return day.addingTimeInterval(-Double(hours) * 3600)
    }

    private static func refused(_ text: String, _ problem: String) -> SandboxError {
        SandboxError(
            .invalidArgument,
            "The duration '\(text.prefix(40))' cannot be read: \(problem). Give numbers each followed by y (years), m (months), d (days) or h (hours), as 2d3h or 1y6m."
        )
    }
}
