import Sandbox
import SandboxCore

/// What an installed app's `Info.plist` declares that the device acts on: file sharing, the
/// documents it opens, and whether it opens them in place.
///
/// Read from the verified bundle (`Container.bundleInfo()`), never from a file the app
/// can write. A key that is absent takes iOS's default; a key with the wrong type is refused with
/// `invalid-info-plist` rather than read as its default.
public struct AppBundleInfo: Sendable, Hashable {
    /// `UIFileSharingEnabled`: whether the app's Documents are shared (iTunes' and Finder's file
    /// sharing; `sandbox share` here). iOS's default is `false`.
    public var fileSharingEnabled: Bool
    /// `LSSupportsOpeningDocumentsInPlace`: whether the app opens a document where it is rather
    /// than a copy in its Inbox; `nil` when not declared.
    public var supportsOpeningDocumentsInPlace: Bool?
    /// `CFBundleDocumentTypes`: the documents the app opens ("Open In…").
    public var documentTypes: [DocumentType]
    /// `CFBundleDisplayName`, else `CFBundleName`: the app's name as people read it (the share
    /// announces itself with it); `nil` when neither is a non-empty string.
    public var displayName: String?

    /// An app that declares nothing: no `Info.plist`, or none of these keys.
    public static let undeclared = AppBundleInfo(
        fileSharingEnabled: false, supportsOpeningDocumentsInPlace: nil, documentTypes: [])

    /// Declarations given as values.
    public init(fileSharingEnabled: Bool, supportsOpeningDocumentsInPlace: Bool?, documentTypes: [DocumentType]) {
        self.fileSharingEnabled = fileSharingEnabled
        self.supportsOpeningDocumentsInPlace = supportsOpeningDocumentsInPlace
        self.documentTypes = documentTypes
    }

    /// The keys `Info.plist` (binary or XML) declares.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents (bounded by the caller: ``/Sandbox/BundleInfoFile/maximumSize``).
    ///   - path: names the file in messages.
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when it is not a property list, and
    ///   ``SandboxCore/SandboxError/Code/tooLarge`` past the reader's bounds (as
    ///   ``PropertyList/value(from:path:limits:)``); `invalid-info-plist`
    ///   when its top level is not a dictionary or a key has the wrong type, naming the key.
    public init(propertyList bytes: [UInt8], path: String) throws(SandboxError) {
        guard case .dictionary(let keys) = try PropertyList.value(from: bytes, path: path) else {
            throw SandboxError(
                .invalidInfoPlist, "'\(path)' is not a dictionary of keys, as an Info.plist must be.", path: path)
        }
        let reader = InfoPlistKeys(keys: keys, path: path)
        fileSharingEnabled = try reader.boolean(Self.fileSharingKey) ?? false
        supportsOpeningDocumentsInPlace = try reader.boolean("LSSupportsOpeningDocumentsInPlace")
        documentTypes = try reader.documentTypes()
        displayName =
            ["CFBundleDisplayName", "CFBundleName"].lazy.compactMap { key -> String? in
                guard case .string(let name) = keys[key], !name.isEmpty else { return nil }
                return name
            }.first
    }

    /// `UIFileSharingEnabled`.
    public static let fileSharingKey = "UIFileSharingEnabled"

    /// The first document type that accepts a file named `fileName` (see
    /// ``DocumentType/accepts(fileName:)``), or `nil`.
    public func documentType(accepting fileName: String) -> DocumentType? {
        documentTypes.first { $0.accepts(fileName: fileName) }
    }
}

/// Reads typed keys of an `Info.plist` dictionary, naming the key and the type it must have when
/// it has another.
struct InfoPlistKeys {
    let keys: [String: PreferenceValue]
    let path: String

    func boolean(_ key: String) throws(SandboxError) -> Bool? {
        switch keys[key] {
        case nil: return nil
        case .bool(let value): return value
        case let other?: throw wrongType(key, other, expected: "a boolean (<true/> or <false/>)")
        }
    }

    func documentTypes() throws(SandboxError) -> [DocumentType] {
        let key = "CFBundleDocumentTypes"
        switch keys[key] {
        case nil: return []
        case .array(let items):
            var types: [DocumentType] = []
            for (index, item) in items.enumerated() {
                guard case .dictionary(let entry) = item else {
                    throw wrongType("\(key)[\(index)]", item, expected: "a dictionary")
                }
                let nested = InfoPlistKeys(keys: entry, path: path)
                types.append(
                    DocumentType(
                        name: try nested.string("CFBundleTypeName", in: "\(key)[\(index)]"),
                        contentTypes: try nested.strings("LSItemContentTypes", in: "\(key)[\(index)]"),
                        extensions: try nested.strings("CFBundleTypeExtensions", in: "\(key)[\(index)]")))
            }
            return types
        case let other?: throw wrongType(key, other, expected: "an array of dictionaries")
        }
    }

    func string(_ key: String, in parent: String) throws(SandboxError) -> String? {
        switch keys[key] {
        case nil: return nil
        case .string(let value): return value
        case let other?: throw wrongType("\(parent).\(key)", other, expected: "a string")
        }
    }

    func strings(_ key: String, in parent: String) throws(SandboxError) -> [String] {
        switch keys[key] {
        case nil: return []
        case .array(let items):
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let value) = item else {
                    throw wrongType("\(parent).\(key)[\(index)]", item, expected: "a string")
                }
                result.append(value)
            }
            return result
        case let other?: throw wrongType("\(parent).\(key)", other, expected: "an array of strings")
        }
    }

    private func wrongType(_ key: String, _ value: PreferenceValue, expected: String) -> SandboxError {
        SandboxError(
            .invalidInfoPlist,
            "'\(path)' declares \(key) with a value of type \(value.typeName), not \(expected): the key is not read. "
                + "Declare it with the right type in the bundle's Info.plist.",
            path: path)
    }
}
