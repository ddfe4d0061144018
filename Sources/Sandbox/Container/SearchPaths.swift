import SandboxCore

/// The directories `NSSearchPathForDirectoriesInDomains` knows.
public enum SearchPathDirectory: String, Sendable, CaseIterable {
    case documentDirectory
    case libraryDirectory
    case cachesDirectory
    case applicationSupportDirectory
    case preferencePanesDirectory
    case itemReplacementDirectory
}

/// The domains of a search-path look-up.
public struct SearchPathDomainMask: OptionSet, Sendable, Hashable {
    /// The bits of the domains, with Foundation's values.
    public let rawValue: UInt
    /// The domains whose bits `rawValue` sets.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The app's own directories, inside its container.
    public static let userDomainMask = SearchPathDomainMask(rawValue: 1)
    /// The device-wide `/Library` locations, answered read-only.
    public static let localDomainMask = SearchPathDomainMask(rawValue: 2)
    /// The network domain, which iOS does not have: it never adds an answer.
    public static let networkDomainMask = SearchPathDomainMask(rawValue: 4)
    /// The `/System/Library` locations, answered read-only.
    public static let systemDomainMask = SearchPathDomainMask(rawValue: 8)
    /// Every domain.
    public static let allDomainsMask = SearchPathDomainMask(rawValue: 0x0ffff)
}

/// One answer of a search-path look-up.
public struct SearchPathResult: Sendable, Hashable {
    /// The host path (`~`-abbreviated only when asked).
    public var path: String
    /// Whether the app may write there: user-domain directories inside the container are
    /// writable; system and local ones are answered read-only, as on iOS.
    public var isWritable: Bool
}

extension Container {
    /// `NSSearchPathForDirectoriesInDomains(directory, domains, expandTilde)` for this app,
    /// answered from the container (never from `FileManager.urls(for:in:)`, which on Linux ignores
    /// `$HOME` and knows no Library).
    ///
    /// User-domain answers lie in the container; local and system answers are the iOS locations,
    /// read-only. `expandTilde: false` abbreviates the container's home to `~`, as iOS does.
    public func searchPathForDirectories(
        _ directory: SearchPathDirectory,
        in domains: SearchPathDomainMask,
        expandTilde: Bool = true
    ) -> [SearchPathResult] {
        var results: [SearchPathResult] = []
        if domains.contains(.userDomainMask), let user = userDirectory(directory) {
            let path = hostPath(for: user)
            let shown = expandTilde ? path : "~" + path.dropFirst(homeDirectory.count)
            results.append(SearchPathResult(path: shown, isWritable: ContainerPolicy.app.allows(.create, in: user)))
        }
        if domains.contains(.localDomainMask), let suffix = systemSuffix(directory) {
            results.append(SearchPathResult(path: "/Library" + suffix, isWritable: false))
        }
        if domains.contains(.systemDomainMask), let suffix = systemSuffix(directory) {
            results.append(SearchPathResult(path: "/System/Library" + suffix, isWritable: false))
        }
        return results
    }

    /// The plain strings, exactly like the Foundation function.
    public func searchPaths(
        _ directory: SearchPathDirectory, in domains: SearchPathDomainMask, expandTilde: Bool = true
    ) -> [String] {
        searchPathForDirectories(directory, in: domains, expandTilde: expandTilde).map(\.path)
    }

    private func userDirectory(_ directory: SearchPathDirectory) -> ContainerDirectory? {
        switch directory {
        case .documentDirectory: .documents
        case .libraryDirectory: .library
        case .cachesDirectory: .caches
        case .applicationSupportDirectory: .applicationSupport
        case .preferencePanesDirectory: nil
        case .itemReplacementDirectory: .tmp
        }
    }

    private func systemSuffix(_ directory: SearchPathDirectory) -> String? {
        switch directory {
        case .documentDirectory, .itemReplacementDirectory: nil
        case .libraryDirectory: ""
        case .cachesDirectory: "/Caches"
        case .applicationSupportDirectory: "/Application Support"
        case .preferencePanesDirectory: "/PreferencePanes"
        }
    }
}
