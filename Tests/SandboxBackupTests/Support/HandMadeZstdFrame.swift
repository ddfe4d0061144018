/// zstd frames made by hand (RFC 8878), for the frames zstd itself never writes: ones that lie
/// about their length, need a dictionary, or inflate far past what they declare.
///
/// The frame has a window of 128 KiB (so blocks of up to 128 KiB), the content size in 4 bytes
/// when declared, and the dictionary id in 4 bytes when one is asked for.
enum HandMadeZstdFrame {
    enum Block {
        /// Bytes stored as they are.
        case raw([UInt8])
        /// `count` copies of one byte, stored as that byte (at most 128 KiB).
        case repeated(UInt8, count: Int)
    }

    /// The largest block the frame's window allows.
    static let maximumBlockSize = 128 << 10

    static func bytes(declaring contentSize: Int?, dictionary: UInt32 = 0, blocks: [Block]) -> [UInt8] {
        func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian, Array.init)
        }
        let contentSizeFlag: UInt8 = contentSize == nil ? 0 : 2
        let dictionaryFlag: UInt8 = dictionary == 0 ? 0 : 3
        var frame = littleEndian(UInt32(0xFD2F_B528)) + [contentSizeFlag << 6 | dictionaryFlag, 0x38]
        if dictionary != 0 { frame += littleEndian(dictionary) }
        if let contentSize { frame += littleEndian(UInt32(contentSize)) }
        for (index, block) in blocks.enumerated() {
            let last: UInt32 = index == blocks.count - 1 ? 1 : 0
            switch block {
            case .raw(let bytes):
                frame += littleEndian(last | UInt32(bytes.count) << 3).prefix(3) + bytes
            case .repeated(let byte, let count):
                frame += littleEndian(last | 1 << 1 | UInt32(count) << 3).prefix(3) + [byte]
            }
        }
        return frame
    }

    /// A skippable frame holding `payload`.
    static func skippable(_ payload: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(0x184D_2A50).littleEndian, Array.init)
            + withUnsafeBytes(of: UInt32(payload.count).littleEndian, Array.init) + payload
    }
}
