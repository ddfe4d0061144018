import Foundation

/// Chooses among a bundle's `<name>.lproj` folders for a list of preferred languages, in our code
/// (Foundation's `Bundle` on Linux ignores the language settings; see research/persistence.md §3.5).
///
/// For each preferred language in order, the first rule that finds folders wins, and its folders
/// join the result: the exact tag (`pt-BR` → `pt-BR.lproj`), then the tag with subtags dropped from
/// the end (`zh-Hans-CN` → `zh-Hans`, then `zh`), then any region of the same language (`pt` →
/// `pt-PT.lproj`). Matching ignores case and treats `_` as `-`; the legacy names `English.lproj`,
/// `German.lproj`, … stand for their codes. `Base.lproj` is never matched here: look-ups try it
/// after every matched folder.
public enum LocalizationMatcher {
    /// Legacy folder names and the language codes they stand for.
    static let legacyNames: [String: String] = [
        "english": "en", "french": "fr", "german": "de", "japanese": "ja", "spanish": "es",
        "italian": "it", "dutch": "nl", "portuguese": "pt", "swedish": "sv", "danish": "da",
        "finnish": "fi", "norwegian": "nb", "korean": "ko", "russian": "ru", "polish": "pl",
    ]

    /// The localizations of `available` (folder names without `.lproj`) that suit `preferred`
    /// (language tags, most wanted first), best first, without repeats.
    public static func preferredLocalizations(from available: [String], forPreferences preferred: [String]) -> [String]
    {
        let candidates = available.filter { $0.lowercased() != "base" }.map { (name: $0, tag: canonical($0)) }
        var result: [String] = []
        func add(_ names: [String]) {
            for name in names where !result.contains(name) { result.append(name) }
        }
        for language in preferred {
            let tag = canonical(language)
            guard !tag.isEmpty else { continue }
            var subtags = tag.split(separator: "-").map(String.init)
            var found = false
            while !subtags.isEmpty && !found {
                let wanted = subtags.joined(separator: "-")
                let exact = candidates.filter { $0.tag == wanted }.map(\.name)
                found = !exact.isEmpty
                add(exact)
                subtags.removeLast()
            }
            if !found, let primary = tag.split(separator: "-").first {
                add(candidates.filter { $0.tag.split(separator: "-").first == primary }.map(\.name).sorted())
            }
        }
        return result
    }

    /// A tag or folder name in one spelling: lowercase, `-` between subtags, legacy names as codes.
    static func canonical(_ name: String) -> String {
        let lower = name.lowercased().replacingOccurrences(of: "_", with: "-")
        return legacyNames[lower] ?? lower
    }
}
