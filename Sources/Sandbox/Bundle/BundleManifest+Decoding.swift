import Foundation
import SandboxCore

extension BundleManifest {
    private struct Stored: Decodable {
        var format: String
        var entries: [StoredEntry]
        var identifier: String?
        var version: String?
        var appGroups: [String]?
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
    /// - Parameters:
    ///   - bytes: the contents of `_CodeSignature/manifest.json`, exactly as stored.
    ///   - source: the file's path, for messages.
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when the bytes are not a manifest of
    ///   this format: not JSON, an unknown format, a path that is invalid, repeated or inside
    ///   `_CodeSignature`, a bad mode, size or digest, an invalid app identifier, version or App
    ///   Group, or
    ///   bytes that are not the manifest's canonical encoding (so that no two readers can see
    ///   different manifests in them).
    public init(storedBytes bytes: [UInt8], source: String) throws(SandboxError) {
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
        } catch {
            throw SandboxError(
                .corrupt, "'\(source)' is not a bundle manifest (\(error)). Sign the bundle again.",
                path: source)
        }
        guard stored.format == Self.format else {
            if stored.format == "sandbox-bundle-manifest/1" {
                throw SandboxError(
                    .corrupt,
                    "'\(source)' is a manifest of format '\(stored.format)', which names no app or version, so it cannot be told from an older bundle or another app's. Sign the bundle again.",
                    path: source)
            }
            throw SandboxError(
                .corrupt,
                "'\(source)' is a manifest of format '\(stored.format)'; this version reads '\(Self.format)'. Sign the bundle again with this version.",
                path: source)
        }
        var seen = Set<ContainerPath>()
        var entries: [Entry] = []
        for item in stored.entries {
            let bad = { (what: String) in
                SandboxError(
                    .corrupt,
                    "'\(source)' lists '\(item.path)' with \(what). Sign the bundle again.",
                    path: source)
            }
            let path: ContainerPath
            do throws(SandboxError) {
                path = try ContainerPath(item.path)
            } catch {
                throw bad("an invalid path (\(error.message))")
            }
            guard path.string == item.path, !path.isRoot, !path.components.contains(".."),
                !path.components.contains("."), path.names.first != Self.signatureDirectory.names.first
            else {
                throw bad("a path that names no item of the bundle")
            }
            guard seen.insert(path).inserted else { throw bad("a second entry") }
            guard item.mode.hasPrefix("0"), let mode = UInt16(item.mode, radix: 8), mode <= 0o7777 else {
                throw bad("the mode '\(item.mode)'")
            }
            switch item.type {
            case .file:
                guard item.size >= 0, let digest = item.sha256, digest.count == 64, digest.allSatisfy(\.isHexDigit),
                    digest == digest.lowercased()
                else {
                    throw bad("a bad size or SHA-256")
                }
            case .directory:
                guard item.size == 0, item.sha256 == nil else {
                    throw bad("a size or digest, which a directory has not")
                }
            }
            entries.append(Entry(path: path, kind: item.type, mode: mode, size: item.size, sha256: item.sha256))
        }
        let identity: BundleIdentity
        do throws(SandboxError) {
            identity = BundleIdentity(
                identifier: try AppIdentifier(stored.identifier ?? ""), version: try BundleVersion(stored.version ?? "")
            )
        } catch {
            throw SandboxError(
                .corrupt,
                "'\(source)' names no valid app or version (\(error.message)). Sign the bundle again.",
                path: source)
        }
        let appGroups: [AppGroupIdentifier]
        do throws(SandboxError) {
            appGroups = try AppGroupIdentifier.validatedList(stored.appGroups ?? [])
        } catch {
            throw SandboxError(
                .corrupt, "'\(source)' lists App Groups that are not valid (\(error.message)). Sign the bundle again.",
                path: source)
        }
        self.init(entries: entries, identity: identity, appGroups: appGroups)
        guard canonicalBytes == bytes else {
            throw SandboxError(
                .corrupt,
                "'\(source)' is not in the canonical encoding a signature covers (extra keys, spaces, repeated keys or another order). Sign the bundle again.",
                path: source)
        }
    }
}
