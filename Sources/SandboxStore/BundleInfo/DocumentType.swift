/// One entry of an app's `CFBundleDocumentTypes`: a kind of document the app opens.
public struct DocumentType: Sendable, Hashable, Encodable {
    /// `CFBundleTypeName`, e.g. `PDF document`.
    public var name: String?
    /// `LSItemContentTypes`: the uniform type identifiers accepted, e.g. `com.adobe.pdf`; a file
    /// is accepted when its type conforms to one (``UniformType``).
    public var contentTypes: [String]
    /// `CFBundleTypeExtensions`, the legacy way: file name extensions (`*` for any). iOS ignores
    /// them when ``contentTypes`` is not empty, and so does ``accepts(fileName:)``.
    public var extensions: [String]

    /// A document type given as values.
    public init(name: String? = nil, contentTypes: [String] = [], extensions: [String] = []) {
        self.name = name
        self.contentTypes = contentTypes
        self.extensions = extensions
    }

    /// Whether a file named `fileName` is of this type: its uniform type
    /// (``UniformType/identifier(forFileName:)``) conforms to one of ``contentTypes``; or, when
    /// there are none, its extension is one of ``extensions`` (compared without regard to case)
    /// or they hold `*`.
    public func accepts(fileName: String) -> Bool {
        if !contentTypes.isEmpty {
            let conforming = UniformType.conformingTypes(of: UniformType.identifier(forFileName: fileName))
            return contentTypes.contains { conforming.contains($0.lowercased()) }
        }
        let fileExtension = UniformType.fileExtension(of: fileName)
        return extensions.contains { $0 == "*" || (fileExtension != nil && $0.lowercased() == fileExtension) }
    }
}
