import Foundation
import SandboxCore

extension TreeJSON {
    /// The nodes of a stored tree: the one decoder of trees (``SnapshotTree``, a backup's previous
    /// tree).
    ///
    /// The form ``TreeNode/appendJSON(to:)`` writes is read directly (``CanonicalTreeReader``);
    /// anything else — whitespace, keys in another order or unknown, extended attributes, escapes
    /// or bytes the writer does not make — goes to Foundation's decoder, which gives the same
    /// nodes or the same refusal, only slower. An incremental backup of 100,000 files spent a
    /// third of its time in `JSONDecoder` for the previous tree.
    ///
    /// - Throws: Foundation's decoding error for bytes that are not a JSON array of nodes.
    static func decode(_ bytes: [UInt8]) throws -> [TreeNode] {
        if let nodes = CanonicalTreeReader.read(bytes) { return nodes }
        return try JSONDecoder.repository.decode([TreeNode].self, from: Data(bytes))
    }
}

/// Reads a tree in exactly the form ``TreeNode/appendJSON(to:)`` writes it, or gives up (`nil`) at
/// the first byte that form would not have: it never accepts what Foundation's decoder would read
/// otherwise or refuse. Every index is checked before it is read, and every number for overflow:
/// a hostile tree only sends the reader to the fallback.
struct CanonicalTreeReader {
    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The nodes, or `nil` when `bytes` are not in the canonical form.
    static func read(_ bytes: [UInt8]) -> [TreeNode]? {
        var reader = CanonicalTreeReader(bytes)
        return reader.tree()
    }

    private mutating func tree() -> [TreeNode]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var nodes: [TreeNode] = []
        if take(UInt8(ascii: "]")) { return index == bytes.count ? nodes : nil }
        while true {
            guard let node = node() else { return nil }
            nodes.append(node)
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")), index == bytes.count else { return nil }
            return nodes
        }
    }

    private mutating func node() -> TreeNode? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var accessed: Timestamp?
        var first = true
        if key("accessed", first: true) {
            guard let value = timestamp() else { return nil }
            accessed = value
            first = false
        }
        guard key("changed", first: first), let changed = timestamp() else { return nil }
        var chunks: [String]?
        if key("chunks") {
            guard let value = stringArray() else { return nil }
            chunks = value
        }
        guard key("device"), let device = unsigned() else { return nil }
        guard key("gid"), let gid = unsigned(), let gid32 = UInt32(exactly: gid) else { return nil }
        var hardLinkTo: Data?
        if key("hardLinkTo") {
            guard let value = base64() else { return nil }
            hardLinkTo = value
        }
        guard key("inode"), let inode = unsigned() else { return nil }
        guard key("kind"), let kindName = string(), let kind = TreeNode.Kind(rawValue: kindName) else { return nil }
        guard key("mode"), let mode = unsigned(), let mode32 = UInt32(exactly: mode) else { return nil }
        guard key("modified"), let modified = timestamp() else { return nil }
        guard key("path"), let path = base64() else { return nil }
        guard key("size"), let size = signed() else { return nil }
        var source: String?
        if key("source") {
            guard let value = string() else { return nil }
            source = value
        }
        var target: Data?
        if key("target") {
            guard let value = base64() else { return nil }
            target = value
        }
        guard key("uid"), let uid = unsigned(), let uid32 = UInt32(exactly: uid) else { return nil }
        guard take(UInt8(ascii: "}")) else { return nil }
        return TreeNode(
            path: path, kind: kind, mode: mode32, uid: uid32, gid: gid32, size: size, modified: modified,
            accessed: accessed, extendedAttributes: nil, chunks: chunks, target: target, hardLinkTo: hardLinkTo,
            source: source, inode: inode, device: device, changed: changed)
    }

    /// Takes `byte` when it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Takes `,"name":` (or `"name":` for an object's first key) when it is next; leaves the
    /// position alone when it is not.
    private mutating func key(_ name: StaticString, first: Bool = false) -> Bool {
        let start = index
        if !first && !take(UInt8(ascii: ",")) { return false }
        let matched = name.withUTF8Buffer { name in
            guard take(UInt8(ascii: "\"")), bytes.count - index >= name.count + 2 else { return false }
            for byte in name {
                guard bytes[index] == byte else { return false }
                index += 1
            }
            return take(UInt8(ascii: "\"")) && take(UInt8(ascii: ":"))
        }
        if !matched { index = start }
        return matched
    }

    /// `0` or digits not starting with `0`, within `UInt64`.
    private mutating func unsigned() -> UInt64? {
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            return isDigit(at: index) ? nil : 0
        }
        var value: UInt64 = 0
        var digits = 0
        while isDigit(at: index) {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// An `Int64`, `-` before the digits of a negative one (never `-0`).
    private mutating func signed() -> Int64? {
        if take(UInt8(ascii: "-")) {
            guard let magnitude = unsigned(), magnitude > 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard let value = unsigned() else { return nil }
        return Int64(exactly: value)
    }

    private func isDigit(at position: Int) -> Bool {
        position < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
    }

    /// `{"nanoseconds":…,"seconds":…}`.
    private mutating func timestamp() -> Timestamp? {
        guard take(UInt8(ascii: "{")), key("nanoseconds", first: true), let nanoseconds = signed(),
            key("seconds"), let seconds = signed(), take(UInt8(ascii: "}"))
        else { return nil }
        return Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    /// `[` strings `]`.
    private mutating func stringArray() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var strings: [String] = []
        if take(UInt8(ascii: "]")) { return strings }
        repeat {
            guard let string = string() else { return nil }
            strings.append(string)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? strings : nil
    }

    /// A string of printable ASCII with the escapes the writer makes (`\"`, `\\`, `\/`, `\b`,
    /// `\f`, `\n`, `\r`, `\t`, `\u00xx` below `0x20`); anything beyond ASCII is left to the
    /// fallback, which checks UTF-8.
    private mutating func string() -> String? {
        stringBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func stringBytes() -> [UInt8]? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    // Only `\u00` and two lowercase hex digits below 0x20, as the writer makes.
                    guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "0"),
                        bytes[index + 1] == UInt8(ascii: "0"),
                        let high = Hex.lowercaseValue(of: bytes[index + 2]), high < 2,
                        let low = Hex.lowercaseValue(of: bytes[index + 3])
                    else { return nil }
                    text.append(high << 4 | low)
                    index += 4
                default: return nil
                }
            case 0x20..<0x80 where byte != UInt8(ascii: "/"):
                text.append(byte)
            default:
                return nil  // a control character, a raw `/`, or beyond ASCII: the fallback decides
            }
        }
        return nil
    }

    /// A Base64 string (`Data`, as the encoder writes it).
    private mutating func base64() -> Data? {
        guard let text = stringBytes() else { return nil }
        return Data(base64Encoded: Data(text))
    }
}
