import Foundation
import Glibc
import SandboxTesting
import SandboxTransferTesting
import Testing

/// The nginx folders a program left behind (it ended before ``NginxServer/stopAndRemoveFiles()``:
/// an error, `exit`, a signal) are removed by a later start, and only those: not one whose nginx
/// runs, nor one touched within ``NginxServer/abandonedAfter``, nor another program's folder.
@Suite struct NginxFolderTests {
    @Test func abandonedFoldersAreRemovedOthersKept() throws {
        try ScratchDirectory.with(prefix: "nginx-folders") { base in
            func folder(_ name: String, pid: pid_t? = nil) throws -> String {
                let path = base.appending(name)
                try FileManager.default.createDirectory(atPath: path + "/www", withIntermediateDirectories: true)
                try Data(count: 1024).write(to: URL(fileURLWithPath: path + "/www/large.bin"))
                try Data("log\n".utf8).write(to: URL(fileURLWithPath: path + "/access.log"))
                if let pid { try Data("\(pid)\n".utf8).write(to: URL(fileURLWithPath: path + "/nginx.pid")) }
                return path
            }
            let stopped = try folder("sandbox-nginx-stopped")
            let dead = try folder("sandbox-nginx-dead", pid: 999_999_999)
            let running = try folder("sandbox-nginx-running", pid: getpid())
            let other = try folder("sandbox-share-bench-x")
            let exists = { FileManager.default.fileExists(atPath: $0) }

            NginxServer.removeAbandonedFolders(in: base.path)  // all touched just now: kept
            #expect([stopped, dead, running, other].allSatisfy(exists))

            NginxServer.removeAbandonedFolders(
                in: base.path, now: Date().addingTimeInterval(NginxServer.abandonedAfter + 60))
            #expect(!exists(stopped) && !exists(dead), "abandoned: no pid file, or a dead one")
            #expect(exists(running) && exists(other), "an nginx that runs, and another program's folder")
        }
    }
}
