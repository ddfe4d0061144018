import Foundation
import Sandbox

extension FuzzTarget {
    /// `BundleManifest(storedBytes:source:)`: `_CodeSignature/manifest.json`, read before a bundle
    /// is installed or opened.
    ///
    /// A manifest that parses names only valid, distinct paths inside the bundle (none in
    /// `_CodeSignature`), and is its own canonical encoding, which parses to the same manifest.
    static let bundleManifest = FuzzTarget(
        name: "bundle-manifest",
        run: { bytes in
            let source = "Notes.app/_CodeSignature/manifest.json"
            let manifest: BundleManifest
            do throws(SandboxError) {
                manifest = try BundleManifest(storedBytes: bytes, source: source)
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["corrupt"], message: error.message,
                    for: "BundleManifest(storedBytes:)")
                invariant(error.message.contains(source), "the refusal does not name '\(source)': \(error.message)")
                return
            }
            var seen = Set<ContainerPath>()
            for entry in manifest.entries {
                invariant(
                    !entry.path.isRoot && seen.insert(entry.path).inserted,
                    "the manifest lists '\(entry.path)' twice or lists the root")
                invariant(
                    !entry.path.isDescendant(of: BundleManifest.signatureDirectory),
                    "the manifest lists '\(entry.path)' inside _CodeSignature")
                invariant(
                    !entry.path.components.contains("..") && entry.path.string != nil,
                    "the manifest lists the path '\(entry.path)'")
                invariant(
                    entry.size >= 0 && entry.mode <= 0o7777,
                    "the manifest lists '\(entry.path)' with size \(entry.size), mode \(entry.mode)")
                invariant(
                    entry.kind == .file ? entry.sha256?.count == 64 : (entry.sha256 == nil && entry.size == 0),
                    "the manifest's entry '\(entry.path)' is inconsistent")
            }
            invariant(manifest.canonicalBytes == bytes, "a manifest that parsed is not its own canonical encoding")
            do throws(SandboxError) {
                invariant(
                    try BundleManifest(storedBytes: manifest.canonicalBytes, source: source) == manifest,
                    "the canonical encoding parses to another manifest")
            } catch {
                invariant(false, "the canonical encoding of a manifest does not parse: \(error)")
            }
        },
        seeds: {
            do {
                return ["signed-manifest.json": try signedManifest()]
            } catch {
                fatalError("sandbox-fuzz: cannot sign the seed bundle: \(error)")
            }
        })

    /// Signs a small bundle, as `sandbox sign` does, and returns its manifest.
    private static func signedManifest() throws -> [UInt8] {
        let folder = NSTemporaryDirectory() + "/sandbox-fuzz-bundle-\(getpid())"
        let location = folder + "/Notes.app"
        defer { try? FileManager.default.removeItem(atPath: folder) }  // cleanup of the harness's own scratch folder
        let bundle = try ConfinedRoot.creatingDirectory(atHostPath: location)
        try bundle.createDirectory(at: ContainerPath("en.lproj"))
        try bundle.createDirectory(at: ContainerPath("Frameworks/Kit.framework"), withIntermediateDirectories: true)
        try bundle.writeContents(Array("#!/bin/sh\necho notes\n".utf8), to: ContainerPath("Notes"))
        guard chmod(location + "/Notes", 0o755) == 0 else { throw CocoaError(.fileWriteNoPermission) }
        try bundle.writeContents(
            Array("\"Hello\" = \"Hello\";\n".utf8), to: ContainerPath("en.lproj/Localizable.strings"))
        try bundle.writeContents(Array("<plist><dict/></plist>\n".utf8), to: ContainerPath("Info.plist"))
        try bundle.writeContents([], to: ContainerPath("Frameworks/Kit.framework/empty"))
        try bundle.writeContents(Array("naïve ☃\n".utf8), to: ContainerPath("Ünïcödé name.txt"))
        let identity = BundleIdentity(
            identifier: try AppIdentifier("com.example.notes"), version: try BundleVersion("1.2.10"))
        try BundleSigner.sign(bundleAt: location, with: SigningKey(), identity: identity)
        return try bundle.readContents(of: ContainerPath("_CodeSignature/manifest.json"))
    }
}
