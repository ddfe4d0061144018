import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxStore

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create an Ed25519 key for signing bundles.",
        discussion:
            "Writes the private key to KEYFILE (mode 0600) and the public key to KEYFILE.pub; neither may exist. With --trust, this device also trusts the new key."
    )

    @Argument(help: "Where to write the private key; the public key goes to KEYFILE.pub.")
    var keyfile: String
    @Flag(help: "Trust the new key on this device (as `sandbox trust KEYFILE.pub` does).")
    var trust = false
    @OptionGroup var output: OutputOptions

    func run() throws {
        let key = SigningKey()
        try key.write(toHostPath: keyfile)
        if trust { try SandboxHome().trust(key.publicKey) }
        let summary = KeySummary(
            keyID: key.publicKey.keyID, privateKey: keyfile, publicKey: keyfile + ".pub", trusted: trust)
        if output.json { return try Output.json(summary) }
        try Output.line("Wrote the private key to \(keyfile) (keep it secret) and the public key to \(keyfile).pub")
        try Output.line("key ID: \(summary.keyID)\(trust ? " (trusted on this device)" : "")")
    }
}

struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Trust a public key on this device, so bundles it signed can be installed and opened.",
        discussion:
            "Trusted keys live in $SANDBOX_HOME/Device/TrustedKeys/<key ID>.pub. --remove stops trusting a key: apps it signed then refuse to open until updated."
    )

    @Argument(help: "A public key file (KEYFILE.pub, as written by `sandbox keygen`).")
    var publicKey: String?
    @Flag(help: "Stop trusting the key instead.")
    var remove = false
    @Flag(help: "List the trusted keys.")
    var list = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (publicKey == nil) == list else { throw ValidationError("Give a public key file, or --list (not both).") }
        guard !(list && remove) else { throw ValidationError("--remove needs a public key file, not --list.") }
    }

    func run() throws {
        let home = try SandboxHome()
        guard let publicKey else {
            let keys = try home.trustedKeys().map(\.keyID).sorted()
            if output.json { return try Output.json(keys) }
            for key in keys { try Output.line(key) }
            return
        }
        let key = try SigningPublicKey(contentsOfHostPath: publicKey)
        let changed = remove ? try home.distrust(key) : try home.trust(key)
        if output.json {
            return try Output.json([
                "keyID": key.keyID, "trusted": !remove ? "yes" : "no", "changed": changed ? "yes" : "no",
            ])
        }
        switch (remove, changed) {
        case (false, true): try Output.line("Trusted key \(key.keyID)")
        case (false, false): try Output.line("Key \(key.keyID) was already trusted")
        case (true, true): try Output.line("No longer trusting key \(key.keyID)")
        case (true, false): try Output.line("Key \(key.keyID) was not trusted")
        }
    }
}

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a bundle directory: a manifest of every file's SHA-256, signed with Ed25519.",
        discussion:
            "Writes BUNDLE-DIR/_CodeSignature/manifest.json and BUNDLE-DIR/_CodeSignature/signature, replacing an earlier signature. Hidden files are included; symbolic links, FIFOs, sockets and devices are refused. The app identifier and version signed into the manifest are CFBundleIdentifier and CFBundleVersion of BUNDLE-DIR/Info.plist: the bundle then installs only as that app, and an update never goes back to a lower version. The App Groups the bundle belongs to are com.apple.security.application-groups of its entitlements, BUNDLE-DIR/archived-expanded-entitlements.xcent (--entitlements FILE copies FILE there first): signed into the manifest, so a bundle joins a group only by being signed again."
    )

    @Argument(help: "The bundle directory (e.g. Notes.app).")
    var bundleDirectory: String
    @Option(help: "The private key file from `sandbox keygen`.")
    var key: String
    @Option(
        help: ArgumentHelp(
            "An entitlements property list to sign into the bundle (copied to BUNDLE-DIR/archived-expanded-entitlements.xcent).",
            valueName: "file"))
    var entitlements: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        let identity = try BundleInfo.identity(ofBundleAt: bundleDirectory)
        let groups = try BundleEntitlements.appGroups(ofBundleAt: bundleDirectory, copying: entitlements)
        let report = try BundleSigner.sign(
            bundleAt: bundleDirectory, with: SigningKey(contentsOfHostPath: key), identity: identity, appGroups: groups)
        if output.json { return try Output.json(report) }
        try Output.line(
            "Signed \(bundleDirectory) as \(identity.identifier) version \(identity.version): \(report.files) file(s), \(report.directories) folder(s), \(Output.bytes(report.bytes)); key ID \(report.keyID)"
        )
        if !groups.isEmpty { try Output.line("App Groups: \(groups.map(\.rawValue).joined(separator: ", "))") }
    }
}

struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Replace an app's bundle with a new signed one, keeping its data.",
        discussion:
            "The new bundle must be signed for this app, with a version no lower than the installed one (the same version re-installs it). It is checked, then staged beside the old one, then swapped in atomically. Documents and Library (Preferences, Application Support, Caches) are kept and tmp is cleared; the keychain is untouched. On any failure the old app is left as it was."
    )

    @OptionGroup var app: AppArgument
    @Option(help: "The new bundle directory, signed with `sandbox sign`.")
    var bundle: String
    @Flag(help: "Accept a bundle signed by another trusted key than the installed one.")
    var allowNewSigner = false
    @OptionGroup var output: OutputOptions

    func run() throws {
        let report = try SandboxHome().update(
            app.identifier(), bundleDirectory: bundle, allowingNewSigner: allowNewSigner)
        for warning in report.warnings { StandardStreams.error("sandbox: warning: \(warning)\n") }
        if output.json { return try Output.json(report) }
        try Output.line(
            "Updated \(report.app)\(report.verification.identity.map { " to version \($0.version)" } ?? "")\(report.previousVersion.map { " (was \($0))" } ?? "")"
        )
        try Output.line("  bundle: \(report.bundle)")
        try Output.line("  signed by: \(report.verification.keyID ?? "nobody")")
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Open an app as a launch does: check its bundle against its signature and manifest.",
        discussion:
            "Fails, naming the file, when anything in the bundle was modified, added or removed since install. Then turns fs-verity on for the bundle's files where the file system supports it, and says whether it did."
    )

    @OptionGroup var app: AppArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let opened = try SandboxHome().openApp(app.identifier())
        let report = opened.verification
        if output.json { return try Output.json(report) }
        guard report.isSigned else {
            return try Output.line("\(app.app): no bundle installed (an unsigned placeholder)")
        }
        try Output.line(
            "\(app.app): bundle intact\(report.identity.map { ", version \($0.version)" } ?? ""): \(report.files) file(s), \(report.directories) folder(s), \(Output.bytes(report.bytes)); key ID \(report.keyID ?? "")"
        )
        try Output.line("fs-verity: \(try opened.bundle.enableVerity())")
    }
}

struct Resource: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resource",
        abstract: "Find a resource in an app's bundle, as Bundle.path(forResource:ofType:) does.",
        discussion:
            "Looks in the best <lang>.lproj for the app's languages (its AppleLanguages preference, else LANGUAGE/LANG), then Base.lproj, then the bundle's top."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The resource's name (with its extension, or give --type).")
    var name: String
    @Option(help: "The extension.")
    var type: String?
    @Option(name: .customLong("in"), help: "A subdirectory to look in.")
    var subdirectory: String?
    @Option(help: "A language to use instead of the app's preferred ones.")
    var localization: String?

    func run() throws {
        let bundle = try app.container().localizedBundle()
        guard
            let path = try bundle.path(
                forResource: name, ofType: type, inDirectory: subdirectory, forLocalization: localization)
        else {
            throw SandboxError(
                .notFound,
                "No resource '\(name)\(type.map { "." + $0 } ?? "")' in the bundle of '\(app.app)' for the languages \(bundle.preferredLanguages).",
                path: name)
        }
        try Output.line(path)
    }
}

/// A bundle's `Info.plist`, for `sign`: where the identity signed into the manifest comes from.
enum BundleInfo {
    private struct Keys: Decodable {
        var bundleIdentifier: String?
        var bundleVersion: String?

        enum CodingKeys: String, CodingKey {
            case bundleIdentifier = "CFBundleIdentifier"
            case bundleVersion = "CFBundleVersion"
        }
    }

    /// `CFBundleIdentifier` and `CFBundleVersion` of `<bundle>/Info.plist` (binary or XML).
    ///
    /// - Throws: ``SandboxError/Code/notFound`` without an `Info.plist`;
    ///   ``SandboxError/Code/invalidArgument`` when it is no property list, lacks either key, or
    ///   holds an invalid identifier or version.
    static func identity(ofBundleAt bundle: String) throws(SandboxError) -> BundleIdentity {
        let info = ContainerPath(constant: "Info.plist")
        let shown = bundle + "/Info.plist"
        let remedy =
            "`sandbox sign` signs the app identifier and version into the manifest: give the bundle an Info.plist with the strings CFBundleIdentifier (e.g. com.example.notes) and CFBundleVersion (e.g. 1.2.10)."
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try ConfinedRoot(openingDirectoryAt: bundle).readContents(of: info, maximumSize: 1 << 20)
        } catch  where error.code == .notFound {
            throw SandboxError(.notFound, "'\(shown)' does not exist. \(remedy)", path: shown)
        }
        let keys: Keys
        do throws(SandboxError) {
            keys = try PropertyList.decode(Keys.self, from: bytes, path: shown)
        } catch {
            throw SandboxError(.invalidArgument, "\(error.message) \(remedy)", path: shown)
        }
        guard let identifier = keys.bundleIdentifier, let version = keys.bundleVersion else {
            throw SandboxError(
                .invalidArgument,
                "'\(shown)' has no \(keys.bundleIdentifier == nil ? "CFBundleIdentifier" : "CFBundleVersion") string. \(remedy)",
                path: shown)
        }
        do throws(SandboxError) {
            return BundleIdentity(identifier: try AppIdentifier(identifier), version: try BundleVersion(version))
        } catch {
            throw SandboxError(.invalidArgument, "'\(shown)': \(error.message)", path: shown)
        }
    }
}

/// What `keygen --json` prints.
struct KeySummary: Encodable {
    var keyID: String
    var privateKey: String
    var publicKey: String
    var trusted: Bool
}
