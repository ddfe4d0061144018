import Foundation
import SandboxCore

/// Which snapshots a prune keeps: restic's `forget` rules, exactly.
///
/// Snapshots are grouped by device (its id, or its host and home) and by the apps they hold, as restic groups by host
/// and paths, and the rules apply to each group alone. In a group, newest first, each counting
/// rule keeps the newest snapshot of each of its buckets until it has kept its count: `last`
/// (every snapshot is a bucket), `hourly`, `daily`, `weekly` (ISO 8601 weeks: a week belongs to
/// the year of its Thursday), `monthly`, `yearly`, in local time. A rule with count left when the
/// group runs out also keeps the oldest snapshot. `within` keeps every snapshot newer than that
/// span before the group's newest one (not counting snapshots dated in the future). A snapshot is
/// kept when any rule keeps it; ``RetentionGroup/kept`` says which.
public struct RetentionPolicy: Sendable, Hashable, Codable {
    /// A count that keeps every bucket (restic's `unlimited`).
    public static let unlimited = Int.max

    /// The newest snapshots to keep.
    public var last: Int
    /// Hours (the newest snapshot of each) to keep.
    public var hourly: Int
    /// Days to keep.
    public var daily: Int
    /// ISO 8601 weeks to keep.
    public var weekly: Int
    /// Months to keep.
    public var monthly: Int
    /// Years to keep.
    public var yearly: Int
    /// Keep every snapshot newer than this span before the newest one.
    public var within: RetentionDuration?

    /// A policy of the given rules; a count of 0 is no rule, ``unlimited`` keeps every bucket.
    public init(
        last: Int = 0, hourly: Int = 0, daily: Int = 0, weekly: Int = 0, monthly: Int = 0, yearly: Int = 0,
        within: RetentionDuration? = nil
    ) {
        self.last = last
        self.hourly = hourly
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
        self.yearly = yearly
        self.within = within
    }

    /// Whether no rule is given: such a policy would remove every snapshot, and prunes refuse it.
    public var isEmpty: Bool {
        [last, hourly, daily, weekly, monthly, yearly].allSatisfy { $0 == 0 } && (within?.isZero ?? true)
    }

    /// Checks the counts.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a negative count, or for
    ///   no rule at all (it would remove every snapshot).
    public func validate() throws(SandboxError) {
        for (name, count) in rules.map({ ($0.name, $0.count) }) where count < 0 {
            throw SandboxError(.invalidArgument, "--keep-\(name) must be 0 or more (it was \(count)).")
        }
        guard !isEmpty else {
            throw SandboxError(
                .invalidArgument,
                "No retention rule was given, and pruning without one would remove every snapshot; nothing was removed. Give at least one of --keep-last, --keep-hourly, --keep-daily, --keep-weekly, --keep-monthly, --keep-yearly or --keep-within."
            )
        }
    }

