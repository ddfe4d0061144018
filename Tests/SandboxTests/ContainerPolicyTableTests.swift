import Foundation
import Sandbox
import Testing

/// The container's policy as one table: for an item in each area of the layout, what each operation
/// may do — written out here, not derived from the code — asked of the one place that answers
/// (`Container.checkPolicy`), directly and through a link planted in `Documents` that leads there.
@Suite("The container's policy, area by operation")
struct ContainerPolicyTableTests {
    /// An item in each area, and whether read (and list), create, modify, delete, move out and
    /// move in are allowed there, and whether file sharing shows it.
    static let table:
        [(
            path: String, read: Bool, create: Bool, modify: Bool, delete: Bool, moveOut: Bool, moveIn: Bool,
            shared: Bool
        )] = [
            ("Documents/a.txt", true, true, true, true, true, true, true),
            ("Documents/Inbox/mail.eml", true, false, false, true, true, false, false),
            ("Documents/Inbox/sub/deeper.txt", true, false, false, true, true, false, false),
            ("Library/notes.db", true, true, true, true, true, true, false),
            ("Library/Preferences/com.example.table.plist", true, false, false, false, false, false, false),
            ("Library/Application Support/db.sqlite", true, true, true, true, true, true, false),
            ("Library/Caches/c.bin", true, true, true, true, true, true, false),
            ("tmp/t.txt", true, true, true, true, true, true, false),
            ("top-level.txt", true, true, true, true, true, true, false),
        ]

    @Test(arguments: table.map(\.path))
    func everyOperationInEveryArea(path: String) throws {
        let row = try #require(Self.table.first { $0.path == path })
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.table"))
            try writeFile(container, row.path, bytes: 4)
            let item = try ContainerPath(row.path)
            let elsewhere = try ContainerPath("Documents/elsewhere.txt")
            let expected: [(DirectoryPolicy.Action, Bool)] = [
                (.read, row.read), (.create, row.create), (.modify, row.modify), (.delete, row.delete),
            ]
            for (action, allowed) in expected {
                #expect(
                    Self.allowed { () throws(SandboxError) in try container.checkPolicy(allowing: action, at: item) }
                        == allowed,
                    "\(action) \(path)")
            }
            #expect(
                Self.allowed { () throws(SandboxError) in try container.checkPolicy(movingFrom: item, to: elsewhere) }
                    == row.moveOut,
                "move out \(path)")
            try writeFile(container, "Documents/elsewhere.txt", bytes: 4)
            let into = try ContainerPath(row.path + ".moved")
            #expect(
                Self.allowed { () throws(SandboxError) in try container.checkPolicy(movingFrom: elsewhere, to: into) }
                    == row.moveIn,
                "move in \(path)")
            #expect(ContainerDirectory.holding(item).isShownByFileSharing == row.shared, "shared \(path)")

            // The same item reached through a link the app planted in Documents, and through `..`:
            // judged where it leads.
            let folder = (row.path as NSString).deletingLastPathComponent
            let name = (row.path as NSString).lastPathComponent
            try FileManager.default.createSymbolicLink(
                atPath: container.homeDirectory + "/Documents/link", withDestinationPath: "../" + folder)
            for spelled in ["Documents/link/" + name, "Documents/x/../../" + row.path] {
                let other = try ContainerPath(spelled)
                for (action, allowed) in expected where action != .read {
                    #expect(
                        Self.allowed { () throws(SandboxError) in try container.checkPolicy(allowing: action, at: other)
                        } == allowed,
                        "\(action) \(spelled)")
                }
            }
        }
    }

    /// Whether `check` passes; a refusal must be the policy's (`read-only`), not another error.
    private static func allowed(_ check: () throws(SandboxError) -> Void) -> Bool {
        do {
            try check()
            return true
        } catch {
            #expect(error.code == .readOnly, "\(error)")
            return false
        }
    }
}
