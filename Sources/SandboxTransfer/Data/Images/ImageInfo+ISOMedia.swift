extension ImageInfo {
    /// HEIC, HEIF and AVIF (ISO/IEC 23008-12 on the ISO base media file format): the first box is
    /// `ftyp`, whose major or compatible brands name the format; the size is the `ispe` (image
    /// spatial extents) property of the primary item (`pitm`), found through `ipma` among the
    /// properties of `meta` → `iprp` → `ipco`, or the first `ispe` when the file names no primary
    /// item or does not associate one with it.
    static func isoMedia(_ reader: ByteReader) -> ImageInfo? {
        var top = ISOBox.children(of: 0..<reader.count, in: reader)
        guard let ftyp = top.next(), ftyp.type == "ftyp", let format = brandFormat(ftyp, reader) else { return nil }
        guard let meta = top.first(where: { $0.type == "meta" }) else { return nil }
        // meta is a full box: 4 bytes of version and flags before its children
        guard meta.contentStart + 4 <= meta.end else { return nil }
        let metaChildren = Array(ISOBox.children(of: (meta.contentStart + 4)..<meta.end, in: reader))
        guard let iprp = metaChildren.first(where: { $0.type == "iprp" }) else { return nil }
        let primary = metaChildren.first { $0.type == "pitm" }.flatMap { primaryItem($0, reader) }
        let iprpChildren = Array(ISOBox.children(of: iprp.contentStart..<iprp.end, in: reader))
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = Array(ISOBox.children(of: ipco.contentStart..<ipco.end, in: reader))
        var extents: ISOBox?
        if let primary {
            let associated = iprpChildren.filter { $0.type == "ipma" }.lazy.compactMap {
                propertyIndices($0, of: primary, reader)
            }.first
            // ipma indices count from 1; 0 means "no property"
            extents = associated?.lazy.compactMap { index in
                index >= 1 && index <= properties.count ? properties[index - 1] : nil
            }.first { $0.type == "ispe" }
        }
        guard let ispe = extents ?? properties.first(where: { $0.type == "ispe" }),
            let width = reader.uint32(bigEndianAt: ispe.contentStart + 4),
            let height = reader.uint32(bigEndianAt: ispe.contentStart + 8), ispe.contentStart + 12 <= ispe.end
        else { return nil }
        return ImageInfo(format: format, width: width, height: height)
    }

    /// The format the `ftyp` brands name: the major brand when it is one of them, else the first
    /// compatible brand that is.
    private static func brandFormat(_ ftyp: ISOBox, _ reader: ByteReader) -> ImageFormat? {
        var brands: [String] = []
        var offset = ftyp.contentStart
        while offset + 4 <= ftyp.end, let brand = reader.fourCC(at: offset) {
            if offset != ftyp.contentStart + 4 { brands.append(brand) }  // the second word is the minor version
            offset += 4
        }
        return brands.lazy.compactMap { brandFormats[$0] }.first
    }

    private static let brandFormats: [String: ImageFormat] = [
        "avif": .avif, "avis": .avif,
        "heic": .heic, "heix": .heic, "heim": .heic, "heis": .heic, "hevc": .heic, "hevx": .heic,
        "mif1": .heif, "msf1": .heif,
    ]

    /// The primary item's identifier from `pitm` (a full box: 16 bits in version 0, 32 after).
    private static func primaryItem(_ pitm: ISOBox, _ reader: ByteReader) -> Int? {
        guard let version = reader.uint8(at: pitm.contentStart) else { return nil }
        let start = pitm.contentStart + 4
        let width = version == 0 ? 2 : 4
        guard start + width <= pitm.end else { return nil }
        return version == 0 ? reader.uint16(bigEndianAt: start) : reader.uint32(bigEndianAt: start)
    }

    /// The property indices `ipma` associates with `item`, `nil` when it lists no such item (or is
    /// cut short before it). Items take 16 bits in version 0, 32 after; indices 7 bits, or 15 when
    /// flag 1 is set, under an "essential" bit.
    private static func propertyIndices(_ ipma: ISOBox, of item: Int, _ reader: ByteReader) -> [Int]? {
        guard let version = reader.uint8(at: ipma.contentStart),
            let flags = reader.uint24(bigEndianAt: ipma.contentStart + 1),
            let entries = reader.uint32(bigEndianAt: ipma.contentStart + 4)
        else { return nil }
        let itemWidth = version < 1 ? 2 : 4
        let indexWidth = flags & 1 == 1 ? 2 : 1
        var offset = ipma.contentStart + 8
        for _ in 0..<entries {
            guard offset + itemWidth + 1 <= ipma.end,
                let identifier = itemWidth == 2
                    ? reader.uint16(bigEndianAt: offset) : reader.uint32(bigEndianAt: offset),
                let count = reader.uint8(at: offset + itemWidth)
            else { return nil }
            offset += itemWidth + 1
            guard offset + count * indexWidth <= ipma.end else { return nil }
            if identifier == item {
                return (0..<count).compactMap { position in
                    let at = offset + position * indexWidth
                    return indexWidth == 2
                        ? reader.uint16(bigEndianAt: at).map { $0 & 0x7FFF } : reader.uint8(at: at).map { $0 & 0x7F }
                }
            }
            offset += count * indexWidth
        }
        return nil
    }
}
