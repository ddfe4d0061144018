import Foundation
import Sandbox
import Testing

@Suite("Container layout and policies")
struct ContainerLayoutTests {
    @Test("a new container has the iOS layout and a separate bundle container")
    func layout() throws {
        try withTemporaryHome { home, _ in
            let app = try AppIdentifier("com.example.notes")
            let container = try home.createContainer(for: app)
            for directory in [
                "Documents", "Documents/Inbox", "Library", "Library/Preferences", "Library/Application Support",
                "Library/Caches", "tmp",
            ] {
                #expect(try container.root.directoryExists(at: ContainerPath(directory)), "\(directory) missing")
            }
            let top = try container.root.contentsOfDirectory(at: .root).map(\.name).sorted()
            #expect(top == ["Documents", "Library", "tmp"])
            #expect(container.bundleName == "notes.app")
            #expect(container.hostPath(for: .bundle).hasSuffix("/Containers/Bundle/com.example.notes/notes.app"))
            #expect(container.homeDirectory.hasSuffix("/Containers/Data/com.example.notes"))
            #expect(container.temporaryDirectory == container.homeDirectory + "/tmp/")
            #expect(FileManager.default.fileExists(atPath: container.hostPath(for: .bundle)))
        }
    }

    @Test("each directory answers the policy iOS documents")
    func policyTable() {
        typealias Row = (
            ContainerDirectory, backedUp: Bool, update: DirectoryPolicy.UpdateBehavior, purgeable: Bool, restart: Bool,
            access: DirectoryPolicy.AppAccess
        )
        let table: [Row] = [
            (.bundle, false, .replaced, false, false, .readOnly),
            (.documents, true, .kept, false, false, .readWrite),
            (.inbox, true, .kept, false, false, .readAndDelete),
            (.preferences, true, .kept, false, false, .preferencesAPI),
            (.applicationSupport, true, .notGuaranteed, false, false, .readWrite),
            (.caches, false, .notGuaranteed, true, false, .readWrite),
            (.tmp, false, .notGuaranteed, true, true, .readWrite),
        ]
        for row in table {
            let policy = row.0.policy
            #expect(policy.isBackedUp == row.backedUp, "\(row.0)")
            #expect(policy.update == row.update, "\(row.0)")
            #expect(policy.isPurgeable == row.purgeable, "\(row.0)")
            #expect(policy.isClearedAtRestart == row.restart, "\(row.0)")
            #expect(policy.appAccess == row.access, "\(row.0)")
        }
    }

    @Test("search paths come from the container; system domains answer read-only")
    func searchPaths() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            #expect(
                container.searchPaths(.documentDirectory, in: .userDomainMask) == [container.hostPath(for: .documents)])
            #expect(
                container.searchPaths(.cachesDirectory, in: .userDomainMask, expandTilde: false) == ["~/Library/Caches"]
            )
            let all = container.searchPathForDirectories(.libraryDirectory, in: .allDomainsMask)
            #expect(all.map(\.isWritable) == [true, false, false])
            #expect(all.dropFirst().map(\.path) == ["/Library", "/System/Library"])
            #expect(container.searchPaths(.documentDirectory, in: .systemDomainMask).isEmpty)
        }
    }

    @Test("the home location follows SANDBOX_HOME, then XDG_DATA_HOME, then HOME")
    func homeLocation() throws {
        #expect(
            try SandboxHome.defaultLocation(environment: ["SANDBOX_HOME": "/x", "XDG_DATA_HOME": "/y", "HOME": "/h"])
                == "/x")
        #expect(try SandboxHome.defaultLocation(environment: ["XDG_DATA_HOME": "/y", "HOME": "/h"]) == "/y/sandbox")
        #expect(
            try SandboxHome.defaultLocation(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"])
                == "/h/.local/share/sandbox")
        #expect(try SandboxHome.defaultLocation(environment: ["HOME": "/h"]) == "/h/.local/share/sandbox")
        let error = #expect(throws: SandboxError.self) { try SandboxHome.defaultLocation(environment: [:]) }
        #expect(error?.code == .notFound)
    }
}

@Suite("App identifiers")
struct AppIdentifierTests {
    @Test(
        "valid reverse-DNS identifiers are accepted",
        arguments: ["com.example.notes", "org.x", "io.a-b.C9", String(repeating: "a.", count: 77) + "b"])
    func valid(_ raw: String) throws {
        #expect(try AppIdentifier(raw).rawValue == raw)
    }

    @Test(
        "invalid identifiers are refused with a clear error",
        arguments: [
            "", "../x", "com/example", "com.example notes", "single", ".com.example", "com.example.", "com..example",
            String(repeating: "a.", count: 78) + "b", "com.exämple", "com.example\u{0}x", "./.", "..",
        ])
    func invalid(_ raw: String) {
        let error = #expect(throws: SandboxError.self) { try AppIdentifier(raw) }
        #expect(error?.code == .invalidAppIdentifier)
        #expect(error?.message.contains("reverse-DNS") == true)
    }
}
