extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws ``SandboxError``, keeping the error's type (the
    /// standard one only rethrows untyped errors).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(SandboxError) -> R) throws(SandboxError) -> R {
        try withUnsafeBytes { buffer in Result { () throws(SandboxError) in try body(buffer) } }.get()
    }
}
