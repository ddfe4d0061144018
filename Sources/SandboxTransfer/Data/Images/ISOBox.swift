/// One box of an ISO base media file (ISO/IEC 14496-12 §4.2): its type and where its content
/// lies, checked against its parent.
struct ISOBox {
    var type: String
    /// The first byte after the header (and, for a full box, not yet past its version and flags).
    var contentStart: Int
    /// The byte after the box.
    var end: Int

    /// The boxes that follow one another in `range` of `reader`, in order. Stops (returning what it
    /// found) at the first header that does not fit: shorter than its header, larger than what is
    /// left of `range` (32- and 64-bit sizes alike, compared without overflow). A size of 0 means
    /// "to the end of the parent". Each box is at least 8 bytes, so the walk ends.
    static func children(of range: Range<Int>, in reader: ByteReader) -> ISOBoxes {
        ISOBoxes(reader: reader, range: range)
    }
}

/// The boxes of a range, read lazily (see ``ISOBox/children(of:in:)``).
struct ISOBoxes: Sequence, IteratorProtocol {
    let reader: ByteReader
    var range: Range<Int>

    mutating func next() -> ISOBox? {
        let start = range.lowerBound
        guard let size32 = reader.uint32(bigEndianAt: start), let type = reader.fourCC(at: start + 4),
            start + 8 <= range.upperBound
        else { return nil }
        let left = UInt64(range.upperBound - start)
        var header = 8
        let size: UInt64
        switch size32 {
        case 0:
            size = left
        case 1:
            guard let size64 = reader.uint64(bigEndianAt: start + 8) else { return nil }
            header = 16
            size = size64
        default:
            size = UInt64(size32)
        }
        guard size >= UInt64(header), size <= left else {
            range = range.upperBound..<range.upperBound
            return nil
        }
        let end = start + Int(size)
        range = end..<range.upperBound
        return ISOBox(type: type, contentStart: start + header, end: end)
    }
}
