import SandboxCore

/// Entry points for the fuzz targets (`Fuzz/`, FUZZING.md) into parsers that have no public
/// entry of their own. Each only calls the parser the module itself uses; not for apps.
@_spi(Fuzzing) public enum SandboxFuzzEntryPoints {
    /// Reads `_CodeSignature/signature` as installing or opening a bundle does.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with
    ///   ``SandboxCore/SandboxError/Code/signatureInvalid``.
    public static func bundleSignature(
        storedBytes bytes: [UInt8], source: String
    ) throws(SandboxError) -> BundleSignature {
        try BundleSignature(storedBytes: bytes, source: source)
    }

    /// The bytes `sandbox sign` stores for `signature`.
    public static func storedBytes(of signature: BundleSignature) -> [UInt8] {
        signature.storedBytes
    }

    /// Whether `signature` signs `manifest`, as the bundle check decides it.
    public static func isValid(_ signature: BundleSignature, for manifest: [UInt8]) -> Bool {
        signature.isValid(for: manifest)
    }
}
