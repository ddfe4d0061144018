import Foundation
import SandboxCore

/// The languages an app prefers, most wanted first.
public enum PreferredLanguages {
    /// The preference key iOS and macOS keep the list under.
    public static let preferenceKey = "AppleLanguages"

    /// The languages the process environment asks for: each entry of `LANGUAGE` (a colon-separated
    /// list), then the locale of `LC_ALL`, `LC_MESSAGES` or `LANG` (the first set), as BCP 47 tags:
    /// `de_DE.UTF-8` → `de-DE`. The `C` and `POSIX` locales name no language.
    public static func fromEnvironment(_ environment: [String: String]) -> [String] {
        var tags: [String] = []
        let list = environment["LANGUAGE"].map { $0.split(separator: ":").map(String.init) } ?? []
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        for entry in list + (locale.map { [$0] } ?? []) {
            if let tag = tag(fromLocale: entry), !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// A POSIX locale name as a language tag: `pt_BR.UTF-8@euro` → `pt-BR`; `nil` for `C`/`POSIX`.
    public static func tag(fromLocale locale: String) -> String? {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        return name.replacingOccurrences(of: "_", with: "-")
    }

    /// The `AppleLanguages` array of a binary or XML property list, or `nil` when it has none.
    ///
    /// - Throws: ``SandboxError/Code/corrupt`` when the bytes are no property list, or the value
    ///   is not a list of strings.
    static func fromPreferences(_ bytes: [UInt8], source: String) throws(SandboxError) -> [String]? {
        let value: Any
        do {
            value = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw SandboxError(.corrupt, "'\(source)' is not a property list (\(error.localizedDescription)); the app's languages cannot be read from it. Remove the file or write it again through the preferences API.", path: source)
        }
        guard let dictionary = value as? [String: Any] else {
            throw SandboxError(.corrupt, "'\(source)' holds no dictionary of preferences. Remove the file or write it again through the preferences API.", path: source)
        }
        guard let languages = dictionary[preferenceKey] else { return nil }
        guard let list = languages as? [String] else {
            throw SandboxError(.corrupt, "'\(preferenceKey)' in '\(source)' is not a list of language tags. Write it again, e.g. `sandbox defaults APP write \(preferenceKey) …`.", path: source)
        }
        return list
    }
}

extension Container {
    /// The app's preferred languages: its `AppleLanguages` preference
    /// (`Library/Preferences/<app-id>.plist`), else the environment's
    /// (``PreferredLanguages/fromEnvironment(_:)``).
    ///
    /// - Throws: ``SandboxError/Code/corrupt`` for an unreadable preferences file, file-system errors.
    public func preferredLanguages(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SandboxError) -> [String] {
        guard let directory = ContainerDirectory.preferences.path else { return PreferredLanguages.fromEnvironment(environment) }
        let file = directory.appendingName(identifier.rawValue + ".plist")
        do throws(SandboxError) {
            let bytes = try root.readContents(of: file)
            if let languages = try PreferredLanguages.fromPreferences(bytes, source: root.displayPath(of: file)), !languages.isEmpty {
                return languages
            }
        } catch where error.code == .notFound {
            // No preferences written yet: the environment decides.
        }
        return PreferredLanguages.fromEnvironment(environment)
    }
}
