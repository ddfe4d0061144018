import Foundation
import Glibc
import Hummingbird
import NIOCore
import NIOPosix
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// Real folders zipped through ``FolderZip`` into memory, then checked by Python's `zipfile` and
/// Info-ZIP's `unzip` and compared byte for byte with the files.
@Suite(.enabled(if: ExternalTool.available("python3", "unzip")))
struct FolderZipTests {
    /// `<scratch>/Documents` with nested folders, an empty folder, an empty file, a file of a few
    /// chunks, a name that is not UTF-8, and what must stay out: a dot-file, a dot-folder, the
    /// top-level Inbox, symlinks to a file and a folder outside. An `Inbox` deeper down is kept:
    /// only the top one is hidden.
    static func makeTree(in scratch: ScratchDirectory) throws -> (documents: ConfinedRoot, big: [UInt8]) {
        let base = scratch.path
        for folder in [
            "Documents", "Documents/Folder", "Documents/Folder/sub", "Documents/Folder/sub/deeper",
            "Documents/Folder/empty", "Documents/Folder/Inbox", "Documents/Folder/.git", "Documents/Inbox",
            "outside",
        ] {
            try #require(mkdir("\(base)/\(folder)", 0o755) == 0)
        }
        // Two chunks and a bit; a cheap generator (a debug build draws random bytes slowly).
        var state: UInt32 = 0x2545_F491
        let big = (0..<(2 << 20) + 12345).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let files: [(String, [UInt8])] = [
            ("Documents/top.txt", Array("top".utf8)),
            ("Documents/日本語.txt", Array("名前".utf8)),
            ("Documents/.hidden", Array("hidden".utf8)),
            ("Documents/Inbox/incoming.txt", Array("not shared".utf8)),
            ("Documents/Folder/a.txt", Array("alpha".utf8)),
            ("Documents/Folder/big.bin", big),
            ("Documents/Folder/Inbox/kept.txt", Array("kept".utf8)),
            ("Documents/Folder/.git/config", Array("hidden too".utf8)),
            ("Documents/Folder/sub/zero.txt", []),
            ("Documents/Folder/sub/deeper/c.txt", Array("gamma".utf8)),
            ("outside/secret.txt", Array("secret".utf8)),
        ]
        for (path, contents) in files { try plantFile(Array("\(base)/\(path)".utf8), contents) }
        try plantFile(Array("\(base)/Documents/Folder/caf".utf8) + [0xE9] + Array(".txt".utf8), Array("latin-1".utf8))
        try #require(symlink("\(base)/outside/secret.txt", "\(base)/Documents/Folder/link.txt") == 0)
        try #require(symlink("\(base)/outside", "\(base)/Documents/Folder/linked folder") == 0)
        try #require(chmod("\(base)/Documents/Folder/a.txt", 0o600) == 0)
        let container = try ConfinedRoot(openingDirectoryAt: base)
        let documents = try container.openSubroot(at: ContainerPath("Documents"), refusingSymlinks: true)
        return (documents, big)
    }

    static func zip(_ folder: String, in documents: ConfinedRoot) async throws -> (bytes: [UInt8], zip: FolderZip) {
        let path = try SharePath(requestPath: folder)
        let zip = try FolderZip(
            documents: documents, dataProtection: nil, folder: path,
            eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let collecting = CollectingWriter()
        var writer: any ResponseBodyWriter = collecting
        try await zip.write(to: &writer)
        #expect(collecting.sink.finished)
        return (collecting.sink.bytes, zip)
    }

    @Test func sharedFolderHoldsWhatTheShareShowsAndNothingElse() async throws {
        try await ScratchDirectory.with { scratch in
            let (documents, _) = try Self.makeTree(in: scratch)
            let (bytes, zip) = try await Self.zip("/", in: documents)
            #expect(zip.attachmentName == "Documents.zip")
            let path = scratch.appending("Documents.zip")
            try ZipCheck.save(bytes, to: path)
            let lines = try await ZipCheck.verify(path, against: scratch.path, scratch: scratch.path)
            #expect(lines.allSatisfy { $0.hasSuffix(" same") }, "\(lines)")
            let names = lines.compactMap { $0.split(separator: " ").first.map(String.init) }
            let expected =
                [
                    "Documents/", "Documents/Folder/", "Documents/Folder/Inbox/", "Documents/Folder/Inbox/kept.txt",
                    "Documents/Folder/a.txt", "Documents/Folder/big.bin", "Documents/Folder/empty/",
                    "Documents/Folder/sub/", "Documents/Folder/sub/deeper/", "Documents/Folder/sub/deeper/c.txt",
                    "Documents/Folder/sub/zero.txt", "Documents/top.txt", "Documents/日本語.txt",
                ].map { ZipCheck.hex($0.utf8) }
                + [ZipCheck.hex(Array("Documents/Folder/caf".utf8) + [0xE9] + Array(".txt".utf8))]
            #expect(Set(names) == Set(expected))
            #expect(names.count == expected.count, "no entry twice")
            let latin = lines.first { $0.hasPrefix(ZipCheck.hex(Array("Documents/Folder/caf".utf8) + [0xE9])) }
            #expect(latin?.contains(" False ") == true, "no UTF-8 flag on a name that is not UTF-8: \(latin ?? "")")
            #expect(
                lines.filter { !$0.hasPrefix(ZipCheck.hex(Array("Documents/Folder/caf".utf8) + [0xE9])) }
                    .allSatisfy { $0.contains(" True ") })
            let modes = lines.first { $0.hasPrefix(ZipCheck.hex("Documents/Folder/a.txt".utf8)) }
            #expect(modes?.contains(" 0o100600 ") == true, "permission bits kept: \(modes ?? "")")
            #expect(!bytes.contains(subsequence: Array("secret".utf8)), "the symlinks were not followed")
        }
    }

