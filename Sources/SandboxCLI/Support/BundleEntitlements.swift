import Foundation
import Sandbox
import SandboxStore

/// A bundle's entitlements, for `sign`: where the App Groups signed into the manifest come from.
///
/// They live in the bundle as `archived-expanded-entitlements.xcent` (the property list Xcode puts
/// in a simulator build), which the manifest covers like every file: changing it after signing is
/// a modified bundle, and the groups themselves are signed into the manifest.
enum BundleEntitlements {
    /// The entitlements file's name at the bundle's top.
    static let fileName = "archived-expanded-entitlements.xcent"
    /// The key of the App Groups, an array of strings.
    static let appGroupsKey = "com.apple.security.application-groups"

    private struct Keys: Decodable {
        var appGroups: [String]?

        enum CodingKeys: String, CodingKey {
            case appGroups = "com.apple.security.application-groups"
        }
    }

    /// The App Groups of the bundle at `bundle`: those of `source` (a host path to an entitlements
    /// property list, binary or XML), which is first copied into the bundle as ``fileName``; else
    /// those of the bundle's own ``fileName``; else none.
    ///
    /// - Throws: ``SandboxError/Code/notFound`` for a missing `source`;
    ///   ``SandboxError/Code/invalidArgument`` for a file that is no property list, whose groups
    ///   are not an array of strings, or holds an invalid group identifier or too many.
    static func appGroups(
        ofBundleAt bundle: String, copying source: String?
    ) throws(SandboxError) -> [AppGroupIdentifier] {
        let bundleRoot = try ConfinedRoot(openingDirectoryAt: bundle)
        let inBundle = ContainerPath(constant: "archived-expanded-entitlements.xcent")
        let bytes: [UInt8]
        let shown: String
        if let source {
            let url = URL(fileURLWithPath: source)
            let directory = url.deletingLastPathComponent().path
            bytes = try ConfinedRoot(openingDirectoryAt: directory)
                .readContents(of: try ContainerPath(url.lastPathComponent), maximumSize: 1 << 20)
            shown = source
        } else {
            do throws(SandboxError) {
                bytes = try bundleRoot.readContents(of: inBundle, maximumSize: 1 << 20)
            } catch  where error.code == .notFound {
                return []
            }
            shown = bundle + "/" + fileName
        }
        let remedy =
            "Entitlements are a property list; '\(appGroupsKey)' is an array of App Group identifiers such as 'group.com.example.shared'."
        let keys: Keys
        do throws(SandboxError) {
            keys = try PropertyList.decode(Keys.self, from: bytes, path: shown)
        } catch {
            throw SandboxError(.invalidArgument, "\(error.message) \(remedy)", path: shown)
        }
        let groups: [AppGroupIdentifier]
        do throws(SandboxError) {
            groups = try AppGroupIdentifier.validatedList(keys.appGroups ?? [])
        } catch {
            throw SandboxError(.invalidArgument, "'\(shown)': \(error.message)", path: shown)
        }
        if source != nil {
            try bundleRoot.writeContents(bytes, to: inBundle, options: [.atomic, .durable])
        }
        return groups
    }
}
