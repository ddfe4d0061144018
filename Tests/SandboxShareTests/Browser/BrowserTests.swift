import Foundation
import Glibc
import SandboxTesting
import Testing

/// The Documents page in real (headless) Chromium against a real `sandbox share`, driven by
/// Selenium (`share_page.py`); each test then checks what is on disk.
@Suite(.serialized) struct BrowserTests {
    static let xssName = "<img src=x onerror=alert(1)>.txt"

    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(5)))
    func thePageLogsInUploadsManagesDownloadsAndRefreshesLive() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                let result = try await SharePageScript.run(.page, on: server, scratch: scratch)
                guard result.ok else { return }
                #expect(result.loginError?.isEmpty == false, "the login page says why a wrong code failed")
                #expect(
                    result.nameTakenMessage?.isEmpty == false, "a rename onto a taken name shows the server's message")
                let live = try #require(result.liveSeconds)
                #expect(live < 2, "a file the app added was shown after \(live) s")
                #expect(
                    server.documentsTree()
                        == [
                            Self.xssName, "Album", "Album/2024", "Album/2024/photo.jpg", "Album/notes.txt", "Reports",
                            "Reports/beta.bin", "added by the app.txt", "alpha 2.txt", "alpha renamed.txt", "beta.bin",
                        ].sorted(), "Documents after the page's work: \(server.documentsTree())")
                #expect(server.contents("added by the app.txt") == "written by the app")
                let desktop = try SharePageScript.keepArtifact("share-page.png", from: scratch)
                let phone = try SharePageScript.keepArtifact("share-page-phone.png", from: scratch)
                print("Documents page: a file the app added shown after \(live) s; screenshots \(desktop), \(phone)")
            }
        }
    }

    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(5)))
    func crossSitePostsTokenlessRequestsAndLoggedOutRequestsChangeNothing() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                try server.plant("kept.txt", "kept")
                let before = try homeTree(server)
                try await SharePageScript.run(.security, on: server, scratch: scratch)
                #expect(server.contents("kept.txt") == "kept")
                #expect(server.documentsTree() == ["kept.txt"], "Documents: \(server.documentsTree())")
                #expect(try homeTree(server) == before)
            }
        }
    }

    /// Cookies ignore ports: a service on another port of 127.0.0.1 that the browser visits must
    /// not receive the session cookie, and nothing it received reads or changes anything.
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func anotherServiceOnTheHostGetsNoSessionItCouldReplay() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                try server.plant("kept.txt", "kept")
                let result = try await SharePageScript.run(.leak, on: server, scratch: scratch)
                print("the other port received these cookies: \(result.otherServiceCookies ?? [])")
                #expect(server.contents("kept.txt") == "kept")
            }
        }
    }

    /// Login CSRF: wrong codes a page on another port makes the browser post never count, so the
    /// owner's right code still logs in (it got 429 after eleven).
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func crossSiteLoginPostsDoNotLockTheOwnerOut() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                let result = try await SharePageScript.run(.lockout, on: server, scratch: scratch)
                guard result.ok else { return }
                #expect(!server.log().contains("blocked"), "no failure was counted: \(server.log().suffix(1500))")
            }
        }
    }

    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func anUploadPastTheLimitShowsTheServersMessageAndLeavesNothing() async throws {
        try await ShareServerProcess.with(arguments: ["--max-upload", "1M"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                let before = try homeTree(server)
                let result = try await SharePageScript.run(.limit, on: server, scratch: scratch)
                guard result.ok else { return }
                let message = result.limitMessage ?? ""
                #expect(message.contains("too large.bin"), "the status names the file: \(message)")
                #expect(message.contains("1 MiB") || message.contains("limit"), "the status says the limit: \(message)")
                #expect(result.limitRow == message.split(separator: ": ", maxSplits: 1).last.map(String.init))
                #expect(server.documentsTree().isEmpty, "Documents: \(server.documentsTree())")
                #expect(try homeTree(server) == before)
            }
        }
    }
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func theFilterTheUploadsPanelAFailedFolderUploadAndTouchTargets() async throws {
        try await ShareServerProcess.with(arguments: ["--max-upload", "1M"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                // "Résumé" precomposed (NFC) and decomposed (NFD, as macOS writes names).
                for name in ["R\u{E9}sum\u{E9}.pdf", "Re\u{301}sume\u{301} draft.txt", "resolve.txt", "Other.txt"] {
                    try server.plant(name, name)
                }
                try server.plant("Folder/inside.txt", "inside")
                let before = server.documentsTree()
                let result = try await SharePageScript.run(.details, on: server, scratch: scratch)
                guard result.ok else { return }
                #expect(server.documentsTree() == (before + ["small.txt"]).sorted(), "\(server.documentsTree())")
                try SharePageScript.keepArtifact("share-page-touch.png", from: scratch)
            }
        }
    }

    /// A folder of 6,000 files — two background pages past the first, so the table's window of 600
    /// rows is exercised — in CI; `SANDBOX_LISTING_COUNT=50000` is the size BENCHMARKS.md records
    /// (about 3 minutes of scrolling on a loaded machine, too long for every run): the server sends its first page of 200 at once, the page shows it
    /// promptly and the rest a page at a time, and scrolling reaches the last row.
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(8)))
    func aLargeFolderShowsItsFirstScreenAtOnceAndScrollsToItsLastRow() async throws {
        let count = ProcessInfo.processInfo.environment["SANDBOX_LISTING_COUNT"].flatMap { Int($0) } ?? 6_000
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser") { scratch in
                let folder = server.documents("Big")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for index in 0..<count {
                    let name = "f" + String(index + 100_000).dropFirst() + ".txt"
                    let fd = open(folder + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
                    guard fd >= 0 else { throw TestFailure("could not create \(name): errno \(errno)") }
                    close(fd)
                }
                let before = try server.peakResidentBytes()
                let result = try await SharePageScript.run(
                    .listing, on: server, scratch: scratch, timeout: .seconds(420))
                guard result.ok else { return }
                let seconds = try #require(result.pageSeconds)
                let peak = try server.peakResidentBytes()
                print(
                    "a folder of \(count) files: first rows shown \(seconds) s after the click, the last one "
                        + "after scrolling for \(result.scrollSeconds ?? -1) s; share VmHWM "
                        + "\(before >> 10) KiB before, \(peak >> 10) KiB after listing it all")
                // A bound for a debug server and a loaded machine; BENCHMARKS.md has a release
                // build's times (the goal: under 1 s for 50,000 items).
                #expect(seconds < 3, "the first rows of \(count) appeared after \(seconds) s")
            }
        }
    }
}
