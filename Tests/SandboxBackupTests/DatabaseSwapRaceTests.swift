import Foundation
import GRDB
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// An app that renames a symlink to another app's database over its own database, again and
/// again, while its container is backed up, gets nothing of the other app's database into its
/// snapshot: the backup copies the file it checked (a descriptor), never a path.
@Suite struct DatabaseSwapRaceTests {
    static let attacker = BackupFixture.identifier("com.example.attacker")
    static let secret = Array("VICTIM-SECRET-4f1c".utf8)

    @Test func aSymlinkSwappedOverADatabaseNeverBringsInAnotherAppsDatabase() async throws {
        try await BackupFixture.with { fixture in
            // The victim's database, and the attacker's own, both real.
            let victim = fixture.hostPath("Library/Application Support/secret.sqlite")
            try fixture.write("Library/Application Support/.keep", [])
            let database = try DatabaseQueue(path: victim)
            try await database.write { db in
                try db.execute(
                    sql: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES (?)",
                    arguments: [String(decoding: Self.secret, as: UTF8.self)])
            }
            try database.close()
            let container = try fixture.home.createContainer(for: Self.attacker)
            let own = try DatabaseQueue(path: container.homeDirectory + "/tmp/original.sqlite")
            try await own.write { db in try db.execute(sql: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('mine')") }
            try own.close()
            // The app: watches its database (inotify) and, the moment a reader closes it — the
            // backup's check — renames a symlink to the victim's database over it (from `tmp`,
            // which no backup reads); 20 ms later, a fresh copy of its own database again.
            let script = """
                import ctypes, os, shutil, sys, time
                libc = ctypes.CDLL(None, use_errno=True)
                os.chdir(sys.argv[1]); victim = sys.argv[2]
                def own():
                    shutil.copyfile("tmp/original.sqlite", "tmp/r"); os.rename("tmp/r", "Documents/db.sqlite")
                own()
                watch = libc.inotify_init()
                open("tmp/ready", "w").close()
                while True:
                    wd = libc.inotify_add_watch(watch, b"Documents/db.sqlite", 0x10)  # IN_CLOSE_NOWRITE
                    while int.from_bytes(os.read(watch, 4096)[0:4], "little", signed=True) != wd: pass
                    libc.inotify_rm_watch(watch, wd)
                    os.symlink(victim, "tmp/l"); os.rename("tmp/l", "Documents/db.sqlite")
                    with open("tmp/swaps", "a") as swaps: swaps.write("x")
                    time.sleep(0.02); own()
                """
            let app = try BuiltProgram(path: "/usr/bin/python3").start(
                ["-c", script, container.homeDirectory, victim], outputIn: fixture.scratch.path)
            defer { app.signal(SIGKILL) }
            #expect(await eventually { FileManager.default.fileExists(atPath: container.homeDirectory + "/tmp/ready") })
            let repository = try fixture.repository()
            var leaks = 0
            var failures: [String] = []
            var ownInfo = stat()
            for _ in 0..<10 {
                // Each backup starts while the app's own database is in place.
                #expect(
                    await eventually {
                        lstat(ownDatabase(in: container), &ownInfo) == 0 && ownInfo.st_mode & S_IFMT == S_IFREG
                    })
                do {
                    let report = try await Backup.run(apps: [Self.attacker], from: fixture.home, to: repository)
                    let snapshot = try await repository.snapshot(matching: String(report.snapshot.prefix(8)))
                    let part = try #require(snapshot.record.apps.first)
                    let nodes = try JSONDecoder.repository.decode(
                        [TreeNode].self, from: Data(try repository.loadSplit(part.tree)))
                    for node in nodes where node.kind == .file {
                        let bytes = try repository.loadSplit(node.chunks ?? [])
                        if Self.contains(bytes, Self.secret) { leaks += 1 }
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(leaks == 0, "the victim's database landed in \(leaks) of the attacker's snapshots")
            #expect(failures.isEmpty, "backups failed: \(failures)")
            #expect(app.isRunning)
            let swaps = (try? String(contentsOfFile: container.homeDirectory + "/tmp/swaps", encoding: .utf8)) ?? ""
            #expect(!swaps.isEmpty, "the app never swapped its database: the race was not run")
        }
    }

    func ownDatabase(in container: Container) -> String { container.homeDirectory + "/Documents/db.sqlite" }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return true
            }
            index += 1
        }
        return false
    }
}
