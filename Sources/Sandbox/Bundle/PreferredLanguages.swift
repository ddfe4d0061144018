import Foundation
import SandboxCore

/// The languages an app prefers, most wanted first.
///
/// This module reads them from the environment only. The app's own `AppleLanguages` preference
/// belongs to its preferences file, whose one reader and writer is SandboxStore: its
/// `Container.preferredLanguages(environment:)` reads the preference (under the preferences lock)
/// and falls back to ``fromEnvironment(_:)``, and its `localizedBundle(environment:)` hands the
/// result to ``Container/bundle(preferredLanguages:environment:)``.
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
}
