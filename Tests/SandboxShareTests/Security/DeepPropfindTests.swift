import Foundation
import Glibc
import SandboxTesting
import Testing

/// `PROPFIND Depth: infinity` over a tree one branch of which is deeper than Linux's 4,096-byte
/// paths: the rest is answered, the branch reported on its own.
@Suite struct DeepPropfindTests {
    /// A folder name of 200 bytes: 21 of them make a path of 4,220 bytes.
    static let name = String(repeating: "d", count: 200)

    @Test func aBranchTooDeepToListIsReportedOnItsOwn() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "shallow")
            try Self.makeNestedFolders(in: server.documents, count: 21, name: Self.name, file: "deep.txt")
            let response = try await server.send("PROPFIND", "/", headers: [("Depth", "infinity")])
            #expect(response.status == 207, "PROPFIND Depth: infinity of /: \(response.status)")
            let responses = Self.responses(in: response.text)
            #expect(responses["/file.txt"]?.contains("200 OK") == true, "the rest is answered: \(responses.keys)")
            // Where the kernel stops depends on the length of the path to Documents: the folder
            // whose members it refuses to list is the deepest one answered.
            let folders = responses.filter { $0.key.hasPrefix("/" + Self.name) }.sorted { $0.key.count < $1.key.count }
            #expect(folders.count >= 19, "\(folders.count) nested folders answered")
            let report = folders.last?.value ?? "none"
            #expect(
                report.hasPrefix("<D:status>HTTP/1.1 4"),
                "the folder whose members cannot be listed, reported alone with an error status: \(report)")
            for (href, properties) in folders.dropLast() {
                #expect(properties.contains("200 OK"), "\(href.utf8.count)-byte folder: \(properties)")
            }
            #expect(!response.text.contains("deep.txt"))
        }
    }

    /// The `<D:response>`s of a multistatus body, by href, each with what follows its href.
    static func responses(in xml: String) -> [String: String] {
        var result: [String: String] = [:]
        for piece in xml.components(separatedBy: "<D:response><D:href>").dropFirst() {
            guard let end = piece.range(of: "</D:href>") else { continue }
            let href = String(piece[..<end.lowerBound]).removingPercentEncoding ?? ""
            result[href] = String(piece[end.upperBound...])
        }
        return result
    }

    /// Makes `count` folders named `name`, each in the one before, in `root`, and a file named
    /// `file` in the last, one `mkdirat` at a time (their full path is longer than `PATH_MAX`).
    static func makeNestedFolders(in root: String, count: Int, name: String, file: String) throws {
        var directory = open(root, O_RDONLY | O_DIRECTORY)
        guard directory >= 0 else { throw TestFailure("open \(root): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        for level in 0..<count {
            guard mkdirat(directory, name, 0o755) == 0 else {
                throw TestFailure("mkdirat at level \(level): \(String(cString: strerror(errno)))")
            }
            let next = openat(directory, name, O_RDONLY | O_DIRECTORY)
            guard next >= 0 else { throw TestFailure("openat at level \(level): \(String(cString: strerror(errno)))") }
            close(directory)
            directory = next
        }
        let descriptor = openat(directory, file, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw TestFailure("create \(file): \(String(cString: strerror(errno)))") }
        close(descriptor)
    }
}
