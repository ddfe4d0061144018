import Foundation
import SandboxCore
import Testing

@testable import SandboxBackup

/// The retention policy is restic's `forget`, as a pure function: crafted timelines in, the
/// snapshots kept (and the rules keeping each) out.
@Suite struct RetentionPolicyTests {
    static let utc = TimeZone(identifier: "UTC") ?? .gmt
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt

    /// A date from local fields in `zone`.
    static func date(_ text: String, _ zone: TimeZone = utc) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = text.count > 16 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.date(from: text) ?? .distantPast
    }

    static func snapshot(
        _ id: String, _ time: Date, host: String = "phone", apps: [String] = ["com.example.notes"]
    ) -> Snapshot {
        Snapshot(
            id: id,
            record: SnapshotRecord(
                time: time, hostname: host, device: nil, home: "/home",
                apps: apps.map {
                    AppSnapshot(app: $0, tree: [], manifest: [], keychain: nil, files: 0, bytes: 0)
                }, parent: nil))
    }

    /// The kept ids with their reasons, and the removed ids, of the only group.
    static func decide(
        _ policy: RetentionPolicy, _ snapshots: [Snapshot], zone: TimeZone = utc, now: Date = .distantFuture
    ) -> (kept: [String: [String]], removed: Set<String>) {
        let groups = policy.apply(to: snapshots, timeZone: zone, now: now)
        #expect(groups.count == 1)
        var kept: [String: [String]] = [:]
        for entry in groups.first?.kept ?? [] { kept[entry.snapshot.id] = entry.reasons }
        return (kept, Set(groups.first?.removed.map(\.id) ?? []))
    }

    @Test func dailyKeepsTheNewestOfEachDayAndTheOldestWhileCountIsLeft() {
        let snapshots = [
            Self.snapshot("a1", Self.date("2026-05-01 08:00")), Self.snapshot("a2", Self.date("2026-05-01 20:00")),
            Self.snapshot("b1", Self.date("2026-05-02 08:00")), Self.snapshot("b2", Self.date("2026-05-02 20:00")),
            Self.snapshot("c1", Self.date("2026-05-03 08:00")), Self.snapshot("c2", Self.date("2026-05-03 20:00")),
        ]
        let two = Self.decide(RetentionPolicy(daily: 2), snapshots)
        #expect(Set(two.kept.keys) == ["c2", "b2"])
        #expect(two.kept["c2"] == ["daily snapshot"])
        // Count left when the group runs out: the oldest is kept too (restic's rule).
        let five = Self.decide(RetentionPolicy(daily: 5), snapshots)
        #expect(Set(five.kept.keys) == ["c2", "b2", "a2", "a1"])
        #expect(five.removed == ["c1", "b1"])
        let unlimited = Self.decide(RetentionPolicy(daily: RetentionPolicy.unlimited), snapshots)
        #expect(Set(unlimited.kept.keys) == ["c2", "b2", "a2", "a1"])
    }

    @Test func theUnionOfRulesIsKeptWithEveryReason() {
        let snapshots = (1...10).map { Self.snapshot("d\($0)", Self.date("2026-04-\(10 + $0) 12:00")) }
        let result = Self.decide(RetentionPolicy(last: 2, weekly: 2, monthly: 1), snapshots)
        // 2026-04-20 is a Monday: d10 (Mon 20th) and d9 (Sun 19th, the newest of the week before).
        #expect(result.kept["d10"] == ["last snapshot", "weekly snapshot", "monthly snapshot"])
        #expect(result.kept["d9"] == ["last snapshot", "weekly snapshot"])
        #expect(Set(result.kept.keys) == ["d10", "d9"])
    }

    @Test func snapshotsOfOneTimeAreOrderedByIdAsTheLatestIs() {
        let time = Self.date("2026-06-01 10:00")
        let snapshots = [Self.snapshot("bb", time), Self.snapshot("aa", time), Self.snapshot("cc", time)]
        let result = Self.decide(RetentionPolicy(last: 1), snapshots)
        #expect(Array(result.kept.keys) == ["cc"])
        #expect(result.removed == ["aa", "bb"])
        // The same choice the repository makes for "the latest".
        #expect(snapshots.sorted(by: RetentionPolicy.newerFirst).first?.id == "cc")
    }

    @Test func daysAreLocalCalendarDaysAcrossAChangeToSummerTime() {
        // 29 March 2026 in Berlin is 23 hours long (02:00 CET became 03:00 CEST).
        let snapshots = [
            Self.snapshot("28-late", Self.date("2026-03-28 23:30", Self.berlin)),
            Self.snapshot("29-early", Self.date("2026-03-29 00:30", Self.berlin)),
            Self.snapshot("29-late", Self.date("2026-03-29 23:30", Self.berlin)),
            Self.snapshot("30-early", Self.date("2026-03-30 00:10", Self.berlin)),
        ]
        let berlin = Self.decide(RetentionPolicy(daily: 2), snapshots, zone: Self.berlin)
        #expect(Set(berlin.kept.keys) == ["30-early", "29-late"])
        // In UTC the same instants fall on other days: 30-early and 29-late on the 29th (22:10 and
        // 21:30), 29-early and 28-late on the 28th (23:30 and 22:30).
        let utc = Self.decide(RetentionPolicy(daily: 2), snapshots, zone: Self.utc)
        #expect(Set(utc.kept.keys) == ["30-early", "29-early"])
    }

    @Test func withinCountsCalendarDaysSoADayAcrossSummerTimeIs23Hours() {
        let latest = Self.date("2026-03-29 12:00", Self.berlin)  // CEST
        let snapshots = [
            Self.snapshot("latest", latest),
            Self.snapshot("22.5h", latest.addingTimeInterval(-22.5 * 3600)),
            Self.snapshot("23.5h", latest.addingTimeInterval(-23.5 * 3600)),
        ]
        let result = Self.decide(
            RetentionPolicy(within: RetentionDuration(days: 1)), snapshots, zone: Self.berlin)
        #expect(Set(result.kept.keys) == ["latest", "22.5h"])
        #expect(result.kept["22.5h"] == ["within 1d"])
        #expect(result.removed == ["23.5h"])
    }

    @Test func hoursRepeatedWhenSummerTimeEndsAreOneBucket() {
        // 25 October 2026 in Berlin: 02:00–03:00 happens twice (CEST, then CET).
        let first = Self.date("2026-10-25 00:30", Self.utc)  // 02:30 CEST
        let snapshots = [
            Self.snapshot("01:30", first.addingTimeInterval(-3600)),
            Self.snapshot("02:30 CEST", first),
            Self.snapshot("02:30 CET", first.addingTimeInterval(3600)),
        ]
        let result = Self.decide(RetentionPolicy(hourly: 10), snapshots, zone: Self.berlin)
        #expect(Set(result.kept.keys) == ["02:30 CET", "01:30"])
        #expect(result.removed == ["02:30 CEST"])
    }

    @Test(arguments: [
        (2026, 12, 31, 2026, 53), (2027, 1, 1, 2026, 53), (2027, 1, 3, 2026, 53), (2027, 1, 4, 2027, 1),
        (2024, 12, 30, 2025, 1), (2021, 1, 3, 2020, 53), (2020, 12, 31, 2020, 53), (2026, 1, 1, 2026, 1),
        (2000, 2, 29, 2000, 9),
    ])
    func isoWeeksBelongToTheYearOfTheirThursday(_ fields: (Int, Int, Int, Int, Int)) {
        let week = BucketTime.isoWeek(year: fields.0, month: fields.1, day: fields.2)
        #expect(week.year == fields.3)
        #expect(week.week == fields.4)
    }

    @Test func weeklyBucketsSpanTheTurnOfTheYear() {
        let snapshots = [
            Self.snapshot("dec-20", Self.date("2026-12-20 12:00")),
            Self.snapshot("dec-31", Self.date("2026-12-31 12:00")),
            Self.snapshot("jan-01", Self.date("2027-01-01 12:00")),
            Self.snapshot("jan-03", Self.date("2027-01-03 12:00")),
            Self.snapshot("jan-04", Self.date("2027-01-04 12:00")),
        ]
        let result = Self.decide(RetentionPolicy(weekly: 2), snapshots)
        // jan-04 opens week 1 of 2027; jan-03, jan-01 and dec-31 are all week 53 of 2026.
        #expect(Set(result.kept.keys) == ["jan-04", "jan-03"])
        let yearly = Self.decide(RetentionPolicy(yearly: 1), snapshots)
        #expect(Set(yearly.kept.keys) == ["jan-04"])
    }

    @Test func withinIsRelativeToTheNewestSnapshotNotInTheFuture() {
        let now = Self.date("2026-07-01 12:00")
        let snapshots = [
            Self.snapshot("future", Self.date("2030-01-01 00:00")),
            Self.snapshot("now", Self.date("2026-07-01 11:00")),
            Self.snapshot("2d2h", Self.date("2026-06-29 09:30")),
            Self.snapshot("2d4h", Self.date("2026-06-29 07:00")),
        ]
        let duration = try? RetentionDuration(parsing: "2d3h")
        let result = Self.decide(RetentionPolicy(within: duration), snapshots, now: now)
        #expect(Set(result.kept.keys) == ["future", "now", "2d2h"])
        #expect(result.removed == ["2d4h"])
    }

    @Test func monthsThatRunOverCarryIntoTheNextAsRestics() {
        let latest = Self.date("2026-03-31 12:00")
        // A month before 31 March is "31 February", 3 March.
        let start = RetentionDuration(months: 1).start(before: latest, calendar: Self.calendar(Self.utc))
        #expect(start == Self.date("2026-03-03 12:00"))
        let yearBack = RetentionDuration(years: 1, hours: 2).start(
            before: Self.date("2024-02-29 12:00"), calendar: Self.calendar(Self.utc))
        #expect(yearBack == Self.date("2023-03-01 10:00"))
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test func groupsAreOneDeviceAndOneSetOfApps() {
        let time = Self.date("2026-06-01 10:00")
        let snapshots = [
            Self.snapshot("p1", time, host: "phone"), Self.snapshot("p2", time.addingTimeInterval(60), host: "phone"),
            Self.snapshot("t1", time, host: "tablet"), Self.snapshot("t2", time.addingTimeInterval(60), host: "tablet"),
            Self.snapshot("m1", time, apps: ["com.example.notes", "com.example.mail"]),
        ]
        let groups = RetentionPolicy(last: 1).apply(to: snapshots, timeZone: Self.utc)
        #expect(groups.count == 3)
        #expect(Set(groups.flatMap { $0.kept.map(\.snapshot.id) }) == ["p2", "t2", "m1"])
        #expect(Set(groups.flatMap { $0.removed.map(\.id) }) == ["p1", "t1"])
        #expect(groups.contains { $0.apps == ["com.example.mail", "com.example.notes"] })
    }

    /// Sandbox homes on one host without a device key yet (a fleet on one machine) are devices
    /// of their own: `--keep-last 1` keeps the last of each.
    @Test func homesOfOneHostWithoutAKeyAreGroupsOfTheirOwn() {
        let time = Self.date("2026-06-01 10:00")
        var snapshots: [Snapshot] = []
        for device in 0..<4 {
            for minute in 0..<2 {
                var snapshot = Self.snapshot(
                    "d\(device)-\(minute)", time.addingTimeInterval(Double(device * 2 + minute) * 60))
                snapshot.record.home = "/fleet/device-\(device)"
                snapshots.append(snapshot)
            }
        }
        let groups = RetentionPolicy(last: 1).apply(to: snapshots, timeZone: Self.utc)
        #expect(Set(groups.flatMap { $0.kept.map(\.snapshot.id) }) == ["d0-1", "d1-1", "d2-1", "d3-1"])
        #expect(groups.map(\.host).sorted() == (0..<4).map { "phone:/fleet/device-\($0)" })
    }

    @Test func noRuleIsRefusedRatherThanRemovingEverything() {
        #expect(RetentionPolicy().isEmpty)
        #expect(RetentionPolicy(within: RetentionDuration()).isEmpty)
        #expect(failure { () throws(SandboxError) in try RetentionPolicy().validate() }?.code == .invalidArgument)
        #expect(
            failure { () throws(SandboxError) in try RetentionPolicy(last: 1, daily: -1).validate() }?.code
                == .invalidArgument)
        #expect(failure { () throws(SandboxError) in try RetentionPolicy(hourly: 1).validate() } == nil)
    }

    @Test func durationsParseAsRestics() throws {
        #expect(try RetentionDuration(parsing: "2d3h") == RetentionDuration(days: 2, hours: 3))
        #expect(try RetentionDuration(parsing: "1y5m7d2h") == RetentionDuration(years: 1, months: 5, days: 7, hours: 2))
        #expect(try RetentionDuration(parsing: "36h").description == "36h")
        #expect(try RetentionDuration(parsing: "3h2d").description == "2d3h")
        for bad in ["", "3", "3x", "2d2d", "d", "1000001d", "-1d", "1.5d", "２d"] {
            let error = failure { () throws(SandboxError) in _ = try RetentionDuration(parsing: bad) }
            #expect(error?.code == .invalidArgument, "\(bad)")
        }
    }
}
