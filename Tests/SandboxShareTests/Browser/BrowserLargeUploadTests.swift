import Foundation
import SandboxTesting
import Testing

/// A 1 GiB upload from the page (the file picker, XMLHttpRequest), against `curl -T` of the same
/// file to the same server, with the server's peak memory under 64 MiB.
@Suite(.serialized) struct BrowserLargeUploadTests {
    static let size = 1 << 30

    @Test(.enabled(if: SharePageScript.available && ExternalTool.available("curl")), .timeLimit(.minutes(15)))
    func aGibibyteFromThePageKeepsTheServerUnder64MiB() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser-large") { scratch in
                let source = scratch.appending("large.bin")
                try Self.makeSparse(source, size: Self.size)
                let before = try homeTree(server)

                let result = try await SharePageScript.run(.large, on: server, scratch: scratch, timeout: .seconds(800))
                guard result.ok, let pageSeconds = result.pageSeconds else { return }
                // The upload cancelled first left nothing; the second one is the only new file.
                let stored = server.documents("large.bin")
                let relative = String(stored.dropFirst(server.home.count + 1))  // homeTree is relative to the home
                let settled = await eventually(timeout: .seconds(30)) {
                    (try? homeTree(server)) == before.union([relative])  // unreadable for a moment: keep waiting
                }
                let left = try homeTree(server).symmetricDifference(before)
                #expect(settled, "the home after a cancelled and a whole upload: \(left)")
                let attributes = try FileManager.default.attributesOfItem(atPath: stored)
                #expect((attributes[.size] as? Int) == Self.size)
                let afterPage = try server.peakResidentBytes()
                #expect(
                    afterPage < LargeTransferTests.limit,
                    "server peak RSS after the page's 1 GiB upload: \(afterPage >> 20) MiB")

                try FileManager.default.removeItem(atPath: stored)
                let started = ContinuousClock.now
                let curl = try await ExternalTool.run(
                    "curl",
                    [
                        "-sS", "-u", "sandbox:\(server.code)", "-T", source, "-o", "/dev/null", "-w", "%{http_code}",
                        server.url("/large.bin"),
                    ], outputIn: scratch.path, timeout: .seconds(400))
                let curlSeconds = Self.seconds(ContinuousClock.now - started)
                #expect(curl.stdout == "201", "curl -T of 1 GiB: \(curl.stdout) \(curl.stderr)")
                let afterCurl = try server.peakResidentBytes()
                #expect(afterCurl < LargeTransferTests.limit, "server peak RSS after curl -T: \(afterCurl >> 20) MiB")

                let mebibytes = Double(Self.size) / Double(1 << 20)
                print(
                    String(
                        format: "1 GiB upload: page %.1f s (%.0f MiB/s), curl -T %.1f s (%.0f MiB/s); "
                            + "server VmHWM %d MiB after the page, %d MiB after curl; cancelled at %d %%",
                        pageSeconds, mebibytes / pageSeconds, curlSeconds, mebibytes / curlSeconds, afterPage >> 20,
                        afterCurl >> 20,
                        result.cancelledAtPercent ?? -1))
            }
        }
    }

    /// A file of `size` zero bytes that takes no space (a hole): the upload reads it like any other.
    static func makeSparse(_ path: String, size: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw TestFailure("cannot create \(path)") }
        defer { try? handle.close() }  // test scaffolding: a failed truncate is thrown below
        do { try handle.truncate(atOffset: UInt64(size)) } catch { throw TestFailure("truncate \(path): \(error)") }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
