import Testing

@testable import SandboxCore

/// The buffer pool keeps spare buffers per size class, and only up to its largest pooled size.
@Suite struct BufferPoolTests {
    @Test func eachSizeClassIsReusedOnItsOwn() {
        let pool = BufferPool(maximumPooledSize: 1 << 20, cacheLimit: 4 << 20)
        var bases: [Int: UnsafeMutableRawPointer] = [:]
        for size in [4096, 8192, 65_536, 1 << 20] {
            let storage = pool.take(minimumCapacity: size)
            #expect(storage.capacity == size)
            bases[size] = storage.base
        }
        #expect(pool.cachedBytes == 4096 + 8192 + 65_536 + (1 << 20))
        for size in [1 << 20, 65_536, 8192, 4096] {
            let again = pool.take(minimumCapacity: size - 1)
            #expect(again.base == bases[size])
        }
    }

    @Test func aMaximumBetweenSizeClassesPoolsTheClassesBelowIt() {
        let pool = BufferPool(maximumPooledSize: 6000, cacheLimit: 1 << 20)
        _ = pool.take(minimumCapacity: 4096)
        #expect(pool.cachedBytes == 4096)
        _ = pool.take(minimumCapacity: 6000)  // an 8 KiB class: past the maximum, not kept
        #expect(pool.cachedBytes == 4096)
    }
}
