import Sandbox
import SandboxCore

extension Container {
    /// What the installed bundle's `Info.plist` declares, read from the bundle as installed and
    /// vouched for by its signature (``/Sandbox/Container/verifiedInfoPlist(trustedKeys:)``, with
    /// the device's trusted keys), never from a file the app can write. A bundle without
    /// `Info.plist` declares nothing (``AppBundleInfo/undeclared``).
    ///
    /// - Throws: the errors of ``/Sandbox/Container/verifiedInfoPlist(trustedKeys:)`` (a changed,
    ///   oversized or linked `Info.plist`, an unsigned bundle that is not a placeholder) and of
    ///   ``AppBundleInfo/init(propertyList:path:)`` (not a property list, a key of the wrong type).
    public func bundleInfo() throws(SandboxError) -> AppBundleInfo {
        guard let bytes = try verifiedInfoPlist(trustedKeys: home.trustedKeys()) else { return .undeclared }
        return try AppBundleInfo(propertyList: bytes, path: infoPlistHostPath)
    }

    /// Checks that the app declares file sharing (`UIFileSharingEnabled` set to true in its
    /// installed `Info.plist`), as iOS shares only such apps' Documents.
    ///
    /// - Returns: what the bundle declares.
    /// - Throws: `file-sharing-disabled` when the key is absent or
    ///   false, naming the key, the bundle and how to declare it; the errors of ``Container/bundleInfo()``.
    @discardableResult
    public func checkFileSharing() throws(SandboxError) -> AppBundleInfo {
        let info = try bundleInfo()
        guard info.fileSharingEnabled else {
            let path = infoPlistHostPath
            throw SandboxError(
                .fileSharingDisabled,
                "'\(identifier)' does not declare file sharing: its bundle's Info.plist ('\(path)') does not set "
                    + "\(AppBundleInfo.fileSharingKey) to true, so its Documents are not shared. Declare it in the "
                    + "bundle's Info.plist (<key>\(AppBundleInfo.fileSharingKey)</key><true/>), then sign and "
                    + "install the bundle again.",
                path: path)
        }
        return info
    }

    /// The first of the app's document types (`CFBundleDocumentTypes`) that accepts a document
    /// named `fileName` (``DocumentType/accepts(fileName:)``): "Open In…" delivers only such a
    /// document.
    ///
    /// - Returns: the bundle's declarations and the accepting type.
    /// - Throws: `document-type-not-accepted` when none does (naming
    ///   the file's type and the bundle); the errors of ``Container/bundleInfo()``.
    public func documentType(
        accepting fileName: String
    ) throws(SandboxError) -> (
        info: AppBundleInfo, type: DocumentType
    ) {
        let info = try bundleInfo()
        guard let type = info.documentType(accepting: fileName) else {
            let uti = UniformType.identifier(forFileName: fileName)
            let declared =
                info.documentTypes.isEmpty
                ? "declares no document types (CFBundleDocumentTypes)"
                : "declares no document type (CFBundleDocumentTypes) whose LSItemContentTypes it conforms to "
                    + "or whose CFBundleTypeExtensions name its extension"
            throw SandboxError(
                .documentTypeNotAccepted,
                "'\(identifier)' does not open '\(fileName)' (\(uti)): its bundle's Info.plist ('\(infoPlistHostPath)') "
                    + "\(declared). Add a document type that accepts it to the bundle's Info.plist, then sign and "
                    + "install the bundle again.",
                path: infoPlistHostPath)
        }
        return (info, type)
    }
}
