import Foundation
import Sandbox

/// The files of a small app bundle with localized resources.
let sampleBundleFiles: [String: String] = [
    "Notes": "#!/bin/sh\necho notes\n",
    "Info.plist": "<plist/>",
    ".hidden": "hidden file",
    "icon.png": "PNG",
    "en.lproj/Localizable.strings": "\"hi\" = \"Hello\";",
    "de.lproj/Localizable.strings": "\"hi\" = \"Hallo\";",
    "pt-BR.lproj/Localizable.strings": "\"hi\" = \"Olá\";",
    "Base.lproj/Main.storyboard": "base",
    "Base.lproj/Localizable.strings": "\"hi\" = \"Base\";",
    "fr.lproj/Main.storyboard": "fr",
    "Sounds/ding.wav": "RIFF",
    "Sounds/en.lproj/ding.wav": "never found: lproj folders count only at the top",
]

/// Writes a bundle directory `name` in `scratch` with `files` (relative path → contents); `Notes`
/// is made executable. Returns its host path.
@discardableResult
func makeBundle(
    in scratch: String, named name: String = "Notes.app", files: [String: String] = sampleBundleFiles
) throws -> String {
    let path = scratch + "/" + name
    for (relative, contents) in files {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        if relative == "Notes" { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file) }
    }
    return path
}

/// A new key, trusted by `home`.
func trustedKey(in home: SandboxHome) throws -> SigningKey {
    let key = SigningKey()
    try home.trust(key.publicKey)
    return key
}

/// Signs the bundle directory at `path` for `app` at `version`.
@discardableResult
func sign(
    _ path: String, with key: SigningKey, app: String = "com.example.notes", version: String = "1.0"
) throws -> BundleSigner.Report {
    try BundleSigner.sign(
        bundleAt: path, with: key,
        identity: BundleIdentity(identifier: AppIdentifier(app), version: BundleVersion(version)))
}

/// Makes a bundle, signs it with a key `home` trusts (for `app` at `version`), and returns its
/// path and the key.
func signedBundle(
    in scratch: String,
    home: SandboxHome,
    named name: String = "Notes.app",
    files: [String: String] = sampleBundleFiles,
    app: String = "com.example.notes",
    version: String = "1.0"
) throws -> (path: String, key: SigningKey) {
    let key = try trustedKey(in: home)
    let path = try makeBundle(in: scratch, named: name, files: files)
    try sign(path, with: key, app: app, version: version)
    return (path, key)
}

/// Writes `contents` at the host path `path`, making the file writable first (an installed
/// bundle is read-only; the tests run as root, whom mode bits do not stop anyway).
func overwrite(_ path: String, with contents: String) throws {
    // absent file: the write creates it
    try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
}

/// Whether the home holds no container, staged or otherwise.
func homeIsEmpty(_ home: SandboxHome) throws -> Bool {
    try home.root.contentsOfDirectory(at: ContainerPath("Containers/Data")).isEmpty
        && home.root.contentsOfDirectory(at: ContainerPath("Containers/Bundle")).isEmpty
}
