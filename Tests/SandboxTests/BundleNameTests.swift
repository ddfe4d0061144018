import Foundation
import Glibc
import Sandbox
import Testing

@Suite("Signed bundles: names are compared byte for byte; names that are not UTF-8 are refused")
struct BundleNameTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    /// Creates a file whose name is the raw `name` bytes in the host directory `directory`.
    private func createFile(named name: [UInt8], in directory: String) throws {
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(parent) }
        let file = (name + [0]).map { CChar(bitPattern: $0) }
        let fd = openat(parent, file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(fd)
    }

    @Test("sign refuses a name that is not valid UTF-8, naming it escaped")
    func signRefusesInvalidUTF8() throws {
        try withTemporaryHome { _, scratch in
            let bundle = try makeBundle(in: scratch)
            try createFile(named: Array("bad".utf8) + [0xFF] + Array(".txt".utf8), in: bundle + "/en.lproj")
            let error = #expect(throws: SandboxError.self) { try sign(bundle, with: SigningKey()) }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("'en.lproj/bad\\xFF.txt'") == true, "\(String(describing: error?.message))")
            #expect(!FileManager.default.fileExists(atPath: bundle + "/_CodeSignature/signature"))
        }
    }

    @Test("verify refuses a file with a name that is not UTF-8 added to an installed bundle")
    func verifyRefusesInvalidUTF8() throws {
        try withTemporaryHome { home, scratch in
            let (source, _) = try signedBundle(in: scratch, home: home)
            let container = try home.createContainer(for: app, bundleDirectory: source)
            let folder = container.hostPath(for: .bundle) + "/Sounds"
            chmod(folder, 0o755)
            try createFile(named: [0x70, 0xC3], in: folder)
            chmod(folder, 0o555)
            let error = #expect(throws: SandboxError.self) { try home.openApp(app, environment: [:]) }
            #expect(error?.code == .bundleModified)
            #expect(
                error?.message.contains("'Notes.app/Sounds/p\\xC3' was added") == true,
                "\(String(describing: error?.message))")
        }
    }

    @Test("names with a backslash or a control character are signed exactly and verify")
    func exactNames() throws {
        try withTemporaryHome { home, scratch in
            var files = sampleBundleFiles
            files["back\\slash.txt"] = "b"
            files["Sounds/new\nline.txt"] = "n"
            let (source, _) = try signedBundle(in: scratch, home: home, files: files)
            let manifest = try String(contentsOfFile: source + "/_CodeSignature/manifest.json", encoding: .utf8)
            #expect(manifest.contains("\"path\":\"back\\\\slash.txt\""), "\(manifest)")
            #expect(manifest.contains("\"path\":\"Sounds/new\\u000aline.txt\""))
            try home.createContainer(for: app, bundleDirectory: source)
            let opened = try home.openApp(app, environment: [:])
            #expect(opened.verification.files == files.count)
        }
    }

    @Test("an NFD spelling of a signed NFC name is another file: verify refuses it")
    func normalizationForms() throws {
        try withTemporaryHome { home, scratch in
            var files = sampleBundleFiles
            let composed = "caf\u{E9}.txt"
            let decomposed = "cafe\u{301}.txt"
            files[composed] = "coffee"
            let (source, _) = try signedBundle(in: scratch, home: home, files: files)
            let container = try home.createContainer(for: app, bundleDirectory: source)
            #expect(throws: Never.self) { try home.openApp(app, environment: [:]) }
            let bundle = container.hostPath(for: .bundle)
            chmod(bundle, 0o755)
            #expect(rename(bundle + "/" + composed, bundle + "/" + decomposed) == 0)
            chmod(bundle, 0o555)
            let error = #expect(throws: SandboxError.self) { try home.openApp(app, environment: [:]) }
            #expect(error?.code == .bundleModified)
            #expect(
                error?.message.contains("'Notes.app/\(decomposed)' was added") == true,
                "\(String(describing: error?.message))")
            #expect(error?.message.contains("'Notes.app/\(composed)' was removed") == true)
        }
    }
}
