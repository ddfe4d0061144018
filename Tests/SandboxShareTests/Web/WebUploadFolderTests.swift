import Foundation
import Glibc
import SandboxTesting
import Testing

/// A page upload that fails — refused (413) or cut off — removes the folders it created for
/// itself, and only those: a folder that was there before, or that another upload in flight is
/// writing into, stays.
@Suite struct WebUploadFolderTests {
    @Test func aFailedUploadRemovesTheFoldersItMadeAndNoOthers() async throws {
        try await ShareServerProcess.with(arguments: ["--max-upload", "1K"]) { server in
            try server.plant("Existing/keep.txt", "kept")
            try FileManager.default.createDirectory(
                atPath: server.documents("Empty"), withIntermediateDirectories: false)
            let (cookie, csrf, base) = try await WebPageTests().login(server)
            let session = [("Cookie", cookie), ("X-CSRF-Token", csrf)]

            // Refused at once: the announced size is over the limit.
            let refused = try await server.send(
                "PUT", base + "api/upload?path=%2FEmpty%2FNew%2FDeeper%2Fbig.bin", headers: session,
                body: Array(repeating: 1, count: 2000))
            #expect(refused.status == 413, "\(refused)")
            #expect(server.documentsTree() == ["Empty", "Existing", "Existing/keep.txt"])

            // Refused midway (a chunked body runs past the limit) while another upload writes into
            // a folder the refused one made: that folder stays, and the other upload completes.
            let refusedLater = try await server.openUpload(base: base, "/Shared/Sub/big.bin", session: session)
            try await refusedLater.send(chunk: Array(repeating: 2, count: 100))
            #expect(await eventually { server.isWriting(in: "Shared/Sub") }, "the first upload writes into Shared/Sub")
            let other = try await server.openUpload(base: base, "/Shared/a.txt", session: session, length: 10)
            try await other.send(bytes: Array("first".utf8))
            #expect(await eventually { server.isWriting(in: "Shared") }, "the second upload writes into Shared")
            try await refusedLater.send(chunk: Array(repeating: 3, count: 2000))
            let tooLarge = try await refusedLater.response()
            #expect(tooLarge.status == 413, "\(tooLarge)")
            #expect(
                !FileManager.default.fileExists(atPath: server.documents("Shared/Sub")), "the refused one's own folder")
            try await other.send(bytes: Array(" half".utf8))
            let stored = try await other.response()
            #expect(stored.status == 201, "the other upload, in the folder kept: \(stored)")
            #expect(server.contents("Shared/a.txt") == "first half")

            // Cut off: the client goes away in the middle of the body.
            let cut = try await server.openUpload(base: base, "/Cut/deep/x.bin", session: session, length: 900)
            try await cut.send(bytes: Array(repeating: 4, count: 300))
            #expect(await eventually { server.isWriting(in: "Cut/deep") }, "the cut upload writes into Cut/deep")
            cut.connection.close(abortively: true)
            let removed = await eventually(timeout: .seconds(30)) {
                !FileManager.default.fileExists(atPath: server.documents("Cut"))
            }
            #expect(removed, "the folders of an upload cut off: \(server.documentsTree())")
            #expect(server.documentsTree() == ["Empty", "Existing", "Existing/keep.txt", "Shared", "Shared/a.txt"])
        }
    }
}

/// A page upload whose body is sent piece by piece on a connection of its own.
struct OpenUpload: Sendable {
    let connection: RawConnection

    /// Sends `bytes` of a body with a `Content-Length`.
    func send(bytes: [UInt8]) async throws {
        let connection = connection
        try await onOwnThread { try connection.send(bytes) }
    }

    /// Sends `bytes` as one chunk of a chunked body.
    func send(chunk: [UInt8]) async throws {
        try await send(bytes: Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8))
    }

    /// Waits for the response (the server answers once it refused or stored the upload).
    func response() async throws -> RawResponse {
        let connection = connection
        return try await onOwnThread { try connection.receiveResponse() }
    }
}

extension ShareServerProcess {
    /// Starts `PUT <base>api/upload?path=PATH` (`base`: the session's folder) with the session's
    /// headers and sends its head only: with `length`, a `Content-Length`; without, a chunked body.
    func openUpload(
        base: String, _ path: String, session: [(String, String)], length: Int? = nil
    ) async throws -> OpenUpload {
        let target =
            base + "api/upload?path=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path)
        var head = "PUT \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in session { head += "\(name): \(value)\r\n" }
        head += length.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        let bytes = Array((head + "\r\n").utf8)
        let port = port
        let connection = try await onOwnThread {
            let connection = try RawConnection(port: port)
            try connection.send(bytes)
            return connection
        }
        return OpenUpload(connection: connection)
    }

    /// Whether the server holds a file open in `Documents/relative` that has no name yet (an
    /// upload's unnamed temporary, `O_TMPFILE`): an upload in flight into that folder.
    func isWriting(in relative: String) -> Bool {
        let folder = documents(relative) + "/"
        // A server that has ended has no descriptors: no upload in flight.
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd")) ?? []
        return descriptors.contains { descriptor in
            // A descriptor closed meanwhile has no target: not one of an upload in flight.
            let link = "/proc/\(process.pid)/fd/\(descriptor)"
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) ?? ""
            return target.hasPrefix(folder) && !target.dropFirst(folder.count).contains("/")
                && target.hasSuffix("(deleted)")
        }
    }
}
