import CSandboxShims
import Foundation
import GRDB
import Glibc
import SandboxStore
import SandboxTesting
import Synchronization
import Testing

/// An app running at the same time as the host process (under `sandbox run`) swaps a symlink to
/// another app's database, or to its folder, in and out of its own while the host opens the app's
/// database, over and over: the host must never open the other app's database, nor touch its files.
@Suite("SQLite databases against an app that swaps symlinks in")
struct DatabaseRaceTests {
    static let victim = Fixture.appIdentifier("com.example.victim")
    /// How many times the host opens the attacker's database, within ``deadline``.
    static let attempts = 600
    static let deadline = Duration.seconds(60)
    /// How long the attacker leaves its real database (or folder) in place between two swaps.
    static let realHold = Duration.microseconds(200)

    @Test("a symlink to another app's database swapped over the database never opens it")
    func symlinkOverTheDatabase() async throws {
        try await Fixture.with { fixture in
            let scene = try await onOwnThread { try Scene(fixture) }
            let folder = fixture.container.hostPath(for: .applicationSupport)
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/.link", withDestinationPath: scene.victimFolder + "/notes.sqlite")
            let outcome = try await scene.race(exchanging: folder + "/notes.sqlite", with: folder + "/.link")
            try scene.expectNothingLeaked(outcome)
        }
    }

    @Test("a symlink to another app's folder swapped over Application Support never opens its database")
    func symlinkOverTheFolder() async throws {
        try await Fixture.with { fixture in
            let scene = try await onOwnThread { try Scene(fixture) }
            let library = fixture.container.hostPath(for: .library)
            try FileManager.default.createSymbolicLink(
                atPath: library + "/.folder", withDestinationPath: scene.victimFolder)
            let outcome = try await scene.race(
                exchanging: library + "/Application Support", with: library + "/.folder")
            try scene.expectNothingLeaked(outcome)
        }
    }

    @Test("a symlink renamed over the database while its pool lives is not followed by readers opened later")
    func symlinkBeforeALaterReader() async throws {
        try await Fixture.with { fixture in
            let (tables, refusal, unchanged) = try await onOwnThread { () throws -> ([String]?, ResultCode?, Bool) in
                let scene = try Scene(fixture)
                let folder = fixture.container.hostPath(for: .applicationSupport)
                let pool = try fixture.container.database(named: "notes.sqlite")
                // No reader left open and an empty WAL: a reader opened on another main file would
                // read that file's own pages.
                pool.releaseMemory()
                _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
                try FileManager.default.createSymbolicLink(
                    atPath: folder + "/.link", withDestinationPath: scene.victimFolder + "/notes.sqlite")
                guard rename(folder + "/.link", folder + "/notes.sqlite") == 0 else {
                    throw TestFailure("rename: \(String(cString: strerror(errno)))")
                }
                var tables: [String]?
                var refusal: ResultCode?
                do {
                    tables = try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") }
                } catch let error as DatabaseError {
                    refusal = error.resultCode.primaryResultCode
                }
                return (tables, refusal, try FileState.all(in: scene.victimFolder) == scene.victimFiles)
            }
            #expect(tables == nil, "the reader opened a database through the symlink")
            #expect(refusal == .SQLITE_CANTOPEN)
            #expect(unchanged)
        }
    }
}

/// The victim's database (a table `secret`), the attacker's own (`notes.sqlite`, a table `note`),
/// and the race between the attacker's swaps and the host's opens.
private struct Scene {
    let fixture: Fixture
    let victimFolder: String
    let victimFiles: [String: FileState]

