import Glibc
import Synchronization
import Testing

@testable import SandboxCore

/// `SharedDescriptor`'s leases, counted per CPU: a descriptor is closed once, by whoever ends the
/// last lease, and never while a call is using it.
@Suite("I/O descriptor leases")
struct DescriptorLeaseTests {
    @Test("close waits for the last lease, refuses new ones, and releases once")
    func deferredClose() throws {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let releases = Mutex(0)
        let descriptor = SharedDescriptor(taking: fd, path: "/dev/null") { _ in releases.withLock { $0 += 1 } }
        try descriptor.use { outer throws(SandboxError) in
            try descriptor.use { inner throws(SandboxError) in
                let requested = try descriptor.close()  // two leases held: deferred
                #expect(requested && descriptor.isClosed)
                #expect(fcntl(inner, F_GETFD) >= 0)
            }
            #expect(fcntl(outer, F_GETFD) >= 0)  // still leased by this call
            #expect(releases.withLock { $0 } == 0)
            #expect(throws: SandboxError.self) { try descriptor.use { _ throws(SandboxError) in } }
            let again = try descriptor.close()
            #expect(!again)
        }
        #expect(releases.withLock { $0 } == 1)  // the last lease closed it

        let idleFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(idleFD >= 0)
        let idle = SharedDescriptor(taking: idleFD, path: "/dev/null") { _ in releases.withLock { $0 += 1 } }
        let first = try idle.close()
        let second = try idle.close()
        #expect(first && !second && releases.withLock { $0 } == 2)
    }

    @Test("a stale reader never reads the file that reuses a closed descriptor's number")
    func closeUnderReaders() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("old", [UInt8](repeating: 0xAA, count: 4096))
        try fixture.hostWrite("new", [UInt8](repeating: 0xBB, count: 4096))
        let rounds = 60
        let readers = 3
        let failures = Mutex<[String]>([])
        for round in 0..<rounds {
            let fd = open(fixture.host("old"), O_RDONLY | O_CLOEXEC)
            try #require(fd >= 0)
            let counts = ReaderCounts()
            let descriptor = SharedDescriptor(taking: fd, path: "old") { _ in
                if counts.inFlight.load(ordering: .sequentiallyConsistent) != 0 {
                    failures.withLock { $0.append("round \(round): closed while a read was in flight") }
                }
            }
            var threads: [PeerThread] = []
            for _ in 0..<readers {
                threads.append(
                    PeerThread {
                        readUntilClosed(descriptor, counts: counts) { message in
                            failures.withLock { $0.append("round \(round): \(message)") }
                        }
                    })
            }
            let newPath = fixture.host("new")
            let newFD = Atomic<CInt>(-1)
            threads.append(
                PeerThread {
                    // Close once the readers are going, then take the lowest free number at once:
                    // the closed descriptor's, when nothing else in the process took it first.
                    let deadline = ContinuousClock.now + .seconds(60)
                    while counts.reads.load(ordering: .relaxed) < 200 && ContinuousClock.now < deadline {
                        sched_yield()
                    }
                    _ = try? descriptor.close()  // a close(2) error would go to the release handler
                    newFD.store(open(newPath, O_RDONLY | O_CLOEXEC), ordering: .relaxed)
                })
            for thread in threads { await thread.join() }
            // The new file stayed open until every reader had stopped, so a stale read would have
            // found it. (A close under the leases reused the number in every round; a correct one
            // frees it only after the last read, so the new file mostly gets another number.)
            let opened = newFD.load(ordering: .relaxed)
            if opened >= 0 { close(opened) }
        }
        #expect(failures.withLock { $0 } == [])
    }
}

/// What a round's readers share.
private final class ReaderCounts: Sendable {
    /// Readers inside a leased call now.
    let inFlight = Atomic<Int>(0)
    /// Reads done.
    let reads = Atomic<Int>(0)
}

/// Reads 4 KiB from the start of `descriptor` until it is closed, reporting any byte that is not
/// the old file's and any descriptor that is no longer open while leased.
private func readUntilClosed(_ descriptor: SharedDescriptor, counts: ReaderCounts, fail: (String) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        do {
            let message = try descriptor.use { fd throws(SandboxError) -> String? in
                counts.inFlight.add(1, ordering: .sequentiallyConsistent)
                defer { counts.inFlight.subtract(1, ordering: .sequentiallyConsistent) }
                let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, 0) }
                if read != 4096 { return "a leased read returned \(read) (errno \(errno))" }
                return buffer.allSatisfy { $0 == 0xAA } ? nil : "a leased read saw another file's bytes"
            }
            counts.reads.add(1, ordering: .relaxed)
            if let message {
                fail(message)
                return
            }
        } catch {
            return  // closed: the reader stops
        }
    }
}
