import SandboxCore

/// Dates as XML property lists spell them, `2026-11-21T09:30:00Z`: UTC on the proleptic Gregorian
/// calendar (the Gregorian rules extended before 1582), as `CFAbsoluteTime` and Python's
/// `datetime` count. Foundation's formatters switch to the Julian calendar before October 1582,
/// which shifts such dates by days; this conversion is plain arithmetic instead.
enum PropertyListDate {
    /// 2001-01-01, the reference date, in days since 1970-01-01.
    private static let referenceDay: Int64 = 11_323

    /// Seconds since the reference date of `text`: `[-]YYYY-MM-DDTHH:MM:SS[.fraction]Z`, or `nil`
    /// when it is not one.
    static func parse(_ text: String) -> Double? {
        var scanner = Substring(text)[...]
        let negative = scanner.first == "-"
        if negative { scanner = scanner.dropFirst() }
        guard let year = number(&scanner, minimumDigits: 4, maximumDigits: 9), scanner.popFirst() == "-",
            let month = number(&scanner, minimumDigits: 2, maximumDigits: 2), scanner.popFirst() == "-",
            let day = number(&scanner, minimumDigits: 2, maximumDigits: 2), scanner.popFirst() == "T",
            let hour = number(&scanner, minimumDigits: 2, maximumDigits: 2), scanner.popFirst() == ":",
            let minute = number(&scanner, minimumDigits: 2, maximumDigits: 2), scanner.popFirst() == ":",
            let second = number(&scanner, minimumDigits: 2, maximumDigits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.first == "." {
            let digits = scanner.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
            scanner = scanner.dropFirst(1 + digits.count)
        }
        guard scanner == "Z", (1...12).contains(month),
            (1...ProlepticGregorian.daysIn(month: month, year: negative ? -year : year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days =
            ProlepticGregorian.daysFromCivil(year: negative ? -year : year, month: month, day: day) - referenceDay
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
    }

    /// `seconds` since the reference date in whole seconds (rounded down, as Apple's writer does),
    /// or with `fractionalDigits` digits of fraction (also rounded down); `nil` for a value that is
    /// not finite or lies beyond a billion years.
    static func format(_ seconds: Double, fractionalDigits: Int = 0) -> String? {
        guard seconds.isFinite, abs(seconds) < 3e16 else { return nil }
        let floored = seconds.rounded(.down)
        let whole = Int64(floored)
        let (day, time) = whole.quotientAndRemainder(dividingBy: 86_400)
        let (days, secondOfDay) = time < 0 ? (day - 1, time + 86_400) : (day, time)
        let (year, month, dayOfMonth) = ProlepticGregorian.civil(fromDays: days + referenceDay)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var fraction = ""
        if fractionalDigits > 0 {
            let scale = (0..<fractionalDigits).reduce(1.0) { value, _ in value * 10 }
            fraction =
                "."
                + padded(min(Int64(((seconds - floored) * scale).rounded(.down)), Int64(scale) - 1), fractionalDigits)
        }
        return
            "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))T\(padded(secondOfDay / 3_600, 2)):\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))\(fraction)Z"
    }

    private static func number(_ scanner: inout Substring, minimumDigits: Int, maximumDigits: Int) -> Int64? {
        let digits = scanner.prefix { $0.isASCII && $0.isNumber }
        guard (minimumDigits...maximumDigits).contains(digits.count), let value = Int64(digits) else { return nil }
        scanner = scanner.dropFirst(digits.count)
        return value
    }
}
