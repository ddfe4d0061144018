import Foundation
import SandboxCore

/// Turns a tree node's path bytes — data from the repository, so untrusted — into a
/// ``SandboxCore/ContainerPath``, refusing anything but plain names (no `.`, `..`, empty names, NUL
/// or over-long names).
enum RestorePath {
    static func path(of bytes: Data) throws(SandboxError) -> ContainerPath {
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !bytes.isEmpty, bytes.count <= ContainerPath.maximumLength else { throw refused(bytes) }
        var names: [FileName] = []
        for part in parts {
            guard !part.isEmpty, part.count <= ContainerPath.maximumComponentLength, !part.contains(0),
                !part.elementsEqual(".".utf8), !part.elementsEqual("..".utf8)
            else { throw refused(bytes) }
            names.append(FileName(uncheckedBytes: part))
        }
        return ContainerPath.root.appending(contentsOf: names)
    }

    private static func refused(_ bytes: Data) -> SandboxError {
        let shown = String(decoding: bytes.prefix(120), as: UTF8.self)
        return SandboxError(
            .repositoryDamaged,
            "The snapshot names the item '\(shown)', which is not a plain path inside a container; the snapshot is damaged or forged, and nothing was restored.",
            path: shown)
    }
}