    @Test func subfolderIsNamedAfterItselfAndExtractsWithUnzip() async throws {
        try await ScratchDirectory.with { scratch in
            let (documents, big) = try Self.makeTree(in: scratch)
            let (bytes, zip) = try await Self.zip("/Folder/sub", in: documents)
            #expect(zip.attachmentName == "sub.zip")
            let path = scratch.appending("sub.zip")
            try ZipCheck.save(bytes, to: path)
            let lines = try await ZipCheck.verify(
                path, against: scratch.appending("Documents/Folder"), scratch: scratch.path)
            #expect(lines.count == 4 && lines.allSatisfy { $0.hasSuffix(" same") }, "\(lines)")
            // unzip extracts it; the big file through the Folder archive.
            let (folderBytes, _) = try await Self.zip("/Folder", in: documents)
            try ZipCheck.save(folderBytes, to: scratch.appending("Folder.zip"))
            try #require(mkdir(scratch.appending("out"), 0o755) == 0)
            let unzip = try await ExternalTool.run(
                "unzip", ["-q", scratch.appending("Folder.zip"), "-d", scratch.appending("out")], outputIn: scratch.path
            )
            #expect(unzip.status == 0, "\(unzip.stdout) \(unzip.stderr)")
            let extracted = try Data(contentsOf: URL(fileURLWithPath: scratch.appending("out/Folder/big.bin")))
            #expect(Array(extracted) == big)
            #expect(FileManager.default.fileExists(atPath: scratch.appending("out/Folder/empty")))
        }
    }

    @Test func hiddenMissingAndFileAreRefusedBeforeAnythingIsSent() throws {
        try ScratchDirectory.with { scratch in
            let (documents, _) = try Self.makeTree(in: scratch)
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            for (folder, code) in [
                ("/Inbox", SandboxError.Code.notFound), ("/Folder/.git", .notFound), ("/nothing", .notFound),
                ("/Folder/linked%20folder", .notFound), ("/top.txt", .conflict),
            ] {
                let path = try SharePath(requestPath: folder)
                do throws(SandboxError) {
                    _ = try FolderZip(documents: documents, dataProtection: nil, folder: path, eventLoop: loop)
                    Issue.record("\(folder) was accepted")
                } catch {
                    #expect(error.code == code, "\(folder): \(error)")
                }
            }
        }
    }

    /// A file that shrinks while it is copied keeps the bytes read; one removed before it is
    /// opened is left out; the archive stays valid.
    @Test func fileThatShrinksOrVanishesMeanwhile() async throws {
        try await ScratchDirectory.with { scratch in
            let (documents, big) = try Self.makeTree(in: scratch)
            var producer = FolderZipProducer(
                documents: documents, dataProtection: nil, folder: try SharePath(requestPath: "/Folder"),
                archiveRoot: Array("Folder/".utf8),
                attributes: try #require(try documents.attributes(at: ContainerPath("Folder"))))
            // The first chunk ends inside big.bin (Inbox/, Inbox/kept.txt and a.txt come first).
            var bytes = Array(try #require(try producer.next()).readableBytesView)
            let shrunk = (3 << 19)
            try #require(truncate(scratch.appending("Documents/Folder/big.bin"), off_t(shrunk)) == 0)
            try #require(unlink(scratch.appending("Documents/Folder/sub/deeper/c.txt")) == 0)
            while let buffer = try producer.next() { bytes += buffer.readableBytesView }
            let path = scratch.appending("changed.zip")
            try ZipCheck.save(bytes, to: path)
            let script = """
                import sys, zipfile
                archive = zipfile.ZipFile(sys.argv[1])
                assert archive.testzip() is None
                print(archive.getinfo('Folder/big.bin').file_size, archive.read('Folder/big.bin') == open(sys.argv[2], 'rb').read(), 'Folder/sub/deeper/c.txt' in archive.namelist())
                """
            #expect(
                try await ZipCheck.python(
                    script, [path, scratch.appending("Documents/Folder/big.bin")], scratch: scratch.path)
                    == "\(shrunk) True False\n")
            #expect(big.count > shrunk)
        }
    }
}

extension FolderZipTests {
    /// Folders nested past the 4095 bytes a container path can name: the archive is whole, and
    /// the folder whose items cannot be named is stored empty.
    @Test func folderNestedBeyondThePathLimitIsStoredEmpty() async throws {
        try await ScratchDirectory.with { scratch in
            try #require(mkdir(scratch.appending("Documents"), 0o755) == 0)
            try plantFile(Array(scratch.appending("Documents/first.txt").utf8), Array("first".utf8))
            // 17 names of 250 bytes: 4267 bytes, made one level at a time (mkdir takes at most 4096).
            let name = String(repeating: "d", count: 250)
            var fd = open(scratch.appending("Documents"), O_RDONLY | O_DIRECTORY)
            for _ in 0..<17 {
                try #require(mkdirat(fd, name, 0o755) == 0)
                let next = openat(fd, name, O_RDONLY | O_DIRECTORY)
                close(fd)
                fd = next
                try #require(fd >= 0)
            }
            close(fd)
            let container = try ConfinedRoot(openingDirectoryAt: scratch.path)
            let documents = try container.openSubroot(at: ContainerPath("Documents"), refusingSymlinks: true)
            let (bytes, _) = try await Self.zip("/", in: documents)
            let path = scratch.appending("deep.zip")
            try ZipCheck.save(bytes, to: path)
            let script = "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(len(z.namelist()), z.testzip())"
            // Documents/, first.txt, and the folders down to the one whose items cannot be named.
            #expect(try await ZipCheck.python(script, [path], scratch: scratch.path) == "18 None\n")
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }
}
