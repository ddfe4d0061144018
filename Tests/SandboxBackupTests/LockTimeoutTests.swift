import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxBackup

/// An app that holds a lock for ever — its preferences' `flock`, a write transaction on its
/// database — costs the backup at most the lock timeout: the item is left out with a warning
/// naming the app and the item, the snapshot records it, and every other app is backed up.
@Suite struct LockTimeoutTests {
    static let other = BackupFixture.identifier("com.example.other")

    /// Runs a backup of both apps on a thread of its own, so that a backup that hangs fails the
    /// test instead of holding a thread of the cooperative pool.
    static func backUp(_ fixture: BackupFixture, timeout: Duration) async throws -> BackupReport {
        let outcome = Mutex<Result<BackupReport, SandboxError>?>(nil)
        let home = fixture.home
        let repository = try fixture.repository()
        let thread = Thread {
            let result = Result { () throws(SandboxError) in
                try Backup.run(
                    apps: [BackupFixture.app, Self.other], from: home, to: repository,
                    options: BackupOptions(lockTimeout: .seconds(1)))
            }
            outcome.withLock { $0 = result }
        }
        thread.start()
        let ended = await eventually(timeout: timeout) { outcome.withLock { $0 != nil } }
        try #require(ended, "the backup still waits after \(timeout)")
        return try #require(outcome.withLock { $0 }).get()
    }

    /// Starts `arguments` as "the app" and waits until it says it holds its lock.
    static func holdLock(
        _ fixture: BackupFixture, _ program: String, _ arguments: [String], ready: String
    )
        async throws -> RunningProgram
    {
        let app = try BuiltProgram(path: program).start(arguments, outputIn: fixture.scratch.path)
        let held = await eventually { FileManager.default.fileExists(atPath: ready) }
        if !held { app.signal(SIGKILL) }
        let stderr = (try? app.standardError()) ?? ""
        try #require(held, "the app never took its lock: \(stderr)")
        return app
    }

    func checkIncomplete(_ fixture: BackupFixture, _ report: BackupReport, item: String) throws {
        let expected = "\(BackupFixture.app): \(item)"
        #expect(report.incomplete == [expected])
        #expect(report.warnings.contains { $0.contains("'\(BackupFixture.app)'") && $0.contains(item) })
        let repository = try fixture.repository()
        let snapshot = try repository.snapshot(matching: nil)
        #expect(snapshot.record.incompleteItems == [expected])
        #expect(snapshot.record.apps.map(\.app).sorted() == [BackupFixture.app.rawValue, Self.other.rawValue])
        let check = try Checker.check(repository, readingData: false)
        #expect(check.isHealthy)
        #expect(check.warnings.contains { $0.contains(snapshot.shortID) && $0.contains(expected) })
    }

    @Test func preferencesLockedForEverAreLeftOutAfterTheTimeout() async throws {
        try await BackupFixture.with { fixture in
            let preferences = "Library/Preferences/\(BackupFixture.app).plist"
            try fixture.write(preferences, Array("<plist/>".utf8))
            _ = try fixture.home.createContainer(for: Self.other)
            let ready = fixture.scratch.appending("locked")
            let lock = fixture.hostPath("Library/Preferences/.\(BackupFixture.app).plist.lock")
            let app = try await Self.holdLock(
                fixture, "/usr/bin/flock", ["-x", lock, "/bin/sh", "-c", "touch '\(ready)'; exec sleep 600"],
                ready: ready)
            defer { app.signal(SIGKILL) }
            let report = try await Self.backUp(fixture, timeout: .seconds(60))
            try checkIncomplete(fixture, report, item: preferences)
        }
    }

    @Test func aDatabaseLockedForEverIsLeftOutAfterTheTimeout() async throws {
        try await BackupFixture.with { fixture in
            let item = "Library/Application Support/app.sqlite"
            try fixture.write("Library/Application Support/.keep", [])
            _ = try fixture.home.createContainer(for: Self.other)
            let ready = fixture.scratch.appending("locked")
            let script = """
                import sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("CREATE TABLE t (v)")
                db.execute("BEGIN EXCLUSIVE"); db.execute("INSERT INTO t VALUES (1)")
                open(sys.argv[2], "w").close(); time.sleep(600)
                """
            let app = try await Self.holdLock(
                fixture, "/usr/bin/python3", ["-c", script, fixture.hostPath(item), ready], ready: ready)
            defer { app.signal(SIGKILL) }
            let report = try await Self.backUp(fixture, timeout: .seconds(60))
            try checkIncomplete(fixture, report, item: item)
        }
    }
}
