/// The web page's order of a folder's items, the server's to give so that pages of a listing
/// join up: folders first, then names compared ASCII letters case-insensitively and runs of digits
/// by their value (`file 2` before `file 10`), the page's order before listings were paged. Other
/// bytes (accented and non-Latin letters) compare by value, so `Résumé` follows `Rz`; names equal
/// so far are ordered by their bytes, which makes the order total (a cursor names one place).
enum ListingOrder {
    /// One item's place: whether it is a folder, and its name's bytes.
    struct Key: Comparable, Sendable {
        let folder: Bool
        let name: [UInt8]

        static func < (left: Key, right: Key) -> Bool {
            left.name.withUnsafeBufferPointer { leftName in
                right.name.withUnsafeBufferPointer { rightName in
                    ListingOrder.compare(folder: left.folder, leftName, folder: right.folder, rightName) < 0
                }
            }
        }
    }

    /// Negative when the item (`leftFolder`, `left`) comes first, positive when it comes after,
    /// zero for the same item; allocates nothing (it runs on every name of a folder).
    static func compare(
        folder leftFolder: Bool, _ left: UnsafeBufferPointer<UInt8>,
        folder rightFolder: Bool, _ right: UnsafeBufferPointer<UInt8>
    ) -> Int {
        if leftFolder != rightFolder { return leftFolder ? -1 : 1 }
        let natural = naturalCompare(left, right)
        if natural != 0 { return natural }
        for (a, b) in zip(left, right) where a != b { return a < b ? -1 : 1 }
        return left.count - right.count
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// ASCII case folded, digit runs by value (leading zeros ignored).
    private static func naturalCompare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        var j = 0
        while i < left.count && j < right.count {
            if isDigit(left[i]) && isDigit(right[j]) {
                while i < left.count && left[i] == 0x30 && i + 1 < left.count && isDigit(left[i + 1]) { i += 1 }
                while j < right.count && right[j] == 0x30 && j + 1 < right.count && isDigit(right[j + 1]) { j += 1 }
                var leftEnd = i
                while leftEnd < left.count && isDigit(left[leftEnd]) { leftEnd += 1 }
                var rightEnd = j
                while rightEnd < right.count && isDigit(right[rightEnd]) { rightEnd += 1 }
                if leftEnd - i != rightEnd - j { return (leftEnd - i) - (rightEnd - j) }
                while i < leftEnd {
                    if left[i] != right[j] { return left[i] < right[j] ? -1 : 1 }
                    i += 1
                    j += 1
                }
                continue
            }
            let a = folded(left[i])
            let b = folded(right[j])
            if a != b { return a < b ? -1 : 1 }
            i += 1
            j += 1
        }
        return (left.count - i) - (right.count - j)
    }
}
