import Crypto
import Dispatch
import Foundation
import Glibc
import Synchronization

extension ProtectedFileFormat {
    /// Segments read and opened together by one thread: 1 MiB of 64 KiB segments.
    static let segmentsPerReadStripe = 16

    /// The contents of a protected file of `size` bytes, opened with `fileKey`: `read(offset,
    /// buffer)` fills `buffer` from the file at `offset` and returns how many bytes it read (it is
    /// called from several threads at once). Each segment is read into a reused buffer and opened
    /// while it is in the CPU's cache, straight into its place in the result; the stripes
    /// (``segmentsPerReadStripe``) of a larger file are read and opened on every free core
    /// (the caller's thread and Dispatch's, not Swift's cooperative pool), so the file is read
    /// once and the decryption overlaps the kernel's copies.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when a segment fails authentication, is missing, out
    ///   of order or truncated: no byte of a damaged file is returned; what `read` throws.
    ///
    /// With `range`, only the segments that hold those plaintext bytes are read and opened (the
    /// last segment is still known by its position, so a truncated file is still refused when its
    /// end is read); bytes past the end are not returned.
    static func open(
        size: Int, header: Header, fileKey: SymmetricKey, path: String, range: Range<Int>? = nil,
        read: @Sendable (Int, UnsafeMutableRawBufferPointer) throws(SandboxError) -> Int
    ) throws(SandboxError) -> [UInt8] {
        let layout = SegmentLayout(size: size, header: header)
        let first = range.map { min(layout.count, $0.lowerBound / header.segmentSize) } ?? 0
        let end = max(
            first,
            range.map { min(layout.count, ($0.upperBound + header.segmentSize - 1) / header.segmentSize) }
                ?? layout.count)
        if first < end, end == layout.count, layout.sealedLength(of: end - 1) < tagSize {
            throw corrupt(path, "it is truncated inside segment \(end - 1)")
        }
        let total =
            first == end ? 0 : (end - 1 - first) * header.segmentSize + layout.sealedLength(of: end - 1) - tagSize
        let stripes = (end - first + segmentsPerReadStripe - 1) / segmentsPerReadStripe
        let failure = Mutex<SandboxError?>(nil)
        let output = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let destination = OpenedOutput(base: UnsafeMutableRawBufferPointer(buffer))
            // One stripe per iteration: `concurrentPerform` hands the next one to whichever thread
            // is free, the caller's included, so a busy machine never leaves the caller waiting
            // for a helper thread that is not running.
            @Sendable func openStripe(_ stripe: Int) {
                let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: layout.sealedSize, alignment: 64)
                defer { scratch.deallocate() }
                let from = first + stripe * segmentsPerReadStripe
                let to = min(end, from + segmentsPerReadStripe)
                prefault(
                    destination.base, from: (from - first) * header.segmentSize,
                    to: min(total, (to - first) * header.segmentSize))
                for index in from..<to {
                    if failure.withLock({ $0 != nil }) { return }
                    do throws(SandboxError) {
                        let offset = (index - first) * header.segmentSize
                        try openSegment(
                            index, layout: layout, fileKey: fileKey, path: path, scratch: scratch,
                            into: UnsafeMutableRawBufferPointer(rebasing: destination.base[offset...]), read: read)
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                        return
                    }
                }
            }
            if stripes > 1 {
                DispatchQueue.concurrentPerform(iterations: stripes, execute: openStripe)
            } else if stripes == 1 {
                openStripe(0)
            }
            initialized = failure.withLock { $0 == nil } ? total : 0
        }
        if let error = failure.withLock({ $0 }) { throw error }
        guard let range else { return output }
        let skip = range.lowerBound - first * header.segmentSize
        guard skip < output.count else { return [] }
        return Array(output[skip..<min(output.count, skip + range.count)])
    }

    /// Maps the pages of `buffer[from..<to]` in one call (`MADV_POPULATE_WRITE`, Linux 5.14)
    /// rather than one page fault per 4 KiB as they are first written: page faults from two
    /// threads at once were a third of a large read's time. Only a hint: where the kernel refuses,
    /// the pages are faulted in as before.
    private static func prefault(_ buffer: UnsafeMutableRawBufferPointer, from: Int, to: Int) {
        guard let base = buffer.baseAddress, to > from else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + from + page - 1) / page * page
        let end = (Int(bitPattern: base) + to) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(address, end - start, 23)  // MADV_POPULATE_WRITE; a hint: failure changes nothing
    }

    /// Reads segment `index` into `scratch` and opens it into `output`.
    private static func openSegment(
        _ index: Int, layout: SegmentLayout, fileKey: SymmetricKey, path: String,
        scratch: UnsafeMutableRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        read: (Int, UnsafeMutableRawBufferPointer) throws(SandboxError) -> Int
    ) throws(SandboxError) {
        let length = layout.sealedLength(of: index)
        guard length >= tagSize else { throw corrupt(path, "it is truncated inside segment \(index)") }
        let got = try read(layout.offset(of: index), UnsafeMutableRawBufferPointer(rebasing: scratch[0..<length]))
        guard got == length else { throw corrupt(path, "it changed size while it was read") }
        let nonce = try segmentNonce(
            prefix: layout.header.noncePrefix, index: index, final: index == layout.count - 1)
        do {
            let box = try AES.GCM.SealedBox(
                nonce: nonce, ciphertext: UnsafeRawBufferPointer(rebasing: scratch[0..<length - tagSize]),
                tag: UnsafeRawBufferPointer(rebasing: scratch[length - tagSize..<length]))
            try AES.GCM.open(box, using: fileKey, authenticating: layout.header.bytes).withUnsafeBytes {
                output.copyMemory(from: $0)
            }
        } catch {
            throw corrupt(
                path,
                "segment \(index) of \(layout.count) fails authentication (damaged, truncated, reordered or from another file)"
            )
        }
    }
}

/// Where the sealed segments of a file of a given size lie.
struct SegmentLayout: Sendable {
    let size: Int
    let header: ProtectedFileFormat.Header
    let sealedSize: Int
    /// The number of segments (at least one).
    let count: Int

    init(size: Int, header: ProtectedFileFormat.Header) {
        self.size = size
        self.header = header
        sealedSize = header.segmentSize + ProtectedFileFormat.tagSize
        count = max(1, (size - header.bytes.count + sealedSize - 1) / sealedSize)
    }

    func offset(of index: Int) -> Int { header.bytes.count + index * sealedSize }

    /// The bytes of plaintext the segments hold (of those whole enough to hold any).
    var plaintextSize: Int {
        max(0, (count - 1) * header.segmentSize + sealedLength(of: count - 1) - ProtectedFileFormat.tagSize)
    }

    /// The bytes segment `index` has on disk (fewer than a tag: truncated).
    func sealedLength(of index: Int) -> Int { max(0, min(size, offset(of: index) + sealedSize) - offset(of: index)) }
}

/// The result buffer the stripes of ``ProtectedFileFormat/open(size:header:fileKey:path:range:read:)``
/// write to: each writes only its own segments' bytes, and the buffer outlives them
/// (`concurrentPerform` returns when every stripe has).
private struct OpenedOutput: @unchecked Sendable {
    let base: UnsafeMutableRawBufferPointer
}
