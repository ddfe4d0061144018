import Foundation

/// An app's tree as it is stored — the JSON array of its ``TreeNode``s — built one node at a time,
/// each node encoded once (``TreeNode/appendJSON(to:)``, else Foundation's encoder): the bytes ``append(_:)`` returns are that node's element of the array,
/// which `Manifest.db` stores too (``ManifestDatabase``).
///
/// The array is byte for byte what ``RepositoryJSON/encode(_:)`` makes of `[TreeNode]` (compact
/// JSON: elements joined by `,` in `[` `]`), without the encoder's intermediate value of the whole
/// array, which for 100,000 nodes was tens of MiB held at once; a backup takes the bytes made so
/// far (``takeBytes()``) into a ``SplitStream`` as it goes, so the array is never held whole.
struct TreeJSON {
    private let encoder = RepositoryJSON.makeEncoder()
    private(set) var count = 0
    private var bytes: [UInt8] = [UInt8(ascii: "[")]

    /// Adds `node` as the array's next element.
    ///
    /// - Returns: the node's own JSON (the element's bytes).
    mutating func append(_ node: TreeNode) -> Data {
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        count += 1
        let start = bytes.count
        if node.appendJSON(to: &bytes) { return Data(bytes[start...]) }
        let element: Data
        do {
            element = try encoder.encode(node)
        } catch {
            // TreeNode has no throwing members: encoding it cannot fail.
            preconditionFailure("encoding a tree node failed: \(error)")
        }
        bytes.append(contentsOf: element)
        return element
    }

    /// Bytes made since the last ``takeBytes()`` (the start of the array for the first call).
    var pendingByteCount: Int { bytes.count }

    /// The bytes made since the last call, handed over.
    mutating func takeBytes() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// The JSON array of `nodes`.
    static func encode(_ nodes: some Sequence<TreeNode>) -> [UInt8] {
        var tree = TreeJSON()
        for node in nodes { _ = tree.append(node) }
        return tree.finish()
    }

    /// The rest of the array (all of it when ``takeBytes()`` was never called), closed.
    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }
}
