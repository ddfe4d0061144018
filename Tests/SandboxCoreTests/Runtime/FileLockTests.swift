import Foundation
import Glibc
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxCore

/// The runtime's lock file against a real process that holds `flock` (util-linux's `flock(1)`):
/// a bounded wait gives up at its deadline, a holder that dies frees the lock, and a lock file
/// inside a container is opened through its root.
@Suite struct FileLockTests {
    /// Starts a process that locks `path` with `flock <mode>` on its descriptor 9 and then sleeps,
    /// and waits until it holds the lock. One process holds it (the shell becomes `sleep`), so a
    /// SIGKILL to it frees the lock.
    static func holder(_ mode: String, _ path: String, in scratch: ScratchDirectory) async throws -> RunningProgram {
        let ready = scratch.path + "/held\(mode)"
        let program = try BuiltProgram(path: "/bin/sh").start(
            ["-c", "exec 9>'\(path)'; /usr/bin/flock \(mode) 9; touch '\(ready)'; exec sleep 600"],
            outputIn: scratch.path)
        let held = await eventually { FileManager.default.fileExists(atPath: ready) }
        if !held { program.signal(SIGKILL) }
        try #require(held, "flock(1) never took the lock")
        return program
    }

    @Test func aBoundedWaitGivesUpAtItsDeadlineWhileAnotherProcessHoldsTheLock() async throws {
        let scratch = try ScratchDirectory.make(prefix: "file-lock")
        let path = scratch.path + "/lock"
        let holder = try await Self.holder("-x", path, in: scratch)
        defer { holder.signal(SIGKILL) }
        let lock = try FileLock(hostPath: path)
        #expect(try !lock.tryLock(.exclusive))
        #expect(try !lock.tryLock(.shared))

        // Suspended between tries.
        var start = ContinuousClock.now
        #expect(try await !lock.lock(.exclusive, until: start + .milliseconds(300)))
        #expect(ContinuousClock.now - start >= .milliseconds(300))

        // Sleeping between tries, on a thread of our own.
        let outcome = Mutex<Result<Bool, SandboxError>?>(nil)
        start = ContinuousClock.now
        try OwnedThread.detached(name: "rt-lock-wait") {
            let result = Result { () throws(SandboxError) in try lock.lock(.shared, until: .now + .milliseconds(300)) }
            outcome.withLock { $0 = result }
        }
        #expect(await eventually(timeout: .seconds(60)) { outcome.withLock { $0 != nil } })
        #expect(try outcome.withLock { $0 }?.get() == false)
        #expect(ContinuousClock.now - start >= .milliseconds(300))

        // The holder dies (SIGKILL): the kernel frees its lock, and a wait now succeeds.
        holder.signal(SIGKILL)
        _ = await holder.exit
        #expect(try await lock.lock(.exclusive, until: .now + .seconds(60)))
        lock.unlock()
    }

    @Test func sharedHoldersShareAndExcludeAWriter() async throws {
        let scratch = try ScratchDirectory.make(prefix: "file-lock")
        let path = scratch.path + "/lock"
        let holder = try await Self.holder("-s", path, in: scratch)
        defer { holder.signal(SIGKILL) }
        let lock = try FileLock(hostPath: path)
        #expect(try !lock.tryLock(.exclusive))
        #expect(try lock.tryLock(.shared))
        lock.unlock()
    }

    @Test func theLockHeldForALifetimeEndsWithItsValue() async throws {
        let scratch = try ScratchDirectory.make(prefix: "file-lock")
        let path = scratch.path + "/pid"
        var first: FileLock? = try FileLock(hostPath: path)
        #expect(try first?.tryLock(.exclusive) == true)
        first?.replaceContents(with: Array("42\n".utf8))
        let second = try FileLock(hostPath: path)
        #expect(try !second.tryLock(.exclusive))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "42\n")
        first = nil
        // A bounded wait, not a try: a process another test spawns at this moment holds the lock's
        // open file description from its clone to its exec (O_CLOEXEC closes it only then), and a
        // full run saw the try fail once. Without the release the wait ends false after 10 s.
        #expect(try await second.lock(.exclusive, until: .now + .seconds(10)))
        second.unlock()
    }

    @Test func aLockFileInAContainerIsOpenedBeneathItsRootAndASymlinkOutIsRefused() throws {
        let directory = try TemporaryDirectory()
        let root = try ConfinedRoot(openingDirectoryAt: directory.container)
        let lock = try FileLock(root: root, path: ContainerPath(constant: ".lock"))
        #expect(try lock.tryLock(.exclusive))
        #expect(FileManager.default.fileExists(atPath: directory.container + "/.lock"))
        #expect(symlink(directory.secret, directory.container + "/escape") == 0)
        #expect(throws: SandboxError.self) { try FileLock(root: root, path: ContainerPath(constant: "escape")) }
        #expect(
            try Array(Data(contentsOf: URL(fileURLWithPath: directory.secret))) == TemporaryDirectory.secretContents)
    }

    @Test func aHostPathThatCannotBeOpenedIsAnError() {
        #expect(throws: SandboxError.self) { try FileLock(hostPath: "/proc/no-such-folder/lock") }
    }
}
