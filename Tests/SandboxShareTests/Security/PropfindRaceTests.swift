import Foundation
import Glibc
import SandboxTesting
import Synchronization
import Testing

/// A PROPFIND listing while the app changes the folder under it: renamed back and forth, or put
/// back as a symlink to a folder outside. The body stays well-formed, names only what was planted
/// in the shared folder, never reaches through a link, and the server goes on answering.
@Suite struct PropfindRaceTests {
    @Test func aFolderRenamedWhileListedYieldsOnlyWhatWasPlanted() async throws {
        try await ShareServerProcess.with { server in
            try Self.plantFolder(server, "a", files: 1_000)
            let documents = server.documents
            let renames = try await Self.whileChanging({
                rename(documents + "/a", documents + "/b")
                rename(documents + "/b", documents + "/a")
            }) {
                for _ in 0..<4 {
                    let response = try await server.send("PROPFIND", "/", headers: [("Depth", "infinity")])
                    #expect(response.status == 207, "PROPFIND during the renames: \(response.status)")
                    Self.checkWellFormed(response.text)
                    for href in Self.hrefs(in: response.text) {
                        #expect(Self.isPlanted(href), "an href that names nothing planted: \(href)")
                    }
                }
            }
            #expect(renames > 0, "the folder was renamed during the listings")
            let after = try await server.send("PROPFIND", "/", headers: [("Depth", "1")])
            #expect(after.status == 207, "the server answers after the race: \(after.status)")
        }
    }

    @Test func aFolderSwappedForALinkOutsideIsNeverFollowed() async throws {
        try await ShareServerProcess.with { server in
            try Self.plantFolder(server, "a", files: 500)
            let outside = server.scratch.appending("outside")
            try FileManager.default.createDirectory(atPath: outside + "/inner", withIntermediateDirectories: true)
            for name in ["secret-1.txt", "inner/secret-2.txt"] {
                try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/" + name))
            }
            let documents = server.documents
            #expect(symlink(outside, documents + "/planted-link") == 0)
            let swaps = try await Self.whileChanging({
                // `a` becomes a link to the folder outside, then the folder again.
                rename(documents + "/a", documents + "/a.real")
                symlink(outside, documents + "/a")
                unlink(documents + "/a")
                rename(documents + "/a.real", documents + "/a")
            }) {
                for _ in 0..<4 {
                    let response = try await server.send("PROPFIND", "/", headers: [("Depth", "infinity")])
                    #expect(response.status == 207, "PROPFIND during the swaps: \(response.status)")
                    Self.checkWellFormed(response.text)
                    #expect(!response.text.contains("secret"), "a listing reached through a link")
                    #expect(!response.text.contains("planted-link"), "a symlink was listed")
                    #expect(!response.text.contains("inner"), "a listing reached through a link")
                }
            }
            #expect(swaps > 0, "the folder was swapped during the listings")
        }
    }

    /// Plants `Documents/folder` with `files` one-byte files and a subfolder `sub` with 10 more.
    static func plantFolder(_ server: ShareServerProcess, _ folder: String, files: Int) throws {
        try FileManager.default.createDirectory(
            atPath: server.documents(folder + "/sub"), withIntermediateDirectories: true)
        for index in 0..<files {
            let name = index < 10 ? "\(folder)/sub/f\(index).txt" : "\(folder)/f\(index).txt"
            guard FileManager.default.createFile(atPath: server.documents(name), contents: Data("x".utf8)) else {
                throw TestFailure("could not plant \(name)")
            }
        }
    }

    /// Runs `change` over and over on a thread of its own while `body` runs; returns how many times.
    static func whileChanging(
        _ change: @escaping @Sendable () -> Void, _ body: () async throws -> Void
    ) async throws -> Int {
        let flags = ChangeFlags()
        let thread = Thread {
            while !flags.stop.load(ordering: .acquiring) {
                change()
                flags.count.add(1, ordering: .relaxed)
            }
            flags.stopped.store(true, ordering: .releasing)
        }
        thread.start()
        do {
            try await body()
        } catch {
            flags.stop.store(true, ordering: .releasing)
            throw error
        }
        flags.stop.store(true, ordering: .releasing)
        let ended = await eventually(timeout: .seconds(20)) { flags.stopped.load(ordering: .acquiring) }
        #expect(ended, "the changing thread stopped")
        return flags.count.load(ordering: .relaxed)
    }

    /// Whether `href` is `/`, or `/a/` or `/b/` followed by nothing, `sub/`, and a planted file.
    static func isPlanted(_ href: String) -> Bool {
        if href == "/" { return true }
        guard href.hasPrefix("/a/") || href.hasPrefix("/b/") else { return false }
        var rest = href.dropFirst(3)
        if rest.hasPrefix("sub/") { rest = rest.dropFirst(4) }
        guard !rest.isEmpty else { return true }
        guard rest.hasPrefix("f"), rest.hasSuffix(".txt") else { return false }
        let digits = rest.dropFirst().dropLast(4)
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    /// Checks that `xml` is a whole multistatus: every response closed, and the document too.
    static func checkWellFormed(_ xml: String) {
        #expect(xml.hasSuffix("</D:multistatus>\n"), "the body ends its document: \(xml.suffix(200))")
        let opened = xml.components(separatedBy: "<D:response>").count
        let closed = xml.components(separatedBy: "</D:response>").count
        #expect(opened == closed, "\(opened - 1) responses opened, \(closed - 1) closed")
    }

    /// The hrefs of a multistatus body, percent-decoded.
    static func hrefs(in xml: String) -> [String] {
        xml.components(separatedBy: "<D:href>").dropFirst().compactMap { piece in
            piece.components(separatedBy: "</D:href>").first?.removingPercentEncoding
        }
    }
}

/// What ``PropfindRaceTests/whileChanging(_:_:)`` shares with its thread.
private final class ChangeFlags: Sendable {
    let stop = Atomic(false)
    let stopped = Atomic(false)
    let count = Atomic(0)
}
