import Foundation
import Sandbox
import SandboxTransfer
import Synchronization

// The app of the background-download tests: attaches to a background session, optionally submits
// downloads, and prints one JSON line per event (flushed at once, so a test that SIGKILLs it
// reads every line it printed). Finished files are moved into Library/Caches under their
// suggested names, as the seed's apps do.
//
//   sandbox-background-app APP SESSION connect              print the daemon's pid, wait for didFinishEvents
//   sandbox-background-app APP SESSION submit URL... [--exit-after N] [--relaunch-script PATH] [--discretionary] [--no-wait]
//                          [--batch]   (--batch: all submitted at once with downloadTasks(with:))
//                          (--discretionary: the session's tasks are discretionary; --no-wait: they do not
//                          wait for connectivity)
//                          (--relaunch-script PATH: the daemon runs `/usr/bin/python3 PATH` confined when the
//                          events are ready, as `sandbox run` would; see ConfinedClient.relaunchScript)
//   sandbox-background-app APP SESSION attach [--exit-after N]   (N completions; 0: after didFinishEvents)
//   sandbox-background-app APP SESSION list                 print the unfinished tasks' identifiers
//   sandbox-background-app APP SESSION background URL...    submit, detach (the app "in the background"),
//                                                            wait until the daemon has no task, re-attach
//
// Lines with "kind" are the delegate's calls (what AppOutput.events lists); lines with "stream" are
// events the delegate has no method for, from the session's event stream: "retry", "resumed" and
// "progress" (with "bytes").

func emit(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

final class Delegate: BackgroundSessionDelegate {
    let completions = Mutex(0)
    let finishedEvents = Mutex(false)

    func backgroundSession(
        _ session: BackgroundSession, downloadTask: BackgroundTask, didFinishDownloadingTo location: DownloadedFile
    ) {
        do {
            let path = try location.move(to: .caches)
            emit([
                "kind": "finished", "task": downloadTask.taskIdentifier, "path": path.description,
                "staged": location.temporaryPath.description,
            ])
        } catch {
            emit(["kind": "finished", "task": downloadTask.taskIdentifier, "moveError": error.message])
        }
    }

    func backgroundSession(
        _ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: SandboxError?
    ) {
        emit(["kind": "completed", "task": task.taskIdentifier, "error": error?.code.description ?? ""])
        completions.withLock { $0 += 1 }
    }

    func backgroundSession(_ session: BackgroundSession, taskIsWaitingForConnectivity task: BackgroundTask) {
        emit(["kind": "waiting", "task": task.taskIdentifier])
    }

    func backgroundSessionDidFinishEvents(_ session: BackgroundSession) {
        emit(["kind": "didFinishEvents"])
        finishedEvents.withLock { $0 = true }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: sandbox-background-app APP SESSION COMMAND [ARGS]\n".utf8))
    exit(2)
}
let (app, sessionName, command) = (arguments[0], arguments[1], arguments[2])
var rest = Array(arguments.dropFirst(3))
var exitAfter: Int?
// --relaunch-script PATH: the daemon runs `/usr/bin/python3 PATH`, confined, when the events are ready.
var relaunchScript: String?
if let index = rest.firstIndex(of: "--relaunch-script"), index + 1 < rest.count {
    relaunchScript = rest[index + 1]
    rest.removeSubrange(index...index + 1)
}
let discretionary = rest.contains("--discretionary")
let waits = !rest.contains("--no-wait")
let batch = rest.contains("--batch")
rest.removeAll { ["--discretionary", "--no-wait", "--batch"].contains($0) }
if let index = rest.firstIndex(of: "--exit-after"), index + 1 < rest.count {
    exitAfter = Int(rest[index + 1])
    rest.removeSubrange(index...index + 1)
}

do {
    let home = try SandboxHome()
    let delegate = Delegate()
    var configuration = BackgroundConfiguration.background(identifier: sessionName)
    configuration.receivesEvents = command != "list"  // listing leaves the events queued for the app
    configuration.isDiscretionary = discretionary
    configuration.waitsForConnectivity = waits
    let session = try await BackgroundSession(
        configuration: configuration, app: AppIdentifier(app), in: home, delegate: delegate)
    let events = session.events
    // The delegate is the consumer; the stream reports what the delegate has no method for.
    Task {
        for await event in events {
            switch event {
            case .willRetry(let task, let attempt, _, let error):
                emit([
                    "stream": "retry", "task": task.taskIdentifier, "attempt": attempt, "error": error?.message ?? "",
                ])
            case .didWriteData(let task, let progress):
                emit(["stream": "progress", "task": task.taskIdentifier, "bytes": progress.totalBytesWritten])
            case .didResume(let task, let offset, _):
                emit(["stream": "resumed", "task": task.taskIdentifier, "offset": offset])
            default:
                break
            }
        }
    }
    switch command {
    case "connect":
        emit(["daemonPID": Int(session.daemonPID)])
        while !delegate.finishedEvents.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
    case "submit":
        if let relaunchScript {
            try await session.registerRelaunch(arguments: ["/usr/bin/python3", relaunchScript])
        }
        let addresses = try rest.map { url in
            guard let address = URL(string: url) else { throw SandboxError(.invalidURL, url) }
            return address
        }
        if batch {
            let tasks = try await session.downloadTasks(with: addresses.map { DownloadRequest(url: $0) })
            for (task, url) in zip(tasks, rest) { emit(["submitted": task.taskIdentifier, "url": url]) }
        } else {
            for (address, url) in zip(addresses, rest) {
                let task = try await session.downloadTask(with: address)
                emit(["submitted": task.taskIdentifier, "url": url])
            }
        }
        if let exitAfter {
            while delegate.completions.withLock({ $0 }) < exitAfter { try await Task.sleep(for: .milliseconds(5)) }
        } else {
            while true { try await Task.sleep(for: .seconds(1)) }  // until the test kills it
        }
    case "attach":
        let wanted = exitAfter ?? 0
        while !delegate.finishedEvents.withLock({ $0 }) || delegate.completions.withLock({ $0 }) < wanted {
            try await Task.sleep(for: .milliseconds(5))
        }
    case "background":
        for url in rest {
            guard let address = URL(string: url) else { throw SandboxError(.invalidURL, url) }
            let task = try await session.downloadTask(with: address)
            emit(["submitted": task.taskIdentifier, "url": url])
        }
        await session.detach()
        delegate.finishedEvents.withLock { $0 = false }
        emit(["detached": true])
        let paths = DaemonPaths(home: home)
        while try await DaemonStatus.query(paths: paths).activeTasks > 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let again = try await BackgroundSession(
            configuration: .background(identifier: sessionName), app: AppIdentifier(app), in: home, delegate: delegate)
        emit(["reattached": true])
        while !delegate.finishedEvents.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        await again.detach()
    case "list":
        let tasks = try await session.allTasks()
        emit(["tasks": tasks.map(\.taskIdentifier)])
    default:
        throw SandboxError(.invalidArgument, "unknown command '\(command)'")
    }
    await session.detach()
} catch let error as SandboxError {
    emit(["error": error.code.description, "message": error.message])
    exit(1)
} catch {
    emit(["error": "\(error)"])
    exit(1)
}
