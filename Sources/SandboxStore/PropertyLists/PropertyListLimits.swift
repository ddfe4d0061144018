/// How much a property-list reader may build from a file: the defence against small files that
/// describe enormous or endlessly nested values.
///
/// A binary property list may refer to one object many times (a 32 KiB file can name the same
/// 16 KiB `data` object 2,000 times), so size is bounded by what the reader **produces**: each
/// value counts its bytes (a string's UTF-8, a data object's bytes) plus a fixed 16 for itself,
/// every time it is referenced. Nesting is bounded too, so that no value is deeper than code that
/// walks it recursively (comparing, printing, freeing) can handle.
///
/// Both readers are iterative, so the limits bound memory and time (linear in what is produced),
/// never the stack.
public struct PropertyListLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and dictionaries accepted; the top level is depth 1.
    public var maximumDepth: Int
    /// The most bytes of values a read may produce (see above).
    public var maximumOutputSize: Int

    /// - Parameters:
    ///   - maximumDepth: 512 by default; values below 1 are raised to 1.
    ///   - maximumOutputSize: 64 MiB by default — about four times the largest file of small values
    ///     a 16 MiB preferences file can hold; values below 0 are raised to 0.
    public init(maximumDepth: Int = 512, maximumOutputSize: Int = 64 << 20) {
        self.maximumDepth = max(1, maximumDepth)
        self.maximumOutputSize = max(0, maximumOutputSize)
    }

    /// 512 levels, 64 MiB.
    public static let `default` = PropertyListLimits()
}
