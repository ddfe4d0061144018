import Glibc
import Sandbox
import SystemPackage

extension SealedFileStream {
    /// Writes `sealer`'s header, then everything `input` reads from its current position to its
    /// end (a file, or a pipe) sealed by `sealer`, to `fd` from offset 0. One stripe of plaintext
    /// and one of sealed bytes are in memory at a time, whatever the size.
    ///
    /// - Parameters:
    ///   - inputPath: names `input` in messages.
    ///   - path: names the file being written in messages.
    /// - Returns: the plaintext bytes sealed.
    /// - Throws: the core's codes of a failed `read` or `write`, and those of
    ///   ``SegmentSealer/seal(_:index:final:into:)``.
    static func copy(
        from input: CInt, inputPath: String, sealer: SegmentSealer, to fd: CInt, path: String
    ) throws(SandboxError) -> Int64 {
        try copy(
            reading: { (buffer) throws(SandboxError) in try readSome(input, into: buffer, path: inputPath) },
            sealer: sealer, to: fd, path: path)
    }

    /// One `read(2)` of `input` into `buffer`, retried on `EINTR`; 0 at its end.
    private static func readSome(
        _ input: CInt, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SandboxError) -> Int {
        while true {
            let count = read(input, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw SandboxError.systemCall("read", errno: Errno(rawValue: errno), path: path)
            }
            return count
        }
    }

    /// ``copy(from:inputPath:sealer:to:path:)`` from whatever `next` gives: it fills some of the
    /// buffer it is handed and returns how much (0 at the end), as `read(2)` does.
    static func copy(
        reading next: (UnsafeMutableRawBufferPointer) throws(SandboxError) -> Int, sealer: SegmentSealer, to fd: CInt,
        path: String
    ) throws(SandboxError) -> Int64 {
        let segment = sealer.segmentSize
        let capacity = segmentsPerStripe * segment
        let plainBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
        let sealedBuffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: segmentsPerStripe * sealer.sealedSegmentSize, alignment: 64)
        defer {
            plainBuffer.deallocate()
            sealedBuffer.deallocate()
        }
        guard let plain = plainBuffer.baseAddress else { return 0 }
        try sealer.header.withUnsafeBytes { header in
            Result { () throws(SandboxError) in try writeAll(header, to: fd, at: 0, path: path) }
        }.get()
        var offset = sealer.header.count
        var filled = 0
        var index = 0
        var total: Int64 = 0
        var ended = false
        repeat {
            while !ended && filled < capacity {
                let count = try next(UnsafeMutableRawBufferPointer(rebasing: plainBuffer[filled..<capacity]))
                if count == 0 { ended = true } else { filled += min(count, capacity - filled) }
            }
            // Until the input ends, at least one byte waits: the last segment is sealed as final.
            let segments = ended ? max(index == 0 ? 1 : 0, (filled + segment - 1) / segment) : (filled - 1) / segment
            var consumed = 0
            var written = 0
            for number in 0..<segments {
                let end = min(filled, consumed + segment)
                written += try sealer.seal(
                    UnsafeRawBufferPointer(rebasing: plainBuffer[consumed..<end]), index: index,
                    final: ended && number == segments - 1,
                    into: UnsafeMutableRawBufferPointer(rebasing: sealedBuffer[written...]))
                consumed = end
                index += 1
            }
            try writeAll(UnsafeRawBufferPointer(rebasing: sealedBuffer[0..<written]), to: fd, at: offset, path: path)
            offset += written
            total += Int64(consumed)
            filled -= consumed
            if consumed > 0 && filled > 0 { memmove(plain, plain + consumed, filled) }
        } while !ended || filled > 0
        return total
    }
}
