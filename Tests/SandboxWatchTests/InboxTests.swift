import Foundation
import Sandbox
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxWatch

extension WatcherTests {
    @Suite("The Inbox")
    struct InboxTests {
        func hostFile(_ fixture: TemporaryContainer, _ name: String, _ text: String = "document") throws -> String {
            let path = fixture.scratch + "/" + name
            try HostFiles.write(path, Array(text.utf8))
            return path
        }

        @Test("delivery is atomic and renames on collision")
        func deliverNames() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let report = try hostFile(fixture, "report.pdf")
                #expect(try inbox.deliver(hostFile: report) == "Documents/Inbox/report.pdf")
                #expect(try inbox.deliver(hostFile: report) == "Documents/Inbox/report 2.pdf")
                #expect(try inbox.deliver(hostFile: report) == "Documents/Inbox/report 3.pdf")
                let bare = try hostFile(fixture, "README")
                #expect(try inbox.deliver(hostFile: bare) == "Documents/Inbox/README")
                #expect(try inbox.deliver(hostFile: bare) == "Documents/Inbox/README 2")
                let hidden = try hostFile(fixture, ".profile")
                #expect(try inbox.deliver(hostFile: hidden) == "Documents/Inbox/profile")
                #expect(try fixture.root.readContents(of: "Documents/Inbox/report 2.pdf") == Array("document".utf8))
                #expect(try inbox.pendingItems().count == 6)
                let missing = #expect(throws: SandboxError.self) {
                    try inbox.deliver(hostFile: fixture.scratch + "/none")
                }
                #expect(missing?.code == .notFound)
            }
        }

        @Test("the app cannot write into its Inbox")
        func writesRefused() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let refused = #expect(throws: SandboxError.self) {
                    try inbox.writeItem(named: "x.txt", contents: [1, 2, 3])
                }
                #expect(refused?.code == .readOnly)
                #expect(refused?.message.contains("Documents/Inbox") == true)
                #expect(throws: Never.self) { try Inbox.checkAppMayWrite(to: "Documents/x.txt") }
                #expect(throws: SandboxError.self) { try Inbox.checkAppMayWrite(to: "Documents/Inbox/sub/x") }
                try HostFiles.write(fixture.documents + "/Inbox/a")
                let report = try inbox.processPendingItems { _ in .move(to: "Documents/Inbox/b") }
                #expect(report.failures.count == 1)
                #expect((report.failures.first?.error as? SandboxError)?.code == .readOnly)
            }
        }

        /// A disposition is judged by the container's policy where it leads: not back into the
        /// Inbox through a link the app planted, nor into `Library/Preferences` (both were moved
        /// before: the check looked for `Documents/Inbox` in the names alone).
        @Test("a disposition never moves an item where the policy forbids, through a link either")
        func dispositionsAskThePolicy() async throws {
            for destination: ContainerPath in ["Documents/box/again", "Library/Preferences/taken.plist"] {
                try await TemporaryContainer.with { fixture in
                    let inbox = Inbox(container: fixture.container)
                    try FileManager.default.createSymbolicLink(
                        atPath: fixture.documents + "/box", withDestinationPath: "Inbox")
                    try HostFiles.write(fixture.documents + "/Inbox/a", Array("delivered".utf8))
                    let report = try inbox.processPendingItems { _ in .move(to: destination) }
                    #expect(report.failures.count == 1, "\(destination)")
                    let error = report.failures.first?.error as? SandboxError
                    #expect(error?.code == .readOnly, "\(destination): \(String(describing: error))")
                    #expect(try fixture.root.attributes(at: destination, followingSymlink: false) == nil)
                    #expect(try fixture.root.attributes(at: "Documents/Inbox/again", followingSymlink: false) == nil)
                }
            }
            #expect(throws: SandboxError.self) { try Inbox.checkAppMayWrite(to: "Library/Preferences/x.plist") }
            #expect(throws: SandboxError.self) { try Inbox.checkAppMayWrite(to: "Documents/x/../Inbox/y") }
        }

        @Test("items present at launch and items arriving meanwhile are each handled exactly once")
        func exactlyOnce() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let count = 25
                for index in 0..<count {
                    try inbox.deliver(hostFile: hostFile(fixture, "early-\(index).txt", "early \(index)"))
                }
                let handled = Locked<[String]>([])
                let processing = Task {
                    try await inbox.processItems { item in
                        let seen = handled.update { list in
                            list.append(item.name)
                            return list.count
                        }
                        if seen == 1 {
                            // More documents arrive while the first is being handled.
                            for index in 0..<count {
                                try inbox.deliver(hostFile: hostFile(fixture, "late-\(index).txt", "late \(index)"))
                            }
                        }
                        let contents = try fixture.root.readContents(of: item.path)
                        #expect(
                            String(decoding: contents, as: UTF8.self).hasSuffix(
                                item.name.dropLast(4).split(separator: "-").last.map(String.init) ?? "?"))
                        return seen.isMultiple(of: 2) ? .delete : .move(to: try ContainerPath("Documents/" + item.name))
                    }
                }
                #expect(await eventually { handled.value.count >= 2 * count })
                processing.cancel()
                try await processing.value
                let names = handled.value
                #expect(names.count == 2 * count)
                #expect(Set(names).count == 2 * count, "no item handled twice")
                #expect(try inbox.pendingItems().isEmpty)
                #expect(
                    try fixture.root.contentsOfDirectory(at: "Documents/Inbox").isEmpty,
                    "the processing folder is gone too")
                #expect(try fixture.root.fileNames(at: "Documents").count == count)  // the moved half
            }
        }

        @Test("items claimed by a pass that died are handed out first, once, and nothing is lost")
        func resumeAfterCrash() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                for index in 0..<6 { try inbox.deliver(hostFile: hostFile(fixture, "d\(index)")) }
                // A pass claims everything and dies before handling any of it.
                let claimed = try inbox.claimItems()
                #expect(claimed.count == 6)
                #expect(try inbox.pendingItems().isEmpty)
                // A pass that handles two and then dies (its handler throws for the rest).
                var first: [String] = []
                let report = try inbox.processPendingItems { item in
                    guard first.count < 2 else { throw CancellationError() }
                    first.append(item.name)
                    return .delete
                }
                #expect(report.handled.count == 2 && report.failures.count == 4)
                try inbox.deliver(hostFile: hostFile(fixture, "d0"))  // a new item with a taken name
                var second: [String] = []
                try inbox.processPendingItems { item in
                    second.append(item.name)
                    return .delete
                }
                #expect(second.count == 5)
                #expect(Set(first).isDisjoint(with: second.filter { $0 != "d0" }))
                #expect(Set(first + second) == Set((0..<6).map { "d\($0)" }))
                #expect(try fixture.root.contentsOfDirectory(at: "Documents/Inbox").isEmpty)
            }
        }

        @Test("a file still open for writing is left until it is closed")
        func busyItemWaits() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let path = fixture.documents + "/Inbox/upload.bin"
                let fd = try HostFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC)
                try HostFiles.writeAll(fd, [1, 2, 3], path)
                #expect(try inbox.processPendingItems { _ in .delete }.handled.isEmpty)
                try HostFiles.close(fd, path)
                #expect(try inbox.processPendingItems { _ in .delete }.handled.map(\.name) == ["upload.bin"])
            }
        }

        @Test("an item whose name is not UTF-8 is handed out once, by its exact name, and numbered on collision")
        func nonUTF8Item() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let raw: [UInt8] = [0x72, 0xFF, 0x2E, 0x70, 0x64, 0x66]  // "r\xFF.pdf"
                try HostFiles.write(in: fixture.documents + "/Inbox", rawName: raw)
                // A leftover claimed under the same name: the new claim is numbered, bytes kept.
                try fixture.root.createDirectory(at: "Documents/Inbox/.processing")
                try HostFiles.write(in: fixture.documents + "/Inbox/.processing", rawName: raw)
                try fixture.root.createDirectory(at: "Documents/Imported")
                let report = try inbox.processPendingItems { item in
                    // Under the claimed name, which is unique.
                    .move(
                        to: ContainerPath(constant: "Documents/Imported").appending(item.path.lastName ?? item.fileName)
                    )
                }
                #expect(report.failures.isEmpty)
                #expect(report.handled.count == 2)
                #expect(report.handled.map(\.fileName.bytes).allSatisfy { $0 == raw })
                #expect(report.handled.last?.path.lastName?.bytes == [0x72, 0xFF, 0x20, 0x32, 0x2E, 0x70, 0x64, 0x66])
                #expect(report.handled.first?.name == "r\\xFF.pdf")
                #expect(try fixture.root.contentsOfDirectory(at: "Documents/Inbox").isEmpty)
            }
        }
    }
}