    /// What the policy keeps and removes of `snapshots`, group by group (in the order of each
    /// group's newest snapshot, newest first). A pure function: nothing is read or written.
    ///
    /// - Parameters:
    ///   - snapshots: the repository's snapshots, in any order.
    ///   - timeZone: the zone whose calendar days, weeks, months and years the buckets are.
    ///   - now: the present, after which a snapshot's time does not count as the group's newest.
    public func apply(
        to snapshots: [Snapshot], timeZone: TimeZone = .current, now: Date = Date()
    )
        -> [RetentionGroup]
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var groups: [RetentionGroup.Key: [Snapshot]] = [:]
        for snapshot in snapshots { groups[RetentionGroup.Key(snapshot), default: []].append(snapshot) }
        return groups.map { key, members in
            apply(toGroup: key, members.sorted(by: Self.newerFirst), calendar: calendar, now: now)
        }
        .sorted { first, second in
            guard let a = first.newest, let b = second.newest else { return first.newest != nil }
            return Self.newerFirst(a, b)
        }
    }

    /// Newest first; snapshots of one time by id, as ``Repository/snapshot(matching:)`` picks the latest.
    static func newerFirst(_ a: Snapshot, _ b: Snapshot) -> Bool {
        (a.record.time, a.id) > (b.record.time, b.id)
    }

    private struct Rule {
        var name: String
        var count: Int
        var bucket: (BucketTime, Int) -> Int
    }

    private var rules: [Rule] {
        [
            Rule(name: "last", count: last) { _, position in position },
            Rule(name: "hourly", count: hourly) { time, _ in
                time.year * 1_000_000 + time.month * 10_000 + time.day * 100 + time.hour
            },
            Rule(name: "daily", count: daily) { time, _ in time.year * 10_000 + time.month * 100 + time.day },
            Rule(name: "weekly", count: weekly) { time, _ in time.isoWeekYear * 100 + time.isoWeek },
            Rule(name: "monthly", count: monthly) { time, _ in time.year * 100 + time.month },
            Rule(name: "yearly", count: yearly) { time, _ in time.year },
        ]
    }

    private func apply(
        toGroup key: RetentionGroup.Key, _ members: [Snapshot], calendar: Calendar, now: Date
    ) -> RetentionGroup {
        var group = RetentionGroup(host: key.host, apps: key.apps, kept: [], removed: [])
        let latest = members.first { $0.record.time < now }?.record.time ?? .distantPast
        let withinStart = within.flatMap { $0.isZero ? nil : $0.start(before: latest, calendar: calendar) }
        var rules = rules.filter { $0.count > 0 }
        var lastBuckets = [Int?](repeating: nil, count: rules.count)
        for (position, snapshot) in members.enumerated() {
            var reasons: [String] = []
            if let within, let withinStart, snapshot.record.time > withinStart {
                reasons.append("within \(within)")
            }
            let time = BucketTime(snapshot.record.time, calendar: calendar)
            for index in rules.indices where rules[index].count > 0 {
                let bucket = rules[index].bucket(time, position)
                guard bucket != lastBuckets[index] || position == members.count - 1 else { continue }
                lastBuckets[index] = bucket
                if rules[index].count != Self.unlimited { rules[index].count -= 1 }
                reasons.append("\(rules[index].name) snapshot")
            }
            if reasons.isEmpty {
                group.removed.append(snapshot)
            } else {
                group.kept.append(RetentionGroup.Kept(snapshot: snapshot, reasons: reasons))
            }
        }
        return group
    }
}

/// A snapshot's time in the fields the buckets use.
struct BucketTime {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    /// The ISO 8601 week (1 … 53) and the year it belongs to (that of its Thursday).
    var isoWeek: Int
    var isoWeekYear: Int

    init(_ date: Date, calendar: Calendar) {
        let fields = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        year = fields.year ?? 1970
        month = fields.month ?? 1
        day = fields.day ?? 1
        hour = fields.hour ?? 0
        (isoWeekYear, isoWeek) = Self.isoWeek(year: year, month: month, day: day)
    }

    /// The ISO 8601 week-numbering year and week of a civil date, by arithmetic (no calendar's
    /// first-weekday or minimum-days settings involved).
    static func isoWeek(year: Int, month: Int, day: Int) -> (year: Int, week: Int) {
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let weekday = ((days % 7 + 7 + 3) % 7) + 1  // 1 = Monday … 7 = Sunday; 1970-01-01 was a Thursday
        let thursday = days - weekday + 4
        let thursdayYear = civilYear(ofDay: thursday)
        let firstOfYear = daysSinceEpoch(year: thursdayYear, month: 1, day: 1)
        return (thursdayYear, (thursday - firstOfYear) / 7 + 1)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year of the day `days` after 1970-01-01.
    static func civilYear(ofDay days: Int) -> Int {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }
}

/// One group of snapshots (one device, one set of apps) and what a ``RetentionPolicy`` does with it.
public struct RetentionGroup: Sendable, Hashable {
    /// The device: its device id when the snapshots have one, else `<host name>:<home>` (devices
    /// without a key yet that share a host — a fleet of sandbox homes — are told apart).
    public var host: String
    /// The apps each snapshot of the group holds, sorted.
    public var apps: [String]
    /// The snapshots kept, newest first, with the rules that keep each (`last snapshot`,
    /// `daily snapshot`, `within 2d3h`, …).
    public var kept: [Kept]
    /// The snapshots removed, newest first.
    public var removed: [Snapshot]

    /// A kept snapshot and why.
    public struct Kept: Sendable, Hashable {
        /// The snapshot.
        public var snapshot: Snapshot
        /// The rules that keep it.
        public var reasons: [String]
    }

    /// What groups snapshots.
    struct Key: Hashable {
        var host: String
        var apps: [String]

        init(_ snapshot: Snapshot) {
            host = BackupDevice.key(of: snapshot.record)
            apps = snapshot.record.apps.map(\.app).sorted()
        }
    }

    /// The group's newest snapshot.
    var newest: Snapshot? {
        ([kept.first?.snapshot, removed.first].compactMap { $0 }).sorted(by: RetentionPolicy.newerFirst).first
    }
}
