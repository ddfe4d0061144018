import Foundation
import SandboxStore
import Testing

/// What an installed bundle's `Info.plist` declares, read only as the bundle vouches for it.
@Suite("Info.plist declarations: file sharing, document types, opening in place")
struct BundleInfoTests {
    /// An XML `Info.plist` with `keys` (raw XML of key/value pairs) in its dictionary.
    static func plist(_ keys: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(keys)</dict></plist>
            """.utf8)
    }

    /// Installs `app` from a bundle signed by a trusted key, holding an executable and, unless
    /// `nil`, `Info.plist` with `info`.
    static func install(_ app: String, info: [UInt8]?, in fixture: Fixture) throws -> Container {
        let bundle = fixture.scratch + "/bundles/\(app)/App.app"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: bundle + "/App"))
        if let info { try Data(info).write(to: URL(fileURLWithPath: bundle + "/Info.plist")) }
        let key = SigningKey()
        try fixture.home.trust(key.publicKey)
        let identifier = Fixture.appIdentifier(app)
        try BundleSigner.sign(
            bundleAt: bundle, with: key, identity: BundleIdentity(identifier: identifier, version: BundleVersion("1")))
        return try fixture.home.createContainer(for: identifier, bundleDirectory: bundle)
    }

    /// The error `body` throws.
    static func failure(_ body: () throws(SandboxError) -> Void) -> SandboxError? {
        do throws(SandboxError) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a signed bundle's declarations are read: sharing, document types, in place")
    func declared() throws {
        try Fixture.with { fixture in
            let info = Self.plist(
                """
                <key>UIFileSharingEnabled</key><true/>
                <key>LSSupportsOpeningDocumentsInPlace</key><false/>
                <key>CFBundleDocumentTypes</key><array>
                <dict><key>CFBundleTypeName</key><string>PDF</string>
                <key>LSItemContentTypes</key><array><string>com.adobe.pdf</string></array></dict>
                <dict><key>CFBundleTypeExtensions</key><array><string>LOG</string></array></dict>
                </array>
                """)
            let container = try Self.install("com.example.reader", info: info, in: fixture)
            let declared = try container.checkFileSharing()
            #expect(declared.fileSharingEnabled)
            #expect(declared.supportsOpeningDocumentsInPlace == false)
            #expect(
                declared.documentTypes == [
                    DocumentType(name: "PDF", contentTypes: ["com.adobe.pdf"]), DocumentType(extensions: ["LOG"]),
                ])
            #expect(try container.documentType(accepting: "a.PDF").type.name == "PDF")
            #expect(try container.documentType(accepting: "server.log").type.extensions == ["LOG"])
            let refused = Self.failure { () throws(SandboxError) in _ = try container.documentType(accepting: "a.png") }
            #expect(refused?.code == .documentTypeNotAccepted)
            #expect(refused?.message.contains("'a.png' (public.png)") == true, "\(String(describing: refused))")
            #expect(refused?.path == container.infoPlistHostPath)
        }
    }

    @Test("an app that does not declare file sharing is refused, naming the key, its Info.plist and the remedy")
    func undeclared() throws {
        try Fixture.with { fixture in
            let declaredFalse = try Self.install(
                "com.example.false", info: Self.plist("<key>UIFileSharingEnabled</key><false/>"), in: fixture)
            let withoutInfo = try Self.install("com.example.bare", info: nil, in: fixture)
            for container in [fixture.container, declaredFalse, withoutInfo] {
                #expect(try container.bundleInfo().fileSharingEnabled == false)
                let error = Self.failure { () throws(SandboxError) in try container.checkFileSharing() }
                #expect(error?.code == .fileSharingDisabled, "\(container.identifier)")
                #expect(error?.path == container.hostPath(for: .bundle) + "/Info.plist")
                #expect(error?.message.contains("<key>UIFileSharingEnabled</key><true/>") == true)
                #expect(error?.message.contains(container.infoPlistHostPath) == true)
            }
        }
    }

    @Test("the placeholder made with fileSharing declares it and verifies as unsigned; any other content does not")
    func placeholder() throws {
        try Fixture.with { fixture in
            let app = Fixture.appIdentifier("com.example.shared")
            let container = try fixture.home.createContainer(for: app, fileSharing: true)
            #expect(try container.checkFileSharing().fileSharingEnabled)
            #expect(try container.verifyBundle(trustedKeys: []).isSigned == false)
            #expect(try fixture.home.openApp(app).bundle.fileExists(at: BundleInfoFile.path))
            // The host user (or a bug) edits the unsigned placeholder: it vouches for nothing now.
            let info = container.infoPlistHostPath
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: info)
            try Data(Self.plist("<key>UIFileSharingEnabled</key><true/><key>X</key><true/>")).write(
                to: URL(fileURLWithPath: info))
            #expect(
                Self.failure { () throws(SandboxError) in _ = try container.bundleInfo() }?.code == .signatureInvalid)
            #expect(
                Self.failure { () throws(SandboxError) in try container.verifyBundle(trustedKeys: []) }?.code
                    == .signatureInvalid)
            // A placeholder with a bundle directory is refused: a bundle declares it itself.
            let other = Fixture.appIdentifier("com.example.other")
            let refused = Self.failure { () throws(SandboxError) in
                _ = try fixture.home.createContainer(for: other, bundleDirectory: fixture.scratch, fileSharing: true)
            }
            #expect(refused?.code == .invalidArgument)
        }
    }

    @Test("an Info.plist changed after signing is not trusted: declaring sharing afterwards does not share")
    func changedAfterSigning() throws {
        try Fixture.with { fixture in
            let container = try Self.install(
                "com.example.tampered", info: Self.plist("<key>UIFileSharingEnabled</key><false/>"), in: fixture)
            let info = container.infoPlistHostPath
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: info)
            try Data(Self.plist("<key>UIFileSharingEnabled</key><true/>")).write(to: URL(fileURLWithPath: info))
            let error = Self.failure { () throws(SandboxError) in try container.checkFileSharing() }
            #expect(error?.code == .bundleModified)
            #expect(
                error?.message.contains("'Info.plist' of the bundle of 'com.example.tampered' was modified") == true)
            // Removed, or added to a signed bundle that had none: the same.
            try FileManager.default.removeItem(atPath: info)
            #expect(Self.failure { () throws(SandboxError) in _ = try container.bundleInfo() }?.code == .bundleModified)
            let bare = try Self.install("com.example.bare", info: nil, in: fixture)
            try Data(Self.plist("<key>UIFileSharingEnabled</key><true/>")).write(
                to: URL(fileURLWithPath: bare.infoPlistHostPath))
            #expect(Self.failure { () throws(SandboxError) in try bare.checkFileSharing() }?.code == .bundleModified)
        }
    }

    @Test(
        "a hostile Info.plist is refused precisely, naming the key: wrong types, a truncated plist",
        arguments: [
            (
                "<key>UIFileSharingEnabled</key><string>YES</string>",
                "declares UIFileSharingEnabled with a value of type string, not a boolean",
                SandboxError.Code.invalidInfoPlist
            ),
            (
                "<key>UIFileSharingEnabled</key><integer>1</integer>", "UIFileSharingEnabled with a value of type int",
                .invalidInfoPlist
            ),
            (
                "<key>LSSupportsOpeningDocumentsInPlace</key><data>AA==</data>",
                "LSSupportsOpeningDocumentsInPlace with a value of type data", .invalidInfoPlist
            ),
            (
                "<key>CFBundleDocumentTypes</key><dict/>",
                "CFBundleDocumentTypes with a value of type dictionary, not an array", .invalidInfoPlist
            ),
            (
                "<key>CFBundleDocumentTypes</key><array><string>pdf</string></array>",
                "CFBundleDocumentTypes[0] with a value of type string", .invalidInfoPlist
            ),
            (
                "<key>CFBundleDocumentTypes</key><array><dict><key>LSItemContentTypes</key><array><true/></array></dict></array>",
                "CFBundleDocumentTypes[0].LSItemContentTypes[0] with a value of type bool", .invalidInfoPlist
            ),
            ("<key>UIFileSharingEnabled</key><true/", "Info.plist", .corrupt),
        ])
    func hostile(keys: String, message: String, code: SandboxError.Code) throws {
        try Fixture.with { fixture in
            let container = try Self.install("com.example.hostile", info: Self.plist(keys), in: fixture)
            let error = Self.failure { () throws(SandboxError) in try container.checkFileSharing() }
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
            #expect(error?.path == container.infoPlistHostPath)
        }
    }

    @Test("an Info.plist that is an array, garbage, or larger than the bound is refused without being parsed")
    func notAnInfoPlist() throws {
        try Fixture.with { fixture in
            let array = try Self.install(
                "com.example.array", info: Array("<plist><array><true/></array></plist>".utf8), in: fixture)
            #expect(Self.failure { () throws(SandboxError) in _ = try array.bundleInfo() }?.code == .invalidInfoPlist)
            let garbage = try Self.install("com.example.garbage", info: Array(repeating: 0xFF, count: 64), in: fixture)
            #expect(Self.failure { () throws(SandboxError) in _ = try garbage.bundleInfo() }?.code == .corrupt)
            let huge = try Self.install(
                "com.example.huge", info: Array(repeating: 0x20, count: BundleInfoFile.maximumSize + 1), in: fixture)
            let error = Self.failure { () throws(SandboxError) in _ = try huge.bundleInfo() }
            #expect(error?.code == .fileTooLarge)
            #expect(error?.message.contains("larger than 1048576 bytes") == true, "\(String(describing: error))")
        }
    }

    @Test("an Info.plist replaced by a symbolic link is not followed, even to an identical file")
    func link() throws {
        try Fixture.with { fixture in
            let app = Fixture.appIdentifier("com.example.linked")
            let container = try fixture.home.createContainer(for: app, fileSharing: true)
            let info = container.infoPlistHostPath
            let copy = fixture.scratch + "/Info.plist"
            try Data(BundleInfoFile.fileSharingPlaceholder).write(to: URL(fileURLWithPath: copy))
            try FileManager.default.removeItem(atPath: info)
            try FileManager.default.createSymbolicLink(atPath: info, withDestinationPath: copy)
            let error = Self.failure { () throws(SandboxError) in try container.checkFileSharing() }
            #expect(error?.code == .signatureInvalid || error?.code == .symlinkLoop, "\(String(describing: error))")
            // In a signed bundle, too.
            let signed = try Self.install(
                "com.example.signed", info: Self.plist("<key>UIFileSharingEnabled</key><true/>"), in: fixture)
            try FileManager.default.moveItem(
                atPath: signed.infoPlistHostPath, toPath: fixture.scratch + "/signed.plist")
            try FileManager.default.createSymbolicLink(
                atPath: signed.infoPlistHostPath, withDestinationPath: fixture.scratch + "/signed.plist")
            let linked = Self.failure { () throws(SandboxError) in try signed.checkFileSharing() }
            #expect(linked?.code == .symlinkLoop, "\(String(describing: linked))")
            #expect(linked?.message.contains("is a symbolic link") == true)
        }
    }
}