/// Inbox delivery honours the Inbox's protection class (issue 26, item 14).
@Suite struct ProtectedInboxTests {
    @Test func deliveriesAreSealedAndRefusedWhileLocked() async throws {
        try await TemporaryContainer.with { temporary in
            let protection = DataProtection(home: temporary.home)
            try protection.setPasscode(Array("2468".utf8), current: [])
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the test's result stands
            let inboxPath = ContainerPath(constant: "Documents/Inbox")
            try temporary.root.createDirectory(at: inboxPath, withIntermediateDirectories: true)
            try protection.setDefaultProtection(.complete, forDirectoryAt: inboxPath, in: temporary.root)
            let secret = Array("the launch codes are 0000\n".utf8)
            let host = temporary.scratch + "/codes.txt"
            try Data(secret).write(to: URL(fileURLWithPath: host))
            let inbox = Inbox(container: temporary.container)

            let delivered = try inbox.deliver(hostFile: host)
            #expect(try temporary.root.readContents(of: delivered) != secret, "delivered in the clear")
            #expect(try protection.readContents(of: delivered, in: temporary.root) == secret)

            #expect(try protection.lock())
            do {
                _ = try inbox.deliver(hostFile: host)
                Issue.record("delivered into a complete Inbox while locked")
            } catch let error as SandboxError {
                #expect(error.code.description == "protected-data-unavailable", "\(error)")
            }
            #expect(try temporary.root.fileNames(at: inboxPath) == [delivered.lastName?.description].compactMap { $0 })
        }
    }
}
