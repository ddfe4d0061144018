import Foundation
import Sandbox
import SandboxTransfer

extension FuzzTarget {
    /// A download session's checkpoint, `Library/Caches/com.sandbox.downloads/<session>/tasks/<id>.json`,
    /// read back as the next launch reads it: the input is put in its place and
    /// `DownloadSession.storedTasks(identifier:container:)` loads it.
    ///
    /// A damaged checkpoint is refused with `corrupt`, naming it, and left as it was; one that
    /// loads is one task of this session with a known state and non-negative counts.
    static let checkpoint = FuzzTarget(
        name: "checkpoint",
        prepare: { _ = ScratchHome.shared },
        run: { bytes in
            let scratch = ScratchHome.shared
            let root = scratch.container.root
            let path = checkpointPath
            scratch.place(bytes, at: path, in: root)
            let tasks: [DownloadTaskSummary]
            do throws(SandboxError) {
                tasks = try DownloadSession.storedTasks(identifier: "fuzz", container: scratch.container)
            } catch {
                expectRefusal(
                    code: error.code.description, among: ["corrupt"], message: error.message,
                    for: "DownloadSession.storedTasks")
                invariant(
                    error.message.contains(path.description), "the refusal does not name '\(path)': \(error.message)")
                invariant(scratch.contents(of: path, in: root) == bytes, "a refused checkpoint was changed")
                return
            }
            invariant(tasks.count == 1, "one checkpoint file loaded as \(tasks.count) tasks")
            // What a checkpoint can say: the states of a foreground session's stored tasks.
            let stored: [DownloadTaskSummary.State] = [
                .interrupted, .finishing, .completed, .paused, .cancelled, .failed,
            ]
            for task in tasks {
                invariant(
                    task.sessionIdentifier == "fuzz",
                    "a checkpoint of session 'fuzz' loaded as one of '\(task.sessionIdentifier)'")
                invariant(
                    task.bytesOnDisk >= 0 && (task.expectedLength ?? 0) >= 0,
                    "a checkpoint loaded with negative counts: \(task)")
                invariant(
                    stored.contains(task.state),
                    "a checkpoint loaded in the state '\(task.state)'")
            }
        },
        seeds: { [:] }  // real checkpoints, from a run of `sandbox download`, are checked in (FUZZING.md)
    )

    private static var checkpointPath: ContainerPath {
        do {
            return try DownloadSession.folder.appending("fuzz").appending("tasks").appending("1.json")
        } catch {
            fatalError("sandbox-fuzz: \(error)")
        }
    }
}
