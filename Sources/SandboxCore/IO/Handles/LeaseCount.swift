import CSandboxShims
import Glibc
import Synchronization

/// How many calls are using a ``SharedDescriptor``, counted in stripes so that reads on different
/// CPUs do not write to the same cache line.
///
/// One shared count is incremented and decremented around every read: with two CPUs reading, its
/// cache line moved between them twice per read and a 4 KiB read from the page cache cost a
/// quarter more CPU than with one reader. Here each CPU increments a stripe of its own (picked by
/// `sched_getcpu()`, a few nanoseconds through the kernel's restartable-sequence area), each on its
/// own 128-byte block (two lines: the adjacent-line prefetcher moves them in pairs), and only a
/// closing descriptor sums them. A call that moves to another CPU meanwhile still decrements the
/// stripe it incremented (``acquire()`` returns it), so no stripe ever goes below zero.
///
/// Every operation is sequentially consistent: ``SharedDescriptor`` relies on one total order of
/// the stripes' changes and its phase's (see ``SharedDescriptor`` for the proof).
struct LeaseCount: ~Copyable, @unchecked Sendable {  // the stripes are atomics: safe from any thread
    /// The number of stripes: a power of two, at most 16, at least the processors configured.
    static let stripeCount: Int = {
        let processors = max(1, min(16, sysconf(CInt(_SC_NPROCESSORS_CONF))))
        return 1 << (Int.bitWidth - (processors - 1).leadingZeroBitCount)
    }()

    /// Bytes between two stripes.
    private static let stride = 128
    private let base: UnsafeMutableRawPointer

    init() {
        base = UnsafeMutableRawPointer.allocate(byteCount: Self.stripeCount * Self.stride, alignment: Self.stride)
        for index in 0..<Self.stripeCount {
            (base + index * Self.stride).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        }
    }

    deinit {
        for index in 0..<Self.stripeCount {
            _ = stripe(index).deinitialize(count: 1)
        }
        base.deallocate()
    }

    private func stripe(_ index: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        (base + index * Self.stride).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Counts one more call on the current CPU's stripe; returns the stripe, for ``release(_:)``.
    func acquire() -> Int {
        let cpu = Int(csb_current_cpu())
        let index = cpu < 0 ? 0 : cpu & (Self.stripeCount - 1)
        stripe(index).pointee.add(1, ordering: .sequentiallyConsistent)
        return index
    }

    /// Counts one call fewer on `index`, the stripe ``acquire()`` returned.
    func release(_ index: Int) {
        stripe(index).pointee.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Whether no call holds a lease: every stripe read as zero.
    ///
    /// The stripes are read one after the other, not as one snapshot; ``SharedDescriptor`` asks only
    /// once no new lease can be granted, and its proof says why a zero read then is final.
    var isZero: Bool {
        for index in 0..<Self.stripeCount where stripe(index).pointee.load(ordering: .sequentiallyConsistent) != 0 {
            return false
        }
        return true
    }
}
