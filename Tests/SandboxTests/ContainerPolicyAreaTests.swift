import Foundation
import Sandbox
import Testing

/// ``ContainerPolicy`` as a table: every area of the layout, the directories themselves and the
/// files the store keeps there, × every operation, for the app and for file sharing — the
/// expected answers written out here, not derived from the code. Then the link cases: a planted
/// link or a `..` leading into a stricter area is judged by where it leads.
@Suite("The container's policy: every area × every operation, for the app and for file sharing")
struct ContainerPolicyAreaTests {
    /// A path in the data container, and what each surface may do there: `r` read (and list),
    /// `c` create, `m` modify, `d` delete; `-` refused.
    static let table: [(path: String, app: String, sharing: String)] = [
        (".", "rcm-", "----"),  // the container root: it holds Library/Preferences
        ("top-level.txt", "rcmd", "----"),
        ("Documents", "rcmd", "rcm-"),  // file sharing may not remove it: it holds the Inbox
        ("Documents/a.txt", "rcmd", "rcmd"),
        ("Documents/Album/b.jpg", "rcmd", "rcmd"),
        ("Documents/._a.txt", "rcmd", "rcmd"),  // Finder's files: the share's presentation, not the policy's
        ("Documents/Inbox", "r--d", "----"),
        ("Documents/Inbox/mail.eml", "r--d", "----"),
        ("Documents/Inbox/.processing/mail.eml", "r--d", "----"),  // where SandboxWatch's Inbox takes documents in
        ("Library", "rcm-", "----"),  // it holds Library/Preferences
        ("Library/notes.db", "rcmd", "----"),
        ("Library/Preferences", "r---", "----"),
        ("Library/Preferences/com.example.app.plist", "r---", "----"),
        ("Library/Preferences/.com.example.app.plist.lock", "r---", "----"),  // the preferences' lock file
        ("Library/Application Support", "rcmd", "----"),
        ("Library/Application Support/db.sqlite", "rcmd", "----"),
        ("Library/Caches", "rcmd", "----"),
        ("Library/Caches/c.bin", "rcmd", "----"),
        ("tmp", "rcmd", "----"),
        ("tmp/t.txt", "rcmd", "----"),
    ]

    /// The bundle has no path in the data container: it is asked about as a directory.
    static let bundle = (app: "r---", sharing: "----")

    static let actions: [(letter: Character, action: DirectoryPolicy.Action)] = [
        ("r", .read), ("c", .create), ("m", .modify), ("d", .delete),
    ]

    @Test(arguments: table.map(\.path))
    func everyOperation(path: String) throws {
        let row = try #require(Self.table.first { $0.path == path })
        let location = try ContainerPath(path)
        for (policy, expected) in [(ContainerPolicy.app, row.app), (ContainerPolicy.fileSharing, row.sharing)] {
            for (index, (letter, action)) in Self.actions.enumerated() {
                let allowed = Array(expected)[index] == letter
                #expect(policy.allows(action, at: location) == allowed, "\(policy.surface) \(action) \(path)")
                do throws(SandboxError) {
                    try policy.check(action, at: location)
                    #expect(allowed, "\(policy.surface) \(action) \(path) passed the check")
                } catch {
                    #expect(!allowed, "\(policy.surface) \(action) \(path): \(error)")
                    Self.expectPrecise(error, policy: policy, path: path)
                }
            }
        }
    }

