import Glibc
import Testing

@testable import SandboxWatch

@Suite("Parsing, settling and bounded delivery")
struct ParserAndBuffersTests {
    /// One `struct inotify_event` with its name NUL-padded to `padded` bytes.
    func record(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: String = "", padded: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [UInt32(bitPattern: watch), mask, cookie, UInt32(padded)] {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        var nameBytes = Array(name.utf8)
        nameBytes += [UInt8](repeating: 0, count: padded - nameBytes.count)
        return bytes + nameBytes
    }

    @Test("records are decoded in order, names unpadded, overflow kept")
    func parse() {
        let bytes =
            record(watch: 1, mask: 0x100, name: "a.txt", padded: 16)
            + record(watch: 2, mask: 0x40, cookie: 77, name: "b", padded: 16)
            + record(watch: -1, mask: 0x4000)
            + record(watch: 1, mask: 0x400)
        let events = bytes.withUnsafeBytes { InotifyParser.parse($0) }
        #expect(
            events == [
                InotifyEvent(watch: 1, mask: .create, name: FileName(uncheckedBytes: "a.txt".utf8)),
                InotifyEvent(watch: 2, mask: .movedFrom, cookie: 77, name: FileName(uncheckedBytes: "b".utf8)),
                InotifyEvent(watch: -1, mask: .queueOverflow),
                InotifyEvent(watch: 1, mask: .deleteSelf),
            ])
        let truncated = Array(bytes.dropLast(3))
        #expect(truncated.withUnsafeBytes { InotifyParser.parse($0) }.count == 3)
    }

    @Test("the settler fires after a quiet spell, or at the latest after the maximum delay")
    func settler() {
        let t0 = ContinuousClock.now
        var settler = Settler(settle: .milliseconds(50), maximumDelay: .milliseconds(500))
        #expect(settler.deadline == nil)
        settler.noteActivity(at: t0)
        settler.noteActivity(at: t0 + .milliseconds(30))
        #expect(settler.deadline == t0 + .milliseconds(80))
        let early = settler.fire(at: t0 + .milliseconds(79))
        let due = settler.fire(at: t0 + .milliseconds(80))
        #expect(!early && due)
        #expect(settler.deadline == nil)
        for step in 0..<20 { settler.noteActivity(at: t0 + .milliseconds(1_000 + step * 40)) }
        #expect(settler.deadline == t0 + .milliseconds(1_500))
    }

    @Test("a consumer that falls behind the buffer gets one overflow marker, then events again")
    func boundedDelivery() async {
        let (stream, continuation) = AsyncStream.makeStream(of: FolderEvent.self, bufferingPolicy: .bufferingOldest(2))
        var delivery = EventDelivery(continuation: continuation)
        let now = ContinuousClock.now
        for name in ["a", "b", "c", "d"] { delivery.deliver(.ready(ContainerPath(stringLiteral: name)), at: now) }
        #expect(delivery.isBehind)
        delivery.retry(at: now + .milliseconds(20))
        #expect(delivery.isBehind)  // still full: retried later, backing off
        #expect(delivery.retryAt == now + .milliseconds(60))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .ready("a"))
        #expect(await iterator.next() == .ready("b"))
        delivery.deliver(.ready("e"), at: now + .milliseconds(30))  // not due: dropped, the marker covers it
        delivery.deliver(.ready("f"), at: now + .milliseconds(60))
        #expect(!delivery.isBehind)
        delivery.finish()
        #expect(await iterator.next() == .overflow)
        #expect(await iterator.next() == .ready("f"))
        #expect(await iterator.next() == nil)
    }

    @Test("the model moves and removes whole subtrees")
    func model() {
        var model = FolderModel(root: "D", tracksSubdirectories: true)
        let inserted = [
            model.insert("D/a", isDirectory: true),
            model.insert("D/a/b", isDirectory: true),
            model.insert("D/a/b/f", isDirectory: false),
            model.insert("D/x/y", isDirectory: false),  // unknown parent
        ]
        #expect(inserted == [true, true, true, false])
        let moved = model.move("D/a", to: "D/z")
        #expect(moved.map(\.new) == ["D/z", "D/z/b"] as [ContainerPath])
        #expect(model.contains("D/z/b/f") && !model.contains("D/a"))
        let removed = model.remove("D/z")
        #expect(removed == ["D/z", "D/z/b"] as [ContainerPath])
        #expect(model.count == 0)
    }

    @Test("limit errors name the sysctl to raise")
    func limitMessages() {
        let watches = SandboxError.inotifyWatch(errno: ENOSPC, path: "Documents/big")
        #expect(watches.code == .noSpace)
        #expect(watches.message.contains("/proc/sys/fs/inotify/max_user_watches"))
        let instances = SandboxError.inotifyInstance(errno: EMFILE)
        #expect(instances.code == .tooManyOpenFiles)
        #expect(instances.message.contains("/proc/sys/fs/inotify/max_user_instances"))
        #expect(InotifyLimits.read("max_queued_events") ?? 0 > 0)
    }
}
