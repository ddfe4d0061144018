import Foundation
import Sandbox

/// Installs `app` from a bundle signed (with a key `home` trusts) as a member of `groups`.
@discardableResult
func installMember(
    _ app: String, of groups: [String], in home: SandboxHome, scratch: String
) throws -> Container {
    let key = try trustedKey(in: home)
    let name = app.split(separator: ".").last.map(String.init) ?? app
    let path = try makeBundle(in: scratch, named: "\(name).app", files: ["Info.plist": "<plist/>", name: "binary"])
    try BundleSigner.sign(
        bundleAt: path, with: key,
        identity: BundleIdentity(identifier: AppIdentifier(app), version: BundleVersion("1.0")),
        appGroups: groups.map(AppGroupIdentifier.init))
    return try home.createContainer(for: AppIdentifier(app), bundleDirectory: path)
}