    @Test func theBundle() {
        for (policy, expected) in [
            (ContainerPolicy.app, Self.bundle.app), (ContainerPolicy.fileSharing, Self.bundle.sharing),
        ] {
            for (index, (letter, action)) in Self.actions.enumerated() {
                #expect(
                    policy.allows(action, in: .bundle) == (Array(expected)[index] == letter),
                    "\(policy.surface) \(action) in the bundle")
            }
        }
    }

    /// Moves and renames: removing the source and creating the destination must both be allowed.
    static let moves: [(from: String, to: String, app: Bool, sharing: Bool)] = [
        ("Documents/a.txt", "Documents/Album/a.txt", true, true),
        ("Documents/Inbox/mail.eml", "Documents/mail.eml", true, false),  // taking a document in
        ("Documents/a.txt", "Documents/Inbox/a.txt", false, false),
        ("Documents/Inbox", "Documents/Delivered", true, false),
        ("Library/Preferences/com.example.app.plist", "Documents/p.plist", false, false),
        ("Documents/p.plist", "Library/Preferences/com.example.app.plist", false, false),
        ("Library", "Documents/Library", false, false),
        ("tmp/t.txt", "Library/Caches/t.txt", true, false),
        ("Documents/a.txt", "tmp/a.txt", true, false),
    ]

    @Test(arguments: moves.indices)
    func moving(index: Int) throws {
        let move = Self.moves[index]
        let source = try ContainerPath(move.from)
        let destination = try ContainerPath(move.to)
        for (policy, allowed) in [(ContainerPolicy.app, move.app), (ContainerPolicy.fileSharing, move.sharing)] {
            do throws(SandboxError) {
                try policy.checkMove(from: source, to: destination)
                #expect(allowed, "\(policy.surface) moving \(move.from) to \(move.to) passed the check")
            } catch {
                #expect(!allowed, "\(policy.surface) moving \(move.from) to \(move.to): \(error)")
                #expect(error.message.contains("moving '\(move.from)' to '\(move.to)'"), "\(error.message)")
                Self.expectPrecise(error, policy: policy, path: nil)
            }
        }
    }

    /// A refusal says which rule refused, in words, with no command: the app's are `read-only`,
    /// file sharing's `not-found` where it shows nothing.
    private static func expectPrecise(_ error: SandboxError, policy: ContainerPolicy, path: String?) {
        let codes: [SandboxError.Code] = policy.surface == .app ? [.readOnly] : [.readOnly, .notFound]
        #expect(codes.contains(error.code), "\(error)")
        if let path { #expect(error.path == path, "\(error)") }
        #expect(error.message.hasPrefix("Refused "), "\(error.message)")
        #expect(!error.message.contains("sandbox "), "a remedy in words, never a command: \(error.message)")
    }

    /// Links and `..` on disk, through ``Container/checkPolicy(allowing:at:)`` and
    /// ``Container/checkPolicy(movingFrom:to:)``: judged where they lead, and where the names put
    /// them, whichever is stricter.
    @Test func linksAndParentReferencesAreJudgedWhereTheyLead() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.app"))
            try writeFile(container, "Documents/Inbox/mail.eml", bytes: 4)
            try writeFile(container, "Documents/a.txt", bytes: 4)
            try writeFile(container, "Library/Preferences/com.example.app.plist", bytes: 4)
            try FileManager.default.createDirectory(
                atPath: container.homeDirectory + "/Documents/x", withIntermediateDirectories: true)
            let links = [
                ("Documents/box", "Inbox"), ("Documents/prefs", "../Library/Preferences"),
                ("Documents/mail-link", "Inbox/mail.eml"), ("tmp/up", ".."),
            ]
            for (link, target) in links {
                try FileManager.default.createSymbolicLink(
                    atPath: container.homeDirectory + "/" + link, withDestinationPath: target)
            }
            let cases: [(DirectoryPolicy.Action, String, allowed: Bool)] = [
                (.create, "Documents/box/new.txt", false),
                (.modify, "Documents/box/mail.eml", false),
                (.delete, "Documents/box/mail.eml", true),
                (.create, "Documents/x/../Inbox/new.txt", false),
                (.create, "tmp/up/Documents/Inbox/new.txt", false),
                (.create, "tmp/up/Documents/new.txt", true),
                (.delete, "Documents/prefs/com.example.app.plist", false),
                (.create, "Documents/prefs/other.plist", false),
                (.modify, "Documents/mail-link", false),  // modifying follows the last link
                (.delete, "Documents/mail-link", true),  // removing takes the link away, not the mail
                (.read, "Documents/box/mail.eml", true),
            ]
            for (action, path, allowed) in cases {
                let target = try ContainerPath(path)
                do throws(SandboxError) {
                    try container.checkPolicy(allowing: action, at: target)
                    #expect(allowed, "\(action) \(path) passed the check")
                } catch {
                    #expect(!allowed && error.code == .readOnly, "\(action) \(path): \(error)")
                    #expect(error.message.contains("which leads to"), "\(error.message)")
                }
            }
            let moves: [(String, String, allowed: Bool)] = [
                ("Documents/a.txt", "Documents/box/a.txt", false),
                ("Documents/box/mail.eml", "Documents/mail.eml", true),
                ("Documents/prefs/com.example.app.plist", "Documents/p.plist", false),
                ("Documents/a.txt", "Documents/x/../../Library/Preferences/a.plist", false),
            ]
            for (from, to, allowed) in moves {
                let source = try ContainerPath(from)
                let destination = try ContainerPath(to)
                do throws(SandboxError) {
                    try container.checkPolicy(movingFrom: source, to: destination)
                    #expect(allowed, "moving \(from) to \(to) passed the check")
                } catch {
                    #expect(!allowed && error.code == .readOnly, "moving \(from) to \(to): \(error)")
                }
            }
        }
    }

    /// A link put in place of a protected directory does not take its rule away: the names still
    /// say `Library/Preferences`, and the stricter answer wins.
    @Test func aLinkInPlaceOfAProtectedDirectoryKeepsItsRule() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.app"))
            let preferences = container.homeDirectory + "/Library/Preferences"
            try FileManager.default.removeItem(atPath: preferences)
            try FileManager.default.createDirectory(
                atPath: container.homeDirectory + "/Documents/free", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: preferences, withDestinationPath: "../Documents/free")
            let error = #expect(throws: SandboxError.self) {
                try container.checkPolicy(allowing: .create, at: ContainerPath("Library/Preferences/new.plist"))
            }
            #expect(
                error?.code == .readOnly && error?.message.contains("preferences API") == true,
                "\(String(describing: error))")
        }
    }
}
