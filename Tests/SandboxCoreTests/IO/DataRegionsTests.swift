import SandboxCore
import Testing

@Suite("DataRegions")
struct DataRegionsTests {
    @Test("concatenation shares regions and keeps the bytes in order")
    func concatenation() {
        let a = DataRegions([1, 2, 3])
        let b = DataRegions([4, 5])
        let joined = a + b + DataRegions() + [6]
        #expect(joined.count == 6)
        #expect(joined.regions.count == 3)
        #expect(joined.bytes == [1, 2, 3, 4, 5, 6])
        #expect(Array(joined) == [1, 2, 3, 4, 5, 6])
        #expect(joined == DataRegions([1, 2, 3, 4, 5, 6]))
        #expect(joined != DataRegions([1, 2, 3, 4, 5, 7]))
        #expect(joined.description == "6 bytes in 3 regions")
    }

    @Test("slices across regions share memory")
    func slices() {
        let joined = DataRegions([0, 1, 2, 3]) + DataRegions([4, 5, 6]) + DataRegions([7, 8, 9])
        #expect(joined.slice(2..<8).bytes == [2, 3, 4, 5, 6, 7])
        #expect(joined.slice(2..<8).regions.count == 3)
        #expect(joined.slice(4..<7).regions.count == 1)
        #expect(joined.slice(5..<5).isEmpty)
        #expect(joined.slice(0..<10) == joined)
    }

    @Test("contiguous access copies only when there are several regions")
    func contiguous() {
        let single = DataRegions([1, 2, 3])
        #expect(single.contiguous().regions.count == 1)
        let joined = single + DataRegions([4])
        let flat = joined.contiguous()
        #expect(flat.regions.count == 1)
        #expect(flat.bytes == [1, 2, 3, 4])
        let sum = joined.withContiguousBytes { bytes in bytes.reduce(0) { $0 + Int($1) } }
        #expect(sum == 10)
        #expect(DataRegions().withContiguousBytes { $0.count } == 0)
    }

    @Test("forEachRegion visits regions with their offsets and can stop early")
    func regions() {
        let joined = DataRegions([1, 2]) + DataRegions([3, 4, 5]) + DataRegions([6])
        var seen: [(Int, Int)] = []
        let complete = joined.forEachRegion { bytes, offset in
            seen.append((offset, bytes.count))
            return seen.count < 2
        }
        #expect(!complete)
        #expect(seen.map(\.0) == [0, 2])
        #expect(seen.map(\.1) == [2, 3])
        #expect(joined.regions.map(\.count) == [2, 3, 1])
        #expect(joined.regions[1].bytes == [3, 4, 5])
    }
}
