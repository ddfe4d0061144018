import Foundation
@_spi(Fuzzing) import Sandbox

extension FuzzTarget {
    /// `_CodeSignature/signature`, read as installing or opening a bundle reads it (through
    /// `SandboxFuzzEntryPoints`: the parser has no public entry).
    ///
    /// A signature that parses is stored again as the same signature, and checking it against any
    /// manifest answers (never traps); it never signs a manifest other than its own seed's.
    static let bundleSignature = FuzzTarget(
        name: "bundle-signature",
        run: { bytes in
            let source = "Notes.app/_CodeSignature/signature"
            let signature: BundleSignature
            do throws(SandboxError) {
                signature = try SandboxFuzzEntryPoints.bundleSignature(storedBytes: bytes, source: source)
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["signature-invalid"], message: error.message,
                    for: "the bundle signature")
                invariant(error.message.contains(source), "the refusal does not name '\(source)': \(error.message)")
                return
            }
            invariant(signature.signature.count == 64, "a signature of \(signature.signature.count) bytes parsed")
            do throws(SandboxError) {
                let again = try SandboxFuzzEntryPoints.bundleSignature(
                    storedBytes: SandboxFuzzEntryPoints.storedBytes(of: signature), source: source)
                invariant(again == signature, "a signature stored again parses to another signature")
            } catch {
                invariant(false, "a signature stored again does not parse: \(error)")
            }
            invariant(
                !SandboxFuzzEntryPoints.isValid(signature, for: Array("not the manifest".utf8)),
                "a signature signs a manifest nobody signed")
        },
        seeds: {
            do {
                let key = SigningKey()
                let folder = NSTemporaryDirectory() + "/sandbox-fuzz-signature-\(getpid())"
                // cleanup of the harness's own scratch folder
                defer { try? FileManager.default.removeItem(atPath: folder) }
                let bundle = try ConfinedRoot.creatingDirectory(atHostPath: folder)
                try bundle.writeContents(Array("notes\n".utf8), to: ContainerPath("Notes"))
                let identity = BundleIdentity(
                    identifier: try AppIdentifier("com.example.notes"), version: try BundleVersion("3"))
                try BundleSigner.sign(bundleAt: folder, with: key, identity: identity)
                return ["signature": try bundle.readContents(of: ContainerPath("_CodeSignature/signature"))]
            } catch {
                fatalError("sandbox-fuzz: cannot sign the seed bundle: \(error)")
            }
        })
}
