import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// The web page's listing a page at a time (``FolderPage``): the order, hidden and unnamable
/// items left out, cursors, and memory that does not grow with the folder.
@Suite struct FolderPageTests {
    /// Every page of `folder`, joined, with the largest number of names any page held.
    static func allPages(
        _ root: ConfinedRoot, _ folder: SharePath = .root, limit: Int
    ) throws -> (keys: [ListingOrder.Key], pages: Int, peak: Int) {
        var keys: [ListingOrder.Key] = []
        var cursor: ListingOrder.Key?
        var pages = 0
        var peak = 0
        while true {
            let page = try FolderPage.read(folder, in: root, after: cursor, limit: limit)
            keys += page.keys
            pages += 1
            peak = max(peak, page.peakBuffered)
            guard let next = page.next else { break }
            cursor = try ListingOrder.Key(cursor: next.cursor)  // as the page sends it back
        }
        return (keys, pages, peak)
    }

    @Test func foldersFirstThenNamesCaseInsensitivelyWithNumbersByValue() throws {
        try ScratchDirectory.with { scratch in
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            for name in ["file 10", "File 2", "a", "B", "x01", "x1", ".hidden", "back\\slash"] {
                try root.writeContents([1], to: ContainerPath(name))
            }
            for name in ["Dir", "cat"] { try root.createDirectory(at: ContainerPath(name)) }
            try FileManager.default.createSymbolicLink(atPath: scratch.appending("link"), withDestinationPath: "a")
            let expected = ["cat", "Dir", "a", "B", "File 2", "file 10", "x01", "x1"]
            for limit in [1, 3, 100] {
                let listed = try Self.allPages(root, limit: limit)
                #expect(listed.keys.map { String(decoding: $0.name, as: UTF8.self) } == expected, "limit \(limit)")
                #expect(listed.keys.prefix(2).allSatisfy(\.folder) && !listed.keys.dropFirst(2).contains { $0.folder })
                #expect(listed.pages == (expected.count + limit - 1) / limit, "limit \(limit)")
            }
        }
    }

    /// A cursor is only compared with names: one naming no item resumes at its place; one that is
    /// not a name (a path, `..`, control characters, no kind) is refused as malformed.
    @Test func cursorsAreNamesComparedNeverPathsOpened() throws {
        try ScratchDirectory.with { scratch in
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            for name in ["a", "b", "c", "d"] { try root.writeContents([1], to: ContainerPath(name)) }
            let page = try FolderPage.read(.root, in: root, after: ListingOrder.Key(cursor: "fbb"), limit: 10)
            #expect(page.keys.map(\.name) == [Array("c".utf8), Array("d".utf8)] && page.next == nil)
            let folders = try FolderPage.read(.root, in: root, after: ListingOrder.Key(cursor: "dzz"), limit: 10)
            #expect(folders.keys.count == 4, "every file follows every folder")
            for hostile in ["", "f", "x/a", "f../../etc/passwd", "f/etc", "d..", "f.", "fa\u{1}", "fa\\b", "a"] {
                let error = #expect(throws: SandboxError.self, "\(hostile)") { try ListingOrder.Key(cursor: hostile) }
                #expect(error?.code == .malformedRequest)
            }
            #expect(throws: SandboxError.self) {
                try ListingOrder.Key(cursor: "f" + String(repeating: "n", count: 256))
            }
        }
    }

    /// 50,000 files: the first page of 200 holds at most 402 names while reading, and paging
    /// through the whole folder sends every item once, in order, holding at most a page's worth.
    @Test(.timeLimit(.minutes(3))) func aFolderOf50000ItemsIsReadWithAPagesMemory() throws {
        try ScratchDirectory.with { scratch in
            let count = 50_000
            for index in 0..<count {
                let fd = Glibc.open(scratch.appending("f\(index).txt"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw TestFailure("could not create f\(index).txt: errno \(errno)") }
                Glibc.close(fd)
            }
            let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
            let clock = ContinuousClock.now
            let first = try FolderPage.read(.root, in: root, after: nil, limit: 200)
            print("the first page of 200 of 50,000 items: \(ContinuousClock.now - clock)")
            #expect(first.keys.count == 200 && first.next != nil)
            #expect(first.keys.first?.name == Array("f0.txt".utf8) && first.keys.last?.name == Array("f199.txt".utf8))
            #expect(first.peakBuffered <= 402, "held \(first.peakBuffered) names for a page of 200")
            let started = ContinuousClock.now
            let all = try Self.allPages(root, limit: FolderPage.maximumLimit)
            print(
                "50,000 items in \(all.pages) pages of 5,000: \(ContinuousClock.now - started), at most \(all.peak) held"
            )
            #expect(all.keys.count == count && all.pages == 10)
            #expect(all.keys.map(\.name) == (0..<count).map { Array("f\($0).txt".utf8) }, "every item once, in order")
            #expect(all.peak <= 2 * (FolderPage.maximumLimit + 1), "held \(all.peak) names")
        }
    }
}
