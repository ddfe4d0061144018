import Foundation
import SandboxStore

extension FuzzTarget {
    /// `Archiver.unarchive(_:path:)`: version 2 archives decode directly, version 1 through the
    /// migration hook, newer ones are refused. What unarchives re-archives to the same root.
    static let archive = FuzzTarget(
        name: "archive",
        run: { bytes in
            let path = "Documents/notes.archive"
            let root: Notebook
            do throws(SandboxError) {
                root = try archiver.unarchive(bytes, path: path)
            } catch {
                expectRefusal(
                    code: error.code.rawValue,
                    among: [
                        "corrupt", "too-large", "newer-version", "migration-failed", "type-mismatch",
                        "cyclic-reference",
                    ],
                    message: error.message, for: "Archiver.unarchive")
                invariant(error.message.contains(path), "the refusal does not name '\(path)': \(error.message)")
                return
            }
            do {
                let again = try archiver.unarchive(try archiver.archive(root), path: path)
                invariant(again == root, "an unarchived root does not round-trip: \(root) became \(again)")
            } catch {
                invariant(false, "an unarchived root cannot be archived and read again: \(error)")
            }
        },
        seeds: {
            var seeds: [String: [UInt8]] = [:]
            let notebook = Notebook(
                title: "Groceries",
                pages: [Notebook.Page(number: 1, lines: ["milk", "eggs"], attachment: Data([1, 2, 3]))],
                tags: ["home": 2], pinned: true)
            let old = NotebookV1(title: "Old", lines: ["one", "two"])
            do {
                for format in PropertyListFormat.allCases {
                    seeds["v2-\(format).archive"] = try Archiver<Notebook>(version: 2, format: format).archive(notebook)
                    seeds["v1-\(format).archive"] = try Archiver<NotebookV1>(version: 1, format: format).archive(old)
                }
                seeds["v3.archive"] = try Archiver<Notebook>(version: 3).archive(notebook)
            } catch {
                fatalError("sandbox-fuzz: cannot make the archive seeds: \(error)")
            }
            return seeds
        })

    private static let archiver = Archiver<Notebook>(version: 2) { archived in
        Notebook(migrating: try archived.decodeRoot(as: NotebookV1.self))
    }
}

/// An app's root object, version 2.
struct Notebook: Codable, Equatable, Sendable {
    struct Page: Codable, Equatable, Sendable {
        var number: Int
        var lines: [String]
        var attachment: Data?
    }

    var title: String
    var pages: [Page]
    var tags: [String: Int]
    var pinned: Bool?

    init(title: String, pages: [Page], tags: [String: Int], pinned: Bool?) {
        self.title = title
        self.pages = pages
        self.tags = tags
        self.pinned = pinned
    }

    init(migrating old: NotebookV1) {
        self.init(title: old.title, pages: [Page(number: 1, lines: old.lines, attachment: nil)], tags: [:], pinned: nil)
    }
}

/// The same root, version 1.
struct NotebookV1: Codable, Equatable, Sendable {
    var title: String
    var lines: [String]
}
