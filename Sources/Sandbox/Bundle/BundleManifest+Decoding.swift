import Foundation
import SandboxCore

extension BundleManifest {
    private struct Stored: Decodable {
        var format: String
        var entries: [StoredEntry]
    }

    private struct StoredEntry: Decodable {
        var path: String
        var type: Entry.Kind
        var mode: String
        var size: Int64
        var sha256: String?
    }

    /// Reads a manifest from its stored bytes, checking every entry.
    ///
    /// - Parameter source: the file's path, for messages.
    /// - Throws: ``SandboxError/Code/corrupt`` when the bytes are not a manifest of this format:
    ///   not JSON, an unknown format, a path that is invalid, repeated or inside `_CodeSignature`, a
    ///   bad mode, size or digest.
    public init(storedBytes bytes: [UInt8], source: String) throws(SandboxError) {
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
        } catch {
            throw SandboxError(.corrupt, "'\(source)' is not a bundle manifest (\(error)). Sign the bundle again with `sandbox sign`.", path: source)
        }
        guard stored.format == Self.format else {
            throw SandboxError(.corrupt, "'\(source)' is a manifest of format '\(stored.format)'; this version reads '\(Self.format)'. Sign the bundle again with this version of `sandbox sign`.", path: source)
        }
        var seen = Set<ContainerPath>()
        var entries: [Entry] = []
        for item in stored.entries {
            let bad = { (what: String) in
                SandboxError(.corrupt, "'\(source)' lists '\(item.path)' with \(what). Sign the bundle again with `sandbox sign`.", path: source)
            }
            let path: ContainerPath
            do throws(SandboxError) {
                path = try ContainerPath(item.path)
            } catch {
                throw bad("an invalid path (\(error.message))")
            }
            guard path.description == item.path, !path.isRoot, !path.components.contains(".."), !path.components.contains("."), path.components.first != Self.signatureDirectory.description else {
                throw bad("a path that names no item of the bundle")
            }
            guard seen.insert(path).inserted else { throw bad("a second entry") }
            guard item.mode.hasPrefix("0"), let mode = UInt16(item.mode, radix: 8), mode <= 0o7777 else { throw bad("the mode '\(item.mode)'") }
            switch item.type {
            case .file:
                guard item.size >= 0, let digest = item.sha256, digest.count == 64, digest.allSatisfy(\.isHexDigit), digest == digest.lowercased() else {
                    throw bad("a bad size or SHA-256")
                }
            case .directory:
                guard item.size == 0, item.sha256 == nil else { throw bad("a size or digest, which a directory has not") }
            }
            entries.append(Entry(path: path, kind: item.type, mode: mode, size: item.size, sha256: item.sha256))
        }
        self.init(entries: entries)
    }
}
