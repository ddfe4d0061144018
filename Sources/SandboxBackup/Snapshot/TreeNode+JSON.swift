import Foundation
import SandboxCore

extension TreeNode {
    /// Appends the node's JSON to `bytes`, byte for byte what ``RepositoryJSON``'s encoder makes of
    /// it (keys sorted, absent optionals left out, `Data` as Base64, `/` escaped), without
    /// Foundation's encoder: an incremental backup of 100,000 files spent a fifth of its time in
    /// `JSONEncoder` for its nodes.
    ///
    /// - Returns: `false`, having appended nothing, for a node with extended attributes: the
    ///   encoder orders their names by `String` comparison, which this writer leaves to it.
    func appendJSON(to bytes: inout [UInt8]) -> Bool {
        guard extendedAttributes == nil else { return false }
        bytes.append(UInt8(ascii: "{"))
        if let accessed {
            Self.appendKey("accessed", first: true, to: &bytes)
            accessed.appendJSON(to: &bytes)
        }
        Self.appendKey("changed", first: accessed == nil, to: &bytes)
        changed.appendJSON(to: &bytes)
        if let chunks {
            Self.appendKey("chunks", to: &bytes)
            bytes.append(UInt8(ascii: "["))
            for (index, chunk) in chunks.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(chunk.utf8, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        Self.appendKey("device", to: &bytes)
        ASCIIDecimal.append(device, to: &bytes)
        Self.appendKey("gid", to: &bytes)
        ASCIIDecimal.append(UInt64(gid), to: &bytes)
        if let hardLinkTo {
            Self.appendKey("hardLinkTo", to: &bytes)
            Self.appendBase64(hardLinkTo, to: &bytes)
        }
        Self.appendKey("inode", to: &bytes)
        ASCIIDecimal.append(inode, to: &bytes)
        Self.appendKey("kind", to: &bytes)
        JSONText.appendString(kind.rawValue.utf8, to: &bytes)
        Self.appendKey("mode", to: &bytes)
        ASCIIDecimal.append(UInt64(mode), to: &bytes)
        Self.appendKey("modified", to: &bytes)
        modified.appendJSON(to: &bytes)
        Self.appendKey("path", to: &bytes)
        Self.appendBase64(path, to: &bytes)
        Self.appendKey("size", to: &bytes)
        ASCIIDecimal.append(size, to: &bytes)
        if let source {
            Self.appendKey("source", to: &bytes)
            JSONText.appendString(source.utf8, to: &bytes)
        }
        if let target {
            Self.appendKey("target", to: &bytes)
            Self.appendBase64(target, to: &bytes)
        }
        Self.appendKey("uid", to: &bytes)
        ASCIIDecimal.append(UInt64(uid), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// `"key":`, after a `,` unless it is the object's first.
    private static func appendKey(_ key: StaticString, first: Bool = false, to bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private static func appendBase64(_ data: Data, to bytes: inout [UInt8]) {
        JSONText.appendString(data.base64EncodedString().utf8, to: &bytes)
    }
}

extension Timestamp {
    private static let nanosecondsKey = Array(#"{"nanoseconds":"#.utf8)
    private static let secondsKey = Array(#","seconds":"#.utf8)

    /// `{"nanoseconds":…,"seconds":…}`, as the encoder writes it.
    func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.nanosecondsKey)
        ASCIIDecimal.append(nanoseconds, to: &bytes)
        bytes.append(contentsOf: Self.secondsKey)
        ASCIIDecimal.append(seconds, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
