import Foundation

/// An image's type and pixel size, read from the first bytes of its file.
///
/// Sniffing reads headers only and decodes no pixel: it says what a file claims to be, not that
/// the rest of it is a valid image. Formats: PNG (`IHDR`), JPEG (the first start-of-frame
/// segment), GIF (the logical screen), WebP (`VP8 `, `VP8L` or `VP8X`), and HEIC, HEIF and AVIF
/// (the `ftyp` brand, then the primary item's `ispe` property in `meta`/`iprp`/`ipco`). Sizes are
/// as stored: an EXIF orientation or a HEIF `irot` rotation is not applied.
///
/// Input is untrusted: every length and offset is checked against the bytes given, each step of
/// a walk moves forward, and a truncated, malformed or unknown file gives `nil`, never a crash or
/// a hang.
public struct ImageInfo: Sendable, Hashable, CustomStringConvertible {
    /// The file format.
    public var format: ImageFormat
    /// Width in pixels, at least 1.
    public var width: Int
    /// Height in pixels, at least 1.
    public var height: Int

    /// An image description, as given.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Sniffs `bytes` (a whole file, or enough of its start to hold the header); `nil` when they
    /// are not one of the formats, or their header is truncated or malformed.
    public init?(sniffing bytes: some ContiguousBytes) {
        let info = bytes.withUnsafeBytes { buffer -> ImageInfo? in
            let reader = ByteReader(buffer)
            for sniff in [Self.png, Self.gif, Self.jpeg, Self.webp, Self.isoMedia] {
                if let info = sniff(reader) { return info }
            }
            return nil
        }
        guard let info, info.width > 0, info.height > 0 else { return nil }
        self = info
    }

    /// `image/png 640×480`.
    public var description: String { "\(format.mediaType) \(width)×\(height)" }
}

/// An image file format ``ImageInfo`` recognizes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case png, jpeg, gif, webp, heic, heif, avif

    /// The media type: `image/png`, `image/jpeg`, …
    public var mediaType: String { "image/\(rawValue)" }
}
