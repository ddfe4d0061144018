import Foundation
import SandboxTesting
import Testing

/// The share reads and moves protected files as the app would (issue 26, item 14, follow-up),
/// against a real `sandbox share` with a passcode set and a folder of class `complete`: GET, HEAD,
/// ranges, PROPFIND's length, the page's download and the folder ZIP give the plaintext while the
/// device is unlocked and 403 with no byte of it while it is locked; COPY and MOVE into a
/// protected folder seal a plain file, a protected file keeps its class, and while locked they
/// are refused with nothing changed.
@Suite struct ProtectedDownloadTests {
    static let secret = "the launch codes are 0000\n"
    /// Larger than a response chunk (1 MiB) and not a whole number of 64 KiB segments.
    static let large: [UInt8] = (0..<(1_500_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    /// Sets a passcode, gives `folder` (relative to Documents, "" for Documents) class `complete`,
    /// runs `body`, and restarts the home (its keyring entries go) whatever happened.
    static func withProtected(
        _ folder: String = "", _ body: @Sendable (ShareServerProcess) async throws -> Void
    ) async throws {
        try await ShareServerProcess.with { server in
            #expect(try await ProtectedUploadTests.sandbox(server, ["passcode", "set"], input: "\n2468\n").status == 0)
            var failure: (any Error)?
            do {
                let path = folder.isEmpty ? "Documents" : "Documents/\(folder)"
                if !folder.isEmpty {
                    try FileManager.default.createDirectory(
                        atPath: server.documents(folder), withIntermediateDirectories: true)
                }
                let set = try await ProtectedUploadTests.sandbox(
                    server, ["write", server.app, path, "--default-for-folder", "--protection", "complete"])
                #expect(set.status == 0, "\(set.stderr)")
                try await body(server)
            } catch {
                failure = error
            }
            #expect(try await ProtectedUploadTests.sandbox(server, ["restart"]).status == 0)
            if let failure { throw failure }
        }
    }

    static func lock(_ server: ShareServerProcess) async throws {
        #expect(try await ProtectedUploadTests.sandbox(server, ["lock"]).status == 0)
    }

    static func onDisk(_ server: ShareServerProcess, _ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: server.documents(relative)).map(Array.init)
    }

    /// Whether `bytes` hold `text`'s bytes anywhere.
    static func holds(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test func getServesThePlaintextAndRefusesWhileLocked() async throws {
        try await Self.withProtected { server in
            #expect(try await server.send("PUT", "/codes.txt", text: Self.secret).status == 201)
            let upload = try await server.send("PUT", "/large.bin", body: Self.large)
            #expect(upload.status == 201, "\(upload)")
            let sealed = try #require(Self.onDisk(server, "large.bin"))
            // (Byte arrays are compared outside #expect, which would print a megabyte of them.)
            let isSealed = sealed.count > Self.large.count && Array(sealed.prefix(6)) == Array("SBPROT".utf8)
            #expect(isSealed, "large.bin is not sealed on disk")

            let small = try await server.send("GET", "/codes.txt")
            #expect(small.status == 200 && small.text == Self.secret, "\(small)")
            #expect(small.header("Content-Length") == String(Self.secret.utf8.count))
            let large = try await server.send("GET", "/large.bin")
            let whole = large.body == Self.large
            #expect(large.status == 200 && whole, "\(large.status), \(large.body.count) bytes")
            #expect(large.header("Content-Length") == String(Self.large.count))
            let head = try await server.send("HEAD", "/large.bin")
            #expect(head.status == 200 && head.header("Content-Length") == String(Self.large.count), "\(head)")
            #expect(head.header("ETag") == large.header("ETag"))

            // A range across a segment boundary, and one across a chunk's: the plaintext's bytes.
            for (first, last) in [(65_000, 140_000), (1_048_000, 1_499_999)] {
                let part = try await server.send("GET", "/large.bin", headers: [("Range", "bytes=\(first)-\(last)")])
                #expect(part.status == 206, "\(part.status)")
                #expect(part.header("Content-Range") == "bytes \(first)-\(last)/\(Self.large.count)")
                let same = part.body == Array(Self.large[first...last])
                #expect(same, "bytes \(first)-\(last) differ")
            }

            let propfind = try await server.send(
                "PROPFIND", "/", headers: [("Depth", "1")],
                text: "<?xml version=\"1.0\"?><D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>")
            #expect(propfind.text.contains("<D:getcontentlength>\(Self.large.count)</D:getcontentlength>"))
            #expect(propfind.text.contains("<D:getcontentlength>\(Self.secret.utf8.count)</D:getcontentlength>"))

            try await Self.lock(server)
            for method in ["GET", "HEAD"] {
                let refused = try await server.send(method, "/codes.txt")
                #expect(refused.status == 403, "\(method): \(refused)")
                #expect(!refused.text.contains("launch codes"))
            }
            let refused = try await server.send("GET", "/large.bin", headers: [("Range", "bytes=0-99")])
            #expect(refused.status == 403 && refused.text.contains("unlock the device"), "\(refused)")
            let leaked = Self.holds(refused.body, String(decoding: Self.large[0..<32], as: UTF8.self))
            #expect(!leaked)
            // The length is in the header, which needs no key: still known while locked.
            let locked = try await server.send(
                "PROPFIND", "/large.bin", headers: [("Depth", "0")],
                text:
                    "<?xml version=\"1.0\"?><D:propfind xmlns:D=\"DAV:\"><D:prop><D:getcontentlength/></D:prop></D:propfind>"
            )
            #expect(locked.text.contains("<D:getcontentlength>\(Self.large.count)</D:getcontentlength>"), "\(locked)")
        }
    }

    /// A small GET reads the whole file at once and looks at its first bytes for the protected
    /// file's mark (one read, not two): a protected file, a plain file of the same size class
    /// planted beside it and a hidden one answer as a large file does — plaintext, ranges, the
    /// validators of the file on disk, 304, 403 with no byte while locked, 404 for the hidden one.
    @Test func smallFilesInAProtectedFolderAnswerAsLargeOnesDo() async throws {
        try await Self.withProtected { server in
            #expect(try await server.send("PUT", "/codes.txt", text: Self.secret).status == 201)
            let plain = String(repeating: "plain bytes, never sealed. ", count: 200)
            try server.plant("plain.txt", plain)
            try server.plant(".hidden.txt", plain)
            for (name, text) in [("codes.txt", Self.secret), ("plain.txt", plain)] {
                let bytes = Array(text.utf8)
                let whole = try await server.send("GET", "/\(name)")
                #expect(whole.status == 200 && whole.body == bytes, "\(name): \(whole.status)")
                #expect(whole.header("Content-Length") == String(bytes.count), "\(name)")
                let head = try await server.send("HEAD", "/\(name)")
                #expect(head.header("Content-Length") == String(bytes.count), "\(name)")
                let etag = try #require(whole.header("ETag"))
                #expect(head.header("ETag") == etag && head.header("Last-Modified") == whole.header("Last-Modified"))
                let part = try await server.send("GET", "/\(name)", headers: [("Range", "bytes=4-9")])
                #expect(part.status == 206 && part.body == Array(bytes[4...9]), "\(name): \(part.status)")
                #expect(part.header("Content-Range") == "bytes 4-9/\(bytes.count)")
                #expect(part.header("Content-Length") == "6" && part.header("ETag") == etag)
                let tail = try await server.send("GET", "/\(name)", headers: [("Range", "bytes=-3")])
                #expect(tail.status == 206 && tail.body == Array(bytes.suffix(3)), "\(name): \(tail.status)")
                let unchanged = try await server.send("GET", "/\(name)", headers: [("If-None-Match", etag)])
                #expect(unchanged.status == 304 && unchanged.body.isEmpty, "\(name): \(unchanged.status)")
                #expect(unchanged.header("ETag") == etag)
            }
            #expect(try await server.send("GET", "/.hidden.txt").status == 404)

            try await Self.lock(server)
            let refused = try await server.send("GET", "/codes.txt", headers: [("Range", "bytes=0-3")])
            #expect(refused.status == 403 && !refused.text.contains("launch"), "\(refused)")
            let stillPlain = try await server.send("GET", "/plain.txt", headers: [("Range", "bytes=0-4")])
            #expect(stillPlain.status == 206 && stillPlain.text == "plain", "\(stillPlain.status)")
            #expect(try await server.send("GET", "/.hidden.txt").status == 404)
        }
    }

    @Test func thePageDownloadsAndZipsThePlaintext() async throws {
        try await Self.withProtected("Vault") { server in
            do {
                let (cookie, csrf, base) = try await WebPageTests().login(server)
                let session = [("Cookie", cookie), ("X-CSRF-Token", csrf)]
                let up = try await server.send(
                    "PUT", "\(base)api/upload?path=%2FVault%2Fcodes.txt", headers: session, text: Self.secret)
                #expect(up.status == 201, "\(up)")
                #expect(!Self.holds(try #require(Self.onDisk(server, "Vault/codes.txt")), "launch codes"))
                try server.plant("Plain/notes.txt", "plain notes\n")

                let cookieOnly = [("Cookie", cookie)]
                let download = try await server.send(
                    "GET", "\(base)download?path=%2FVault%2Fcodes.txt", headers: cookieOnly, credentials: .none)
                #expect(download.status == 200 && download.text == Self.secret, "\(download)")
                let listing = try await server.send(
                    "GET", "\(base)api/list?path=%2FVault", headers: cookieOnly, credentials: .none)
                #expect(listing.text.contains("\"size\":\(Self.secret.utf8.count)"), "\(listing)")
                let zip = try await server.send(
                    "GET", "\(base)zip?path=%2FVault", headers: cookieOnly, credentials: .none)
                #expect(zip.status == 200, "\(zip.status)")
                let archive = server.scratch.appending("vault.zip")
                try ZipCheck.save(zip.body, to: archive)
                let entry = try await ZipCheck.python(
                    "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('Vault/codes.txt').decode())",
                    [archive], scratch: server.scratch.path)
                #expect(entry == Self.secret)

                try await Self.lock(server)
                let refused = try await server.send(
                    "GET", "\(base)download?path=%2FVault%2Fcodes.txt", headers: cookieOnly, credentials: .none)
                #expect(refused.status == 403 && !refused.text.contains("launch codes"), "\(refused)")
                for folder in ["%2FVault", "%2F"] {
                    let zipped = try await server.send(
                        "GET", "\(base)zip?path=\(folder)", headers: cookieOnly, credentials: .none)
                    #expect(zipped.status == 403 && zipped.text.contains("/Vault/codes.txt"), "\(zipped)")
                    #expect(!Self.holds(zipped.body, "launch codes"))
                }
                // A folder without protected files is still archived while locked.
                let plain = try await server.send(
                    "GET", "\(base)zip?path=%2FPlain", headers: cookieOnly, credentials: .none)
                #expect(plain.status == 200 && Self.holds(plain.body, "plain notes"), "\(plain.status)")
            }
        }
    }

    @Test func copyAndMoveSealIntoAProtectedFolderAndRefuseWhileLocked() async throws {
        try await Self.withProtected("Vault") { server in
            try server.plant("a.txt", Self.secret)
            try server.plant("b.txt", Self.secret)
            try server.plant("c.txt", Self.secret)
            let destination = { (path: String) in ("Destination", server.url(path)) }

            let copy = try await server.send("COPY", "/a.txt", headers: [destination("/Vault/a.txt")])
            #expect(copy.status == 201, "\(copy)")
            let copied = try #require(Self.onDisk(server, "Vault/a.txt"))
            #expect(!Self.holds(copied, "launch codes"), "a plain file copied into a protected folder is plaintext")
            #expect(server.contents("a.txt") == Self.secret)
            let move = try await server.send("MOVE", "/b.txt", headers: [destination("/Vault/b.txt")])
            #expect(move.status == 201, "\(move)")
            #expect(!Self.holds(try #require(Self.onDisk(server, "Vault/b.txt")), "launch codes"))
            #expect(server.contents("b.txt") == nil)
            for name in ["a", "b"] {
                let cat = try await ProtectedUploadTests.sandbox(
                    server, ["cat", server.app, "Documents/Vault/\(name).txt"])
                #expect(cat.stdout == Self.secret, "\(cat.stderr)")
            }
            // A protected file keeps its class out of the folder, as on iOS, and reads back.
            let out = try await server.send("MOVE", "/Vault/a.txt", headers: [destination("/out.txt")])
            #expect(out.status == 201, "\(out)")
            let kept = Self.onDisk(server, "out.txt") == copied
            #expect(kept, "out.txt is not the sealed file moved")
            #expect(try await server.send("GET", "/out.txt").text == Self.secret)

            try await Self.lock(server)
            // The share takes changes again once it has seen the lock end (it answers 503 until).
            let lockedCopy = try await server.sendUntilTaken("COPY", "/c.txt", headers: [destination("/Vault/c.txt")])
            #expect(lockedCopy.status == 403 && lockedCopy.text.contains("unlock the device"), "\(lockedCopy)")
            #expect(Self.onDisk(server, "Vault/c.txt") == nil)
            let lockedMove = try await server.send("MOVE", "/c.txt", headers: [destination("/Vault/c.txt")])
            #expect(lockedMove.status == 403, "\(lockedMove)")
            #expect(server.contents("c.txt") == Self.secret && Self.onDisk(server, "Vault/c.txt") == nil)
            // Replacing an item: refused before the item replaced is removed.
            let before = Self.onDisk(server, "Vault/b.txt")
            let replace = try await server.send(
                "MOVE", "/c.txt", headers: [destination("/Vault/b.txt"), ("Overwrite", "T")])
            #expect(replace.status == 403, "\(replace)")
            #expect(Self.onDisk(server, "Vault/b.txt") == before && server.contents("c.txt") == Self.secret)
        }
    }
}
