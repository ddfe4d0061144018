/// Where a finished download goes inside the container: `Library/Caches` (what can be downloaded
/// again, the seed's advice) or `Documents`, under the suggested file name or a given one.
public struct DownloadDestination: Sendable, Hashable, Codable {
    /// A folder of the container.
    public enum Folder: String, Sendable, Hashable, Codable, CaseIterable {
        /// `Library/Caches`: not backed up, may be purged.
        case caches
        /// `Documents`: the user's files, backed up.
        case documents
    }

    /// The folder the file goes into.
    public var folder: Folder
    /// The file name; `nil` for the server's suggestion (``SuggestedFilename``). Sanitized either way.
    public var filename: String?

    /// The file goes into `folder`, named `filename` (sanitized) or, when `nil`, as the server suggests.
    public init(folder: Folder, filename: String? = nil) {
        self.folder = folder
        self.filename = filename
    }

    /// `Library/Caches` under the suggested name.
    public static let caches = DownloadDestination(folder: .caches)
    /// `Documents` under the suggested name.
    public static let documents = DownloadDestination(folder: .documents)
}