    init(_ fixture: Fixture) throws {
        self.fixture = fixture
        let victim = try fixture.home.createContainer(for: DatabaseRaceTests.victim)
        try victim.database(named: "notes.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE secret (value TEXT)")
            try db.execute(sql: "INSERT INTO secret (value) VALUES ('the victim''s')")
        }
        try fixture.container.database(named: "notes.sqlite").write { db in
            try db.execute(sql: "CREATE TABLE note (title TEXT)")
        }
        victimFolder = victim.hostPath(for: .applicationSupport)
        victimFiles = try FileState.all(in: victimFolder)
    }

    /// What the host saw: databases opened that were the attacker's own, opens refused, and opens
    /// that showed the victim's `secret` table.
    struct Outcome: Sendable {
        var own = 0
        var refused = 0
        var leaked = 0
        var swaps = 0
    }

    /// Exchanges `first` and `second` (`renameat2(RENAME_EXCHANGE)`) on a thread of its own, as
    /// fast as it can, while the host opens the attacker's database ``DatabaseRaceTests/attempts``
    /// times on another.
    ///
    /// Both threads are started from one thread of the test's, and the opens begin once the first
    /// swap is made: a swapper started as a task first waits for a thread of the cooperative pool,
    /// which the other suites of the process may hold for the whole minute of opens (seen in a full
    /// run: no swap at all, and a race that never happened).
    func race(exchanging first: String, with second: String) async throws -> Outcome {
        let container = fixture.container
        return try await onOwnThread { () throws -> Outcome in
            let swapper = Swapper()
            let thread = Thread { swapper.run(exchanging: first, with: second) }
            thread.start()
            defer { swapper.stopAndWait() }
            guard swapper.waitForTheFirstSwap(timeout: .seconds(60)) else {
                throw TestFailure("the swapper made no swap in 60 s: \(swapper.failure ?? "no error")")
            }
            var outcome = Outcome()
            let deadline = ContinuousClock.now + DatabaseRaceTests.deadline
            for _ in 0..<DatabaseRaceTests.attempts where ContinuousClock.now < deadline {
                do {
                    let pool = try container.database(named: "notes.sqlite")
                    let tables = try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") }
                    if tables.contains("secret") { outcome.leaked += 1 } else { outcome.own += 1 }
                } catch {
                    outcome.refused += 1  // the swap was caught: what counts is that nothing leaked
                }
            }
            swapper.stopAndWait()
            if let failure = swapper.failure { throw TestFailure(failure) }
            outcome.swaps = swapper.swaps.load(ordering: .acquiring)
            return outcome
        }
    }

    func expectNothingLeaked(_ outcome: Outcome) throws {
        let counts = "\(outcome.own) own, \(outcome.refused) refused, \(outcome.leaked) leaked, \(outcome.swaps) swaps"
        #expect(outcome.leaked == 0, "the victim's database was opened: \(counts)")
        #expect(outcome.own > 0, "the attacker's own database never opened: \(counts)")
        #expect(outcome.swaps > 0, "the attacker never swapped: \(counts)")
        let unchanged = try FileState.all(in: victimFolder) == victimFiles
        #expect(unchanged, "the victim's files changed: \(counts)")
    }
}

/// A file's bytes and modification time, to tell that nothing wrote it.
private struct FileState: Equatable {
    let bytes: [UInt8]
    let modified: [Int]

    /// Every file in `folder`, by name.
    static func all(in folder: String) throws -> [String: FileState] {
        var states: [String: FileState] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else {
                throw TestFailure("lstat \(path): \(String(cString: strerror(errno)))")
            }
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            states[name] = FileState(bytes: bytes, modified: [info.st_mtim.tv_sec, info.st_mtim.tv_nsec])
        }
        return states
    }
}

/// The attacker's thread: swaps until stopped, counting its swaps.
private final class Swapper: Sendable {
    let swaps = Atomic(0)
    private let stop = Atomic(false)
    private let finished = Atomic(false)
    private let error = Mutex<String?>(nil)

    var failure: String? { error.withLock { $0 } }

    func run(exchanging first: String, with second: String) {
        defer { finished.store(true, ordering: .releasing) }
        while !stop.load(ordering: .relaxed) {
            // The symlink in for as long as two system calls take, the real item for longer: the
            // host's checks mostly pass, and its opens now and then meet the symlink.
            for _ in 0..<2 {
                guard csb_renameat2(AT_FDCWD, first, AT_FDCWD, second, CSB_RENAME_EXCHANGE) == 0 else {
                    let message = "renameat2: \(String(cString: strerror(errno)))"
                    error.withLock { $0 = message }
                    return
                }
            }
            swaps.add(1, ordering: .releasing)
            let back = ContinuousClock.now + DatabaseRaceTests.realHold
            while ContinuousClock.now < back {}
        }
    }

    /// Whether a swap was made (or the swapper failed) within `timeout`.
    func waitForTheFirstSwap(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if swaps.load(ordering: .acquiring) > 0 { return true }
            if finished.load(ordering: .acquiring) { return false }
            usleep(1_000)
        }
        return false
    }

    /// Stops the swaps and waits for the thread to leave its loop (one swap at most: bounded).
    func stopAndWait() {
        stop.store(true, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }
}
