import Glibc
import Sandbox
import SandboxCore
import Synchronization
import SystemPackage

/// Writes a whole protected file to a descriptor: its header, then its sealed segments, with no
/// copy of the file in memory.
///
/// Segments are sealed in stripes of ``segmentsPerStripe`` into a few reused buffers: the I/O
/// engine's threads (never Swift's cooperative pool) seal the next stripes while the caller's thread writes
/// the one before to the file, so encryption overlaps the kernel's copy on a second core. A small
/// file is sealed and written on the caller's thread alone.
enum SealedFileStream {
    /// Segments per stripe: 1 MiB of 64 KiB segments, a size `write` takes in one call.
    static let segmentsPerStripe = 16
    /// Stripes sealed while one is written.
    static let stripesAhead = 2

    /// Writes `header` then `plaintext` sealed by `sealer` to `fd`, from offset 0.
    ///
    /// - Throws: the core's codes for a failed write (``/SandboxCore/SandboxError/Code/noSpace``, `io`, …),
    ///   and those of ``SegmentSealer/seal(_:index:final:into:)``. The stripes sealed ahead are
    ///   waited for before it returns or throws.
    static func write(
        _ plaintext: UnsafeRawBufferPointer, sealer: SegmentSealer, to fd: CInt, path: String
    ) throws(SandboxError) {
        try sealer.header.withUnsafeBytes { header in
            Result { () throws(SandboxError) in try writeAll(header, to: fd, at: 0, path: path) }
        }.get()
        let job = StripeJob(plaintext: plaintext, sealer: sealer)
        let depth = job.stripes == 1 ? 1 : min(job.stripes, stripesAhead + 1)
        let slots = (0..<depth).map { _ in StripeSlot(capacity: segmentsPerStripe * sealer.sealedSegmentSize) }
        defer { for slot in slots { slot.release() } }
        var offset = sealer.header.count
        if depth == 1 {
            let length = try job.seal(stripe: 0, into: slots[0].buffer)
            return try writeAll(
                UnsafeRawBufferPointer(rebasing: slots[0].buffer[0..<length]), to: fd, at: offset, path: path)
        }
        for stripe in 0..<depth { slots[stripe].start(stripe, of: job) }
        for stripe in 0..<job.stripes {
            let slot = slots[stripe % depth]
            let length = try slot.wait()
            try writeAll(UnsafeRawBufferPointer(rebasing: slot.buffer[0..<length]), to: fd, at: offset, path: path)
            offset += length
            if stripe + depth < job.stripes { slot.start(stripe + depth, of: job) }
        }
    }

    /// `pwrite` until all of `bytes` is written at `offset`.
    static func writeAll(
        _ bytes: UnsafeRawBufferPointer, to fd: CInt, at offset: Int, path: String
    ) throws(SandboxError) {
        try FullWrite.write(bytes, to: fd, atOffset: Int64(offset), path: path)
    }
}

/// What the stripes of one file seal: the plaintext, which the caller keeps alive and unchanged
/// until every stripe is done (``SealedFileStream/write(_:sealer:to:path:)`` waits for them).
private struct StripeJob: @unchecked Sendable {
    let plaintext: UnsafeRawBufferPointer
    let sealer: SegmentSealer
    let segments: Int
    let stripes: Int

    init(plaintext: UnsafeRawBufferPointer, sealer: SegmentSealer) {
        self.plaintext = plaintext
        self.sealer = sealer
        segments = sealer.segmentCount(forPlaintextSize: plaintext.count)
        stripes = (segments + SealedFileStream.segmentsPerStripe - 1) / SealedFileStream.segmentsPerStripe
    }

    /// Seals the segments of `stripe` into `output`; returns the bytes written.
    func seal(stripe: Int, into output: UnsafeMutableRawBufferPointer) throws(SandboxError) -> Int {
        let first = stripe * SealedFileStream.segmentsPerStripe
        var written = 0
        for index in first..<min(segments, first + SealedFileStream.segmentsPerStripe) {
            let start = index * sealer.segmentSize
            let segment = UnsafeRawBufferPointer(
                rebasing: plaintext[start..<min(plaintext.count, start + sealer.segmentSize)])
            written += try sealer.seal(
                segment, index: index, final: index == segments - 1,
                into: UnsafeMutableRawBufferPointer(rebasing: output[written...]))
        }
        return written
    }
}

/// One reused stripe buffer, sealed by whichever comes first: an engine thread started ahead,
/// or the caller when it needs the stripe and no thread has taken it yet (on a busy machine the
/// caller then never sleeps waiting for a thread that is not running, and a caller that is itself
/// one of the engine's threads never waits for a job queued behind it). Only the caller calls its
/// methods.
///
/// `claim` holds the stripe's generation × 4 plus who took it: 0 nobody, 1 the engine's thread,
/// 2 the caller. An engine job of an earlier generation, still queued when the caller took its
/// stripe and reused the slot, finds another generation and does nothing; one the engine refuses
/// (it shut down) leaves the stripe to the caller. The engine's thread writes ``buffer`` and
/// `result`, then signals; the caller reads them after the signal.
private final class StripeSlot: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
    private let done = Semaphore()
    private let claim = Atomic<Int>(0)
    private var result: Result<Int, SandboxError> = .success(0)
    private var generation = 0
    private var stripe = 0
    private var job: StripeJob?
    /// Whether the current stripe was started and not waited for.
    private var outstanding = false

    init(capacity: Int) {
        buffer = .allocate(byteCount: capacity, alignment: 64)
    }

    /// Offers `stripe` of `job` to one of the engine's threads.
    func start(_ stripe: Int, of job: StripeJob) {
        generation += 1
        self.stripe = stripe
        self.job = job
        outstanding = true
        let expected = generation * 4
        claim.store(expected, ordering: .releasing)
        IOEngine.shared.schedule(
            {
                guard
                    self.claim.compareExchange(expected: expected, desired: expected + 1, ordering: .acquiring)
                        .exchanged
                else { return }  // the caller took it
                self.result = Result { () throws(SandboxError) in try job.seal(stripe: stripe, into: self.buffer) }
                self.done.signal()
            }, reject: { _ in })  // unclaimed: the caller seals it
    }

    /// The current stripe's sealed length: sealed here if no thread took it, else waited for.
    func wait() throws(SandboxError) -> Int {
        outstanding = false
        let expected = generation * 4
        if claim.compareExchange(expected: expected, desired: expected + 2, ordering: .acquiring).exchanged,
            let job
        {
            return try job.seal(stripe: stripe, into: buffer)
        }
        done.wait()
        return try result.get()
    }

    /// Waits for a stripe a thread is still sealing, then frees the buffer.
    func release() {
        let expected = generation * 4
        if outstanding
            && !claim.compareExchange(expected: expected, desired: expected + 2, ordering: .acquiring).exchanged
        {
            done.wait()
        }
        buffer.deallocate()
    }
}
