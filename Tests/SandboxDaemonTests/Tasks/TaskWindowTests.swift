import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxDaemon
@testable import SandboxTransfer

/// The daemon keeps in memory the running tasks and a bounded window of the next ones (issue 31):
/// the others wait in its queue's rows, are listed from there, and can be cancelled there.
@Suite struct TaskWindowTests {
    /// 300 tasks against a server that never answers (8 run and hang): all 300 are active, at
    /// most ``SessionHost/window`` are in memory (there were 300: one task object, checkpoint
    /// record and scheduler entry each); a task waiting in the rows is cancelled (its row completes
    /// `cancelled`), one that does not exist is `not-found`.
    @Test func queuedTasksWaitInTheRowsNotInMemory() async throws {
        let server = try SilentServer()
        defer { server.close() }
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon()
            var configuration = BackgroundConfiguration.background(identifier: "window")
            configuration.daemonPaths = fixture.paths
            configuration.receivesEvents = false
            configuration.startsDaemon = false
            let session = try await BackgroundSession(
                configuration: configuration, app: AppIdentifier(DaemonFixture.app), in: fixture.home)
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/hang"))
            let count = 300
            let tasks = try await session.downloadTasks(with: (0..<count).map { _ in DownloadRequest(url: url) })
            #expect(tasks.map(\.taskIdentifier).sorted() == Array(1...count))
            let status = try await DaemonStatus.query(paths: fixture.paths)
            #expect(status.activeTasks == count)
            let resident = try #require(status.residentTasks)
            #expect(resident <= SessionHost.window && resident >= 8, "\(resident) tasks in memory")

            let target = try #require(tasks.first { $0.taskIdentifier == 200 })
            try await target.cancel()
            let listed = try await session.taskList()
            #expect(listed.count == count)
            let cancelled = listed.first { $0.taskIdentifier == 200 }
            #expect(cancelled?.state == .cancelled, "\(String(describing: cancelled))")
            #expect(listed.filter { $0.state == .waiting }.count >= count - SessionHost.window - 1)
            #expect(try await DaemonStatus.query(paths: fixture.paths).activeTasks == count - 1)
            let other = try await DaemonLauncher.connect(
                paths: fixture.paths,
                hello: ClientMessage.Hello(
                    app: DaemonFixture.app, session: "window", home: fixture.home.location, attach: false),
                startIfNeeded: false)
            defer { other.close() }
            let missing = await #expect(throws: SandboxError.self) {
                _ = try await other.request { .cancel(task: count + 5, id: $0) }
            }
            #expect(missing?.code == .notFound)
            await session.detach()
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: connections complete in the kernel's backlog
/// and a request sent on them is never answered.
private struct SilentServer {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 512) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw TestFailure("bind/listen: errno \(errno)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }
}
