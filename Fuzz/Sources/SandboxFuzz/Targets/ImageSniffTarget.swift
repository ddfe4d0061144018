import Foundation
import SandboxTransfer

extension FuzzTarget {
    /// `ImageInfo(sniffing:)`: an image's type and pixel size from the first bytes a server sends.
    ///
    /// Whatever the bytes — box sizes past the end, 64-bit sizes, loops, truncated segments — the
    /// sniffer returns, and what it returns has a positive size; every prefix of a sniffed input
    /// sniffs to nothing or to the same type.
    static let imageSniff = FuzzTarget(
        name: "image-sniff",
        run: { bytes in
            guard let info = ImageInfo(sniffing: bytes) else { return }
            invariant(info.width > 0 && info.height > 0, "\(bytes.count) bytes sniffed as \(info)")
            for cut in [bytes.count / 2, bytes.count - 1] where cut > 0 {
                if let prefix = ImageInfo(sniffing: Array(bytes.prefix(cut))) {
                    invariant(prefix.format == info.format, "a \(cut)-byte prefix of \(info) sniffed as \(prefix)")
                }
            }
        },
        seeds: {
            // The smallest headers of each format, so the fuzzer starts inside every walker.
            var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
            png += Array("IHDR".utf8) + [0, 0, 2, 128, 0, 0, 1, 224, 8, 6, 0, 0, 0]
            let gif = Array("GIF89a".utf8) + [0x80, 0x02, 0xE0, 0x01, 0, 0, 0]
            let jpeg: [UInt8] = [
                0xFF, 0xD8, 0xFF, 0xC0, 0, 17, 8, 1, 0xE0, 2, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
            ]
            let webp =
                Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
                + [0x7F, 0x02, 0x00, 0xDF, 0x01, 0x00]
            return ["png": png, "gif": gif, "jpeg": jpeg, "webp": webp]
        })
}
